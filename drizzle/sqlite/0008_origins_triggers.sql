-- Custom migration (contract §9): a merchant's allowed origins are part of the merchant entity, logged like its keys and enablements.
CREATE TRIGGER `merchant_origins_log_insert` AFTER INSERT ON `merchant_origins` BEGIN INSERT INTO `change_log` (`entity`, `entity_id`) VALUES ('merchant', NEW.`merchant_id`); END;
--> statement-breakpoint
CREATE TRIGGER `merchant_origins_log_update` AFTER UPDATE ON `merchant_origins` BEGIN INSERT INTO `change_log` (`entity`, `entity_id`) VALUES ('merchant', NEW.`merchant_id`); INSERT INTO `change_log` (`entity`, `entity_id`) SELECT 'merchant', OLD.`merchant_id` WHERE OLD.`merchant_id` IS NOT NEW.`merchant_id`; END;
--> statement-breakpoint
CREATE TRIGGER `merchant_origins_log_delete` AFTER DELETE ON `merchant_origins` BEGIN INSERT INTO `change_log` (`entity`, `entity_id`) VALUES ('merchant', OLD.`merchant_id`); END;
