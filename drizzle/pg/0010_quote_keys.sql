CREATE TABLE "quote_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"state" text NOT NULL,
	"public_jwk" text NOT NULL,
	"private_key_ciphertext" text NOT NULL,
	"created_at" text DEFAULT (to_char(now() at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) NOT NULL,
	"retired_at" text,
	CONSTRAINT "quote_keys_state" CHECK ("quote_keys"."state" in ('signing', 'retired'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "quote_keys_one_signing" ON "quote_keys" USING btree ("state") WHERE "quote_keys"."state" = 'signing';