-- Custom migration (contract §7): a fee rule written by anyone is a change of its channel (logged and
-- notified like every catalogue write, see 0001_change_triggers.sql); the audit trail is append-only.
CREATE TRIGGER fee_rules_log AFTER INSERT OR UPDATE OR DELETE ON fee_rules FOR EACH ROW EXECUTE FUNCTION gateway_log_change('channel', 'channel_id');
--> statement-breakpoint
CREATE FUNCTION gateway_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP;
END
$$;
--> statement-breakpoint
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION gateway_audit_append_only();
--> statement-breakpoint
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log FOR EACH STATEMENT EXECUTE FUNCTION gateway_audit_append_only();
