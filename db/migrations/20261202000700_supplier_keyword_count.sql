-- migrate:up

-- A common keyword of three or more characters (SUP-ADM-001) without a pass over its matches. Its
-- terms are its pairs, so supplier_term_count cannot count it, and the terms index read and
-- rechecked every match (旅遊服務: 65,000 of a million suppliers, 334 ms). Such a keyword, once
-- its answer counted many matches, is kept (src/domain/supplier/kept-keywords.ts): its exact
-- total per status and source is then kept here like a term's, and sql/supplier-read.ts
-- (keptMatches) serves it as it serves one character.
--
-- supplier_keyword holds the kept keywords (folded, three characters or more), at most
-- KEPT_KEYWORDS of them (the least recently used leaves), so that a write tests a bounded number.
-- A keyword is 'building' from the moment the keeper commits it, and every writer's trigger that
-- sees it records deltas from then on; the keeper then waits until every transaction that could
-- have written without seeing it (an xid taken before) has ended, and in one REPEATABLE READ
-- snapshot stores base = (its matches counted) − (the deltas recorded): the sum of its rows is
-- then exact, and it is 'ready'. Readers ignore a keyword until it is ready. Writers run in READ
-- COMMITTED, where each statement of the trigger sees the keywords committed before it.
--
-- supplier_keyword_count rows are shards like supplier_term_count's: a writer adds to one it can
-- lock without waiting (FOR UPDATE SKIP LOCKED) or inserts one, so writers never wait for each
-- other or for the keeper here. No foreign key to supplier_keyword (its check would lock the
-- keyword's row against the keeper): the keeper deletes an evicted keyword's rows, and those a
-- writer added meanwhile at its next step.
CREATE TABLE supplier_keyword (
  keyword text PRIMARY KEY CHECK (char_length(keyword) >= 3),
  state text NOT NULL CHECK (state IN ('building', 'ready')),
  -- The keeper that is building it: only that one may make it ready.
  builder text,
  used_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE supplier_keyword IS
  'list keywords of three or more characters whose totals are kept in supplier_keyword_count (read once ready); derived, bounded, least recently used evicted';

CREATE TABLE supplier_keyword_count (
  id bigint GENERATED ALWAYS AS IDENTITY (START WITH 9007199254740993) PRIMARY KEY,
  keyword text NOT NULL,
  source smallint NOT NULL,
  status text NOT NULL,
  n bigint NOT NULL
);
COMMENT ON TABLE supplier_keyword_count IS
  'live suppliers per kept keyword, source (1 name, 2 other spelling) and status, kept by triggers on supplier_search; a total is sum(n) over a key''s rows';
-- n stays out of the index: adding to it is then a HOT update.
CREATE INDEX supplier_keyword_count_key ON supplier_keyword_count (keyword, status, source);

-- Where a row holds keyword k, as spellingMatches ranks it: 1 its folded full or short name
-- (`names`: full_fold, U+001F, short_fold), 2 only another spelling or the supplier number
-- (`others`: spellings, U+001F, supplier_no_fold), NULL none. A folded keyword is letters and
-- digits, so strpos is LIKE '%k%' and never spans two texts.
CREATE FUNCTION supplier_keyword_source(k text, names text, others text)
RETURNS smallint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN strpos(names, k) > 0 THEN 1::smallint WHEN strpos(others, k) > 0 THEN 2::smallint END
$$;

CREATE FUNCTION supplier_keyword_count_add(k_keyword text, k_source smallint, k_status text, d bigint)
RETURNS void LANGUAGE plpgsql SET enable_seqscan = off AS $$
BEGIN
  UPDATE supplier_keyword_count SET n = n + d
  WHERE id = (SELECT c.id FROM supplier_keyword_count c
              WHERE c.keyword = k_keyword AND c.status = k_status AND c.source = k_source
              LIMIT 1 FOR UPDATE SKIP LOCKED);
  IF NOT FOUND THEN
    INSERT INTO supplier_keyword_count (keyword, source, status, n)
    VALUES (k_keyword, k_source, k_status, d);
  END IF;
END $$;

-- Every kept keyword (building or ready) against the counted rows (live, version 2 or later, as
-- supplier_term_count's) a statement removed and wrote; each row's texts are joined once
-- (MATERIALIZED), not once per keyword. Keys in order, like every writer's.
CREATE FUNCTION supplier_keyword_count_apply(gone supplier_search[], came supplier_search[])
RETURNS void LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  IF cardinality(gone) + cardinality(came) = 0 OR NOT EXISTS (SELECT 1 FROM supplier_keyword) THEN
    RETURN;
  END IF;
  FOR r IN
    WITH delta AS MATERIALIZED (
      SELECT x.status, x.full_fold || chr(31) || x.short_fold AS names,
             x.spellings || chr(31) || coalesce(supplier_no_fold(x.supplier_no), '') AS others, x.d
      FROM (SELECT g.*, -1 AS d FROM unnest(gone) AS g
            UNION ALL
            SELECT c.*, 1 FROM unnest(came) AS c) x
    )
    SELECT k.keyword, m.source, x.status, sum(x.d) AS n
    FROM delta x CROSS JOIN supplier_keyword k,
         LATERAL (SELECT supplier_keyword_source(k.keyword, x.names, x.others) AS source) m
    WHERE m.source IS NOT NULL
    GROUP BY 1, 2, 3 HAVING sum(x.d) <> 0 ORDER BY 1, 2, 3
  LOOP
    PERFORM supplier_keyword_count_add(r.keyword, r.source, r.status, r.n);
  END LOOP;
END $$;

CREATE FUNCTION supplier_keyword_count_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM supplier_keyword_count_apply('{}', ARRAY(
    SELECT n::supplier_search FROM new_rows n WHERE n.status IS NOT NULL AND n.version >= 2));
  RETURN NULL;
END $$;
CREATE TRIGGER supplier_keyword_count_insert AFTER INSERT ON supplier_search
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION supplier_keyword_count_inserted();

-- Only the rows whose counted columns changed: the mirror's writes of update_time and the list
-- columns (every write of a supplier) test no keyword.
CREATE FUNCTION supplier_keyword_count_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM supplier_keyword_count_apply(
    ARRAY(SELECT o::supplier_search FROM old_rows o JOIN new_rows n ON n.supplier_id = o.supplier_id
          WHERE o.status IS NOT NULL AND o.version >= 2
            AND (o.full_fold, o.short_fold, o.spellings, o.supplier_no, o.status, o.version)
                IS DISTINCT FROM (n.full_fold, n.short_fold, n.spellings, n.supplier_no, n.status, n.version)),
    ARRAY(SELECT n::supplier_search FROM old_rows o JOIN new_rows n ON n.supplier_id = o.supplier_id
          WHERE n.status IS NOT NULL AND n.version >= 2
            AND (o.full_fold, o.short_fold, o.spellings, o.supplier_no, o.status, o.version)
                IS DISTINCT FROM (n.full_fold, n.short_fold, n.spellings, n.supplier_no, n.status, n.version)));
  RETURN NULL;
END $$;
CREATE TRIGGER supplier_keyword_count_update AFTER UPDATE ON supplier_search
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION supplier_keyword_count_updated();

CREATE FUNCTION supplier_keyword_count_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM supplier_keyword_count_apply(ARRAY(
    SELECT o::supplier_search FROM old_rows o WHERE o.status IS NOT NULL AND o.version >= 2), '{}');
  RETURN NULL;
END $$;
CREATE TRIGGER supplier_keyword_count_delete AFTER DELETE ON supplier_search
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION supplier_keyword_count_deleted();

-- migrate:down

DROP TRIGGER supplier_keyword_count_delete ON supplier_search;
DROP TRIGGER supplier_keyword_count_update ON supplier_search;
DROP TRIGGER supplier_keyword_count_insert ON supplier_search;
DROP FUNCTION supplier_keyword_count_deleted();
DROP FUNCTION supplier_keyword_count_updated();
DROP FUNCTION supplier_keyword_count_inserted();
DROP FUNCTION supplier_keyword_count_apply(supplier_search[], supplier_search[]);
DROP FUNCTION supplier_keyword_count_add(text, smallint, text, bigint);
DROP FUNCTION supplier_keyword_source(text, text, text);
DROP TABLE supplier_keyword_count;
DROP TABLE supplier_keyword;
