-- migrate:up

-- A supplier number, or a part of one, in the list's keyword (SUP-ADM-001) without the terms
-- index. Every number SQL draws is 'SP', a date and a sequence number (sql/supplier.ts): folded,
-- `sp` and digits. Their pairs (`sp`, `p2`, `20`, `26` …) are in most rows' terms, so
-- `terms @> pairs` read the posting lists of nearly every row for one number (32 ms at a million
-- suppliers). Instead (sql/supplier-read.ts, numberMatches), a keyword holding a digit is the union
-- of:
--
-- - the numbers holding it: digits alone may sit anywhere in one, so by their trigrams
--   (supplier_search_number_trgm); in a number of the drawn shape (`^sp[0-9]*$` folded) `s` is
--   only ever first and `p` second, so a keyword starting with `s` (or `p`) starts it (or follows
--   its `s`): a range of supplier_search_number, and any other keyword with a digit and a letter
--   is in none;
-- - the rows of supplier_search_digits holding the keyword's terms: those whose names or other
--   spellings hold a digit, which every one holding the keyword does, and those whose number has
--   another shape (the service draws none; a number written otherwise is still found), rechecked
--   by LIKE.
--
-- All three are partial: the last is as small as the names with digits. Nothing is rewritten:
-- three indexes on supplier_search (seconds at a million suppliers, blocking its writes
-- meanwhile); a DBA may build them beforehand with CREATE INDEX CONCURRENTLY under the same names
-- and definitions, which this migration then skips (IF NOT EXISTS).
CREATE INDEX IF NOT EXISTS supplier_search_number ON supplier_search (
  supplier_no_fold(supplier_no) text_pattern_ops)
  WHERE status IS NOT NULL AND supplier_no_fold(supplier_no) ~ '^sp[0-9]*$';
CREATE INDEX IF NOT EXISTS supplier_search_number_trgm ON supplier_search USING gin (
  supplier_no_fold(supplier_no) gin_trgm_ops) WITH (fastupdate = off)
  WHERE status IS NOT NULL;
CREATE INDEX IF NOT EXISTS supplier_search_digits ON supplier_search USING gin (terms)
  WITH (fastupdate = off)
  WHERE status IS NOT NULL
    AND ((full_fold || short_fold || spellings) ~ '[0-9]' OR supplier_no_fold(supplier_no) !~ '^sp[0-9]*$');

-- migrate:down

DROP INDEX supplier_search_digits;
DROP INDEX supplier_search_number_trgm;
DROP INDEX supplier_search_number;
