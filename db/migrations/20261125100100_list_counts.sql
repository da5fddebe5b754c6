-- migrate:up

-- Exact totals of the lists without counting every row (SUP-ADM-001 asks for an exact `total`,
-- and count(*) over a million live suppliers cost more than the page itself, on every request).
-- list_count holds the totals the lists' common filters ask for, kept by triggers in the same
-- transaction as the writes that change them: exact under concurrency (a reader sums the rows its
-- snapshot sees, which agree with the rows it counts), and nothing to repair after a crash (they
-- commit or vanish with the write). list_count_rebuild() recounts from the tables.
--
--   list 'supplier',   status S, type_code ''  live suppliers of status S
--   list 'supplier',   status S, type_code T   live suppliers of status S with a live type T
--   list 'change_log', status '', type_code '' change-log rows of a supplier (SUP-ADM-012's rows)
--
-- A total is the sum of n over its key's rows. A key has several rows so that concurrent writers
-- never wait for each other: a writer adds its change to a row of the key that no other
-- transaction holds (FOR UPDATE SKIP LOCKED), or, when every row of the key is held, inserts a new
-- one. Every registration would otherwise queue on the one DRAFT row until the previous one
-- committed, and two writers taking two keys in opposite orders could deadlock. A key ends up with
-- as many rows as writers ever changed it at once.
CREATE TABLE list_count (
  id bigint GENERATED ALWAYS AS IDENTITY (START WITH 9007199254740993) PRIMARY KEY,
  list text NOT NULL CHECK (list IN ('supplier', 'change_log')),
  status text NOT NULL DEFAULT '',
  type_code text NOT NULL DEFAULT '',
  n bigint NOT NULL
);
COMMENT ON TABLE list_count IS 'exact list totals kept by triggers; a total is sum(n) over its key (list, status, type_code)';
-- n stays out of the index: adding to it is then a HOT update.
CREATE INDEX list_count_key ON list_count (list, type_code, status);

CREATE FUNCTION list_count_add(p_list text, p_status text, p_type_code text, p_delta bigint)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF p_delta = 0 THEN RETURN; END IF;
  UPDATE list_count SET n = n + p_delta
  WHERE id = (SELECT c.id FROM list_count c
              WHERE c.list = p_list AND c.status = p_status AND c.type_code = p_type_code
              LIMIT 1 FOR UPDATE SKIP LOCKED);
  IF NOT FOUND THEN
    INSERT INTO list_count (list, status, type_code, n) VALUES (p_list, p_status, p_type_code, p_delta);
  END IF;
END $$;

-- Suppliers inserted: one statement may insert many (the bench seed), so the rows are counted per
-- status. A new supplier has no types yet (supplier_type references it).
CREATE FUNCTION supplier_count_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  FOR r IN SELECT a.status, count(*) AS n FROM added a WHERE a.deleted_at IS NULL
           GROUP BY a.status ORDER BY a.status LOOP
    PERFORM list_count_add('supplier', r.status, '', r.n);
  END LOOP;
  RETURN NULL;
END $$;
CREATE TRIGGER supplier_count_insert AFTER INSERT ON supplier
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION supplier_count_inserted();

-- A supplier's status changed or it was deleted (or undeleted): its own key and those of its live
-- types move. The types are read by a statement of their own, which at READ COMMITTED sees every
-- type committed so far; a type being added at this moment holds the supplier FOR SHARE (below),
-- so this update waited for it and sees it. A REPEATABLE READ transaction would read its types
-- from its older snapshot and could miss one: refused (every write of the service runs at READ
-- COMMITTED; under SERIALIZABLE the conflict is detected and one side is retried).
CREATE FUNCTION supplier_count_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  IF current_setting('transaction_isolation') = 'repeatable read' THEN
    RAISE EXCEPTION 'supplier status and deletion are written at READ COMMITTED or SERIALIZABLE: list_count reads the supplier''s types';
  END IF;
  FOR r IN
    SELECT k.status, k.type_code, sum(k.d) AS d FROM (
      SELECT OLD.status AS status, '' AS type_code, -1 AS d WHERE OLD.deleted_at IS NULL
      UNION ALL SELECT NEW.status, '', 1 WHERE NEW.deleted_at IS NULL
      UNION ALL SELECT OLD.status, t.type_code, -1 FROM supplier_type t
        WHERE OLD.deleted_at IS NULL AND t.supplier_id = OLD.supplier_id AND t.deleted_at IS NULL
      UNION ALL SELECT NEW.status, t.type_code, 1 FROM supplier_type t
        WHERE NEW.deleted_at IS NULL AND t.supplier_id = NEW.supplier_id AND t.deleted_at IS NULL
    ) k
    GROUP BY k.status, k.type_code HAVING sum(k.d) <> 0 ORDER BY k.type_code, k.status
  LOOP
    PERFORM list_count_add('supplier', r.status, r.type_code, r.d);
  END LOOP;
  RETURN NULL;
END $$;
CREATE TRIGGER supplier_count_update AFTER UPDATE OF status, deleted_at ON supplier FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR (OLD.deleted_at IS NULL) <> (NEW.deleted_at IS NULL))
  EXECUTE FUNCTION supplier_count_changed();

