-- migrate:up

-- The list's keyword of one or two characters (SUP-ADM-001) without a pass over its matches. Such
-- a keyword is one index term of supplier_search (search_grams: every character and every pair),
-- and a common one (旅, 杭州) matches hundreds of thousands of suppliers: counting and ranking
-- them from supplier_search_terms read and rechecked every match (1.7 s for a third of a million
-- suppliers). Instead (sql/supplier-read.ts, keptMatches):
--
-- - its exact total is the sum of its rows in supplier_term_count, kept by the triggers below in
--   the transaction that writes supplier_search, per term, source (1: a folded full or short name
--   holds it, 2: only another spelling or the supplier number does) and status: a status filter
--   reads its own rows;
-- - its page walks supplier_search in the list's default order (supplier_search_list_order) and
--   keeps the rows of the rank being read (1: a name contains it, 2: another spelling does); the
--   rank-0 names equal to it come first from supplier_search_full_fold / _short_fold. The walk
--   reads about (offset + pageSize) × suppliers ÷ matches rows, so it serves common keywords; a
--   keyword for which that is more than its matches, another order or a type filter keeps the
--   terms index, as does a keyword of three or more characters (several terms).
--
-- A count row is one of several shards of its key, like change_log_count's: a writer adds to one
-- it can lock without waiting (FOR UPDATE SKIP LOCKED) or inserts a new one, so writers of
-- supplier_search never wait for each other here and no lock order changes. A row counts when it
-- is live (status mirrored, not NULL) and of derivation version 2 or later: the service's
-- SEARCH_VERSION is 2 from this migration on, so its online search backfill
-- (src/domain/supplier/search.ts, batches under a lease while it serves) rewrites every row of
-- version 1 and the trigger counts it then. Until no live row of version 1 is left
-- (supplier_search_uncounted is empty) the service does not read the counts and keeps the terms
-- index. Nothing here rewrites supplier_search: the statements below are the new table, the
-- triggers, and four indexes on supplier_search (seconds at a million suppliers, blocking its
-- writes meanwhile); a DBA may build the indexes beforehand with CREATE INDEX CONCURRENTLY under
-- the same names and definitions, which this migration then skips (IF NOT EXISTS).
CREATE TABLE supplier_term_count (
  id bigint GENERATED ALWAYS AS IDENTITY (START WITH 9007199254740993) PRIMARY KEY,
  term text NOT NULL,
  source smallint NOT NULL,
  status text NOT NULL,
  n bigint NOT NULL
);
COMMENT ON TABLE supplier_term_count IS
  'live suppliers per keyword term, source (1 name, 2 other spelling) and status, kept by triggers on supplier_search; a total is sum(n) over a key''s rows';
-- n stays out of the index: adding to it is then a HOT update.
CREATE INDEX supplier_term_count_key ON supplier_term_count (term, status, source);

-- The terms of one supplier_search row, each once, with the best source that holds it.
CREATE FUNCTION supplier_search_postings(full_fold text, short_fold text, spellings text, supplier_no text)
RETURNS TABLE (term text, source smallint) LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  WITH names AS (SELECT search_grams(full_fold || chr(31) || short_fold) AS g)
  SELECT t, 1::smallint FROM names, unnest(names.g) AS t
  UNION ALL
  SELECT t, 2::smallint FROM names,
         unnest(search_grams(spellings || chr(31) || coalesce(supplier_no_fold(supplier_no), ''))) AS t
  WHERE t <> ALL (names.g)
$$;

CREATE FUNCTION supplier_term_count_add(k_term text, k_source smallint, k_status text, d bigint)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  UPDATE supplier_term_count SET n = n + d
  WHERE id = (SELECT c.id FROM supplier_term_count c
              WHERE c.term = k_term AND c.status = k_status AND c.source = k_source
              LIMIT 1 FOR UPDATE SKIP LOCKED);
  IF NOT FOUND THEN
    INSERT INTO supplier_term_count (term, source, status, n) VALUES (k_term, k_source, k_status, d);
  END IF;
END $$;

