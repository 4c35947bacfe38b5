-- Custom migration: every committed change appends to change_log and notifies listeners (src/db/schema.pg.ts).
-- The transaction-scoped advisory lock is taken BEFORE the sequence number, and held until commit, so
-- writers of change_log commit in sequence order: a reader that has seen seq N has seen every seq < N that
-- will ever commit (rolled-back numbers are gaps that stay empty). NOTIFY is delivered at commit only.
CREATE FUNCTION gateway_log_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  old_id text;
  new_id text;
BEGIN
  IF TG_OP <> 'INSERT' THEN old_id := to_jsonb(OLD) ->> TG_ARGV[1]; END IF;
  IF TG_OP <> 'DELETE' THEN new_id := to_jsonb(NEW) ->> TG_ARGV[1]; END IF;
  PERFORM pg_advisory_xact_lock(7245190211);
  IF new_id IS NOT NULL THEN
    INSERT INTO change_log (entity, entity_id) VALUES (TG_ARGV[0], new_id);
  END IF;
  IF old_id IS NOT NULL AND old_id IS DISTINCT FROM new_id THEN
    INSERT INTO change_log (entity, entity_id) VALUES (TG_ARGV[0], old_id);
  END IF;
  PERFORM pg_notify('gateway_changes', '');
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER merchants_log AFTER INSERT OR UPDATE OR DELETE ON merchants FOR EACH ROW EXECUTE FUNCTION gateway_log_change('merchant', 'id');
--> statement-breakpoint
CREATE TRIGGER api_keys_log AFTER INSERT OR UPDATE OR DELETE ON api_keys FOR EACH ROW EXECUTE FUNCTION gateway_log_change('merchant', 'merchant_id');
--> statement-breakpoint
CREATE TRIGGER merchant_channels_log AFTER INSERT OR UPDATE OR DELETE ON merchant_channels FOR EACH ROW EXECUTE FUNCTION gateway_log_change('merchant', 'merchant_id');
--> statement-breakpoint
CREATE TRIGGER channels_log AFTER INSERT OR UPDATE OR DELETE ON channels FOR EACH ROW EXECUTE FUNCTION gateway_log_change('channel', 'id');
--> statement-breakpoint
CREATE TRIGGER currencies_log AFTER INSERT OR UPDATE OR DELETE ON currencies FOR EACH ROW EXECUTE FUNCTION gateway_log_change('currency', 'code');
