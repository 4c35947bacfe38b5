ALTER TABLE "channels" ADD COLUMN "instructions_id" text;--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "instructions_en" text;