-- migrate:up

-- The list's keyword (SUP-ADM-001) served by an index whatever its length, and by any spelling of
-- the company (src/domain/supplier/search.ts). The trigram indexes cannot serve a keyword of one or
-- two characters (no complete trigram): most Chinese searches are two to four characters, and
-- such a keyword read the whole table. Neither pg_bigm nor PGroonga exists on the embedded engine.
--
-- supplier_search holds, per supplier, its names folded as the company-name machinery normalizes
-- them (simplified, half-width, lower case, invisible characters, spaces and marks dropped) and
-- its other spellings (the trade names' toneless pinyin and initials, a Latin name's distinctive
-- words run together), separated by U+001F. `terms` holds every character and every pair of
-- adjacent characters of each of those texts (search_grams), in a GIN index: a keyword of one
-- character is looked up as itself, a longer one as all its pairs (`terms @> pairs`), and its
-- candidates are rechecked with LIKE on the texts, so the answer is exact at any length.
--
-- A supplier's row is written by the statement that writes its names (sql/supplier.ts), so a
-- renamed supplier is never found under its old name, and a supplier number is among its terms. Suppliers written before this migration get
-- theirs from the service's online backfill (search.ts: small batches under a lease, while it
-- serves); until it ends, the keyword finds searchable suppliers only, and the log says so. Rows
-- are derived data: no deleted_at (readers join supplier and read live suppliers only). `version`
-- is the derivation's: the backfill rewrites rows of an older one.
CREATE FUNCTION search_grams(t text) RETURNS text[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(DISTINCT v.g), '{}')
  FROM unnest(string_to_array(t, chr(31))) AS p(part),
       LATERAL generate_series(1, char_length(p.part)) AS i,
       LATERAL (VALUES (substr(p.part, i, 1)),
                       (CASE WHEN i < char_length(p.part) THEN substr(p.part, i, 2) END)) AS v(g)
  WHERE v.g IS NOT NULL
$$;
COMMENT ON FUNCTION search_grams(text) IS
  'characters and pairs of adjacent characters of each U+001F-separated part: the keyword index''s terms';

CREATE FUNCTION supplier_no_fold(n text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT regexp_replace(lower(n), '[^a-z0-9]', '', 'g')
$$;

-- status, create_time, update_time, full_name and supplier_no mirror the supplier's (status NULL:
-- soft-deleted), kept by the triggers below in the statement that changes them, so that a keyword
-- is counted, filtered and ordered from its matches here alone, and supplier is read for the
-- page's rows only: a keyword matching a third of the suppliers joined to supplier read it whole.
-- The supplier number is drawn by SQL when a registration is applied, so its terms come from the
-- mirrored column, folded to letters and digits.
CREATE TABLE supplier_search (
  supplier_id bigint PRIMARY KEY REFERENCES supplier (supplier_id),
  full_fold text NOT NULL,
  short_fold text NOT NULL DEFAULT '',
  spellings text NOT NULL DEFAULT '',
  version smallint NOT NULL,
  status text,
  create_time timestamptz,
  update_time timestamptz,
  full_name text,
  supplier_no text,
  terms text[] GENERATED ALWAYS AS (search_grams(
    full_fold || chr(31) || short_fold || chr(31) || spellings || chr(31)
    || coalesce(supplier_no_fold(supplier_no), ''))) STORED
);
COMMENT ON TABLE supplier_search IS
  'folded names and other spellings of a supplier for the list keyword, with mirrored list columns; no row: not searchable yet';

-- fastupdate off: a search must not scan a pending list that grows with every registration.
CREATE INDEX supplier_search_terms ON supplier_search USING gin (terms) WITH (fastupdate = off);

-- The mirror. Inserted suppliers: their rows were written by the same statement (a CTE of it), or
-- come later from the backfill, which copies the columns itself. AFTER triggers run once the whole
-- statement, its CTEs included, has run, so they see the row the statement wrote.
CREATE FUNCTION supplier_search_mirror_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE supplier_search k
  SET status = CASE WHEN a.deleted_at IS NULL THEN a.status END, create_time = a.create_time,
      update_time = a.update_time, full_name = a.full_name, supplier_no = a.supplier_no
  FROM added a WHERE k.supplier_id = a.supplier_id;
  RETURN NULL;
END $$;
CREATE TRIGGER supplier_search_mirror_insert AFTER INSERT ON supplier
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION supplier_search_mirror_inserted();

CREATE FUNCTION supplier_search_mirror_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE supplier_search k
  SET status = CASE WHEN NEW.deleted_at IS NULL THEN NEW.status END,
      update_time = NEW.update_time, full_name = NEW.full_name, supplier_no = NEW.supplier_no
  WHERE k.supplier_id = NEW.supplier_id;
  RETURN NULL;
END $$;
CREATE TRIGGER supplier_search_mirror_update AFTER UPDATE ON supplier FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.deleted_at IS DISTINCT FROM NEW.deleted_at
        OR OLD.update_time IS DISTINCT FROM NEW.update_time OR OLD.full_name IS DISTINCT FROM NEW.full_name
        OR OLD.supplier_no IS DISTINCT FROM NEW.supplier_no)
  EXECUTE FUNCTION supplier_search_mirror_changed();

