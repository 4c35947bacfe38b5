ALTER TABLE `channels` ADD `channel_group` text DEFAULT 'ewallet' NOT NULL;--> statement-breakpoint
ALTER TABLE `channels` ADD `name_id` text;--> statement-breakpoint
ALTER TABLE `channels` ADD `name_en` text;--> statement-breakpoint
ALTER TABLE `merchants` ADD `channel_order` text;