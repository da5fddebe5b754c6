-- migrate:up

-- The lists show createTime to the second and break ties by id: SUP-ADM-001 orders by createTime
-- DESC then supplierId DESC, SUP-ADM-012 by createTime DESC then changeLogId DESC. create_time
-- keeps its sub-seconds (DEFAULT now()), so ordering by the column put rows shown with the same
-- second in the order of their hidden fractions, and the id tie-break never applied to them (four
-- suppliers created in one second came back out of id order). The lists now order by the time as
-- shown: truncated to the second.
--
-- date_trunc of a timestamptz depends on the session's TimeZone (STABLE), which an index cannot
-- use, so the key truncates the UTC wall time: IMMUTABLE, and the same order as truncating in the
-- zone the time is shown in, since every zone's offset is a whole number of seconds. The queries
-- spell the key exactly so (secondOf in sql/db.ts). create_time is INCLUDEd because the planner
-- only reads an expression index alone (index-only) when the columns under the expression are in
-- it too; the supplier index also carries status, so a page filtered by status, and the ids of a
-- deep page, come from the index without touching the table.
--
-- Each index is built under a temporary name and renamed once the old one is gone, so plans and
-- monitoring keep the names they know. On a large table, build them beforehand with
-- CREATE INDEX CONCURRENTLY under the temporary names; these statements then only swap names.
CREATE INDEX IF NOT EXISTS supplier_list_order_second
  ON supplier (date_trunc('second', create_time AT TIME ZONE 'UTC') DESC, supplier_id DESC)
  INCLUDE (create_time, status) WHERE deleted_at IS NULL;
DROP INDEX supplier_list_order;
ALTER INDEX supplier_list_order_second RENAME TO supplier_list_order;

-- The change log's own rows without a supplier (qualification-rule changes) are never listed here
-- (change_log_rule serves them): the all-suppliers index leaves them out.
CREATE INDEX IF NOT EXISTS change_log_order_second
  ON change_log (date_trunc('second', create_time AT TIME ZONE 'UTC') DESC, change_log_id DESC)
  INCLUDE (create_time) WHERE supplier_id IS NOT NULL;
DROP INDEX change_log_order;
ALTER INDEX change_log_order_second RENAME TO change_log_order;

CREATE INDEX IF NOT EXISTS change_log_supplier_second
  ON change_log (supplier_id, date_trunc('second', create_time AT TIME ZONE 'UTC') DESC, change_log_id DESC)
  INCLUDE (create_time);
DROP INDEX change_log_supplier;
ALTER INDEX change_log_supplier_second RENAME TO change_log_supplier;

-- migrate:down

CREATE INDEX change_log_supplier_plain ON change_log (supplier_id, create_time DESC, change_log_id DESC);
DROP INDEX change_log_supplier;
ALTER INDEX change_log_supplier_plain RENAME TO change_log_supplier;

CREATE INDEX change_log_order_plain ON change_log (create_time DESC, change_log_id DESC);
DROP INDEX change_log_order;
ALTER INDEX change_log_order_plain RENAME TO change_log_order;

CREATE INDEX supplier_list_order_plain ON supplier (create_time DESC, supplier_id DESC) WHERE deleted_at IS NULL;
DROP INDEX supplier_list_order;
ALTER INDEX supplier_list_order_plain RENAME TO supplier_list_order;
