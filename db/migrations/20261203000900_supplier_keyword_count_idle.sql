-- migrate:up

-- The kept-keyword triggers (migration 20261202000700) exit before building their arrays of
-- changed rows when no keyword is kept: most databases keep none for a long time, and every write
-- of a supplier's names, status or number ran them. The test is the one the apply function makes,
-- a statement earlier in the same trigger: the keeper's wait covers any writer that did not see a
-- keyword, whichever of its statements looked.
CREATE OR REPLACE FUNCTION supplier_keyword_count_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM supplier_keyword) THEN
    RETURN NULL;
  END IF;
  PERFORM supplier_keyword_count_apply('{}', ARRAY(
    SELECT n::supplier_search FROM new_rows n WHERE n.status IS NOT NULL AND n.version >= 2));
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION supplier_keyword_count_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM supplier_keyword) THEN
    RETURN NULL;
  END IF;
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

CREATE OR REPLACE FUNCTION supplier_keyword_count_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM supplier_keyword) THEN
    RETURN NULL;
  END IF;
  PERFORM supplier_keyword_count_apply(ARRAY(
    SELECT o::supplier_search FROM old_rows o WHERE o.status IS NOT NULL AND o.version >= 2), '{}');
  RETURN NULL;
END $$;

-- migrate:down

CREATE OR REPLACE FUNCTION supplier_keyword_count_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM supplier_keyword_count_apply('{}', ARRAY(
    SELECT n::supplier_search FROM new_rows n WHERE n.status IS NOT NULL AND n.version >= 2));
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION supplier_keyword_count_updated() RETURNS trigger LANGUAGE plpgsql AS $$
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

CREATE OR REPLACE FUNCTION supplier_keyword_count_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM supplier_keyword_count_apply(ARRAY(
    SELECT o::supplier_search FROM old_rows o WHERE o.status IS NOT NULL AND o.version >= 2), '{}');
  RETURN NULL;
END $$;
