-- Custom migration: flat fees written without an instant (the demo seed before it recorded one, rows older than
-- fee rules) carry the epoch as fee_set_at, so `fee list` showed them effective from 1970-01-01. They get the
-- instant their row was created instead, unless a rule of the same scope starts at or before that instant: moving
-- the flat fee after such a rule would change which one is in force, so that row keeps the epoch.
UPDATE "channels" c SET "fee_set_at" = c."created_at"
WHERE c."fee_set_at" = '1970-01-01T00:00:00.000Z'
  AND NOT EXISTS (SELECT 1 FROM "fee_rules" r WHERE r."channel_id" = c."id" AND r."scope" = 'CHANNEL' AND r."effective_from" <= c."created_at");
--> statement-breakpoint
UPDATE "merchant_channels" m SET "fee_set_at" = m."created_at"
WHERE m."fee_set_at" = '1970-01-01T00:00:00.000Z'
  AND NOT EXISTS (
    SELECT 1 FROM "fee_rules" r
    WHERE r."channel_id" = m."channel_id" AND r."scope" = 'MERCHANT'
      AND r."merchant_id" = m."merchant_id" AND r."effective_from" <= m."created_at"
  );
