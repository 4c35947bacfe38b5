-- Custom migration (contract §12): every existing channel gets the group an Indonesian shopper expects
-- (the demo codes by name, bank virtual accounts by their `_va` suffix; anything else keeps the column's
-- default, e-wallet, until an operator runs `channel update CODE --group GROUP`), and the demo channels get
-- their Indonesian and English names. Only rows still at the defaults are touched, so an operator's own
-- values survive. The channel update triggers log the change, so running servers pick it up.
UPDATE channels SET channel_group = 'qris' WHERE code = 'qris' AND channel_group = 'ewallet';
--> statement-breakpoint
UPDATE channels SET channel_group = 'virtual_account' WHERE code LIKE '%!_va' ESCAPE '!' AND channel_group = 'ewallet';
--> statement-breakpoint
UPDATE channels SET channel_group = 'retail_outlet' WHERE code IN ('alfamart', 'indomaret', 'alfamidi', 'lawson') AND channel_group = 'ewallet';
--> statement-breakpoint
UPDATE channels SET channel_group = 'card' WHERE code IN ('credit_card', 'debit_card', 'card') AND channel_group = 'ewallet';
--> statement-breakpoint
UPDATE channels SET name_id = 'Kartu Kredit', name_en = 'Credit Card' WHERE code = 'credit_card' AND name_id IS NULL AND name_en IS NULL;
--> statement-breakpoint
UPDATE channels SET name_id = name, name_en = name WHERE code IN ('qris', 'bca_va', 'bni_va', 'bri_va', 'mandiri_va', 'permata_va', 'ovo', 'dana', 'shopeepay', 'alfamart', 'indomaret') AND name_id IS NULL AND name_en IS NULL;
