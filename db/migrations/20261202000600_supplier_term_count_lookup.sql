-- migrate:up

-- supplier_term_count_add finds a key's shard by supplier_term_count_key. PL/pgSQL keeps the plan
-- it made in a session's first calls: made while the table was empty (a new database, the first
-- backfill batch), that plan was a sequential scan, kept as the table grew to a row per term and
-- status, so each batch of the backfill read the whole table once per key (13 s for 2,000
-- suppliers at 38,000 keys). With sequential scans off inside the function the plan is the index
-- lookup from the first call, whatever the statistics say.
ALTER FUNCTION supplier_term_count_add(text, smallint, text, bigint) SET enable_seqscan = off;

-- migrate:down

ALTER FUNCTION supplier_term_count_add(text, smallint, text, bigint) RESET enable_seqscan;
