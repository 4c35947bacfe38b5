ALTER TABLE "channels" ADD COLUMN "channel_group" text DEFAULT 'ewallet' NOT NULL;--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "name_id" text;--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "name_en" text;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "channel_order" text;--> statement-breakpoint
ALTER TABLE "channels" ADD CONSTRAINT "channels_group" CHECK ("channels"."channel_group" in ('qris', 'virtual_account', 'ewallet', 'retail_outlet', 'card'));