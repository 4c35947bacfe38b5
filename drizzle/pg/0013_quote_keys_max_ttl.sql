-- Each quote key records the longest QUOTE_TTL_SECONDS any server signed with it (raised before that server's
-- first signature), so a retired key stays published until its last quote has expired. Keys made before this
-- column are NULL: unknown, read as the largest TTL allowed (86,400 s).
ALTER TABLE "quote_keys" ADD COLUMN "max_ttl_seconds" integer;
