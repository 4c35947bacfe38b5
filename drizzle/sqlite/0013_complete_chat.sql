ALTER TABLE `channels` ADD `instructions_id` text;--> statement-breakpoint
ALTER TABLE `channels` ADD `instructions_en` text;