-- migrate:up

-- The approval records' filters (SUP-ADM-012) in any combination, without a pass over their
-- matches (sql/change-log-read.ts):
--
-- - Two or more categories together (operationType, targetType, fieldName, status): the page
--   walked one category's index and filtered the others (850,000 rows of REGISTRATION_APPLY and
--   status at a million suppliers: 73 ms). A category key is the four values of a row
--   (change_log_count's key, status '' for none), and a filter matches a set of keys, read from
--   change_log_count: few for two categories. change_log_key orders each key's rows in the list's
--   order, so the page is the first rows of each of its keys, merged; change_log_supplier_key does
--   the same within one supplier (14,000 rows for the busiest, 2 of them of fieldName=status).
-- - A time range (createTimeFrom, createTimeTo): its total counted every row in it (127,000 rows
--   in the last 30 days: 37 ms). change_log_day_count keeps, per UTC day and per UTC month, the
--   rows of each category key, so a range's total is the sum of its whole months and days, plus the
--   rows of the two partial days at its ends counted from an index. The filter compares the second
--   a row is shown at as UTC wall time (bounds are converted from the service's zone), so UTC
--   buckets split a range of any zone exactly.
--
-- A day count row is one of several shards of its key, kept by a statement trigger in the
-- transaction that appends the log, as change_log_count's: a writer adds to a shard no other
-- transaction holds (FOR UPDATE SKIP LOCKED) or inserts a new one, so it never waits here and the
-- lock order does not change. The log is append-only, so a count only grows.
--
-- The indexes read change_log whole while its writes wait: on a large log build them beforehand
-- with CREATE INDEX CONCURRENTLY under the same names and definitions (docs/operations.md), which
-- this migration then skips (IF NOT EXISTS). The day counts are filled by one pass over the log,
-- its writes waiting meanwhile.
CREATE INDEX IF NOT EXISTS change_log_key ON change_log USING btree (
  operation_type, field_name, target_type, coalesce(status, ''),
  date_trunc('second', create_time AT TIME ZONE 'UTC') DESC, change_log_id DESC)
  INCLUDE (create_time, status) WHERE supplier_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS change_log_supplier_key ON change_log USING btree (
  supplier_id, operation_type, field_name, target_type, coalesce(status, ''),
  date_trunc('second', create_time AT TIME ZONE 'UTC') DESC, change_log_id DESC)
  INCLUDE (create_time, status) WHERE supplier_id IS NOT NULL;

CREATE TABLE change_log_day_count (
  id bigint GENERATED ALWAYS AS IDENTITY (START WITH 9007199254740993) PRIMARY KEY,
  span text NOT NULL CHECK (span IN ('day', 'month')),
  -- The UTC day, or the first UTC day of the month.
  from_day date NOT NULL,
  operation_type text NOT NULL,
  target_type text NOT NULL,
  field_name text NOT NULL,
  status text NOT NULL DEFAULT '',
  n bigint NOT NULL
);
COMMENT ON TABLE change_log_day_count IS
  'change-log rows of a supplier per UTC day or month and category key, kept by a trigger; a total is sum(n) over the rows matching its filter (status '''' for none)';
-- n stays out of the index: adding to it is then a HOT update.
CREATE INDEX change_log_day_count_key ON change_log_day_count (
  span, from_day, operation_type, field_name, target_type, status);

CREATE FUNCTION change_log_day_count_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  FOR r IN
    SELECT s.span, s.from_day, a.operation_type, a.target_type, a.field_name,
           coalesce(a.status, '') AS status, count(*) AS n
    FROM added a,
         LATERAL (VALUES ('day', (a.create_time AT TIME ZONE 'UTC')::date),
                         ('month', date_trunc('month', a.create_time AT TIME ZONE 'UTC')::date))
           AS s (span, from_day)
    WHERE a.supplier_id IS NOT NULL
    GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6
  LOOP
    UPDATE change_log_day_count SET n = n + r.n
    WHERE id = (SELECT c.id FROM change_log_day_count c
                WHERE c.span = r.span AND c.from_day = r.from_day
                  AND c.operation_type = r.operation_type AND c.field_name = r.field_name
                  AND c.target_type = r.target_type AND c.status = r.status
                LIMIT 1 FOR UPDATE SKIP LOCKED);
    IF NOT FOUND THEN
      INSERT INTO change_log_day_count (span, from_day, operation_type, target_type, field_name, status, n)
      VALUES (r.span, r.from_day, r.operation_type, r.target_type, r.field_name, r.status, r.n);
    END IF;
  END LOOP;
  RETURN NULL;
END $$;
-- A plan PL/pgSQL keeps from a session's first calls on a small table would be a sequential scan,
-- kept as the table grows (see supplier_term_count_add): the shard lookup is the index's.
ALTER FUNCTION change_log_day_count_inserted() SET enable_seqscan = off;
CREATE TRIGGER change_log_day_count_insert AFTER INSERT ON change_log
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION change_log_day_count_inserted();

-- Recounts from the log (a pass over it) with its writes stopped: here for the rows already
-- there, and after a bulk load written with the triggers off (scripts/bench/seed.ts). One row per
-- key; the months are summed from the days.
CREATE FUNCTION change_log_day_count_rebuild() RETURNS void LANGUAGE sql AS $$
  LOCK TABLE change_log IN SHARE ROW EXCLUSIVE MODE;
  DELETE FROM change_log_day_count;
  INSERT INTO change_log_day_count (span, from_day, operation_type, target_type, field_name, status, n)
  SELECT 'day', (c.create_time AT TIME ZONE 'UTC')::date, c.operation_type, c.target_type,
         c.field_name, coalesce(c.status, ''), count(*)
  FROM change_log c WHERE c.supplier_id IS NOT NULL
  GROUP BY 2, 3, 4, 5, 6;
  INSERT INTO change_log_day_count (span, from_day, operation_type, target_type, field_name, status, n)
  SELECT 'month', date_trunc('month', d.from_day)::date, d.operation_type, d.target_type,
         d.field_name, d.status, sum(d.n)
  FROM change_log_day_count d WHERE d.span = 'day'
  GROUP BY 2, 3, 4, 5, 6;
$$;
SELECT change_log_day_count_rebuild();

-- migrate:down

DROP FUNCTION change_log_day_count_rebuild();
DROP TRIGGER change_log_day_count_insert ON change_log;
DROP FUNCTION change_log_day_count_inserted();
DROP TABLE change_log_day_count;
DROP INDEX change_log_supplier_key;
DROP INDEX change_log_key;
