ALTER TABLE "fee_rules" ADD COLUMN "min_fee" text;--> statement-breakpoint
ALTER TABLE "fee_rules" ADD COLUMN "max_fee" text;--> statement-breakpoint
ALTER TABLE "fee_rules" ADD COLUMN "tax_percentage" text;--> statement-breakpoint
ALTER TABLE "fee_rules" ADD COLUMN "customer_share" text;