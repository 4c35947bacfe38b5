-- Custom migration (contract §15): a merchant's own fee rule (scope MERCHANT) is a change of that merchant, not
-- of its channel, so a replica reloads that merchant's rows only; every other rule stays a change of its channel.
DROP TRIGGER `fee_rules_log_insert`;
--> statement-breakpoint
DROP TRIGGER `fee_rules_log_update`;
--> statement-breakpoint
DROP TRIGGER `fee_rules_log_delete`;
--> statement-breakpoint
CREATE TRIGGER `fee_rules_log_insert` AFTER INSERT ON `fee_rules` BEGIN INSERT INTO `change_log` (`entity`, `entity_id`) SELECT CASE WHEN NEW.`scope` = 'MERCHANT' AND NEW.`merchant_id` IS NOT NULL THEN 'merchant' ELSE 'channel' END, CASE WHEN NEW.`scope` = 'MERCHANT' AND NEW.`merchant_id` IS NOT NULL THEN NEW.`merchant_id` ELSE NEW.`channel_id` END; END;
--> statement-breakpoint
CREATE TRIGGER `fee_rules_log_update` AFTER UPDATE ON `fee_rules` BEGIN INSERT INTO `change_log` (`entity`, `entity_id`) SELECT CASE WHEN NEW.`scope` = 'MERCHANT' AND NEW.`merchant_id` IS NOT NULL THEN 'merchant' ELSE 'channel' END, CASE WHEN NEW.`scope` = 'MERCHANT' AND NEW.`merchant_id` IS NOT NULL THEN NEW.`merchant_id` ELSE NEW.`channel_id` END; INSERT INTO `change_log` (`entity`, `entity_id`) SELECT CASE WHEN OLD.`scope` = 'MERCHANT' AND OLD.`merchant_id` IS NOT NULL THEN 'merchant' ELSE 'channel' END, CASE WHEN OLD.`scope` = 'MERCHANT' AND OLD.`merchant_id` IS NOT NULL THEN OLD.`merchant_id` ELSE OLD.`channel_id` END WHERE OLD.`channel_id` IS NOT NEW.`channel_id` OR OLD.`merchant_id` IS NOT NEW.`merchant_id` OR OLD.`scope` IS NOT NEW.`scope`; END;
--> statement-breakpoint
CREATE TRIGGER `fee_rules_log_delete` AFTER DELETE ON `fee_rules` BEGIN INSERT INTO `change_log` (`entity`, `entity_id`) SELECT CASE WHEN OLD.`scope` = 'MERCHANT' AND OLD.`merchant_id` IS NOT NULL THEN 'merchant' ELSE 'channel' END, CASE WHEN OLD.`scope` = 'MERCHANT' AND OLD.`merchant_id` IS NOT NULL THEN OLD.`merchant_id` ELSE OLD.`channel_id` END; END;
