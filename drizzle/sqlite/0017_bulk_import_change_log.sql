CREATE TABLE `change_log_mute` (
	`id` integer PRIMARY KEY NOT NULL,
	`merchant_channels_insert` integer DEFAULT false NOT NULL,
	CONSTRAINT "change_log_mute_one_row" CHECK("change_log_mute"."id" = 1)
);
--> statement-breakpoint
-- Custom part (contract §15): the one row of change_log_mute (src/storage/sqlite/schema.ts says who sets it), and
-- the enablement insert trigger of 0002_change_triggers.sql, silent while that row is set; without the row it logs.
INSERT INTO `change_log_mute` (`id`, `merchant_channels_insert`) VALUES (1, false);
--> statement-breakpoint
DROP TRIGGER `merchant_channels_log_insert`;
--> statement-breakpoint
CREATE TRIGGER `merchant_channels_log_insert` AFTER INSERT ON `merchant_channels` WHEN NOT EXISTS (SELECT 1 FROM `change_log_mute` WHERE `merchant_channels_insert`) BEGIN INSERT INTO `change_log` (`entity`, `entity_id`) VALUES ('merchant', NEW.`merchant_id`); END;
