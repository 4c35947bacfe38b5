-- Custom migration (contract §11): a quote signing key change (first key, rotation) is logged and notified as a
-- `quote_key` change, so every server's catalogue reloads the keys within the propagation bound
-- (see 0001_change_triggers.sql).
CREATE TRIGGER quote_keys_log AFTER INSERT OR UPDATE OR DELETE ON quote_keys FOR EACH ROW EXECUTE FUNCTION gateway_log_change('quote_key', 'id');
