-- Custom migration (contract §15): change_log is written once per statement, not once per row. A statement
-- logs each entity it touched once (an id moved by an UPDATE logs both the old and the new), so a bulk import
-- or an UPDATE of 10,000 rows costs one trigger call, one advisory lock and one notification, and a merchant
-- inserted with its twelve enablements is two rows of the log, not thirteen. What replicas read is unchanged:
-- every entity written by a committed transaction has a change_log row in it, and rows commit in sequence
-- order (the transaction-scoped advisory lock is taken before the sequence numbers, as in 0001_change_triggers.sql).
-- A statement that changed no row logs nothing and takes no lock.
CREATE FUNCTION gateway_log_statement() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  source text;
  touched boolean;
BEGIN
  -- TG_ARGV[0]: the entity; TG_ARGV[1]: the column holding its id. new_rows / old_rows: the transition tables.
  IF TG_OP = 'INSERT' THEN source := format('SELECT %I::text AS id FROM new_rows', TG_ARGV[1]);
  ELSIF TG_OP = 'UPDATE' THEN source := format('SELECT %1$I::text AS id FROM new_rows UNION ALL SELECT %1$I::text FROM old_rows', TG_ARGV[1]);
  ELSE source := format('SELECT %I::text AS id FROM old_rows', TG_ARGV[1]);
  END IF;
  EXECUTE format('SELECT EXISTS (%s)', source) INTO touched;
  IF NOT touched THEN RETURN NULL; END IF;
  PERFORM pg_advisory_xact_lock(7245190211);
  EXECUTE format('INSERT INTO change_log (entity, entity_id) SELECT DISTINCT $1, id FROM (%s) AS changed WHERE id IS NOT NULL ORDER BY 2', source) USING TG_ARGV[0];
  PERFORM pg_notify('gateway_changes', '');
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- A fee rule of scope MERCHANT is a change of its merchant, every other rule one of its channel (as in
-- 0015_merchant_rule_changes.sql), logged per statement like the rest.
CREATE FUNCTION gateway_log_fee_rule_statement() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  source text;
  touched boolean;
BEGIN
  IF TG_OP = 'INSERT' THEN source := 'SELECT scope, merchant_id, channel_id FROM new_rows';
  ELSIF TG_OP = 'UPDATE' THEN source := 'SELECT scope, merchant_id, channel_id FROM new_rows UNION ALL SELECT scope, merchant_id, channel_id FROM old_rows';
  ELSE source := 'SELECT scope, merchant_id, channel_id FROM old_rows';
  END IF;
  EXECUTE format('SELECT EXISTS (%s)', source) INTO touched;
  IF NOT touched THEN RETURN NULL; END IF;
  PERFORM pg_advisory_xact_lock(7245190211);
  EXECUTE format(
    'INSERT INTO change_log (entity, entity_id) SELECT DISTINCT entity, id FROM ('
    'SELECT CASE WHEN scope = %1$L AND merchant_id IS NOT NULL THEN %2$L ELSE %3$L END AS entity, '
    'CASE WHEN scope = %1$L AND merchant_id IS NOT NULL THEN merchant_id ELSE channel_id END AS id FROM (%4$s) AS r'
    ') AS changed WHERE id IS NOT NULL ORDER BY 1, 2', 'MERCHANT', 'merchant', 'channel', source);
  PERFORM pg_notify('gateway_changes', '');
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- Each logged table: its per-row trigger replaced by one trigger per event, each seeing the statement's rows.
DO $$
DECLARE
  t record;
BEGIN
  FOR t IN SELECT * FROM (VALUES
    ('merchants', 'gateway_log_statement(''merchant'', ''id'')'),
    ('api_keys', 'gateway_log_statement(''merchant'', ''merchant_id'')'),
    ('merchant_channels', 'gateway_log_statement(''merchant'', ''merchant_id'')'),
    ('merchant_origins', 'gateway_log_statement(''merchant'', ''merchant_id'')'),
    ('channels', 'gateway_log_statement(''channel'', ''id'')'),
    ('currencies', 'gateway_log_statement(''currency'', ''code'')'),
    ('quote_keys', 'gateway_log_statement(''quote_key'', ''id'')'),
    ('fee_rules', 'gateway_log_fee_rule_statement()')
  ) AS v(tab, call) LOOP
    EXECUTE format('DROP TRIGGER %I ON %I', t.tab || '_log', t.tab);
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION %s', t.tab || '_log_insert', t.tab, t.call);
    EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION %s', t.tab || '_log_update', t.tab, t.call);
    EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION %s', t.tab || '_log_delete', t.tab, t.call);
  END LOOP;
END
$$;
--> statement-breakpoint
DROP FUNCTION gateway_log_change();
--> statement-breakpoint
DROP FUNCTION gateway_log_fee_rule();
