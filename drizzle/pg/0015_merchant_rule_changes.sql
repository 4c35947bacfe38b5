-- Custom migration (contract §15): a merchant's own fee rule (scope MERCHANT) is a change of that merchant, not
-- of its channel, so a replica reloads that merchant's rows only; every other rule stays a change of its channel.
-- Same ordering guarantees as gateway_log_change (0001_change_triggers.sql).
CREATE FUNCTION gateway_log_fee_rule() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  old_entity text;
  old_id text;
  new_entity text;
  new_id text;
BEGIN
  IF TG_OP <> 'INSERT' THEN
    IF OLD.scope = 'MERCHANT' AND OLD.merchant_id IS NOT NULL THEN old_entity := 'merchant'; old_id := OLD.merchant_id;
    ELSE old_entity := 'channel'; old_id := OLD.channel_id; END IF;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    IF NEW.scope = 'MERCHANT' AND NEW.merchant_id IS NOT NULL THEN new_entity := 'merchant'; new_id := NEW.merchant_id;
    ELSE new_entity := 'channel'; new_id := NEW.channel_id; END IF;
  END IF;
  PERFORM pg_advisory_xact_lock(7245190211);
  IF new_id IS NOT NULL THEN
    INSERT INTO change_log (entity, entity_id) VALUES (new_entity, new_id);
  END IF;
  IF old_id IS NOT NULL AND (old_id IS DISTINCT FROM new_id OR old_entity IS DISTINCT FROM new_entity) THEN
    INSERT INTO change_log (entity, entity_id) VALUES (old_entity, old_id);
  END IF;
  PERFORM pg_notify('gateway_changes', '');
  RETURN NULL;
END
$$;
--> statement-breakpoint
DROP TRIGGER fee_rules_log ON fee_rules;
--> statement-breakpoint
CREATE TRIGGER fee_rules_log AFTER INSERT OR UPDATE OR DELETE ON fee_rules FOR EACH ROW EXECUTE FUNCTION gateway_log_fee_rule();
