ALTER TABLE `fee_rules` ADD `min_fee` text;--> statement-breakpoint
ALTER TABLE `fee_rules` ADD `max_fee` text;--> statement-breakpoint
ALTER TABLE `fee_rules` ADD `tax_percentage` text;--> statement-breakpoint
ALTER TABLE `fee_rules` ADD `customer_share` text;