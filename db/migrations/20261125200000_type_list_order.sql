-- migrate:up

-- A page of one type's suppliers (SUP-ADM-001 with typeCode, in the default order) walked the
-- supplier order index and probed supplier_type for each entry until the page was full: HOTEL is
-- one supplier in fifteen, so page 1 probed about 1,500 suppliers, and a page of a rarer type
-- more. supplier_type now carries the time its supplier was created, and one index walks a type's
-- live rows in the list's order (the second shown, then the supplier id; see
-- 20261125100000_order_by_shown_second): a page reads its own entries and no others.
--
-- The copy cannot drift: a trigger fills it from the supplier on every insert (and on a move to
-- another supplier), whatever the writer sends, and supplier.create_time is refused any change.
--
-- It runs in its transaction, holding supplier_type exclusively (no list, detail or type change)
-- until it commits: at 1,350,000 type rows, 13.4 s for the UPDATE, 2.4 s for the index. On a
-- large table, do the two beforehand, online (README, Migrations): then this migration finds the
-- column filled and the index built, and only fills the rows written since.
ALTER TABLE supplier_type ADD COLUMN IF NOT EXISTS supplier_create_time timestamptz;
UPDATE supplier_type t SET supplier_create_time = s.create_time
FROM supplier s
WHERE s.supplier_id = t.supplier_id AND t.supplier_create_time IS DISTINCT FROM s.create_time;
ALTER TABLE supplier_type ALTER COLUMN supplier_create_time SET NOT NULL;
COMMENT ON COLUMN supplier_type.supplier_create_time IS
  'supplier.create_time of its supplier, set by trigger: the key of supplier_type_list_order';

CREATE FUNCTION supplier_type_copy_create_time() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Deleted suppliers included: the copy is of an immutable fact, not of a live row.
  NEW.supplier_create_time := (SELECT s.create_time FROM supplier s WHERE s.supplier_id = NEW.supplier_id);
  RETURN NEW;
END $$;
CREATE TRIGGER supplier_type_create_time BEFORE INSERT OR UPDATE OF supplier_id, supplier_create_time
  ON supplier_type FOR EACH ROW EXECUTE FUNCTION supplier_type_copy_create_time();

CREATE FUNCTION supplier_create_time_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'supplier.create_time never changes (supplier_type.supplier_create_time copies it)'
    USING ERRCODE = 'integrity_constraint_violation';
END $$;
CREATE TRIGGER supplier_create_time_fixed BEFORE UPDATE OF create_time ON supplier FOR EACH ROW
  WHEN (OLD.create_time IS DISTINCT FROM NEW.create_time) EXECUTE FUNCTION supplier_create_time_fixed();

CREATE INDEX IF NOT EXISTS supplier_type_list_order ON supplier_type
  (type_code, date_trunc('second', supplier_create_time AT TIME ZONE 'UTC') DESC, supplier_id DESC)
  INCLUDE (supplier_create_time) WHERE deleted_at IS NULL;

-- migrate:down

DROP INDEX supplier_type_list_order;
DROP TRIGGER supplier_create_time_fixed ON supplier;
DROP FUNCTION supplier_create_time_fixed();
DROP TRIGGER supplier_type_create_time ON supplier_type;
DROP FUNCTION supplier_type_copy_create_time();
ALTER TABLE supplier_type DROP COLUMN supplier_create_time;
