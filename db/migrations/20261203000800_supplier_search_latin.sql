-- migrate:up

-- A keyword of Latin letters alone (pinyin `wenxia`, a Latin name's word `zephyrine`) in the
-- list's keyword (SUP-ADM-001) without the terms index. Every row's pinyin holds the common
-- letter pairs (`en`, `an`, `xi` …), so `terms @> pairs` read and intersected posting lists of
-- nearly every row for a pinyin of 201 matches (9.9 ms at a million suppliers, 15 times list
-- page 1). Instead (sql/supplier-read.ts, latinMatches), such a keyword of three letters or more is
-- looked up by supplier_search_latin: the runs of three or more letters a-z in a row's texts
-- (folded names, other spellings, supplier number), each as its sequences of three and of four
-- letters (search_latin_grams). Every text holding the keyword holds it inside one such run, so
-- the rows holding the keyword itself (three letters) or all of its sequences of four are its
-- candidates, rechecked by LIKE as the terms' are; a sequence of four is rare beside a pair.
--
-- Nothing is rewritten: one partial index on supplier_search (103 s at a million suppliers,
-- blocking its writes meanwhile); a DBA may create the function and build the index beforehand
-- with CREATE INDEX CONCURRENTLY under the same name and definition, which this migration then
-- skips (IF NOT EXISTS; docs/operations.md).
--
-- The function takes the number folded (supplier_no_fold in the index expression): an index
-- expression's functions run with search_path restricted to pg_catalog, where a function it
-- called by name would not be found.
CREATE OR REPLACE FUNCTION search_latin_grams(full_fold text, short_fold text, spellings text, number_fold text)
RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(DISTINCT substr(m.run[1], i, n)), '{}')
  FROM regexp_matches(
         coalesce(full_fold, '') || chr(31) || coalesce(short_fold, '') || chr(31)
         || coalesce(spellings, '') || chr(31) || coalesce(number_fold, ''),
         '[a-z]{3,}', 'g') AS m(run),
       generate_series(3, 4) AS n,
       LATERAL generate_series(1, char_length(m.run[1]) - n + 1) AS i
$$;
COMMENT ON FUNCTION search_latin_grams(text, text, text, text) IS
  'sequences of three and of four letters of the runs of letters a-z in a supplier_search row''s texts: supplier_search_latin''s terms';

CREATE INDEX IF NOT EXISTS supplier_search_latin ON supplier_search USING gin (
  search_latin_grams(full_fold, short_fold, spellings, supplier_no_fold(supplier_no))) WITH (fastupdate = off)
  WHERE status IS NOT NULL;

-- migrate:down

DROP INDEX supplier_search_latin;
DROP FUNCTION search_latin_grams(text, text, text, text);
