CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"mode" text NOT NULL,
	"secret_ciphertext" text NOT NULL,
	"created_at" text DEFAULT (to_char(now() at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) NOT NULL,
	"revoked_at" text,
	CONSTRAINT "api_keys_mode" CHECK ("api_keys"."mode" in ('test', 'live'))
);
--> statement-breakpoint
CREATE TABLE "change_log" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"entity" text NOT NULL,
	"entity_id" text NOT NULL,
	"at" text DEFAULT (to_char(now() at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) NOT NULL
);
--> statement-breakpoint
CREATE TABLE "channels" (
	"id" text PRIMARY KEY NOT NULL,
	"code" text NOT NULL,
	"name" text NOT NULL,
	"image_path" text NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"currency" text NOT NULL,
	"fee_percentage" text DEFAULT '0' NOT NULL,
	"fee_value" text DEFAULT '0' NOT NULL,
	"additional_fee_percentage" text DEFAULT '0' NOT NULL,
	"additional_fee_value" text DEFAULT '0' NOT NULL,
	"min_amount" text NOT NULL,
	"max_amount" text NOT NULL,
	"fee_charged_to_customer" boolean NOT NULL,
	"requires_kyc" boolean DEFAULT false NOT NULL,
	"sort_order" integer DEFAULT 0 NOT NULL,
	"created_at" text DEFAULT (to_char(now() at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) NOT NULL,
	"updated_at" text DEFAULT (to_char(now() at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) NOT NULL,
	CONSTRAINT "channels_code_unique" UNIQUE("code"),
	CONSTRAINT "channels_status" CHECK ("channels"."status" in ('active', 'offline', 'maintenance')),
	CONSTRAINT "channels_code_lower" CHECK ("channels"."code" = lower("channels"."code"))
);
--> statement-breakpoint
CREATE TABLE "currencies" (
	"code" text PRIMARY KEY NOT NULL,
	"minor_units" integer NOT NULL,
	CONSTRAINT "currencies_minor_units" CHECK ("currencies"."minor_units" between 0 and 4)
);
--> statement-breakpoint
CREATE TABLE "merchant_channels" (
	"merchant_id" text NOT NULL,
	"channel_id" text NOT NULL,
	"fee_percentage" text,
	"fee_value" text,
	"additional_fee_percentage" text,
	"additional_fee_value" text,
	"min_amount" text,
	"max_amount" text,
	"fee_charged_to_customer" boolean,
	"created_at" text DEFAULT (to_char(now() at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) NOT NULL,
	CONSTRAINT "merchant_channels_merchant_id_channel_id_pk" PRIMARY KEY("merchant_id","channel_id")
);
--> statement-breakpoint
CREATE TABLE "merchants" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"kyc_status" text DEFAULT 'pending' NOT NULL,
	"created_at" text DEFAULT (to_char(now() at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) NOT NULL,
	CONSTRAINT "merchants_kyc_status" CHECK ("merchants"."kyc_status" in ('approved', 'pending', 'rejected'))
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "channels" ADD CONSTRAINT "channels_currency_currencies_code_fk" FOREIGN KEY ("currency") REFERENCES "public"."currencies"("code") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "merchant_channels" ADD CONSTRAINT "merchant_channels_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "merchant_channels" ADD CONSTRAINT "merchant_channels_channel_id_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "api_keys_merchant_idx" ON "api_keys" USING btree ("merchant_id");--> statement-breakpoint
CREATE INDEX "merchant_channels_channel_idx" ON "merchant_channels" USING btree ("channel_id");