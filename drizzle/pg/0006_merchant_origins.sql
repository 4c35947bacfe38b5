CREATE TABLE "merchant_origins" (
	"merchant_id" text NOT NULL,
	"origin" text NOT NULL,
	"created_at" text DEFAULT (to_char(now() at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) NOT NULL,
	CONSTRAINT "merchant_origins_merchant_id_origin_pk" PRIMARY KEY("merchant_id","origin")
);
--> statement-breakpoint
ALTER TABLE "merchant_origins" ADD CONSTRAINT "merchant_origins_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE cascade ON UPDATE no action;