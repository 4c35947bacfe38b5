-- Custom migration: flat fees written without an instant (the demo seed before it recorded one, rows older than
-- fee rules) carry the epoch as fee_set_at, so `fee list` showed them effective from 1970-01-01. They get the
-- instant their row was created instead, unless a rule of the same scope starts at or before that instant: moving
-- the flat fee after such a rule would change which one is in force, so that row keeps the epoch.
UPDATE `channels` SET `fee_set_at` = `created_at`
WHERE `fee_set_at` = '1970-01-01T00:00:00.000Z'
  AND NOT EXISTS (SELECT 1 FROM `fee_rules` r WHERE r.`channel_id` = `channels`.`id` AND r.`scope` = 'CHANNEL' AND r.`effective_from` <= `channels`.`created_at`);
--> statement-breakpoint
UPDATE `merchant_channels` SET `fee_set_at` = `created_at`
WHERE `fee_set_at` = '1970-01-01T00:00:00.000Z'
  AND NOT EXISTS (
    SELECT 1 FROM `fee_rules` r
    WHERE r.`channel_id` = `merchant_channels`.`channel_id` AND r.`scope` = 'MERCHANT'
      AND r.`merchant_id` = `merchant_channels`.`merchant_id` AND r.`effective_from` <= `merchant_channels`.`created_at`
  );