-- Types added: counted under their supplier's status if the supplier is live. The supplier is
-- locked FOR SHARE first, so a concurrent status change either committed before (and the status
-- read next is the new one) or waits until this transaction ends (and then counts this type).
CREATE FUNCTION supplier_type_count_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  PERFORM 1 FROM supplier s
  WHERE s.supplier_id IN (SELECT a.supplier_id FROM added a WHERE a.deleted_at IS NULL)
  ORDER BY s.supplier_id FOR SHARE;
  FOR r IN
    SELECT s.status, a.type_code, count(*) AS n
    FROM added a JOIN supplier s ON s.supplier_id = a.supplier_id AND s.deleted_at IS NULL
    WHERE a.deleted_at IS NULL
    GROUP BY s.status, a.type_code ORDER BY a.type_code, s.status
  LOOP
    PERFORM list_count_add('supplier', r.status, r.type_code, r.n);
  END LOOP;
  RETURN NULL;
END $$;
CREATE TRIGGER supplier_type_count_insert AFTER INSERT ON supplier_type
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION supplier_type_count_inserted();

-- A type removed (soft-deleted), restored, or rewritten: out of its old key, into its new one.
CREATE FUNCTION supplier_type_count_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE old_status text; new_status text;
BEGIN
  IF OLD.deleted_at IS NULL THEN
    SELECT s.status INTO old_status FROM supplier s
    WHERE s.supplier_id = OLD.supplier_id AND s.deleted_at IS NULL FOR SHARE;
  END IF;
  IF NEW.deleted_at IS NULL THEN
    SELECT s.status INTO new_status FROM supplier s
    WHERE s.supplier_id = NEW.supplier_id AND s.deleted_at IS NULL FOR SHARE;
  END IF;
  IF old_status IS NOT NULL THEN PERFORM list_count_add('supplier', old_status, OLD.type_code, -1); END IF;
  IF new_status IS NOT NULL THEN PERFORM list_count_add('supplier', new_status, NEW.type_code, 1); END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER supplier_type_count_update AFTER UPDATE OF deleted_at, type_code, supplier_id ON supplier_type
  FOR EACH ROW
  WHEN ((OLD.deleted_at IS NULL) <> (NEW.deleted_at IS NULL) OR OLD.type_code <> NEW.type_code
        OR OLD.supplier_id <> NEW.supplier_id)
  EXECUTE FUNCTION supplier_type_count_changed();

-- Change-log rows of a supplier (append-only: never updated or deleted).
CREATE FUNCTION change_log_count_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM list_count_add('change_log', '', '', (SELECT count(*) FROM added a WHERE a.supplier_id IS NOT NULL));
  RETURN NULL;
END $$;
CREATE TRIGGER change_log_count_insert AFTER INSERT ON change_log
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION change_log_count_inserted();

-- Recounts every total from the tables, and leaves one row per key. The tables are locked against
-- writes (SHARE) first, so the counts are those of a moment no write was in flight; readers go on.
CREATE FUNCTION list_count_rebuild() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  LOCK TABLE supplier, supplier_type, change_log, list_count IN SHARE ROW EXCLUSIVE MODE;
  DELETE FROM list_count;
  INSERT INTO list_count (list, status, type_code, n)
  SELECT 'supplier', s.status, '', count(*) FROM supplier s WHERE s.deleted_at IS NULL GROUP BY s.status
  UNION ALL
  SELECT 'supplier', s.status, t.type_code, count(*)
  FROM supplier_type t JOIN supplier s ON s.supplier_id = t.supplier_id AND s.deleted_at IS NULL
  WHERE t.deleted_at IS NULL GROUP BY s.status, t.type_code
  UNION ALL
  SELECT 'change_log', '', '', count(*) FROM change_log c WHERE c.supplier_id IS NOT NULL;
END $$;

-- TRUNCATE fires no row trigger: the totals are recounted.
CREATE FUNCTION list_count_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM list_count_rebuild();
  RETURN NULL;
END $$;
CREATE TRIGGER supplier_count_truncate AFTER TRUNCATE ON supplier
  FOR EACH STATEMENT EXECUTE FUNCTION list_count_truncated();
CREATE TRIGGER supplier_type_count_truncate AFTER TRUNCATE ON supplier_type
  FOR EACH STATEMENT EXECUTE FUNCTION list_count_truncated();

SELECT list_count_rebuild();

-- migrate:down

DROP TRIGGER supplier_type_count_truncate ON supplier_type;
DROP TRIGGER supplier_count_truncate ON supplier;
DROP FUNCTION list_count_truncated();
DROP FUNCTION list_count_rebuild();
DROP TRIGGER change_log_count_insert ON change_log;
DROP FUNCTION change_log_count_inserted();
DROP TRIGGER supplier_type_count_update ON supplier_type;
DROP FUNCTION supplier_type_count_changed();
DROP TRIGGER supplier_type_count_insert ON supplier_type;
DROP FUNCTION supplier_type_count_inserted();
DROP TRIGGER supplier_count_update ON supplier;
DROP FUNCTION supplier_count_changed();
DROP TRIGGER supplier_count_insert ON supplier;
DROP FUNCTION supplier_count_inserted();
DROP FUNCTION list_count_add(text, text, text, bigint);
DROP TABLE list_count;
