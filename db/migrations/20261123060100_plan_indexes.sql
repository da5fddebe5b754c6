-- migrate:up

-- Indexes found missing by test/plans.test.ts (EXPLAIN of the statements the read paths send,
-- on 20 000 suppliers and their children): each plan below was a sequential scan of a large table.

-- Supplier list (SUP-ADM-001, supplierListPage) sorted by updateTime, fullName or supplierNo:
-- one index per whitelisted sort key, with the supplier_id tie-breaker of ORDER BY, so a page is
-- read from the index in order (forwards for ASC, backwards for DESC) and stops at LIMIT instead
-- of sorting every live supplier. (createTime is served by supplier_list_order.)
CREATE INDEX supplier_list_update_time ON supplier (update_time, supplier_id) WHERE deleted_at IS NULL;
CREATE INDEX supplier_list_full_name ON supplier (full_name, supplier_id) WHERE deleted_at IS NULL;
-- supplierNo sorts NULLS FIRST ascending and NULLS LAST descending (listOrder): both are this
-- index, read one way or the other.
CREATE INDEX supplier_list_supplier_no ON supplier (supplier_no NULLS FIRST, supplier_id) WHERE deleted_at IS NULL;

-- Statements that need every live supplier's id (and status), but no other column:
-- countSuppliers with a typeCode filter (a merge semi join with supplier_type_code_live) and
-- countExpiringQualifications (the join to live, non-archived suppliers). An index-only scan of
-- this narrow index reads a fraction of the table's pages.
CREATE INDEX supplier_live_status ON supplier (supplier_id) INCLUDE (status) WHERE deleted_at IS NULL;

-- migrate:down

DROP INDEX supplier_live_status;
DROP INDEX supplier_list_supplier_no;
DROP INDEX supplier_list_full_name;
DROP INDEX supplier_list_update_time;
