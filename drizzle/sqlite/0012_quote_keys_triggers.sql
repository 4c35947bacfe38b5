-- Custom migration (contract §11): a quote signing key change (first key, rotation) is logged as a `quote_key`
-- change, so every server's catalogue reloads the keys within the propagation bound (see 0002_change_triggers.sql).
CREATE TRIGGER `quote_keys_log_insert` AFTER INSERT ON `quote_keys` BEGIN INSERT INTO `change_log` (`entity`, `entity_id`) VALUES ('quote_key', NEW.`id`); END;
--> statement-breakpoint
CREATE TRIGGER `quote_keys_log_update` AFTER UPDATE ON `quote_keys` BEGIN INSERT INTO `change_log` (`entity`, `entity_id`) VALUES ('quote_key', NEW.`id`); END;
--> statement-breakpoint
CREATE TRIGGER `quote_keys_log_delete` AFTER DELETE ON `quote_keys` BEGIN INSERT INTO `change_log` (`entity`, `entity_id`) VALUES ('quote_key', OLD.`id`); END;
