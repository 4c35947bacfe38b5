CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`merchant_id` text NOT NULL,
	`mode` text NOT NULL,
	`secret_ciphertext` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`revoked_at` text,
	FOREIGN KEY (`merchant_id`) REFERENCES `merchants`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "api_keys_mode" CHECK("api_keys"."mode" in ('test', 'live'))
);
--> statement-breakpoint
CREATE INDEX `api_keys_merchant_idx` ON `api_keys` (`merchant_id`);--> statement-breakpoint
CREATE TABLE `channels` (
	`id` text PRIMARY KEY NOT NULL,
	`code` text NOT NULL,
	`name` text NOT NULL,
	`image_path` text NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`currency` text NOT NULL,
	`fee_percentage` text DEFAULT '0' NOT NULL,
	`fee_value` text DEFAULT '0' NOT NULL,
	`additional_fee_percentage` text DEFAULT '0' NOT NULL,
	`additional_fee_value` text DEFAULT '0' NOT NULL,
	`min_amount` text NOT NULL,
	`max_amount` text NOT NULL,
	`fee_charged_to_customer` integer NOT NULL,
	`requires_kyc` integer DEFAULT false NOT NULL,
	`sort_order` integer DEFAULT 0 NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`currency`) REFERENCES `currencies`(`code`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "channels_status" CHECK("channels"."status" in ('active', 'offline', 'maintenance')),
	CONSTRAINT "channels_code_lower" CHECK("channels"."code" = lower("channels"."code"))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `channels_code_unique` ON `channels` (`code`);--> statement-breakpoint
CREATE TABLE `currencies` (
	`code` text PRIMARY KEY NOT NULL,
	`minor_units` integer NOT NULL,
	CONSTRAINT "currencies_minor_units" CHECK("currencies"."minor_units" between 0 and 4)
);
--> statement-breakpoint
CREATE TABLE `merchant_channels` (
	`merchant_id` text NOT NULL,
	`channel_id` text NOT NULL,
	`fee_percentage` text,
	`fee_value` text,
	`additional_fee_percentage` text,
	`additional_fee_value` text,
	`min_amount` text,
	`max_amount` text,
	`fee_charged_to_customer` integer,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	PRIMARY KEY(`merchant_id`, `channel_id`),
	FOREIGN KEY (`merchant_id`) REFERENCES `merchants`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`channel_id`) REFERENCES `channels`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `merchant_channels_channel_idx` ON `merchant_channels` (`channel_id`);--> statement-breakpoint
CREATE TABLE `merchants` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`kyc_status` text DEFAULT 'pending' NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	CONSTRAINT "merchants_kyc_status" CHECK("merchants"."kyc_status" in ('approved', 'pending', 'rejected'))
);
