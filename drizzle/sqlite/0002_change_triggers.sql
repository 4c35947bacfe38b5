-- Custom migration: every committed change appends to change_log (see src/db/schema.ts).
-- Written by triggers so that any writer (admin CLI, another server, an operator's SQL) is seen by every
-- server's in-memory catalogue. Updates that move a row to another entity log both.
CREATE TRIGGER `merchants_log_insert` AFTER INSERT ON `merchants` BEGIN INSERT INTO `change_log` (`entity`, `entity_id`) VALUES ('merchant', NEW.`id`); END;
--> statement-breakpoint
CREATE TRIGGER `merchants_log_update` AFTER UPDATE ON `merchants` BEGIN INSERT INTO `change_log` (`entity`, `entity_id`) VALUES ('merchant', NEW.`id`); INSERT INTO `change_log` (`entity`, `entity_id`) SELECT 'merchant', OLD.`id` WHERE OLD.`id` IS NOT NEW.`id`; END;
--> statement-breakpoint
CREATE TRIGGER `merchants_log_delete` AFTER DELETE ON `merchants` BEGIN INSERT INTO `change_log` (`entity`, `entity_id`) VALUES ('merchant', OLD.`id`); END;
--> statement-breakpoint
CREATE TRIGGER `api_keys_log_insert` AFTER INSERT ON `api_keys` BEGIN INSERT INTO `change_log` (`entity`, `entity_id`) VALUES ('merchant', NEW.`merchant_id`); END;
--> statement-breakpoint
CREATE TRIGGER `api_keys_log_update` AFTER UPDATE ON `api_keys` BEGIN INSERT INTO `change_log` (`entity`, `entity_id`) VALUES ('merchant', NEW.`merchant_id`); INSERT INTO `change_log` (`entity`, `entity_id`) SELECT 'merchant', OLD.`merchant_id` WHERE OLD.`merchant_id` IS NOT NEW.`merchant_id`; END;
--> statement-breakpoint
CREATE TRIGGER `api_keys_log_delete` AFTER DELETE ON `api_keys` BEGIN INSERT INTO `change_log` (`entity`, `entity_id`) VALUES ('merchant', OLD.`merchant_id`); END;
--> statement-breakpoint
CREATE TRIGGER `merchant_channels_log_insert` AFTER INSERT ON `merchant_channels` BEGIN INSERT INTO `change_log` (`entity`, `entity_id`) VALUES ('merchant', NEW.`merchant_id`); END;
--> statement-breakpoint
CREATE TRIGGER `merchant_channels_log_update` AFTER UPDATE ON `merchant_channels` BEGIN INSERT INTO `change_log` (`entity`, `entity_id`) VALUES ('merchant', NEW.`merchant_id`); INSERT INTO `change_log` (`entity`, `entity_id`) SELECT 'merchant', OLD.`merchant_id` WHERE OLD.`merchant_id` IS NOT NEW.`merchant_id`; END;
--> statement-breakpoint
CREATE TRIGGER `merchant_channels_log_delete` AFTER DELETE ON `merchant_channels` BEGIN INSERT INTO `change_log` (`entity`, `entity_id`) VALUES ('merchant', OLD.`merchant_id`); END;
--> statement-breakpoint
CREATE TRIGGER `channels_log_insert` AFTER INSERT ON `channels` BEGIN INSERT INTO `change_log` (`entity`, `entity_id`) VALUES ('channel', NEW.`id`); END;
--> statement-breakpoint
CREATE TRIGGER `channels_log_update` AFTER UPDATE ON `channels` BEGIN INSERT INTO `change_log` (`entity`, `entity_id`) VALUES ('channel', NEW.`id`); INSERT INTO `change_log` (`entity`, `entity_id`) SELECT 'channel', OLD.`id` WHERE OLD.`id` IS NOT NEW.`id`; END;
--> statement-breakpoint
CREATE TRIGGER `channels_log_delete` AFTER DELETE ON `channels` BEGIN INSERT INTO `change_log` (`entity`, `entity_id`) VALUES ('channel', OLD.`id`); END;
--> statement-breakpoint
CREATE TRIGGER `currencies_log_insert` AFTER INSERT ON `currencies` BEGIN INSERT INTO `change_log` (`entity`, `entity_id`) VALUES ('currency', NEW.`code`); END;
--> statement-breakpoint
CREATE TRIGGER `currencies_log_update` AFTER UPDATE ON `currencies` BEGIN INSERT INTO `change_log` (`entity`, `entity_id`) VALUES ('currency', NEW.`code`); INSERT INTO `change_log` (`entity`, `entity_id`) SELECT 'currency', OLD.`code` WHERE OLD.`code` IS NOT NEW.`code`; END;
--> statement-breakpoint
CREATE TRIGGER `currencies_log_delete` AFTER DELETE ON `currencies` BEGIN INSERT INTO `change_log` (`entity`, `entity_id`) VALUES ('currency', OLD.`code`); END;
