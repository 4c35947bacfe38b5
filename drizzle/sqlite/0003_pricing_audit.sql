CREATE TABLE `audit_log` (
	`id` text PRIMARY KEY NOT NULL,
	`at` text NOT NULL,
	`actor` text NOT NULL,
	`action` text NOT NULL,
	`entity` text NOT NULL,
	`before` text,
	`after` text
);
--> statement-breakpoint
CREATE INDEX `audit_log_entity_idx` ON `audit_log` (`entity`,`at`);--> statement-breakpoint
CREATE INDEX `audit_log_at_idx` ON `audit_log` (`at`);--> statement-breakpoint
CREATE TABLE `fee_rules` (
	`id` text PRIMARY KEY NOT NULL,
	`channel_id` text NOT NULL,
	`scope` text NOT NULL,
	`merchant_id` text,
	`category` text,
	`bands` text NOT NULL,
	`effective_from` text NOT NULL,
	`cancelled_at` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`channel_id`) REFERENCES `channels`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`merchant_id`) REFERENCES `merchants`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "fee_rules_scope" CHECK(("fee_rules"."scope" = 'CHANNEL' and "fee_rules"."merchant_id" is null and "fee_rules"."category" is null) or ("fee_rules"."scope" = 'CATEGORY' and "fee_rules"."merchant_id" is null and "fee_rules"."category" is not null) or ("fee_rules"."scope" = 'MERCHANT' and "fee_rules"."merchant_id" is not null and "fee_rules"."category" is null))
);
--> statement-breakpoint
CREATE INDEX `fee_rules_channel_idx` ON `fee_rules` (`channel_id`);--> statement-breakpoint
CREATE INDEX `fee_rules_merchant_idx` ON `fee_rules` (`merchant_id`);--> statement-breakpoint
ALTER TABLE `channels` ADD `fee_set_at` text DEFAULT '1970-01-01T00:00:00.000Z' NOT NULL;--> statement-breakpoint
ALTER TABLE `merchant_channels` ADD `fee_set_at` text DEFAULT '1970-01-01T00:00:00.000Z' NOT NULL;--> statement-breakpoint
ALTER TABLE `merchants` ADD `category` text DEFAULT 'regular' NOT NULL;