-- migrate:up

-- The near-duplicate check (395006) compared whole names by trigram similarity: most trigrams of a
-- Chinese company name are its region, industry and legal form, so it scored the boilerplate, and
-- its `%` prefilter drew every supplier sharing that boilerplate (the work grew with the data).
-- Each supplier now carries the keys of its company name (src/domain/supplier/company-name: the
-- trade name, its pinyin, its one-character variants, a Latin name's distinctive words), written
-- with its names in the same statement, and the check probes only the suppliers that share a key.
--
-- NULL means "not keyed yet": rows written before this migration are keyed by the service's online
-- backfill (src/domain/supplier/name-keys.ts), in small batches under a lease, while it serves;
-- until it ends the check sees the keyed suppliers only, and says so (log line and metric).
--
-- Both indexes are built here without a long lock on a large table: the column is added without a
-- default (no rewrite), the key index is partial on keyed rows (none yet: an empty build), and the
-- pending index holds ids only (at 1,000,000 suppliers about a second, writes waiting meanwhile).
ALTER TABLE supplier ADD COLUMN IF NOT EXISTS name_keys text[];
COMMENT ON COLUMN supplier.name_keys IS
  'company-name keys of full_name and short_name for the near-duplicate probe; NULL until keyed';

-- fastupdate off: a probe must not scan a pending list that grows with every registration.
CREATE INDEX IF NOT EXISTS supplier_name_keys ON supplier USING gin (name_keys)
  WITH (fastupdate = off) WHERE deleted_at IS NULL AND name_keys IS NOT NULL;
CREATE INDEX IF NOT EXISTS supplier_name_keys_pending ON supplier (supplier_id)
  WHERE deleted_at IS NULL AND name_keys IS NULL;

-- migrate:down

DROP INDEX supplier_name_keys_pending;
DROP INDEX supplier_name_keys;
ALTER TABLE supplier DROP COLUMN name_keys;