-- The rows a statement removed (gone) and wrote (came): rows that do not count (deleted, or of
-- version 1) add nothing, and an update that changes no counted column nets to zero and writes
-- nothing. Keys in order, like every writer's.
CREATE FUNCTION supplier_term_count_apply(gone supplier_search[], came supplier_search[])
RETURNS void LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  FOR r IN
    WITH delta AS (
      SELECT x.*, -1 AS d FROM unnest(gone) AS x
      UNION ALL
      SELECT x.*, 1 FROM unnest(came) AS x
    )
    SELECT p.term, p.source, x.status, sum(x.d) AS n
    FROM delta x, LATERAL supplier_search_postings(x.full_fold, x.short_fold, x.spellings, x.supplier_no) p
    WHERE x.status IS NOT NULL AND x.version >= 2
    GROUP BY 1, 2, 3 HAVING sum(x.d) <> 0 ORDER BY 1, 2, 3
  LOOP
    PERFORM supplier_term_count_add(r.term, r.source, r.status, r.n);
  END LOOP;
END $$;

CREATE FUNCTION supplier_term_count_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM supplier_term_count_apply('{}', ARRAY(SELECT n::supplier_search FROM new_rows n));
  RETURN NULL;
END $$;
CREATE TRIGGER supplier_term_count_insert AFTER INSERT ON supplier_search
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION supplier_term_count_inserted();

CREATE FUNCTION supplier_term_count_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM supplier_term_count_apply(ARRAY(SELECT o::supplier_search FROM old_rows o), ARRAY(SELECT n::supplier_search FROM new_rows n));
  RETURN NULL;
END $$;
CREATE TRIGGER supplier_term_count_update AFTER UPDATE ON supplier_search
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION supplier_term_count_updated();

CREATE FUNCTION supplier_term_count_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM supplier_term_count_apply(ARRAY(SELECT o::supplier_search FROM old_rows o), '{}');
  RETURN NULL;
END $$;
CREATE TRIGGER supplier_term_count_delete AFTER DELETE ON supplier_search
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION supplier_term_count_deleted();

-- Recounts from supplier_search (a pass over it), with its writes stopped: after a bulk load
-- written with the triggers off, or to check the kept counts (test/supplier-search.test.ts).
CREATE FUNCTION supplier_term_count_rebuild() RETURNS void LANGUAGE sql AS $$
  DELETE FROM supplier_term_count;
  INSERT INTO supplier_term_count (term, source, status, n)
  SELECT p.term, p.source, k.status, count(*)
  FROM supplier_search k, LATERAL supplier_search_postings(k.full_fold, k.short_fold, k.spellings, k.supplier_no) p
  WHERE k.status IS NOT NULL AND k.version >= 2
  GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;
$$;

-- The live rows not counted yet: empty once the backfill has rewritten them all, and then the
-- counts are read.
CREATE INDEX IF NOT EXISTS supplier_search_uncounted ON supplier_search (supplier_id)
  WHERE version < 2 AND status IS NOT NULL;
-- The walk of a common keyword's page, in the list's default order (sql/db.ts secondOf).
CREATE INDEX IF NOT EXISTS supplier_search_list_order ON supplier_search (
  date_trunc('second', create_time AT TIME ZONE 'UTC') DESC, supplier_id DESC)
  WHERE status IS NOT NULL;
-- Rank 0: the names equal to the keyword.
CREATE INDEX IF NOT EXISTS supplier_search_full_fold ON supplier_search (full_fold)
  WHERE status IS NOT NULL;
CREATE INDEX IF NOT EXISTS supplier_search_short_fold ON supplier_search (short_fold)
  WHERE status IS NOT NULL AND short_fold <> '';

-- migrate:down

DROP INDEX supplier_search_short_fold;
DROP INDEX supplier_search_full_fold;
DROP INDEX supplier_search_list_order;
DROP INDEX supplier_search_uncounted;
DROP FUNCTION supplier_term_count_rebuild();
DROP TRIGGER supplier_term_count_delete ON supplier_search;
DROP TRIGGER supplier_term_count_update ON supplier_search;
DROP TRIGGER supplier_term_count_insert ON supplier_search;
DROP FUNCTION supplier_term_count_deleted();
DROP FUNCTION supplier_term_count_updated();
DROP FUNCTION supplier_term_count_inserted();
DROP FUNCTION supplier_term_count_apply(supplier_search[], supplier_search[]);
DROP FUNCTION supplier_term_count_add(text, smallint, text, bigint);
DROP FUNCTION supplier_search_postings(text, text, text, text);
DROP TABLE supplier_term_count;
