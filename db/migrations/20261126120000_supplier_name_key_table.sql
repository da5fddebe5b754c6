-- migrate:up

-- The company-name keys move from a column of supplier (20261126000100) to a table of their own.
-- Writing supplier.name_keys was never a HOT update (the column is indexed), so keying one
-- existing supplier wrote a new version of its row and an entry in each of supplier's indexes,
-- the three trigram indexes among them: the online backfill measured about 40 suppliers a second,
-- days at a million. Here keying a supplier inserts one narrow row and its GIN entries, and
-- supplier's own rows and indexes are not touched. A write that sets a name still writes its keys
-- in the same statement (sql/supplier.ts), so a renamed supplier is never found under its old
-- name.
--
-- A supplier without a row here is "not keyed yet": the service's backfill keys those in the
-- background (src/domain/supplier/name-keys.ts), and the check sees keyed suppliers only until
-- it ends, and says so. Keys are derived data: no deleted_at (the probe joins supplier and reads
-- live suppliers only), no history.
CREATE TABLE supplier_name_key (
  supplier_id bigint PRIMARY KEY REFERENCES supplier (supplier_id),
  keys text[] NOT NULL
);
COMMENT ON TABLE supplier_name_key IS
  'company-name keys of a supplier''s full_name and short_name for the near-duplicate probe (395006); no row: not keyed yet';

-- fastupdate off: a probe must not scan a pending list that grows with every registration.
CREATE INDEX supplier_name_key_keys ON supplier_name_key USING gin (keys) WITH (fastupdate = off);

-- What the column held is not copied: each reading of a name is now filed by its own places (a
-- placeless second reading filed every key of the name as placeless, so probes read suppliers
-- across the country). The backfill keys every supplier again. Any later change to how keys are
-- made does the same: a migration empties this table, and the backfill re-keys.

-- Dropping a column rewrites nothing: its space is reclaimed as rows are next written.
DROP INDEX supplier_name_keys_pending;
DROP INDEX supplier_name_keys;
ALTER TABLE supplier DROP COLUMN name_keys;

-- migrate:down

ALTER TABLE supplier ADD COLUMN name_keys text[];
COMMENT ON COLUMN supplier.name_keys IS
  'company-name keys of full_name and short_name for the near-duplicate probe; NULL until keyed';
UPDATE supplier s SET name_keys = k.keys FROM supplier_name_key k
WHERE k.supplier_id = s.supplier_id AND s.deleted_at IS NULL;
CREATE INDEX supplier_name_keys ON supplier USING gin (name_keys)
  WITH (fastupdate = off) WHERE deleted_at IS NULL AND name_keys IS NOT NULL;
CREATE INDEX supplier_name_keys_pending ON supplier (supplier_id)
  WHERE deleted_at IS NULL AND name_keys IS NULL;
DROP TABLE supplier_name_key;