-- The change log's filters (SUP-ADM-012): each in the list's order, so a page of one filter walks
-- its own rows newest first instead of the whole log's order index, and a count reads its entries
-- only. supplierId and approvalLogId have theirs (change_log_supplier, change_log_approval).
CREATE INDEX IF NOT EXISTS change_log_operation ON change_log USING btree (
  operation_type, date_trunc('second', create_time AT TIME ZONE 'UTC') DESC, change_log_id DESC)
  INCLUDE (create_time) WHERE supplier_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS change_log_field ON change_log USING btree (
  field_name, date_trunc('second', create_time AT TIME ZONE 'UTC') DESC, change_log_id DESC)
  INCLUDE (create_time) WHERE supplier_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS change_log_target_type ON change_log USING btree (
  target_type, date_trunc('second', create_time AT TIME ZONE 'UTC') DESC, change_log_id DESC)
  INCLUDE (create_time) WHERE supplier_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS change_log_status ON change_log USING btree (
  status, date_trunc('second', create_time AT TIME ZONE 'UTC') DESC, change_log_id DESC)
  INCLUDE (create_time) WHERE supplier_id IS NOT NULL AND status IS NOT NULL;

-- The exact total of a filter on the change log's categories (operationType, targetType,
-- fieldName, status, and any combination of them) is read from change_log_count, kept by a trigger
-- in the transaction that appends the rows, the way list_count keeps the lists' totals: counting
-- them cost a pass over their entries (2 million rows of fieldName=status at a million
-- suppliers). A key has several rows so that concurrent writers never wait for each other (FOR
-- UPDATE SKIP LOCKED, or a new row); the log is append-only, so a count only grows. A filter with
-- a supplier, an approval or a time range is counted from its index.
CREATE TABLE change_log_count (
  id bigint GENERATED ALWAYS AS IDENTITY (START WITH 9007199254740993) PRIMARY KEY,
  operation_type text NOT NULL,
  target_type text NOT NULL,
  field_name text NOT NULL,
  status text NOT NULL DEFAULT '',
  n bigint NOT NULL
);
COMMENT ON TABLE change_log_count IS
  'exact change-log totals per category, kept by a trigger; a total is sum(n) over the rows matching its filter (status '''' for none)';
-- n stays out of the index: adding to it is then a HOT update.
CREATE INDEX change_log_count_key ON change_log_count (operation_type, target_type, field_name, status);

CREATE FUNCTION change_log_category_count_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  FOR r IN SELECT a.operation_type, a.target_type, a.field_name, coalesce(a.status, '') AS status,
                  count(*) AS n
           FROM added a WHERE a.supplier_id IS NOT NULL
           GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4 LOOP
    UPDATE change_log_count SET n = n + r.n
    WHERE id = (SELECT c.id FROM change_log_count c
                WHERE c.operation_type = r.operation_type AND c.target_type = r.target_type
                  AND c.field_name = r.field_name AND c.status = r.status
                LIMIT 1 FOR UPDATE SKIP LOCKED);
    IF NOT FOUND THEN
      INSERT INTO change_log_count (operation_type, target_type, field_name, status, n)
      VALUES (r.operation_type, r.target_type, r.field_name, r.status, r.n);
    END IF;
  END LOOP;
  RETURN NULL;
END $$;
CREATE TRIGGER change_log_category_count_insert AFTER INSERT ON change_log
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION change_log_category_count_inserted();

-- Recounts from the log (a pass over it): here for the rows already there, and after a bulk
-- load written with the triggers off (scripts/bench/seed.ts), as list_count_rebuild().
CREATE FUNCTION change_log_count_rebuild() RETURNS void LANGUAGE sql AS $$
  DELETE FROM change_log_count;
  INSERT INTO change_log_count (operation_type, target_type, field_name, status, n)
  SELECT c.operation_type, c.target_type, c.field_name, coalesce(c.status, ''), count(*)
  FROM change_log c WHERE c.supplier_id IS NOT NULL
  GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4;
$$;
SELECT change_log_count_rebuild();

-- migrate:down

DROP TRIGGER change_log_category_count_insert ON change_log;
DROP FUNCTION change_log_category_count_inserted();
DROP FUNCTION change_log_count_rebuild();
DROP TABLE change_log_count;

DROP INDEX change_log_status;
DROP INDEX change_log_target_type;
DROP INDEX change_log_field;
DROP INDEX change_log_operation;
DROP TRIGGER supplier_search_mirror_update ON supplier;
DROP TRIGGER supplier_search_mirror_insert ON supplier;
DROP FUNCTION supplier_search_mirror_changed();
DROP FUNCTION supplier_search_mirror_inserted();
DROP TABLE supplier_search;
DROP FUNCTION supplier_no_fold(text);
DROP FUNCTION search_grams(text);
