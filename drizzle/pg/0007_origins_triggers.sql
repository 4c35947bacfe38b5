-- Custom migration (contract §9): a merchant's allowed origins are part of the merchant entity, logged and
-- notified like its keys and enablements (see 0001_change_triggers.sql).
CREATE TRIGGER merchant_origins_log AFTER INSERT OR UPDATE OR DELETE ON merchant_origins FOR EACH ROW EXECUTE FUNCTION gateway_log_change('merchant', 'merchant_id');
