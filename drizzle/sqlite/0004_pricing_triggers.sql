-- Custom migration (contract §7): a fee rule written by anyone is a change of its channel, so every
-- server reloads that channel's rules (src/db/catalog.ts); the audit trail is append-only.
CREATE TRIGGER `fee_rules_log_insert` AFTER INSERT ON `fee_rules` BEGIN INSERT INTO `change_log` (`entity`, `entity_id`) VALUES ('channel', NEW.`channel_id`); END;
--> statement-breakpoint
CREATE TRIGGER `fee_rules_log_update` AFTER UPDATE ON `fee_rules` BEGIN INSERT INTO `change_log` (`entity`, `entity_id`) VALUES ('channel', NEW.`channel_id`); INSERT INTO `change_log` (`entity`, `entity_id`) SELECT 'channel', OLD.`channel_id` WHERE OLD.`channel_id` IS NOT NEW.`channel_id`; END;
--> statement-breakpoint
CREATE TRIGGER `fee_rules_log_delete` AFTER DELETE ON `fee_rules` BEGIN INSERT INTO `change_log` (`entity`, `entity_id`) VALUES ('channel', OLD.`channel_id`); END;
--> statement-breakpoint
CREATE TRIGGER `audit_log_no_update` BEFORE UPDATE ON `audit_log` BEGIN SELECT RAISE(ABORT, 'audit_log is append-only: records cannot be changed'); END;
--> statement-breakpoint
CREATE TRIGGER `audit_log_no_delete` BEFORE DELETE ON `audit_log` BEGIN SELECT RAISE(ABORT, 'audit_log is append-only: records cannot be deleted'); END;
