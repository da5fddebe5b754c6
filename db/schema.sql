\restrict dbmate

-- Dumped from database version 15.20 (Debian 15.20-0+deb12u1)
-- Dumped by pg_dump version 15.20 (Debian 15.20-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: pg_trgm; Type: EXTENSION; Schema: -; Owner: -
--

CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;


--
-- Name: EXTENSION pg_trgm; Type: COMMENT; Schema: -; Owner: -
--

COMMENT ON EXTENSION pg_trgm IS 'text similarity measurement and index searching based on trigrams';


--
-- Name: change_log_append_or_seal(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.change_log_append_or_seal() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.audit_hash IS NULL
     AND to_jsonb(NEW) - '{audit_chain,audit_seq,audit_prev,audit_hash}'::text[]
       = to_jsonb(OLD) - '{audit_chain,audit_seq,audit_prev,audit_hash}'::text[] THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION '% is append-only evidence: % refused', TG_TABLE_NAME, TG_OP;
END $$;


--
-- Name: change_log_category_count_inserted(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.change_log_category_count_inserted() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
DECLARE r record;
BEGIN
  FOR r IN SELECT a.operation_type, a.target_type, a.field_name, coalesce(a.status, '') AS status,
                  count(*) AS n
           FROM added a WHERE a.supplier_id IS NOT NULL
           GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4 LOOP
    UPDATE change_log_count SET n = n + r.n
    WHERE id = (SELECT c.id FROM change_log_count c
                WHERE c.operation_type = r.operation_type AND c.target_type = r.target_type
                  AND c.field_name = r.field_name AND c.status = r.status
                LIMIT 1 FOR UPDATE SKIP LOCKED);
    IF NOT FOUND THEN
      INSERT INTO change_log_count (operation_type, target_type, field_name, status, n)
      VALUES (r.operation_type, r.target_type, r.field_name, r.status, r.n);
    END IF;
  END LOOP;
  RETURN NULL;
END $$;


--
-- Name: change_log_count_inserted(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.change_log_count_inserted() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  PERFORM list_count_add('change_log', '', '', (SELECT count(*) FROM added a WHERE a.supplier_id IS NOT NULL));
  RETURN NULL;
END $$;


--
-- Name: change_log_count_rebuild(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.change_log_count_rebuild() RETURNS void
    LANGUAGE sql
    AS $$
  DELETE FROM change_log_count;
  INSERT INTO change_log_count (operation_type, target_type, field_name, status, n)
  SELECT c.operation_type, c.target_type, c.field_name, coalesce(c.status, ''), count(*)
  FROM change_log c WHERE c.supplier_id IS NOT NULL
  GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4;
$$;


--
-- Name: change_log_day_count_inserted(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.change_log_day_count_inserted() RETURNS trigger
    LANGUAGE plpgsql
    SET enable_seqscan TO 'off'
    AS $$
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


--
-- Name: change_log_day_count_rebuild(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.change_log_day_count_rebuild() RETURNS void
    LANGUAGE sql
    AS $$
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


--
-- Name: domain_event_order_key(text, bigint, jsonb); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.domain_event_order_key(aggregate_type text, aggregate_id bigint, payload jsonb) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN CASE WHEN (aggregate_type = 'SUPPLIER'::text) THEN (aggregate_id)::text ELSE COALESCE((payload ->> 'supplierId'::text), ((aggregate_type || ':'::text) || (aggregate_id)::text)) END;


--
-- Name: forbid_delete(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.forbid_delete() RETURNS trigger
    LANGUAGE plpgsql
    AS $$ BEGIN RAISE EXCEPTION '% rows are never deleted (soft delete or keep): DELETE refused', TG_TABLE_NAME; END $$;


--
-- Name: forbid_evidence_change(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.forbid_evidence_change() RETURNS trigger
    LANGUAGE plpgsql
    AS $$ BEGIN RAISE EXCEPTION '% is append-only evidence: % refused', TG_TABLE_NAME, TG_OP; END $$;


--
-- Name: list_count_add(text, text, text, bigint); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.list_count_add(p_list text, p_status text, p_type_code text, p_delta bigint) RETURNS void
    LANGUAGE plpgsql
    AS $$
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


--
-- Name: list_count_rebuild(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.list_count_rebuild() RETURNS void
    LANGUAGE plpgsql
    AS $$
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


--
-- Name: list_count_truncated(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.list_count_truncated() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  PERFORM list_count_rebuild();
  RETURN NULL;
END $$;


--
-- Name: next_version(timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.next_version(previous timestamp with time zone) RETURNS timestamp with time zone
    LANGUAGE sql STABLE
    AS $$ SELECT greatest(date_trunc('second', now()), date_trunc('second', previous) + interval '1 second') $$;


--
-- Name: search_grams(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.search_grams(t text) RETURNS text[]
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$
  SELECT coalesce(array_agg(DISTINCT v.g), '{}')
  FROM unnest(string_to_array(t, chr(31))) AS p(part),
       LATERAL generate_series(1, char_length(p.part)) AS i,
       LATERAL (VALUES (substr(p.part, i, 1)),
                       (CASE WHEN i < char_length(p.part) THEN substr(p.part, i, 2) END)) AS v(g)
  WHERE v.g IS NOT NULL
$$;


--
-- Name: FUNCTION search_grams(t text); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.search_grams(t text) IS 'characters and pairs of adjacent characters of each U+001F-separated part: the keyword index''s terms';


--
-- Name: search_latin_grams(text, text, text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.search_latin_grams(full_fold text, short_fold text, spellings text, number_fold text) RETURNS text[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
  SELECT coalesce(array_agg(DISTINCT substr(m.run[1], i, n)), '{}')
  FROM regexp_matches(
         coalesce(full_fold, '') || chr(31) || coalesce(short_fold, '') || chr(31)
         || coalesce(spellings, '') || chr(31) || coalesce(number_fold, ''),
         '[a-z]{3,}', 'g') AS m(run),
       generate_series(3, 4) AS n,
       LATERAL generate_series(1, char_length(m.run[1]) - n + 1) AS i
$$;


--
-- Name: FUNCTION search_latin_grams(full_fold text, short_fold text, spellings text, number_fold text); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.search_latin_grams(full_fold text, short_fold text, spellings text, number_fold text) IS 'sequences of three and of four letters of the runs of letters a-z in a supplier_search row''s texts: supplier_search_latin''s terms';


--
-- Name: supplier_count_changed(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.supplier_count_changed() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
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


--
-- Name: supplier_count_inserted(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.supplier_count_inserted() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
DECLARE r record;
BEGIN
  FOR r IN SELECT a.status, count(*) AS n FROM added a WHERE a.deleted_at IS NULL
           GROUP BY a.status ORDER BY a.status LOOP
    PERFORM list_count_add('supplier', r.status, '', r.n);
  END LOOP;
  RETURN NULL;
END $$;


--
-- Name: supplier_create_time_fixed(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.supplier_create_time_fixed() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  RAISE EXCEPTION 'supplier.create_time never changes (supplier_type.supplier_create_time copies it)'
    USING ERRCODE = 'integrity_constraint_violation';
END $$;


--
-- Name: supplier_keyword_count_add(text, smallint, text, bigint); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.supplier_keyword_count_add(k_keyword text, k_source smallint, k_status text, d bigint) RETURNS void
    LANGUAGE plpgsql
    SET enable_seqscan TO 'off'
    AS $$
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


--
-- Name: supplier_no_fold(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.supplier_no_fold(n text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$
  SELECT regexp_replace(lower(n), '[^a-z0-9]', '', 'g')
$$;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: supplier_search; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.supplier_search (
    supplier_id bigint NOT NULL,
    full_fold text NOT NULL,
    short_fold text DEFAULT ''::text NOT NULL,
    spellings text DEFAULT ''::text NOT NULL,
    version smallint NOT NULL,
    status text,
    create_time timestamp with time zone,
    update_time timestamp with time zone,
    full_name text,
    supplier_no text,
    terms text[] GENERATED ALWAYS AS (public.search_grams(((((((full_fold || chr(31)) || short_fold) || chr(31)) || spellings) || chr(31)) || COALESCE(public.supplier_no_fold(supplier_no), ''::text)))) STORED
);


--
-- Name: TABLE supplier_search; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.supplier_search IS 'folded names and other spellings of a supplier for the list keyword, with mirrored list columns; no row: not searchable yet';


--
-- Name: supplier_keyword_count_apply(public.supplier_search[], public.supplier_search[]); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.supplier_keyword_count_apply(gone public.supplier_search[], came public.supplier_search[]) RETURNS void
    LANGUAGE plpgsql
    AS $$
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


--
-- Name: supplier_keyword_count_deleted(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.supplier_keyword_count_deleted() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM supplier_keyword) THEN
    RETURN NULL;
  END IF;
  PERFORM supplier_keyword_count_apply(ARRAY(
    SELECT o::supplier_search FROM old_rows o WHERE o.status IS NOT NULL AND o.version >= 2), '{}');
  RETURN NULL;
END $$;


--
-- Name: supplier_keyword_count_inserted(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.supplier_keyword_count_inserted() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM supplier_keyword) THEN
    RETURN NULL;
  END IF;
  PERFORM supplier_keyword_count_apply('{}', ARRAY(
    SELECT n::supplier_search FROM new_rows n WHERE n.status IS NOT NULL AND n.version >= 2));
  RETURN NULL;
END $$;


--
-- Name: supplier_keyword_count_updated(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.supplier_keyword_count_updated() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
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


--
-- Name: supplier_keyword_source(text, text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.supplier_keyword_source(k text, names text, others text) RETURNS smallint
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
  SELECT CASE WHEN strpos(names, k) > 0 THEN 1::smallint WHEN strpos(others, k) > 0 THEN 2::smallint END
$$;


--
-- Name: supplier_search_mirror_changed(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.supplier_search_mirror_changed() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  UPDATE supplier_search k
  SET status = CASE WHEN NEW.deleted_at IS NULL THEN NEW.status END,
      update_time = NEW.update_time, full_name = NEW.full_name, supplier_no = NEW.supplier_no
  WHERE k.supplier_id = NEW.supplier_id;
  RETURN NULL;
END $$;


--
-- Name: supplier_search_mirror_inserted(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.supplier_search_mirror_inserted() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  UPDATE supplier_search k
  SET status = CASE WHEN a.deleted_at IS NULL THEN a.status END, create_time = a.create_time,
      update_time = a.update_time, full_name = a.full_name, supplier_no = a.supplier_no
  FROM added a WHERE k.supplier_id = a.supplier_id;
  RETURN NULL;
END $$;


--
-- Name: supplier_search_postings(text, text, text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.supplier_search_postings(full_fold text, short_fold text, spellings text, supplier_no text) RETURNS TABLE(term text, source smallint)
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
  WITH names AS (SELECT search_grams(full_fold || chr(31) || short_fold) AS g)
  SELECT t, 1::smallint FROM names, unnest(names.g) AS t
  UNION ALL
  SELECT t, 2::smallint FROM names,
         unnest(search_grams(spellings || chr(31) || coalesce(supplier_no_fold(supplier_no), ''))) AS t
  WHERE t <> ALL (names.g)
$$;


--
-- Name: supplier_term_count_add(text, smallint, text, bigint); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.supplier_term_count_add(k_term text, k_source smallint, k_status text, d bigint) RETURNS void
    LANGUAGE plpgsql
    SET enable_seqscan TO 'off'
    AS $$
BEGIN
  UPDATE supplier_term_count SET n = n + d
  WHERE id = (SELECT c.id FROM supplier_term_count c
              WHERE c.term = k_term AND c.status = k_status AND c.source = k_source
              LIMIT 1 FOR UPDATE SKIP LOCKED);
  IF NOT FOUND THEN
    INSERT INTO supplier_term_count (term, source, status, n) VALUES (k_term, k_source, k_status, d);
  END IF;
END $$;


--
-- Name: supplier_term_count_apply(public.supplier_search[], public.supplier_search[]); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.supplier_term_count_apply(gone public.supplier_search[], came public.supplier_search[]) RETURNS void
    LANGUAGE plpgsql
    AS $$
DECLARE r record;
BEGIN
  FOR r IN
    WITH delta AS (
      SELECT x.*, -1 AS d FROM unnest(gone) AS x
      UNION ALL
      SELECT x.*, 1 FROM unnest(came) AS x
    )
    SELECT p.term, p.source, x.status, sum(x.d) AS n
    FROM delta x, LATERAL supplier_search_postings(x.full_fold, x.short_fold, x.spellings, x.supplier_no) p
    WHERE x.status IS NOT NULL AND x.version >= 2
    GROUP BY 1, 2, 3 HAVING sum(x.d) <> 0 ORDER BY 1, 2, 3
  LOOP
    PERFORM supplier_term_count_add(r.term, r.source, r.status, r.n);
  END LOOP;
END $$;


--
-- Name: supplier_term_count_deleted(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.supplier_term_count_deleted() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  PERFORM supplier_term_count_apply(ARRAY(SELECT o::supplier_search FROM old_rows o), '{}');
  RETURN NULL;
END $$;


--
-- Name: supplier_term_count_inserted(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.supplier_term_count_inserted() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  PERFORM supplier_term_count_apply('{}', ARRAY(SELECT n::supplier_search FROM new_rows n));
  RETURN NULL;
END $$;


--
-- Name: supplier_term_count_rebuild(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.supplier_term_count_rebuild() RETURNS void
    LANGUAGE sql
    AS $$
  DELETE FROM supplier_term_count;
  INSERT INTO supplier_term_count (term, source, status, n)
  SELECT p.term, p.source, k.status, count(*)
  FROM supplier_search k, LATERAL supplier_search_postings(k.full_fold, k.short_fold, k.spellings, k.supplier_no) p
  WHERE k.status IS NOT NULL AND k.version >= 2
  GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;
$$;


--
-- Name: supplier_term_count_updated(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.supplier_term_count_updated() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  PERFORM supplier_term_count_apply(ARRAY(SELECT o::supplier_search FROM old_rows o), ARRAY(SELECT n::supplier_search FROM new_rows n));
  RETURN NULL;
END $$;


--
-- Name: supplier_type_copy_create_time(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.supplier_type_copy_create_time() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  -- Deleted suppliers included: the copy is of an immutable fact, not of a live row.
  NEW.supplier_create_time := (SELECT s.create_time FROM supplier s WHERE s.supplier_id = NEW.supplier_id);
  RETURN NEW;
END $$;


--
-- Name: supplier_type_count_changed(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.supplier_type_count_changed() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
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


--
-- Name: supplier_type_count_inserted(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.supplier_type_count_inserted() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
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


--
-- Name: admin_permission; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.admin_permission (
    id bigint NOT NULL,
    admin_id bigint NOT NULL,
    permission_code text NOT NULL,
    create_time timestamp with time zone DEFAULT now() NOT NULL,
    update_time timestamp with time zone DEFAULT now() NOT NULL,
    deleted_at timestamp with time zone,
    CONSTRAINT admin_permission_admin_positive CHECK ((admin_id > 0)),
    CONSTRAINT admin_permission_code_format CHECK ((permission_code ~ '^[a-z]+(:[a-z]+)+$'::text))
);


--
-- Name: admin_permission_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.admin_permission ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.admin_permission_id_seq
    START WITH 9007199254740993
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: admin_role; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.admin_role (
    id bigint NOT NULL,
    admin_id bigint NOT NULL,
    role_code text NOT NULL,
    create_time timestamp with time zone DEFAULT now() NOT NULL,
    update_time timestamp with time zone DEFAULT now() NOT NULL,
    deleted_at timestamp with time zone,
    CONSTRAINT admin_role_admin_positive CHECK ((admin_id > 0)),
    CONSTRAINT admin_role_code_format CHECK ((role_code ~ '^[A-Z][A-Z0-9_]{0,63}$'::text))
);


--
-- Name: admin_role_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.admin_role ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.admin_role_id_seq
    START WITH 9007199254740993
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: approval_log; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.approval_log (
    approval_log_id bigint NOT NULL,
    request_no text NOT NULL,
    provider text NOT NULL,
    biz_type text NOT NULL,
    sub_type text,
    supplier_id bigint NOT NULL,
    target_type text NOT NULL,
    target_id bigint NOT NULL,
    applicant_admin_id bigint NOT NULL,
    candidate_snapshot jsonb NOT NULL,
    levels integer NOT NULL,
    status text NOT NULL,
    sync_status text NOT NULL,
    submitted_at timestamp with time zone DEFAULT now() NOT NULL,
    finished_at timestamp with time zone,
    applied_at timestamp with time zone,
    apply_attempts integer DEFAULT 0 NOT NULL,
    failure_code integer,
    failure_reason text,
    opinion_enc text,
    schema_version integer DEFAULT 1 NOT NULL,
    sp_no text,
    template_id text,
    sp_status character varying(64),
    source_revision bigint,
    detail_digest text,
    detail_sync_status text,
    level_details jsonb,
    source_event_key text,
    create_time timestamp with time zone DEFAULT now() NOT NULL,
    update_time timestamp with time zone DEFAULT date_trunc('second'::text, now()) NOT NULL,
    submit_note_enc text,
    withdrawn_at timestamp with time zone,
    risk_flags jsonb GENERATED ALWAYS AS (COALESCE((candidate_snapshot -> 'riskFlags'::text), '[]'::jsonb)) STORED,
    audit_chain text,
    audit_seq bigint,
    audit_prev text,
    audit_hash text,
    audit_vacated text,
    CONSTRAINT approval_log_biz_type_check CHECK ((biz_type = ANY (ARRAY['PROFILE_CREATE'::text, 'ACCOUNT_CREATE'::text, 'ACCOUNT_CHANGE'::text, 'STATUS_CHANGE'::text]))),
    CONSTRAINT approval_log_levels_check CHECK (((levels >= 1) AND (levels <= 10))),
    CONSTRAINT approval_log_provider_check CHECK ((provider = 'LOCAL_AUTO'::text)),
    CONSTRAINT approval_log_schema_version_check CHECK ((schema_version = 1)),
    CONSTRAINT approval_log_status_check CHECK ((status = ANY (ARRAY['SUBMITTED'::text, 'APPROVED'::text, 'REJECTED'::text, 'APPLIED'::text, 'APPLY_FAILED'::text, 'WITHDRAWN'::text]))),
    CONSTRAINT approval_log_sub_type_check CHECK ((sub_type = ANY (ARRAY['STATUS_SUSPEND'::text, 'STATUS_RESUME'::text, 'STATUS_FREEZE'::text, 'STATUS_UNFREEZE'::text, 'STATUS_BLACKLIST'::text, 'STATUS_UNBLACKLIST'::text]))),
    CONSTRAINT approval_log_sync_status_check CHECK ((sync_status = ANY (ARRAY['NOT_REQUIRED'::text, 'PENDING'::text, 'SYNCED'::text, 'FAILED'::text]))),
    CONSTRAINT approval_log_target_type_check CHECK ((target_type = ANY (ARRAY['SUPPLIER'::text, 'ACCOUNT'::text])))
);


--
-- Name: TABLE approval_log; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.approval_log IS 'approval evidence: never deleted; sp_* / template / levels stay empty for LOCAL_AUTO';


--
-- Name: COLUMN approval_log.candidate_snapshot; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.approval_log.candidate_snapshot IS 'the change to apply; sensitive values only as ciphertext and masks';


--
-- Name: COLUMN approval_log.opinion_enc; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.approval_log.opinion_enc IS 'the approver''s opinion from an external provider, encrypted; always empty for LOCAL_AUTO';


--
-- Name: COLUMN approval_log.submit_note_enc; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.approval_log.submit_note_enc IS 'the applicant''s note sent with the submission, encrypted';


--
-- Name: COLUMN approval_log.audit_hash; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.approval_log.audit_hash IS 'HMAC-SHA256 (hex) under AUDIT_HMAC_KEY of the row, its chain and seq, audit_prev and audit_vacated';


--
-- Name: COLUMN approval_log.audit_vacated; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.approval_log.audit_vacated IS 'the chain places this row held before its last change, as seq:hash items separated by commas';


--
-- Name: approval_log_approval_log_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.approval_log ALTER COLUMN approval_log_id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.approval_log_approval_log_id_seq
    START WITH 9007199254740993
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: audit_chain_head; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.audit_chain_head (
    chain text NOT NULL,
    seq bigint NOT NULL,
    hash text NOT NULL,
    CONSTRAINT audit_chain_head_seq_check CHECK ((seq >= 0))
);


--
-- Name: TABLE audit_chain_head; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.audit_chain_head IS 'the last seq and hash of each audit chain (change_log and approval_log rows); never deleted';


--
-- Name: audit_trail_state; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.audit_trail_state (
    singleton boolean DEFAULT true NOT NULL,
    legacy_sealed_at timestamp with time zone,
    CONSTRAINT audit_trail_state_singleton CHECK (singleton)
);


--
-- Name: TABLE audit_trail_state; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.audit_trail_state IS 'one row: when the rows written before the audit trail were sealed (NULL: not yet)';


--
-- Name: backfill_progress; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.backfill_progress (
    job text NOT NULL,
    after_id bigint DEFAULT 0 NOT NULL,
    finished_at timestamp with time zone
);


--
-- Name: TABLE backfill_progress; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.backfill_progress IS 'How far an online backfill of existing rows got: the last supplier_id done; finished_at once all were';


--
-- Name: change_log; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.change_log (
    change_log_id bigint NOT NULL,
    supplier_id bigint,
    approval_log_id bigint,
    operation_type text NOT NULL,
    target_type text NOT NULL,
    target_id bigint,
    field_name text NOT NULL,
    old_value_masked text,
    new_value_masked text,
    change_reason text,
    status text,
    operator_id bigint,
    request_id text,
    create_time timestamp with time zone DEFAULT now() NOT NULL,
    audit_chain text,
    audit_seq bigint,
    audit_prev text,
    audit_hash text,
    CONSTRAINT change_log_operation_type_check CHECK ((operation_type = ANY (ARRAY['DRAFT_CREATE'::text, 'DRAFT_UPDATE'::text, 'DRAFT_DELETE'::text, 'PROFILE_UPDATE'::text, 'CONTACT_REPLACE'::text, 'REGISTRATION_SUBMIT'::text, 'REGISTRATION_APPLY'::text, 'REGISTRATION_REJECT'::text, 'REGISTRATION_APPLY_FAILED'::text, 'REGISTRATION_WITHDRAW'::text, 'ACCOUNT_CREATE'::text, 'ACCOUNT_CHANGE'::text, 'ACCOUNT_DEFAULT'::text, 'STATUS_CHANGE'::text, 'ARCHIVE'::text, 'RELATION_SET'::text, 'RELATION_UNBIND'::text, 'QUALIFICATION_RULE_REPLACE'::text]))),
    CONSTRAINT change_log_status_check CHECK ((status = ANY (ARRAY['SUBMITTED'::text, 'APPROVED'::text, 'REJECTED'::text, 'APPLIED'::text, 'APPLY_FAILED'::text, 'WITHDRAWN'::text]))),
    CONSTRAINT change_log_supplier_required CHECK (((supplier_id IS NOT NULL) OR (target_type = 'QUALIFICATION_RULE'::text))),
    CONSTRAINT change_log_target_type_check CHECK ((target_type = ANY (ARRAY['SUPPLIER'::text, 'TYPE'::text, 'CONTACT'::text, 'QUALIFICATION'::text, 'CONTRACT'::text, 'EVALUATION'::text, 'ACCOUNT'::text, 'RELATION'::text, 'QUALIFICATION_RULE'::text])))
);


--
-- Name: TABLE change_log; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.change_log IS 'field-level change evidence, masked values only; append-only';


--
-- Name: COLUMN change_log.audit_hash; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.change_log.audit_hash IS 'HMAC-SHA256 (hex) under AUDIT_HMAC_KEY of the row, its chain and seq, and audit_prev';


--
-- Name: change_log_change_log_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.change_log ALTER COLUMN change_log_id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.change_log_change_log_id_seq
    START WITH 9007199254740993
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: change_log_count; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.change_log_count (
    id bigint NOT NULL,
    operation_type text NOT NULL,
    target_type text NOT NULL,
    field_name text NOT NULL,
    status text DEFAULT ''::text NOT NULL,
    n bigint NOT NULL
);


--
-- Name: TABLE change_log_count; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.change_log_count IS 'exact change-log totals per category, kept by a trigger; a total is sum(n) over the rows matching its filter (status '''' for none)';


--
-- Name: change_log_count_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.change_log_count ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.change_log_count_id_seq
    START WITH 9007199254740993
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: change_log_day_count; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.change_log_day_count (
    id bigint NOT NULL,
    span text NOT NULL,
    from_day date NOT NULL,
    operation_type text NOT NULL,
    target_type text NOT NULL,
    field_name text NOT NULL,
    status text DEFAULT ''::text NOT NULL,
    n bigint NOT NULL,
    CONSTRAINT change_log_day_count_span_check CHECK ((span = ANY (ARRAY['day'::text, 'month'::text])))
);


--
-- Name: TABLE change_log_day_count; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.change_log_day_count IS 'change-log rows of a supplier per UTC day or month and category key, kept by a trigger; a total is sum(n) over the rows matching its filter (status '''' for none)';


--
-- Name: change_log_day_count_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.change_log_day_count ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.change_log_day_count_id_seq
    START WITH 9007199254740993
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: dict_data; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.dict_data (
    dict_data_id bigint NOT NULL,
    dict_type text NOT NULL,
    dict_label text NOT NULL,
    dict_value text NOT NULL,
    sort_order integer DEFAULT 0 NOT NULL,
    status text DEFAULT 'ACTIVE'::text NOT NULL,
    create_time timestamp with time zone DEFAULT now() NOT NULL,
    update_time timestamp with time zone DEFAULT now() NOT NULL,
    deleted_at timestamp with time zone,
    CONSTRAINT dict_data_status_check CHECK ((status = ANY (ARRAY['ACTIVE'::text, 'DISABLED'::text])))
);


--
-- Name: COLUMN dict_data.status; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.dict_data.status IS 'ACTIVE = item enabled; not the supplier lifecycle status';


--
-- Name: dict_data_dict_data_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.dict_data ALTER COLUMN dict_data_id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.dict_data_dict_data_id_seq
    START WITH 9007199254740993
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: dict_type; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.dict_type (
    dict_type_id bigint NOT NULL,
    dict_type text NOT NULL,
    dict_name text NOT NULL,
    status text DEFAULT 'ACTIVE'::text NOT NULL,
    create_time timestamp with time zone DEFAULT now() NOT NULL,
    update_time timestamp with time zone DEFAULT now() NOT NULL,
    deleted_at timestamp with time zone,
    CONSTRAINT dict_type_code_format CHECK ((dict_type ~ '^[a-z][a-z0-9_]{0,99}$'::text)),
    CONSTRAINT dict_type_status_check CHECK ((status = ANY (ARRAY['ACTIVE'::text, 'DISABLED'::text])))
);


--
-- Name: dict_type_dict_type_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.dict_type ALTER COLUMN dict_type_id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.dict_type_dict_type_id_seq
    START WITH 9007199254740993
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: domain_event; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.domain_event (
    event_id bigint NOT NULL,
    aggregate_type text NOT NULL,
    aggregate_id bigint NOT NULL,
    event_type text NOT NULL,
    payload jsonb NOT NULL,
    status text DEFAULT 'PENDING'::text NOT NULL,
    create_time timestamp with time zone DEFAULT now() NOT NULL,
    published_at timestamp with time zone,
    tx_id xid8 DEFAULT pg_current_xact_id() NOT NULL,
    parked_reason text,
    parked_at timestamp with time zone,
    CONSTRAINT domain_event_aggregate_check CHECK ((aggregate_type = ANY (ARRAY['SUPPLIER'::text, 'ACCOUNT'::text, 'RELATION'::text, 'SUPPLIER_TYPE'::text]))),
    CONSTRAINT domain_event_status_check CHECK ((status = ANY (ARRAY['PENDING'::text, 'PUBLISHED'::text, 'PARKED'::text])))
);


--
-- Name: TABLE domain_event; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.domain_event IS 'outbox; PENDING until the relay (EVENTS_NATS_URL) has JetStream acknowledge it, then PUBLISHED; PARKED when it cannot be published';


--
-- Name: COLUMN domain_event.tx_id; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.domain_event.tx_id IS 'the writing transaction; the relay reads only events whose transaction is older than every running one';


--
-- Name: COLUMN domain_event.parked_reason; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.domain_event.parked_reason IS 'why the relay could not publish it (names the failing fields, never a value); set while PARKED';


--
-- Name: domain_event_event_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.domain_event ALTER COLUMN event_id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.domain_event_event_id_seq
    START WITH 9007199254740993
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: fleet_vehicle; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.fleet_vehicle (
    id bigint NOT NULL,
    name text NOT NULL,
    cover_url text,
    city text,
    is_charged boolean,
    settle_type_code text,
    status_code text NOT NULL,
    enabled boolean DEFAULT true NOT NULL,
    create_time timestamp with time zone DEFAULT now() NOT NULL,
    update_time timestamp with time zone DEFAULT now() NOT NULL,
    deleted_at timestamp with time zone,
    CONSTRAINT fleet_vehicle_name_len_chk CHECK (((char_length(name) >= 1) AND (char_length(name) <= 500))),
    CONSTRAINT fleet_vehicle_settle_type_code_chk CHECK ((settle_type_code = ANY (ARRAY['PREPAID'::text, 'POSTPAID'::text, 'MONTHLY'::text, 'PER_ORDER'::text]))),
    CONSTRAINT fleet_vehicle_status_code_chk CHECK ((status_code = ANY (ARRAY['ON_SALE'::text, 'OFF_SALE'::text, 'DRAFT'::text, 'DISABLED'::text])))
);


--
-- Name: TABLE fleet_vehicle; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.fleet_vehicle IS 'Embedded fleet: vehicles; resource module VEHICLE. Tags/seasons link with resource_module = ''VEHICLE''.';


--
-- Name: COLUMN fleet_vehicle.cover_url; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.fleet_vehicle.cover_url IS 'Current cover image URL; NULL = no cover.';


--
-- Name: COLUMN fleet_vehicle.city; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.fleet_vehicle.city IS 'City as displayed (free text, not a dictionary code); NULL = unknown.';


--
-- Name: COLUMN fleet_vehicle.is_charged; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.fleet_vehicle.is_charged IS 'Whether the resource is charged; NULL = not applicable.';


--
-- Name: COLUMN fleet_vehicle.settle_type_code; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.fleet_vehicle.settle_type_code IS 'Settlement type, see resource_settle_type; NULL = not set.';


--
-- Name: COLUMN fleet_vehicle.status_code; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.fleet_vehicle.status_code IS 'Sale status, see resource_status.';


--
-- Name: COLUMN fleet_vehicle.enabled; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.fleet_vehicle.enabled IS 'Enabled switch, independent of status_code.';


--
-- Name: COLUMN fleet_vehicle.deleted_at; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.fleet_vehicle.deleted_at IS 'Soft delete time; NULL = live row.';


--
-- Name: fleet_vehicle_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.fleet_vehicle ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.fleet_vehicle_id_seq
    START WITH 9007199254740993
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: idempotency_record; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.idempotency_record (
    id bigint NOT NULL,
    admin_id bigint NOT NULL,
    idempotency_key text NOT NULL,
    operation text NOT NULL,
    request_hash text NOT NULL,
    status text NOT NULL,
    response jsonb,
    expires_at timestamp with time zone NOT NULL,
    create_time timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT idempotency_record_key_length CHECK (((char_length(idempotency_key) >= 1) AND (char_length(idempotency_key) <= 255))),
    CONSTRAINT idempotency_record_status_check CHECK ((status = ANY (ARRAY['IN_PROGRESS'::text, 'DONE'::text])))
);


--
-- Name: TABLE idempotency_record; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.idempotency_record IS 'Idempotency-Key replay store: masked responses only';


--
-- Name: idempotency_record_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.idempotency_record ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.idempotency_record_id_seq
    START WITH 9007199254740993
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: job_lease; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.job_lease (
    job text NOT NULL,
    holder text NOT NULL,
    expires_at timestamp with time zone NOT NULL
);


--
-- Name: TABLE job_lease; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.job_lease IS 'One row per background job that must run on one replica at a time: who holds it, until when.';


--
-- Name: list_count; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.list_count (
    id bigint NOT NULL,
    list text NOT NULL,
    status text DEFAULT ''::text NOT NULL,
    type_code text DEFAULT ''::text NOT NULL,
    n bigint NOT NULL,
    CONSTRAINT list_count_list_check CHECK ((list = ANY (ARRAY['supplier'::text, 'change_log'::text])))
);


--
-- Name: TABLE list_count; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.list_count IS 'exact list totals kept by triggers; a total is sum(n) over its key (list, status, type_code)';


--
-- Name: list_count_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.list_count ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.list_count_id_seq
    START WITH 9007199254740993
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: qualification_reminder; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.qualification_reminder (
    qualification_id bigint NOT NULL,
    expiry_date date NOT NULL,
    kind text NOT NULL,
    create_time timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT qualification_reminder_kind_check CHECK ((kind = ANY (ARRAY['EXPIRING'::text, 'EXPIRED'::text])))
);


--
-- Name: TABLE qualification_reminder; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.qualification_reminder IS 'QualificationExpiring / QualificationExpired recorded, once per qualification, expiry date and kind';


--
-- Name: qualification_rule; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.qualification_rule (
    rule_id bigint NOT NULL,
    type_code text NOT NULL,
    qual_type text NOT NULL,
    is_required boolean NOT NULL,
    warning_days integer NOT NULL,
    sort_order integer DEFAULT 0 NOT NULL,
    create_time timestamp with time zone DEFAULT now() NOT NULL,
    update_time timestamp with time zone DEFAULT date_trunc('second'::text, now()) NOT NULL,
    deleted_at timestamp with time zone,
    CONSTRAINT qualification_rule_sort_order_check CHECK ((sort_order >= 0)),
    CONSTRAINT qualification_rule_type_length CHECK (((char_length(qual_type) >= 1) AND (char_length(qual_type) <= 64))),
    CONSTRAINT qualification_rule_warning_days_check CHECK ((warning_days >= 0))
);


--
-- Name: qualification_rule_rule_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.qualification_rule ALTER COLUMN rule_id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.qualification_rule_rule_id_seq
    START WITH 9007199254740993
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: resource_activity; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.resource_activity (
    id bigint NOT NULL,
    name text NOT NULL,
    cover_url text,
    city text,
    is_charged boolean,
    settle_type_code text,
    status_code text NOT NULL,
    enabled boolean DEFAULT true NOT NULL,
    create_time timestamp with time zone DEFAULT now() NOT NULL,
    update_time timestamp with time zone DEFAULT now() NOT NULL,
    deleted_at timestamp with time zone,
    CONSTRAINT resource_activity_name_len_chk CHECK (((char_length(name) >= 1) AND (char_length(name) <= 500))),
    CONSTRAINT resource_activity_settle_type_code_chk CHECK ((settle_type_code = ANY (ARRAY['PREPAID'::text, 'POSTPAID'::text, 'MONTHLY'::text, 'PER_ORDER'::text]))),
    CONSTRAINT resource_activity_status_code_chk CHECK ((status_code = ANY (ARRAY['ON_SALE'::text, 'OFF_SALE'::text, 'DRAFT'::text, 'DISABLED'::text])))
);


--
-- Name: TABLE resource_activity; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.resource_activity IS 'Local resource: activities / experiences. Tags/seasons link with resource_module = ''ACTIVITY''.';


--
-- Name: COLUMN resource_activity.cover_url; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_activity.cover_url IS 'Current cover image URL; NULL = no cover.';


--
-- Name: COLUMN resource_activity.city; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_activity.city IS 'City as displayed (free text, not a dictionary code); NULL = unknown.';


--
-- Name: COLUMN resource_activity.is_charged; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_activity.is_charged IS 'Whether the resource is charged; NULL = not applicable.';


--
-- Name: COLUMN resource_activity.settle_type_code; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_activity.settle_type_code IS 'Settlement type, see resource_settle_type; NULL = not set.';


--
-- Name: COLUMN resource_activity.status_code; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_activity.status_code IS 'Sale status, see resource_status.';


--
-- Name: COLUMN resource_activity.enabled; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_activity.enabled IS 'Enabled switch, independent of status_code.';


--
-- Name: COLUMN resource_activity.deleted_at; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_activity.deleted_at IS 'Soft delete time; NULL = live row.';


--
-- Name: resource_activity_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.resource_activity ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.resource_activity_id_seq
    START WITH 9007199254740993
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: resource_cost_item; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.resource_cost_item (
    id bigint NOT NULL,
    name text NOT NULL,
    cover_url text,
    city text,
    is_charged boolean,
    settle_type_code text,
    status_code text NOT NULL,
    enabled boolean DEFAULT true NOT NULL,
    create_time timestamp with time zone DEFAULT now() NOT NULL,
    update_time timestamp with time zone DEFAULT now() NOT NULL,
    deleted_at timestamp with time zone,
    CONSTRAINT resource_cost_item_name_len_chk CHECK (((char_length(name) >= 1) AND (char_length(name) <= 500))),
    CONSTRAINT resource_cost_item_settle_type_code_chk CHECK ((settle_type_code = ANY (ARRAY['PREPAID'::text, 'POSTPAID'::text, 'MONTHLY'::text, 'PER_ORDER'::text]))),
    CONSTRAINT resource_cost_item_status_code_chk CHECK ((status_code = ANY (ARRAY['ON_SALE'::text, 'OFF_SALE'::text, 'DRAFT'::text, 'DISABLED'::text])))
);


--
-- Name: TABLE resource_cost_item; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.resource_cost_item IS 'Local resource: cost items. Tags/seasons link with resource_module = ''COST_ITEM''.';


--
-- Name: COLUMN resource_cost_item.cover_url; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_cost_item.cover_url IS 'Current cover image URL; NULL = no cover.';


--
-- Name: COLUMN resource_cost_item.city; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_cost_item.city IS 'City as displayed (free text, not a dictionary code); NULL = unknown.';


--
-- Name: COLUMN resource_cost_item.is_charged; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_cost_item.is_charged IS 'Whether the resource is charged; NULL = not applicable.';


--
-- Name: COLUMN resource_cost_item.settle_type_code; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_cost_item.settle_type_code IS 'Settlement type, see resource_settle_type; NULL = not set.';


--
-- Name: COLUMN resource_cost_item.status_code; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_cost_item.status_code IS 'Sale status, see resource_status.';


--
-- Name: COLUMN resource_cost_item.enabled; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_cost_item.enabled IS 'Enabled switch, independent of status_code.';


--
-- Name: COLUMN resource_cost_item.deleted_at; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_cost_item.deleted_at IS 'Soft delete time; NULL = live row.';


--
-- Name: resource_cost_item_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.resource_cost_item ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.resource_cost_item_id_seq
    START WITH 9007199254740993
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: resource_hotel; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.resource_hotel (
    id bigint NOT NULL,
    name text NOT NULL,
    cover_url text,
    city text,
    is_charged boolean,
    settle_type_code text,
    status_code text NOT NULL,
    enabled boolean DEFAULT true NOT NULL,
    create_time timestamp with time zone DEFAULT now() NOT NULL,
    update_time timestamp with time zone DEFAULT now() NOT NULL,
    deleted_at timestamp with time zone,
    CONSTRAINT resource_hotel_name_len_chk CHECK (((char_length(name) >= 1) AND (char_length(name) <= 500))),
    CONSTRAINT resource_hotel_settle_type_code_chk CHECK ((settle_type_code = ANY (ARRAY['PREPAID'::text, 'POSTPAID'::text, 'MONTHLY'::text, 'PER_ORDER'::text]))),
    CONSTRAINT resource_hotel_status_code_chk CHECK ((status_code = ANY (ARRAY['ON_SALE'::text, 'OFF_SALE'::text, 'DRAFT'::text, 'DISABLED'::text])))
);


--
-- Name: TABLE resource_hotel; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.resource_hotel IS 'Local resource: hotels. Tags/seasons link with resource_module = ''HOTEL''.';


--
-- Name: COLUMN resource_hotel.cover_url; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_hotel.cover_url IS 'Current cover image URL; NULL = no cover.';


--
-- Name: COLUMN resource_hotel.city; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_hotel.city IS 'City as displayed (free text, not a dictionary code); NULL = unknown.';


--
-- Name: COLUMN resource_hotel.is_charged; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_hotel.is_charged IS 'Whether the resource is charged; NULL = not applicable.';


--
-- Name: COLUMN resource_hotel.settle_type_code; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_hotel.settle_type_code IS 'Settlement type, see resource_settle_type; NULL = not set.';


--
-- Name: COLUMN resource_hotel.status_code; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_hotel.status_code IS 'Sale status, see resource_status.';


--
-- Name: COLUMN resource_hotel.enabled; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_hotel.enabled IS 'Enabled switch, independent of status_code.';


--
-- Name: COLUMN resource_hotel.deleted_at; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_hotel.deleted_at IS 'Soft delete time; NULL = live row.';


--
-- Name: resource_hotel_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.resource_hotel ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.resource_hotel_id_seq
    START WITH 9007199254740993
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: resource_restaurant; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.resource_restaurant (
    id bigint NOT NULL,
    name text NOT NULL,
    cover_url text,
    city text,
    is_charged boolean,
    settle_type_code text,
    status_code text NOT NULL,
    enabled boolean DEFAULT true NOT NULL,
    create_time timestamp with time zone DEFAULT now() NOT NULL,
    update_time timestamp with time zone DEFAULT now() NOT NULL,
    deleted_at timestamp with time zone,
    CONSTRAINT resource_restaurant_name_len_chk CHECK (((char_length(name) >= 1) AND (char_length(name) <= 500))),
    CONSTRAINT resource_restaurant_settle_type_code_chk CHECK ((settle_type_code = ANY (ARRAY['PREPAID'::text, 'POSTPAID'::text, 'MONTHLY'::text, 'PER_ORDER'::text]))),
    CONSTRAINT resource_restaurant_status_code_chk CHECK ((status_code = ANY (ARRAY['ON_SALE'::text, 'OFF_SALE'::text, 'DRAFT'::text, 'DISABLED'::text])))
);


--
-- Name: TABLE resource_restaurant; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.resource_restaurant IS 'Local resource: restaurants. Tags/seasons link with resource_module = ''RESTAURANT''.';


--
-- Name: COLUMN resource_restaurant.cover_url; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_restaurant.cover_url IS 'Current cover image URL; NULL = no cover.';


--
-- Name: COLUMN resource_restaurant.city; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_restaurant.city IS 'City as displayed (free text, not a dictionary code); NULL = unknown.';


--
-- Name: COLUMN resource_restaurant.is_charged; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_restaurant.is_charged IS 'Whether the resource is charged; NULL = not applicable.';


--
-- Name: COLUMN resource_restaurant.settle_type_code; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_restaurant.settle_type_code IS 'Settlement type, see resource_settle_type; NULL = not set.';


--
-- Name: COLUMN resource_restaurant.status_code; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_restaurant.status_code IS 'Sale status, see resource_status.';


--
-- Name: COLUMN resource_restaurant.enabled; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_restaurant.enabled IS 'Enabled switch, independent of status_code.';


--
-- Name: COLUMN resource_restaurant.deleted_at; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_restaurant.deleted_at IS 'Soft delete time; NULL = live row.';


--
-- Name: resource_restaurant_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.resource_restaurant ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.resource_restaurant_id_seq
    START WITH 9007199254740993
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: resource_scenic; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.resource_scenic (
    id bigint NOT NULL,
    name text NOT NULL,
    cover_url text,
    city text,
    is_charged boolean,
    settle_type_code text,
    status_code text NOT NULL,
    enabled boolean DEFAULT true NOT NULL,
    create_time timestamp with time zone DEFAULT now() NOT NULL,
    update_time timestamp with time zone DEFAULT now() NOT NULL,
    deleted_at timestamp with time zone,
    CONSTRAINT resource_scenic_name_len_chk CHECK (((char_length(name) >= 1) AND (char_length(name) <= 500))),
    CONSTRAINT resource_scenic_settle_type_code_chk CHECK ((settle_type_code = ANY (ARRAY['PREPAID'::text, 'POSTPAID'::text, 'MONTHLY'::text, 'PER_ORDER'::text]))),
    CONSTRAINT resource_scenic_status_code_chk CHECK ((status_code = ANY (ARRAY['ON_SALE'::text, 'OFF_SALE'::text, 'DRAFT'::text, 'DISABLED'::text])))
);


--
-- Name: TABLE resource_scenic; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.resource_scenic IS 'Local resource: scenic spots / attractions. Tags/seasons link with resource_module = ''SCENIC''.';


--
-- Name: COLUMN resource_scenic.cover_url; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_scenic.cover_url IS 'Current cover image URL; NULL = no cover.';


--
-- Name: COLUMN resource_scenic.city; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_scenic.city IS 'City as displayed (free text, not a dictionary code); NULL = unknown.';


--
-- Name: COLUMN resource_scenic.is_charged; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_scenic.is_charged IS 'Whether the resource is charged; NULL = not applicable.';


--
-- Name: COLUMN resource_scenic.settle_type_code; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_scenic.settle_type_code IS 'Settlement type, see resource_settle_type; NULL = not set.';


--
-- Name: COLUMN resource_scenic.status_code; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_scenic.status_code IS 'Sale status, see resource_status.';


--
-- Name: COLUMN resource_scenic.enabled; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_scenic.enabled IS 'Enabled switch, independent of status_code.';


--
-- Name: COLUMN resource_scenic.deleted_at; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_scenic.deleted_at IS 'Soft delete time; NULL = live row.';


--
-- Name: resource_scenic_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.resource_scenic ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.resource_scenic_id_seq
    START WITH 9007199254740993
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: resource_season; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.resource_season (
    season_code text NOT NULL,
    season_name text NOT NULL,
    sort_order integer NOT NULL,
    CONSTRAINT resource_season_code_chk CHECK ((season_code = ANY (ARRAY['SPRING'::text, 'SUMMER'::text, 'AUTUMN'::text, 'WINTER'::text, 'ALL_YEAR'::text])))
);


--
-- Name: TABLE resource_season; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.resource_season IS 'Reference: applicable seasons of a resource (display names and display order).';


--
-- Name: COLUMN resource_season.sort_order; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_season.sort_order IS 'Display order, ascending.';


--
-- Name: resource_season_link; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.resource_season_link (
    id bigint NOT NULL,
    resource_module text NOT NULL,
    resource_id bigint NOT NULL,
    season_code text NOT NULL,
    sort_order integer DEFAULT 0 NOT NULL,
    create_time timestamp with time zone DEFAULT now() NOT NULL,
    update_time timestamp with time zone DEFAULT now() NOT NULL,
    deleted_at timestamp with time zone,
    CONSTRAINT resource_season_link_module_chk CHECK ((resource_module = ANY (ARRAY['SCENIC'::text, 'RESTAURANT'::text, 'SUPPLIES'::text, 'SUPPLIES_COMBO'::text, 'ACTIVITY'::text, 'HOTEL'::text, 'SERVICE'::text, 'COST_ITEM'::text, 'STAFF'::text, 'VEHICLE'::text]))),
    CONSTRAINT resource_season_link_season_code_chk CHECK ((season_code = ANY (ARRAY['SPRING'::text, 'SUMMER'::text, 'AUTUMN'::text, 'WINTER'::text, 'ALL_YEAR'::text])))
);


--
-- Name: TABLE resource_season_link; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.resource_season_link IS 'Applicable season of a resource. (resource_module, resource_id) is polymorphic: no foreign key.';


--
-- Name: COLUMN resource_season_link.resource_module; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_season_link.resource_module IS 'Which table resource_id points into; same codes as resource_tag_link.resource_module.';


--
-- Name: COLUMN resource_season_link.resource_id; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_season_link.resource_id IS 'id in the table named by resource_module (not enforced).';


--
-- Name: COLUMN resource_season_link.sort_order; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_season_link.sort_order IS 'Display order of the seasons of one resource, ascending (resource_season.sort_order is the canonical order).';


--
-- Name: resource_season_link_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.resource_season_link ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.resource_season_link_id_seq
    START WITH 9007199254740993
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: resource_service; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.resource_service (
    id bigint NOT NULL,
    name text NOT NULL,
    cover_url text,
    city text,
    is_charged boolean,
    settle_type_code text,
    status_code text NOT NULL,
    enabled boolean DEFAULT true NOT NULL,
    create_time timestamp with time zone DEFAULT now() NOT NULL,
    update_time timestamp with time zone DEFAULT now() NOT NULL,
    deleted_at timestamp with time zone,
    CONSTRAINT resource_service_name_len_chk CHECK (((char_length(name) >= 1) AND (char_length(name) <= 500))),
    CONSTRAINT resource_service_settle_type_code_chk CHECK ((settle_type_code = ANY (ARRAY['PREPAID'::text, 'POSTPAID'::text, 'MONTHLY'::text, 'PER_ORDER'::text]))),
    CONSTRAINT resource_service_status_code_chk CHECK ((status_code = ANY (ARRAY['ON_SALE'::text, 'OFF_SALE'::text, 'DRAFT'::text, 'DISABLED'::text])))
);


--
-- Name: TABLE resource_service; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.resource_service IS 'Local resource: services. Tags/seasons link with resource_module = ''SERVICE''.';


--
-- Name: COLUMN resource_service.cover_url; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_service.cover_url IS 'Current cover image URL; NULL = no cover.';


--
-- Name: COLUMN resource_service.city; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_service.city IS 'City as displayed (free text, not a dictionary code); NULL = unknown.';


--
-- Name: COLUMN resource_service.is_charged; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_service.is_charged IS 'Whether the resource is charged; NULL = not applicable.';


--
-- Name: COLUMN resource_service.settle_type_code; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_service.settle_type_code IS 'Settlement type, see resource_settle_type; NULL = not set.';


--
-- Name: COLUMN resource_service.status_code; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_service.status_code IS 'Sale status, see resource_status.';


--
-- Name: COLUMN resource_service.enabled; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_service.enabled IS 'Enabled switch, independent of status_code.';


--
-- Name: COLUMN resource_service.deleted_at; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_service.deleted_at IS 'Soft delete time; NULL = live row.';


--
-- Name: resource_service_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.resource_service ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.resource_service_id_seq
    START WITH 9007199254740993
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: resource_settle_type; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.resource_settle_type (
    code text NOT NULL,
    name text NOT NULL,
    CONSTRAINT resource_settle_type_code_chk CHECK ((code = ANY (ARRAY['PREPAID'::text, 'POSTPAID'::text, 'MONTHLY'::text, 'PER_ORDER'::text])))
);


--
-- Name: TABLE resource_settle_type; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.resource_settle_type IS 'Reference: settlement types of a resource (display names for settle_type_code).';


--
-- Name: resource_staff; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.resource_staff (
    id bigint NOT NULL,
    name text NOT NULL,
    cover_url text,
    city text,
    is_charged boolean,
    settle_type_code text,
    status_code text NOT NULL,
    enabled boolean DEFAULT true NOT NULL,
    create_time timestamp with time zone DEFAULT now() NOT NULL,
    update_time timestamp with time zone DEFAULT now() NOT NULL,
    deleted_at timestamp with time zone,
    CONSTRAINT resource_staff_name_len_chk CHECK (((char_length(name) >= 1) AND (char_length(name) <= 500))),
    CONSTRAINT resource_staff_settle_type_code_chk CHECK ((settle_type_code = ANY (ARRAY['PREPAID'::text, 'POSTPAID'::text, 'MONTHLY'::text, 'PER_ORDER'::text]))),
    CONSTRAINT resource_staff_status_code_chk CHECK ((status_code = ANY (ARRAY['ON_SALE'::text, 'OFF_SALE'::text, 'DRAFT'::text, 'DISABLED'::text])))
);


--
-- Name: TABLE resource_staff; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.resource_staff IS 'Local resource: staff such as guides, drivers, tour leaders. Tags/seasons link with resource_module = ''STAFF''.';


--
-- Name: COLUMN resource_staff.cover_url; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_staff.cover_url IS 'Current cover image URL; NULL = no cover.';


--
-- Name: COLUMN resource_staff.city; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_staff.city IS 'City as displayed (free text, not a dictionary code); NULL = unknown.';


--
-- Name: COLUMN resource_staff.is_charged; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_staff.is_charged IS 'Whether the resource is charged; NULL = not applicable.';


--
-- Name: COLUMN resource_staff.settle_type_code; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_staff.settle_type_code IS 'Settlement type, see resource_settle_type; NULL = not set.';


--
-- Name: COLUMN resource_staff.status_code; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_staff.status_code IS 'Sale status, see resource_status.';


--
-- Name: COLUMN resource_staff.enabled; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_staff.enabled IS 'Enabled switch, independent of status_code.';


--
-- Name: COLUMN resource_staff.deleted_at; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_staff.deleted_at IS 'Soft delete time; NULL = live row.';


--
-- Name: resource_staff_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.resource_staff ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.resource_staff_id_seq
    START WITH 9007199254740993
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: resource_status; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.resource_status (
    code text NOT NULL,
    name text NOT NULL,
    CONSTRAINT resource_status_code_chk CHECK ((code = ANY (ARRAY['ON_SALE'::text, 'OFF_SALE'::text, 'DRAFT'::text, 'DISABLED'::text])))
);


--
-- Name: TABLE resource_status; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.resource_status IS 'Reference: sale status of a resource (display names for status_code).';


--
-- Name: resource_supplies; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.resource_supplies (
    id bigint NOT NULL,
    name text NOT NULL,
    cover_url text,
    city text,
    is_charged boolean,
    settle_type_code text,
    status_code text NOT NULL,
    enabled boolean DEFAULT true NOT NULL,
    create_time timestamp with time zone DEFAULT now() NOT NULL,
    update_time timestamp with time zone DEFAULT now() NOT NULL,
    deleted_at timestamp with time zone,
    CONSTRAINT resource_supplies_name_len_chk CHECK (((char_length(name) >= 1) AND (char_length(name) <= 500))),
    CONSTRAINT resource_supplies_settle_type_code_chk CHECK ((settle_type_code = ANY (ARRAY['PREPAID'::text, 'POSTPAID'::text, 'MONTHLY'::text, 'PER_ORDER'::text]))),
    CONSTRAINT resource_supplies_status_code_chk CHECK ((status_code = ANY (ARRAY['ON_SALE'::text, 'OFF_SALE'::text, 'DRAFT'::text, 'DISABLED'::text])))
);


--
-- Name: TABLE resource_supplies; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.resource_supplies IS 'Local resource: supplies / goods. Tags/seasons link with resource_module = ''SUPPLIES''.';


--
-- Name: COLUMN resource_supplies.cover_url; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_supplies.cover_url IS 'Current cover image URL; NULL = no cover.';


--
-- Name: COLUMN resource_supplies.city; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_supplies.city IS 'City as displayed (free text, not a dictionary code); NULL = unknown.';


--
-- Name: COLUMN resource_supplies.is_charged; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_supplies.is_charged IS 'Whether the resource is charged; NULL = not applicable.';


--
-- Name: COLUMN resource_supplies.settle_type_code; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_supplies.settle_type_code IS 'Settlement type, see resource_settle_type; NULL = not set.';


--
-- Name: COLUMN resource_supplies.status_code; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_supplies.status_code IS 'Sale status, see resource_status.';


--
-- Name: COLUMN resource_supplies.enabled; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_supplies.enabled IS 'Enabled switch, independent of status_code.';


--
-- Name: COLUMN resource_supplies.deleted_at; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_supplies.deleted_at IS 'Soft delete time; NULL = live row.';


--
-- Name: resource_supplies_combo; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.resource_supplies_combo (
    id bigint NOT NULL,
    name text NOT NULL,
    cover_url text,
    city text,
    is_charged boolean,
    settle_type_code text,
    status_code text NOT NULL,
    enabled boolean DEFAULT true NOT NULL,
    create_time timestamp with time zone DEFAULT now() NOT NULL,
    update_time timestamp with time zone DEFAULT now() NOT NULL,
    deleted_at timestamp with time zone,
    CONSTRAINT resource_supplies_combo_name_len_chk CHECK (((char_length(name) >= 1) AND (char_length(name) <= 500))),
    CONSTRAINT resource_supplies_combo_settle_type_code_chk CHECK ((settle_type_code = ANY (ARRAY['PREPAID'::text, 'POSTPAID'::text, 'MONTHLY'::text, 'PER_ORDER'::text]))),
    CONSTRAINT resource_supplies_combo_status_code_chk CHECK ((status_code = ANY (ARRAY['ON_SALE'::text, 'OFF_SALE'::text, 'DRAFT'::text, 'DISABLED'::text])))
);


--
-- Name: TABLE resource_supplies_combo; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.resource_supplies_combo IS 'Local resource: supply combos / bundles. Tags/seasons link with resource_module = ''SUPPLIES_COMBO''.';


--
-- Name: COLUMN resource_supplies_combo.cover_url; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_supplies_combo.cover_url IS 'Current cover image URL; NULL = no cover.';


--
-- Name: COLUMN resource_supplies_combo.city; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_supplies_combo.city IS 'City as displayed (free text, not a dictionary code); NULL = unknown.';


--
-- Name: COLUMN resource_supplies_combo.is_charged; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_supplies_combo.is_charged IS 'Whether the resource is charged; NULL = not applicable.';


--
-- Name: COLUMN resource_supplies_combo.settle_type_code; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_supplies_combo.settle_type_code IS 'Settlement type, see resource_settle_type; NULL = not set.';


--
-- Name: COLUMN resource_supplies_combo.status_code; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_supplies_combo.status_code IS 'Sale status, see resource_status.';


--
-- Name: COLUMN resource_supplies_combo.enabled; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_supplies_combo.enabled IS 'Enabled switch, independent of status_code.';


--
-- Name: COLUMN resource_supplies_combo.deleted_at; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_supplies_combo.deleted_at IS 'Soft delete time; NULL = live row.';


--
-- Name: resource_supplies_combo_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.resource_supplies_combo ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.resource_supplies_combo_id_seq
    START WITH 9007199254740993
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: resource_supplies_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.resource_supplies ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.resource_supplies_id_seq
    START WITH 9007199254740993
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: resource_tag; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.resource_tag (
    tag_id bigint NOT NULL,
    tag_name text NOT NULL,
    tag_color text,
    create_time timestamp with time zone DEFAULT now() NOT NULL,
    update_time timestamp with time zone DEFAULT now() NOT NULL,
    deleted_at timestamp with time zone,
    CONSTRAINT resource_tag_color_chk CHECK ((tag_color ~ '^#[0-9A-Fa-f]{6}$'::text)),
    CONSTRAINT resource_tag_name_len_chk CHECK (((char_length(tag_name) >= 1) AND (char_length(tag_name) <= 64)))
);


--
-- Name: TABLE resource_tag; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.resource_tag IS 'Tags that can be attached to any resource through resource_tag_link.';


--
-- Name: COLUMN resource_tag.tag_color; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_tag.tag_color IS 'Display colour, hex #RRGGBB; NULL = default colour.';


--
-- Name: COLUMN resource_tag.deleted_at; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_tag.deleted_at IS 'Soft delete time; NULL = live row. Links to a deleted tag are to be ignored.';


--
-- Name: resource_tag_link; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.resource_tag_link (
    id bigint NOT NULL,
    resource_module text NOT NULL,
    resource_id bigint NOT NULL,
    tag_id bigint NOT NULL,
    sort_order integer DEFAULT 0 NOT NULL,
    create_time timestamp with time zone DEFAULT now() NOT NULL,
    update_time timestamp with time zone DEFAULT now() NOT NULL,
    deleted_at timestamp with time zone,
    CONSTRAINT resource_tag_link_module_chk CHECK ((resource_module = ANY (ARRAY['SCENIC'::text, 'RESTAURANT'::text, 'SUPPLIES'::text, 'SUPPLIES_COMBO'::text, 'ACTIVITY'::text, 'HOTEL'::text, 'SERVICE'::text, 'COST_ITEM'::text, 'STAFF'::text, 'VEHICLE'::text])))
);


--
-- Name: TABLE resource_tag_link; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.resource_tag_link IS 'Tag attached to a resource. (resource_module, resource_id) is polymorphic: no foreign key.';


--
-- Name: COLUMN resource_tag_link.resource_module; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_tag_link.resource_module IS 'Which table resource_id points into: SCENIC=resource_scenic, RESTAURANT=resource_restaurant, SUPPLIES=resource_supplies, SUPPLIES_COMBO=resource_supplies_combo, ACTIVITY=resource_activity, HOTEL=resource_hotel, SERVICE=resource_service, COST_ITEM=resource_cost_item, STAFF=resource_staff, VEHICLE=fleet_vehicle.';


--
-- Name: COLUMN resource_tag_link.resource_id; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_tag_link.resource_id IS 'id in the table named by resource_module (not enforced).';


--
-- Name: COLUMN resource_tag_link.sort_order; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.resource_tag_link.sort_order IS 'Display order of the tags of one resource, ascending.';


--
-- Name: resource_tag_link_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.resource_tag_link ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.resource_tag_link_id_seq
    START WITH 9007199254740993
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: resource_tag_tag_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.resource_tag ALTER COLUMN tag_id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.resource_tag_tag_id_seq
    START WITH 9007199254740993
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: schema_migrations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.schema_migrations (
    version character varying NOT NULL
);


--
-- Name: seed_run; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.seed_run (
    seed_name text NOT NULL,
    run_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: sensitive_read_audit; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.sensitive_read_audit (
    id bigint NOT NULL,
    admin_id bigint NOT NULL,
    subject text NOT NULL,
    subject_id bigint NOT NULL,
    field_name text NOT NULL,
    request_id text,
    create_time timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: TABLE sensitive_read_audit; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.sensitive_read_audit IS 'who decrypted which sensitive value (e.g. an approval opinion), when';


--
-- Name: sensitive_read_audit_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.sensitive_read_audit ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.sensitive_read_audit_id_seq
    START WITH 9007199254740993
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: submit_guard; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.submit_guard (
    id bigint NOT NULL,
    admin_id bigint NOT NULL,
    operation text NOT NULL,
    target text NOT NULL,
    fingerprint text NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    create_time timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: TABLE submit_guard; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.submit_guard IS 'short-window duplicate-submit guard; written inside the business transaction';


--
-- Name: submit_guard_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.submit_guard ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.submit_guard_id_seq
    START WITH 9007199254740993
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: supplier; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.supplier (
    supplier_id bigint NOT NULL,
    supplier_no text,
    full_name text NOT NULL,
    short_name text,
    tax_no_enc text NOT NULL,
    tax_no_bidx text NOT NULL,
    tax_no_mask text NOT NULL,
    legal_representative text,
    contact_phone_enc text,
    contact_phone_mask text,
    establish_date date,
    registered_capital text,
    business_scope text,
    address text,
    staff_scale text,
    main_cooperation text NOT NULL,
    license_image_url text,
    approve_note text,
    remark text,
    status text DEFAULT 'DRAFT'::text NOT NULL,
    credit_level text,
    total_score numeric(6,2),
    is_related_party boolean DEFAULT false NOT NULL,
    submitted_snapshot jsonb,
    create_time timestamp with time zone DEFAULT now() NOT NULL,
    update_time timestamp with time zone DEFAULT date_trunc('second'::text, now()) NOT NULL,
    created_by bigint NOT NULL,
    updated_by bigint NOT NULL,
    deleted_at timestamp with time zone,
    approve_note_enc text,
    CONSTRAINT supplier_address_length CHECK ((char_length(address) <= 500)),
    CONSTRAINT supplier_approve_note_bytes CHECK ((octet_length(approve_note) <= 16777215)),
    CONSTRAINT supplier_capital_length CHECK ((char_length(registered_capital) <= 50)),
    CONSTRAINT supplier_delete_only_draft CHECK (((deleted_at IS NULL) OR (status = 'DRAFT'::text))),
    CONSTRAINT supplier_full_name_length CHECK (((char_length(full_name) >= 1) AND (char_length(full_name) <= 500))),
    CONSTRAINT supplier_legal_rep_length CHECK ((char_length(legal_representative) <= 500)),
    CONSTRAINT supplier_license_url_length CHECK ((char_length(license_image_url) <= 500)),
    CONSTRAINT supplier_main_cooperation_bytes CHECK (((octet_length(main_cooperation) >= 1) AND (octet_length(main_cooperation) <= 65535))),
    CONSTRAINT supplier_no_only_after_approval CHECK (((supplier_no IS NULL) OR (status <> ALL (ARRAY['DRAFT'::text, 'VETTING'::text])))),
    CONSTRAINT supplier_remark_bytes CHECK ((octet_length(remark) <= 16777215)),
    CONSTRAINT supplier_scope_length CHECK ((char_length(business_scope) <= 500)),
    CONSTRAINT supplier_short_name_length CHECK ((char_length(short_name) <= 300)),
    CONSTRAINT supplier_staff_scale_check CHECK ((staff_scale = ANY (ARRAY['LT50'::text, 'R50_200'::text, 'R200_500'::text, 'GT500'::text]))),
    CONSTRAINT supplier_status_check CHECK ((status = ANY (ARRAY['DRAFT'::text, 'VETTING'::text, 'ACTIVE'::text, 'SUSPENDED'::text, 'FROZEN'::text, 'BLACKLIST'::text, 'ARCHIVED'::text])))
);


--
-- Name: COLUMN supplier.tax_no_enc; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.supplier.tax_no_enc IS 'AES-256-GCM ciphertext v1.<keyId>.<iv>.<ct>; never plaintext';


--
-- Name: COLUMN supplier.tax_no_bidx; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.supplier.tax_no_bidx IS 'HMAC-SHA256 blind index of the normalized tax number (rule C-02)';


--
-- Name: COLUMN supplier.approve_note; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.supplier.approve_note IS 'retired plaintext approveNote: never written since 20261123000100; emptied into approve_note_enc by the service (npm run approve-notes); to be dropped';


--
-- Name: COLUMN supplier.submitted_snapshot; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.supplier.submitted_snapshot IS 'identifying data frozen at submit; VETTING edits cannot touch it';


--
-- Name: COLUMN supplier.update_time; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.supplier.update_time IS 'the version: expectedUpdateTime is compared to it at one-second resolution';


--
-- Name: COLUMN supplier.approve_note_enc; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.supplier.approve_note_enc IS 'approveNote: AES-256-GCM ciphertext v1.<keyId>.<iv>.<ct>; never plaintext';


--
-- Name: supplier_bank_account; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.supplier_bank_account (
    account_id bigint NOT NULL,
    supplier_id bigint NOT NULL,
    account_name text NOT NULL,
    account_type text NOT NULL,
    bank_name text NOT NULL,
    bank_branch text,
    account_no_enc text NOT NULL,
    account_no_bidx text NOT NULL,
    account_no_mask text NOT NULL,
    proof_file_urls jsonb DEFAULT '[]'::jsonb NOT NULL,
    settle_mode text,
    account_period integer,
    invoice_type text,
    tax_rate numeric(5,2),
    status text NOT NULL,
    is_default text DEFAULT 'NO'::text NOT NULL,
    create_time timestamp with time zone DEFAULT now() NOT NULL,
    update_time timestamp with time zone DEFAULT date_trunc('second'::text, now()) NOT NULL,
    created_by bigint NOT NULL,
    deleted_at timestamp with time zone,
    risk_flags jsonb DEFAULT '[]'::jsonb NOT NULL,
    CONSTRAINT supplier_bank_account_bank_length CHECK (((char_length(bank_name) >= 1) AND (char_length(bank_name) <= 500))),
    CONSTRAINT supplier_bank_account_branch_length CHECK ((char_length(bank_branch) <= 500)),
    CONSTRAINT supplier_bank_account_default_check CHECK ((is_default = ANY (ARRAY['YES'::text, 'NO'::text]))),
    CONSTRAINT supplier_bank_account_invoice_check CHECK ((invoice_type = ANY (ARRAY['SPECIAL'::text, 'NORMAL'::text, 'NONE'::text]))),
    CONSTRAINT supplier_bank_account_period_check CHECK (((account_period IS NULL) OR (((account_period >= 1) AND (account_period <= 365)) AND (settle_mode = 'MONTHLY'::text)))),
    CONSTRAINT supplier_bank_account_proof_array CHECK (((jsonb_typeof(proof_file_urls) = 'array'::text) AND (jsonb_array_length(proof_file_urls) <= 20))),
    CONSTRAINT supplier_bank_account_risk_flags_array CHECK ((jsonb_typeof(risk_flags) = 'array'::text)),
    CONSTRAINT supplier_bank_account_settle_mode_check CHECK ((settle_mode = ANY (ARRAY['PER_ORDER'::text, 'WEEKLY'::text, 'MONTHLY'::text, 'PREPAID'::text]))),
    CONSTRAINT supplier_bank_account_status_check CHECK ((status = ANY (ARRAY['DRAFT'::text, 'PENDING'::text, 'ACTIVE'::text, 'APPLY_FAILED'::text, 'REJECTED'::text]))),
    CONSTRAINT supplier_bank_account_tax_rate_by_invoice CHECK (((invoice_type IS NULL) OR ((invoice_type = 'NONE'::text) AND (tax_rate IS NULL)) OR ((invoice_type = ANY (ARRAY['SPECIAL'::text, 'NORMAL'::text])) AND (tax_rate IS NOT NULL)))),
    CONSTRAINT supplier_bank_account_tax_rate_check CHECK (((tax_rate >= (0)::numeric) AND (tax_rate <= (100)::numeric))),
    CONSTRAINT supplier_bank_account_type_check CHECK ((account_type = ANY (ARRAY['CORPORATE'::text, 'PERSONAL'::text])))
);


--
-- Name: COLUMN supplier_bank_account.status; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.supplier_bank_account.status IS 'DRAFT: initial account of an unsubmitted registration; PENDING: under approval; ACTIVE: applied by an approval; APPLY_FAILED: approved, not applied (retryable); REJECTED: creation rejected. Moves: src/domain/account/statuses.ts';


--
-- Name: supplier_bank_account_account_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.supplier_bank_account ALTER COLUMN account_id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.supplier_bank_account_account_id_seq
    START WITH 9007199254740993
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: supplier_contact; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.supplier_contact (
    contact_id bigint NOT NULL,
    supplier_id bigint NOT NULL,
    contact_name text NOT NULL,
    contact_phone_enc text NOT NULL,
    contact_phone_mask text NOT NULL,
    contact_role text,
    remark text,
    status text DEFAULT 'ACTIVE'::text NOT NULL,
    create_time timestamp with time zone DEFAULT now() NOT NULL,
    update_time timestamp with time zone DEFAULT date_trunc('second'::text, now()) NOT NULL,
    deleted_at timestamp with time zone,
    CONSTRAINT supplier_contact_name_length CHECK (((char_length(contact_name) >= 1) AND (char_length(contact_name) <= 500))),
    CONSTRAINT supplier_contact_remark_length CHECK ((char_length(remark) <= 200)),
    CONSTRAINT supplier_contact_role_length CHECK ((char_length(contact_role) <= 64)),
    CONSTRAINT supplier_contact_status_check CHECK ((status = 'ACTIVE'::text))
);


--
-- Name: supplier_contact_contact_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.supplier_contact ALTER COLUMN contact_id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.supplier_contact_contact_id_seq
    START WITH 9007199254740993
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: supplier_contract; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.supplier_contract (
    contract_id bigint NOT NULL,
    supplier_id bigint NOT NULL,
    create_time timestamp with time zone DEFAULT now() NOT NULL,
    update_time timestamp with time zone DEFAULT date_trunc('second'::text, now()) NOT NULL,
    deleted_at timestamp with time zone
);


--
-- Name: supplier_contract_contract_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.supplier_contract ALTER COLUMN contract_id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.supplier_contract_contract_id_seq
    START WITH 9007199254740993
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: supplier_evaluation; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.supplier_evaluation (
    evaluation_id bigint NOT NULL,
    supplier_id bigint NOT NULL,
    create_time timestamp with time zone DEFAULT now() NOT NULL,
    update_time timestamp with time zone DEFAULT date_trunc('second'::text, now()) NOT NULL,
    deleted_at timestamp with time zone
);


--
-- Name: supplier_evaluation_evaluation_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.supplier_evaluation ALTER COLUMN evaluation_id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.supplier_evaluation_evaluation_id_seq
    START WITH 9007199254740993
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: supplier_keyword; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.supplier_keyword (
    keyword text NOT NULL,
    state text NOT NULL,
    builder text,
    used_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT supplier_keyword_keyword_check CHECK ((char_length(keyword) >= 3)),
    CONSTRAINT supplier_keyword_state_check CHECK ((state = ANY (ARRAY['building'::text, 'ready'::text])))
);


--
-- Name: TABLE supplier_keyword; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.supplier_keyword IS 'list keywords of three or more characters whose totals are kept in supplier_keyword_count (read once ready); derived, bounded, least recently used evicted';


--
-- Name: supplier_keyword_count; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.supplier_keyword_count (
    id bigint NOT NULL,
    keyword text NOT NULL,
    source smallint NOT NULL,
    status text NOT NULL,
    n bigint NOT NULL
);


--
-- Name: TABLE supplier_keyword_count; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.supplier_keyword_count IS 'live suppliers per kept keyword, source (1 name, 2 other spelling) and status, kept by triggers on supplier_search; a total is sum(n) over a key''s rows';


--
-- Name: supplier_keyword_count_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.supplier_keyword_count ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.supplier_keyword_count_id_seq
    START WITH 9007199254740993
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: supplier_name_key; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.supplier_name_key (
    supplier_id bigint NOT NULL,
    keys text[] NOT NULL
);


--
-- Name: TABLE supplier_name_key; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.supplier_name_key IS 'company-name keys of a supplier''s full_name and short_name for the near-duplicate probe (395006); no row: not keyed yet';


--
-- Name: supplier_no_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.supplier_no_seq
    START WITH 100001
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: supplier_qualification; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.supplier_qualification (
    qualification_id bigint NOT NULL,
    supplier_id bigint NOT NULL,
    qual_type text NOT NULL,
    cert_no_enc text,
    cert_no_mask text,
    image_url text,
    expiry_date date,
    status text DEFAULT 'ACTIVE'::text NOT NULL,
    create_time timestamp with time zone DEFAULT now() NOT NULL,
    update_time timestamp with time zone DEFAULT date_trunc('second'::text, now()) NOT NULL,
    deleted_at timestamp with time zone,
    CONSTRAINT supplier_qualification_image_bytes CHECK ((octet_length(image_url) <= 65535)),
    CONSTRAINT supplier_qualification_status_check CHECK ((status = 'ACTIVE'::text)),
    CONSTRAINT supplier_qualification_type_length CHECK (((char_length(qual_type) >= 1) AND (char_length(qual_type) <= 64)))
);


--
-- Name: TABLE supplier_qualification; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.supplier_qualification IS 'isRequired is derived from qualification_rule at read time, never stored from clients';


--
-- Name: supplier_qualification_qualification_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.supplier_qualification ALTER COLUMN qualification_id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.supplier_qualification_qualification_id_seq
    START WITH 9007199254740993
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: supplier_resource_relation; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.supplier_resource_relation (
    relation_id bigint NOT NULL,
    supplier_id bigint NOT NULL,
    resource_module text NOT NULL,
    resource_id bigint NOT NULL,
    required_type_code text,
    remark text,
    create_time timestamp with time zone DEFAULT now() NOT NULL,
    update_time timestamp with time zone DEFAULT date_trunc('second'::text, now()) NOT NULL,
    created_by bigint NOT NULL,
    updated_by bigint NOT NULL,
    deleted_at timestamp with time zone,
    CONSTRAINT supplier_resource_relation_module_check CHECK ((resource_module = ANY (ARRAY['SCENIC'::text, 'RESTAURANT'::text, 'SUPPLIES'::text, 'SUPPLIES_COMBO'::text, 'ACTIVITY'::text, 'HOTEL'::text, 'SERVICE'::text, 'COST_ITEM'::text, 'STAFF'::text, 'VEHICLE'::text]))),
    CONSTRAINT supplier_resource_relation_remark_length CHECK ((char_length(remark) <= 500))
);


--
-- Name: supplier_resource_relation_relation_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.supplier_resource_relation ALTER COLUMN relation_id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.supplier_resource_relation_relation_id_seq
    START WITH 9007199254740993
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: supplier_supplier_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.supplier ALTER COLUMN supplier_id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.supplier_supplier_id_seq
    START WITH 9007199254740993
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: supplier_term_count; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.supplier_term_count (
    id bigint NOT NULL,
    term text NOT NULL,
    source smallint NOT NULL,
    status text NOT NULL,
    n bigint NOT NULL
);


--
-- Name: TABLE supplier_term_count; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.supplier_term_count IS 'live suppliers per keyword term, source (1 name, 2 other spelling) and status, kept by triggers on supplier_search; a total is sum(n) over a key''s rows';


--
-- Name: supplier_term_count_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.supplier_term_count ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.supplier_term_count_id_seq
    START WITH 9007199254740993
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: supplier_type; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.supplier_type (
    id bigint NOT NULL,
    supplier_id bigint NOT NULL,
    type_code text NOT NULL,
    is_primary boolean DEFAULT false NOT NULL,
    create_time timestamp with time zone DEFAULT now() NOT NULL,
    update_time timestamp with time zone DEFAULT date_trunc('second'::text, now()) NOT NULL,
    deleted_at timestamp with time zone,
    supplier_create_time timestamp with time zone NOT NULL
);


--
-- Name: COLUMN supplier_type.supplier_create_time; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.supplier_type.supplier_create_time IS 'supplier.create_time of its supplier, set by trigger: the key of supplier_type_list_order';


--
-- Name: supplier_type_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.supplier_type ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.supplier_type_id_seq
    START WITH 9007199254740993
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: admin_permission admin_permission_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.admin_permission
    ADD CONSTRAINT admin_permission_pkey PRIMARY KEY (id);


--
-- Name: admin_role admin_role_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.admin_role
    ADD CONSTRAINT admin_role_pkey PRIMARY KEY (id);


--
-- Name: approval_log approval_log_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.approval_log
    ADD CONSTRAINT approval_log_pkey PRIMARY KEY (approval_log_id);


--
-- Name: audit_chain_head audit_chain_head_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_chain_head
    ADD CONSTRAINT audit_chain_head_pkey PRIMARY KEY (chain);


--
-- Name: audit_trail_state audit_trail_state_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_trail_state
    ADD CONSTRAINT audit_trail_state_pkey PRIMARY KEY (singleton);


--
-- Name: backfill_progress backfill_progress_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.backfill_progress
    ADD CONSTRAINT backfill_progress_pkey PRIMARY KEY (job);


--
-- Name: change_log_count change_log_count_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.change_log_count
    ADD CONSTRAINT change_log_count_pkey PRIMARY KEY (id);


--
-- Name: change_log_day_count change_log_day_count_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.change_log_day_count
    ADD CONSTRAINT change_log_day_count_pkey PRIMARY KEY (id);


--
-- Name: change_log change_log_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.change_log
    ADD CONSTRAINT change_log_pkey PRIMARY KEY (change_log_id);


--
-- Name: dict_data dict_data_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.dict_data
    ADD CONSTRAINT dict_data_pkey PRIMARY KEY (dict_data_id);


--
-- Name: dict_type dict_type_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.dict_type
    ADD CONSTRAINT dict_type_pkey PRIMARY KEY (dict_type_id);


--
-- Name: domain_event domain_event_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.domain_event
    ADD CONSTRAINT domain_event_pkey PRIMARY KEY (event_id);


--
-- Name: fleet_vehicle fleet_vehicle_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.fleet_vehicle
    ADD CONSTRAINT fleet_vehicle_pkey PRIMARY KEY (id);


--
-- Name: idempotency_record idempotency_record_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.idempotency_record
    ADD CONSTRAINT idempotency_record_pkey PRIMARY KEY (id);


--
-- Name: job_lease job_lease_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_lease
    ADD CONSTRAINT job_lease_pkey PRIMARY KEY (job);


--
-- Name: list_count list_count_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.list_count
    ADD CONSTRAINT list_count_pkey PRIMARY KEY (id);


--
-- Name: qualification_reminder qualification_reminder_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.qualification_reminder
    ADD CONSTRAINT qualification_reminder_pkey PRIMARY KEY (qualification_id, expiry_date, kind);


--
-- Name: qualification_rule qualification_rule_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.qualification_rule
    ADD CONSTRAINT qualification_rule_pkey PRIMARY KEY (rule_id);


--
-- Name: resource_activity resource_activity_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.resource_activity
    ADD CONSTRAINT resource_activity_pkey PRIMARY KEY (id);


--
-- Name: resource_cost_item resource_cost_item_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.resource_cost_item
    ADD CONSTRAINT resource_cost_item_pkey PRIMARY KEY (id);


--
-- Name: resource_hotel resource_hotel_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.resource_hotel
    ADD CONSTRAINT resource_hotel_pkey PRIMARY KEY (id);


--
-- Name: resource_restaurant resource_restaurant_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.resource_restaurant
    ADD CONSTRAINT resource_restaurant_pkey PRIMARY KEY (id);


--
-- Name: resource_scenic resource_scenic_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.resource_scenic
    ADD CONSTRAINT resource_scenic_pkey PRIMARY KEY (id);


--
-- Name: resource_season_link resource_season_link_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.resource_season_link
    ADD CONSTRAINT resource_season_link_pkey PRIMARY KEY (id);


--
-- Name: resource_season resource_season_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.resource_season
    ADD CONSTRAINT resource_season_pkey PRIMARY KEY (season_code);


--
-- Name: resource_service resource_service_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.resource_service
    ADD CONSTRAINT resource_service_pkey PRIMARY KEY (id);


--
-- Name: resource_settle_type resource_settle_type_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.resource_settle_type
    ADD CONSTRAINT resource_settle_type_pkey PRIMARY KEY (code);


--
-- Name: resource_staff resource_staff_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.resource_staff
    ADD CONSTRAINT resource_staff_pkey PRIMARY KEY (id);


--
-- Name: resource_status resource_status_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.resource_status
    ADD CONSTRAINT resource_status_pkey PRIMARY KEY (code);


--
-- Name: resource_supplies_combo resource_supplies_combo_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.resource_supplies_combo
    ADD CONSTRAINT resource_supplies_combo_pkey PRIMARY KEY (id);


--
-- Name: resource_supplies resource_supplies_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.resource_supplies
    ADD CONSTRAINT resource_supplies_pkey PRIMARY KEY (id);


--
-- Name: resource_tag_link resource_tag_link_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.resource_tag_link
    ADD CONSTRAINT resource_tag_link_pkey PRIMARY KEY (id);


--
-- Name: resource_tag resource_tag_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.resource_tag
    ADD CONSTRAINT resource_tag_pkey PRIMARY KEY (tag_id);


--
-- Name: schema_migrations schema_migrations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.schema_migrations
    ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (version);


--
-- Name: seed_run seed_run_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.seed_run
    ADD CONSTRAINT seed_run_pkey PRIMARY KEY (seed_name);


--
-- Name: sensitive_read_audit sensitive_read_audit_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sensitive_read_audit
    ADD CONSTRAINT sensitive_read_audit_pkey PRIMARY KEY (id);


--
-- Name: submit_guard submit_guard_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.submit_guard
    ADD CONSTRAINT submit_guard_pkey PRIMARY KEY (id);


--
-- Name: supplier_bank_account supplier_bank_account_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.supplier_bank_account
    ADD CONSTRAINT supplier_bank_account_pkey PRIMARY KEY (account_id);


--
-- Name: supplier_contact supplier_contact_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.supplier_contact
    ADD CONSTRAINT supplier_contact_pkey PRIMARY KEY (contact_id);


--
-- Name: supplier_contract supplier_contract_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.supplier_contract
    ADD CONSTRAINT supplier_contract_pkey PRIMARY KEY (contract_id);


--
-- Name: supplier_evaluation supplier_evaluation_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.supplier_evaluation
    ADD CONSTRAINT supplier_evaluation_pkey PRIMARY KEY (evaluation_id);


--
-- Name: supplier_keyword_count supplier_keyword_count_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.supplier_keyword_count
    ADD CONSTRAINT supplier_keyword_count_pkey PRIMARY KEY (id);


--
-- Name: supplier_keyword supplier_keyword_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.supplier_keyword
    ADD CONSTRAINT supplier_keyword_pkey PRIMARY KEY (keyword);


--
-- Name: supplier_name_key supplier_name_key_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.supplier_name_key
    ADD CONSTRAINT supplier_name_key_pkey PRIMARY KEY (supplier_id);


--
-- Name: supplier supplier_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.supplier
    ADD CONSTRAINT supplier_pkey PRIMARY KEY (supplier_id);


--
-- Name: supplier_qualification supplier_qualification_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.supplier_qualification
    ADD CONSTRAINT supplier_qualification_pkey PRIMARY KEY (qualification_id);


--
-- Name: supplier_resource_relation supplier_resource_relation_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.supplier_resource_relation
    ADD CONSTRAINT supplier_resource_relation_pkey PRIMARY KEY (relation_id);


--
-- Name: supplier_search supplier_search_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.supplier_search
    ADD CONSTRAINT supplier_search_pkey PRIMARY KEY (supplier_id);


--
-- Name: supplier_term_count supplier_term_count_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.supplier_term_count
    ADD CONSTRAINT supplier_term_count_pkey PRIMARY KEY (id);


--
-- Name: supplier_type supplier_type_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.supplier_type
    ADD CONSTRAINT supplier_type_pkey PRIMARY KEY (id);


--
-- Name: admin_permission_live; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX admin_permission_live ON public.admin_permission USING btree (admin_id, permission_code) WHERE (deleted_at IS NULL);


--
-- Name: admin_role_live; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX admin_role_live ON public.admin_role USING btree (admin_id, role_code) WHERE (deleted_at IS NULL);


--
-- Name: approval_log_pending; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX approval_log_pending ON public.approval_log USING btree (submitted_at) WHERE (status = ANY (ARRAY['SUBMITTED'::text, 'APPROVED'::text]));


--
-- Name: approval_log_request_no; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX approval_log_request_no ON public.approval_log USING btree (request_no);


--
-- Name: approval_log_risky; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX approval_log_risky ON public.approval_log USING btree (approval_log_id) WHERE (risk_flags <> '[]'::jsonb);


--
-- Name: approval_log_supplier; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX approval_log_supplier ON public.approval_log USING btree (supplier_id, approval_log_id DESC);


--
-- Name: approval_log_unfinished; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX approval_log_unfinished ON public.approval_log USING btree (submitted_at) WHERE (status = ANY (ARRAY['SUBMITTED'::text, 'APPROVED'::text]));


--
-- Name: approval_log_unsealed; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX approval_log_unsealed ON public.approval_log USING btree (approval_log_id) WHERE (audit_hash IS NULL);


--
-- Name: change_log_approval; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX change_log_approval ON public.change_log USING btree (approval_log_id) WHERE (approval_log_id IS NOT NULL);


--
-- Name: change_log_count_key; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX change_log_count_key ON public.change_log_count USING btree (operation_type, target_type, field_name, status);


--
-- Name: change_log_day_count_key; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX change_log_day_count_key ON public.change_log_day_count USING btree (span, from_day, operation_type, field_name, target_type, status);


--
-- Name: change_log_field; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX change_log_field ON public.change_log USING btree (field_name, date_trunc('second'::text, (create_time AT TIME ZONE 'UTC'::text)) DESC, change_log_id DESC) INCLUDE (create_time) WHERE (supplier_id IS NOT NULL);


--
-- Name: change_log_key; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX change_log_key ON public.change_log USING btree (operation_type, field_name, target_type, COALESCE(status, ''::text), date_trunc('second'::text, (create_time AT TIME ZONE 'UTC'::text)) DESC, change_log_id DESC) INCLUDE (create_time, status) WHERE (supplier_id IS NOT NULL);


--
-- Name: change_log_operation; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX change_log_operation ON public.change_log USING btree (operation_type, date_trunc('second'::text, (create_time AT TIME ZONE 'UTC'::text)) DESC, change_log_id DESC) INCLUDE (create_time) WHERE (supplier_id IS NOT NULL);


--
-- Name: change_log_order; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX change_log_order ON public.change_log USING btree (date_trunc('second'::text, (create_time AT TIME ZONE 'UTC'::text)) DESC, change_log_id DESC) INCLUDE (create_time) WHERE (supplier_id IS NOT NULL);


--
-- Name: change_log_rule; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX change_log_rule ON public.change_log USING btree (target_id, create_time DESC) WHERE (target_type = 'QUALIFICATION_RULE'::text);


--
-- Name: change_log_status; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX change_log_status ON public.change_log USING btree (status, date_trunc('second'::text, (create_time AT TIME ZONE 'UTC'::text)) DESC, change_log_id DESC) INCLUDE (create_time) WHERE ((supplier_id IS NOT NULL) AND (status IS NOT NULL));


--
-- Name: change_log_supplier; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX change_log_supplier ON public.change_log USING btree (supplier_id, date_trunc('second'::text, (create_time AT TIME ZONE 'UTC'::text)) DESC, change_log_id DESC) INCLUDE (create_time);


--
-- Name: change_log_supplier_key; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX change_log_supplier_key ON public.change_log USING btree (supplier_id, operation_type, field_name, target_type, COALESCE(status, ''::text), date_trunc('second'::text, (create_time AT TIME ZONE 'UTC'::text)) DESC, change_log_id DESC) INCLUDE (create_time, status) WHERE (supplier_id IS NOT NULL);


--
-- Name: change_log_target_type; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX change_log_target_type ON public.change_log USING btree (target_type, date_trunc('second'::text, (create_time AT TIME ZONE 'UTC'::text)) DESC, change_log_id DESC) INCLUDE (create_time) WHERE (supplier_id IS NOT NULL);


--
-- Name: change_log_unsealed; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX change_log_unsealed ON public.change_log USING btree (change_log_id) WHERE (audit_hash IS NULL);


--
-- Name: dict_data_value_live; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX dict_data_value_live ON public.dict_data USING btree (dict_type, dict_value) WHERE (deleted_at IS NULL);


--
-- Name: dict_type_code_live; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX dict_type_code_live ON public.dict_type USING btree (dict_type) WHERE (deleted_at IS NULL);


--
-- Name: domain_event_parked_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX domain_event_parked_id ON public.domain_event USING btree (event_id) WHERE (status = 'PARKED'::text);


--
-- Name: domain_event_pending; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX domain_event_pending ON public.domain_event USING btree (event_id) WHERE (status = 'PENDING'::text);


--
-- Name: domain_event_pending_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX domain_event_pending_id ON public.domain_event USING btree (event_id) WHERE (status = 'PENDING'::text);


--
-- Name: domain_event_pending_time; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX domain_event_pending_time ON public.domain_event USING btree (create_time) WHERE (status = 'PENDING'::text);


--
-- Name: fleet_vehicle_name_live_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX fleet_vehicle_name_live_idx ON public.fleet_vehicle USING btree (name) WHERE (deleted_at IS NULL);


--
-- Name: idempotency_record_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idempotency_record_key ON public.idempotency_record USING btree (admin_id, idempotency_key);


--
-- Name: list_count_key; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX list_count_key ON public.list_count USING btree (list, type_code, status);


--
-- Name: qualification_rule_live; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX qualification_rule_live ON public.qualification_rule USING btree (type_code, qual_type) WHERE (deleted_at IS NULL);


--
-- Name: resource_activity_name_live_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX resource_activity_name_live_idx ON public.resource_activity USING btree (name) WHERE (deleted_at IS NULL);


--
-- Name: resource_cost_item_name_live_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX resource_cost_item_name_live_idx ON public.resource_cost_item USING btree (name) WHERE (deleted_at IS NULL);


--
-- Name: resource_hotel_name_live_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX resource_hotel_name_live_idx ON public.resource_hotel USING btree (name) WHERE (deleted_at IS NULL);


--
-- Name: resource_restaurant_name_live_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX resource_restaurant_name_live_idx ON public.resource_restaurant USING btree (name) WHERE (deleted_at IS NULL);


--
-- Name: resource_scenic_name_live_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX resource_scenic_name_live_idx ON public.resource_scenic USING btree (name) WHERE (deleted_at IS NULL);


--
-- Name: resource_season_link_live_uq; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX resource_season_link_live_uq ON public.resource_season_link USING btree (resource_module, resource_id, season_code) WHERE (deleted_at IS NULL);


--
-- Name: resource_service_name_live_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX resource_service_name_live_idx ON public.resource_service USING btree (name) WHERE (deleted_at IS NULL);


--
-- Name: resource_staff_name_live_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX resource_staff_name_live_idx ON public.resource_staff USING btree (name) WHERE (deleted_at IS NULL);


--
-- Name: resource_supplies_combo_name_live_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX resource_supplies_combo_name_live_idx ON public.resource_supplies_combo USING btree (name) WHERE (deleted_at IS NULL);


--
-- Name: resource_supplies_name_live_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX resource_supplies_name_live_idx ON public.resource_supplies USING btree (name) WHERE (deleted_at IS NULL);


--
-- Name: resource_tag_link_live_uq; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX resource_tag_link_live_uq ON public.resource_tag_link USING btree (resource_module, resource_id, tag_id) WHERE (deleted_at IS NULL);


--
-- Name: resource_tag_link_resource_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX resource_tag_link_resource_idx ON public.resource_tag_link USING btree (resource_module, resource_id) WHERE (deleted_at IS NULL);


--
-- Name: resource_tag_link_tag_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX resource_tag_link_tag_idx ON public.resource_tag_link USING btree (tag_id);


--
-- Name: resource_tag_name_live_uq; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX resource_tag_name_live_uq ON public.resource_tag USING btree (tag_name) WHERE (deleted_at IS NULL);


--
-- Name: sensitive_read_audit_subject; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sensitive_read_audit_subject ON public.sensitive_read_audit USING btree (subject, subject_id);


--
-- Name: submit_guard_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX submit_guard_key ON public.submit_guard USING btree (admin_id, operation, target, fingerprint);


--
-- Name: supplier_bank_account_live; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX supplier_bank_account_live ON public.supplier_bank_account USING btree (supplier_id) WHERE (deleted_at IS NULL);


--
-- Name: supplier_bank_account_no_active; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX supplier_bank_account_no_active ON public.supplier_bank_account USING btree (account_no_bidx) WHERE ((deleted_at IS NULL) AND (status = 'ACTIVE'::text));


--
-- Name: supplier_bank_account_no_live; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX supplier_bank_account_no_live ON public.supplier_bank_account USING btree (account_no_bidx) WHERE (deleted_at IS NULL);


--
-- Name: supplier_bank_account_one_default; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX supplier_bank_account_one_default ON public.supplier_bank_account USING btree (supplier_id) WHERE ((deleted_at IS NULL) AND (is_default = 'YES'::text));


--
-- Name: supplier_contact_live; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX supplier_contact_live ON public.supplier_contact USING btree (supplier_id) WHERE (deleted_at IS NULL);


--
-- Name: supplier_contract_live; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX supplier_contract_live ON public.supplier_contract USING btree (supplier_id) WHERE (deleted_at IS NULL);


--
-- Name: supplier_evaluation_live; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX supplier_evaluation_live ON public.supplier_evaluation USING btree (supplier_id) WHERE (deleted_at IS NULL);


--
-- Name: supplier_full_name_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX supplier_full_name_trgm ON public.supplier USING gin (lower(full_name) public.gin_trgm_ops) WHERE (deleted_at IS NULL);


--
-- Name: supplier_keyword_count_key; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX supplier_keyword_count_key ON public.supplier_keyword_count USING btree (keyword, status, source);


--
-- Name: supplier_list_full_name; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX supplier_list_full_name ON public.supplier USING btree (full_name, supplier_id) WHERE (deleted_at IS NULL);


--
-- Name: supplier_list_order; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX supplier_list_order ON public.supplier USING btree (date_trunc('second'::text, (create_time AT TIME ZONE 'UTC'::text)) DESC, supplier_id DESC) INCLUDE (create_time, status) WHERE (deleted_at IS NULL);


--
-- Name: supplier_list_supplier_no; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX supplier_list_supplier_no ON public.supplier USING btree (supplier_no NULLS FIRST, supplier_id) WHERE (deleted_at IS NULL);


--
-- Name: supplier_list_update_time; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX supplier_list_update_time ON public.supplier USING btree (update_time, supplier_id) WHERE (deleted_at IS NULL);


--
-- Name: supplier_live_status; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX supplier_live_status ON public.supplier USING btree (supplier_id) INCLUDE (status) WHERE (deleted_at IS NULL);


--
-- Name: supplier_name_key_keys; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX supplier_name_key_keys ON public.supplier_name_key USING gin (keys) WITH (fastupdate=off);


--
-- Name: supplier_no_live; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX supplier_no_live ON public.supplier USING btree (supplier_no) WHERE ((deleted_at IS NULL) AND (supplier_no IS NOT NULL));


--
-- Name: supplier_no_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX supplier_no_trgm ON public.supplier USING gin (lower(supplier_no) public.gin_trgm_ops) WHERE (deleted_at IS NULL);


--
-- Name: supplier_qualification_expiring; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX supplier_qualification_expiring ON public.supplier_qualification USING btree (expiry_date, qualification_id) WHERE ((deleted_at IS NULL) AND (expiry_date IS NOT NULL));


--
-- Name: supplier_qualification_live; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX supplier_qualification_live ON public.supplier_qualification USING btree (supplier_id) WHERE (deleted_at IS NULL);


--
-- Name: supplier_resource_relation_one_valid; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX supplier_resource_relation_one_valid ON public.supplier_resource_relation USING btree (resource_module, resource_id) WHERE (deleted_at IS NULL);


--
-- Name: supplier_resource_relation_supplier; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX supplier_resource_relation_supplier ON public.supplier_resource_relation USING btree (supplier_id, update_time DESC, relation_id DESC) INCLUDE (resource_module, resource_id) WHERE (deleted_at IS NULL);


--
-- Name: supplier_resource_relation_supplier_module; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX supplier_resource_relation_supplier_module ON public.supplier_resource_relation USING btree (supplier_id, resource_module, update_time DESC, relation_id DESC) INCLUDE (resource_id) WHERE (deleted_at IS NULL);


--
-- Name: supplier_search_digits; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX supplier_search_digits ON public.supplier_search USING gin (terms) WITH (fastupdate=off) WHERE ((status IS NOT NULL) AND ((((full_fold || short_fold) || spellings) ~ '[0-9]'::text) OR (public.supplier_no_fold(supplier_no) !~ '^sp[0-9]*$'::text)));


--
-- Name: supplier_search_full_fold; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX supplier_search_full_fold ON public.supplier_search USING btree (full_fold) WHERE (status IS NOT NULL);


--
-- Name: supplier_search_latin; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX supplier_search_latin ON public.supplier_search USING gin (public.search_latin_grams(full_fold, short_fold, spellings, public.supplier_no_fold(supplier_no))) WITH (fastupdate=off) WHERE (status IS NOT NULL);


--
-- Name: supplier_search_list_order; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX supplier_search_list_order ON public.supplier_search USING btree (date_trunc('second'::text, (create_time AT TIME ZONE 'UTC'::text)) DESC, supplier_id DESC) WHERE (status IS NOT NULL);


--
-- Name: supplier_search_number; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX supplier_search_number ON public.supplier_search USING btree (public.supplier_no_fold(supplier_no) text_pattern_ops) WHERE ((status IS NOT NULL) AND (public.supplier_no_fold(supplier_no) ~ '^sp[0-9]*$'::text));


--
-- Name: supplier_search_number_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX supplier_search_number_trgm ON public.supplier_search USING gin (public.supplier_no_fold(supplier_no) public.gin_trgm_ops) WITH (fastupdate=off) WHERE (status IS NOT NULL);


--
-- Name: supplier_search_short_fold; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX supplier_search_short_fold ON public.supplier_search USING btree (short_fold) WHERE ((status IS NOT NULL) AND (short_fold <> ''::text));


--
-- Name: supplier_search_terms; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX supplier_search_terms ON public.supplier_search USING gin (terms) WITH (fastupdate=off);


--
-- Name: supplier_search_uncounted; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX supplier_search_uncounted ON public.supplier_search USING btree (supplier_id) WHERE ((version < 2) AND (status IS NOT NULL));


--
-- Name: supplier_short_name_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX supplier_short_name_trgm ON public.supplier USING gin (lower(short_name) public.gin_trgm_ops) WHERE (deleted_at IS NULL);


--
-- Name: supplier_status_live; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX supplier_status_live ON public.supplier USING btree (status) WHERE (deleted_at IS NULL);


--
-- Name: supplier_tax_no_live; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX supplier_tax_no_live ON public.supplier USING btree (tax_no_bidx) WHERE (deleted_at IS NULL);


--
-- Name: supplier_term_count_key; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX supplier_term_count_key ON public.supplier_term_count USING btree (term, status, source);


--
-- Name: supplier_type_code_live; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX supplier_type_code_live ON public.supplier_type USING btree (type_code, supplier_id) WHERE (deleted_at IS NULL);


--
-- Name: supplier_type_list_order; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX supplier_type_list_order ON public.supplier_type USING btree (type_code, date_trunc('second'::text, (supplier_create_time AT TIME ZONE 'UTC'::text)) DESC, supplier_id DESC) INCLUDE (supplier_create_time) WHERE (deleted_at IS NULL);


--
-- Name: supplier_type_live; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX supplier_type_live ON public.supplier_type USING btree (supplier_id, type_code) WHERE (deleted_at IS NULL);


--
-- Name: approval_log approval_log_no_delete; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER approval_log_no_delete BEFORE DELETE ON public.approval_log FOR EACH ROW EXECUTE FUNCTION public.forbid_evidence_change();


--
-- Name: approval_log approval_log_no_truncate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER approval_log_no_truncate BEFORE TRUNCATE ON public.approval_log FOR EACH STATEMENT EXECUTE FUNCTION public.forbid_evidence_change();


--
-- Name: audit_chain_head audit_chain_head_no_delete; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER audit_chain_head_no_delete BEFORE DELETE ON public.audit_chain_head FOR EACH ROW EXECUTE FUNCTION public.forbid_evidence_change();


--
-- Name: audit_chain_head audit_chain_head_no_truncate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER audit_chain_head_no_truncate BEFORE TRUNCATE ON public.audit_chain_head FOR EACH STATEMENT EXECUTE FUNCTION public.forbid_evidence_change();


--
-- Name: change_log change_log_append_only; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER change_log_append_only BEFORE DELETE OR UPDATE ON public.change_log FOR EACH ROW EXECUTE FUNCTION public.change_log_append_or_seal();


--
-- Name: change_log change_log_category_count_insert; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER change_log_category_count_insert AFTER INSERT ON public.change_log REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION public.change_log_category_count_inserted();


--
-- Name: change_log change_log_count_insert; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER change_log_count_insert AFTER INSERT ON public.change_log REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION public.change_log_count_inserted();


--
-- Name: change_log change_log_day_count_insert; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER change_log_day_count_insert AFTER INSERT ON public.change_log REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION public.change_log_day_count_inserted();


--
-- Name: change_log change_log_no_truncate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER change_log_no_truncate BEFORE TRUNCATE ON public.change_log FOR EACH STATEMENT EXECUTE FUNCTION public.forbid_evidence_change();


--
-- Name: sensitive_read_audit sensitive_read_audit_append_only; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER sensitive_read_audit_append_only BEFORE DELETE OR UPDATE ON public.sensitive_read_audit FOR EACH ROW EXECUTE FUNCTION public.forbid_evidence_change();


--
-- Name: sensitive_read_audit sensitive_read_audit_no_truncate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER sensitive_read_audit_no_truncate BEFORE TRUNCATE ON public.sensitive_read_audit FOR EACH STATEMENT EXECUTE FUNCTION public.forbid_evidence_change();


--
-- Name: supplier_bank_account supplier_bank_account_no_physical_delete; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER supplier_bank_account_no_physical_delete BEFORE DELETE ON public.supplier_bank_account FOR EACH ROW EXECUTE FUNCTION public.forbid_delete();


--
-- Name: supplier_contact supplier_contact_no_physical_delete; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER supplier_contact_no_physical_delete BEFORE DELETE ON public.supplier_contact FOR EACH ROW EXECUTE FUNCTION public.forbid_delete();


--
-- Name: supplier_contract supplier_contract_no_physical_delete; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER supplier_contract_no_physical_delete BEFORE DELETE ON public.supplier_contract FOR EACH ROW EXECUTE FUNCTION public.forbid_delete();


--
-- Name: supplier supplier_count_insert; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER supplier_count_insert AFTER INSERT ON public.supplier REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION public.supplier_count_inserted();


--
-- Name: supplier supplier_count_truncate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER supplier_count_truncate AFTER TRUNCATE ON public.supplier FOR EACH STATEMENT EXECUTE FUNCTION public.list_count_truncated();


--
-- Name: supplier supplier_count_update; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER supplier_count_update AFTER UPDATE OF status, deleted_at ON public.supplier FOR EACH ROW WHEN (((old.status IS DISTINCT FROM new.status) OR ((old.deleted_at IS NULL) <> (new.deleted_at IS NULL)))) EXECUTE FUNCTION public.supplier_count_changed();


--
-- Name: supplier supplier_create_time_fixed; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER supplier_create_time_fixed BEFORE UPDATE OF create_time ON public.supplier FOR EACH ROW WHEN ((old.create_time IS DISTINCT FROM new.create_time)) EXECUTE FUNCTION public.supplier_create_time_fixed();


--
-- Name: supplier_evaluation supplier_evaluation_no_physical_delete; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER supplier_evaluation_no_physical_delete BEFORE DELETE ON public.supplier_evaluation FOR EACH ROW EXECUTE FUNCTION public.forbid_delete();


--
-- Name: supplier_search supplier_keyword_count_delete; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER supplier_keyword_count_delete AFTER DELETE ON public.supplier_search REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.supplier_keyword_count_deleted();


--
-- Name: supplier_search supplier_keyword_count_insert; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER supplier_keyword_count_insert AFTER INSERT ON public.supplier_search REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.supplier_keyword_count_inserted();


--
-- Name: supplier_search supplier_keyword_count_update; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER supplier_keyword_count_update AFTER UPDATE ON public.supplier_search REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.supplier_keyword_count_updated();


--
-- Name: supplier supplier_no_physical_delete; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER supplier_no_physical_delete BEFORE DELETE ON public.supplier FOR EACH ROW EXECUTE FUNCTION public.forbid_delete();


--
-- Name: supplier_qualification supplier_qualification_no_physical_delete; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER supplier_qualification_no_physical_delete BEFORE DELETE ON public.supplier_qualification FOR EACH ROW EXECUTE FUNCTION public.forbid_delete();


--
-- Name: supplier_resource_relation supplier_resource_relation_no_physical_delete; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER supplier_resource_relation_no_physical_delete BEFORE DELETE ON public.supplier_resource_relation FOR EACH ROW EXECUTE FUNCTION public.forbid_delete();


--
-- Name: supplier supplier_search_mirror_insert; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER supplier_search_mirror_insert AFTER INSERT ON public.supplier REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION public.supplier_search_mirror_inserted();


--
-- Name: supplier supplier_search_mirror_update; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER supplier_search_mirror_update AFTER UPDATE ON public.supplier FOR EACH ROW WHEN (((old.status IS DISTINCT FROM new.status) OR (old.deleted_at IS DISTINCT FROM new.deleted_at) OR (old.update_time IS DISTINCT FROM new.update_time) OR (old.full_name IS DISTINCT FROM new.full_name) OR (old.supplier_no IS DISTINCT FROM new.supplier_no))) EXECUTE FUNCTION public.supplier_search_mirror_changed();


--
-- Name: supplier_search supplier_term_count_delete; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER supplier_term_count_delete AFTER DELETE ON public.supplier_search REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.supplier_term_count_deleted();


--
-- Name: supplier_search supplier_term_count_insert; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER supplier_term_count_insert AFTER INSERT ON public.supplier_search REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.supplier_term_count_inserted();


--
-- Name: supplier_search supplier_term_count_update; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER supplier_term_count_update AFTER UPDATE ON public.supplier_search REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.supplier_term_count_updated();


--
-- Name: supplier_type supplier_type_count_insert; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER supplier_type_count_insert AFTER INSERT ON public.supplier_type REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION public.supplier_type_count_inserted();


--
-- Name: supplier_type supplier_type_count_truncate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER supplier_type_count_truncate AFTER TRUNCATE ON public.supplier_type FOR EACH STATEMENT EXECUTE FUNCTION public.list_count_truncated();


--
-- Name: supplier_type supplier_type_count_update; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER supplier_type_count_update AFTER UPDATE OF deleted_at, type_code, supplier_id ON public.supplier_type FOR EACH ROW WHEN ((((old.deleted_at IS NULL) <> (new.deleted_at IS NULL)) OR (old.type_code <> new.type_code) OR (old.supplier_id <> new.supplier_id))) EXECUTE FUNCTION public.supplier_type_count_changed();


--
-- Name: supplier_type supplier_type_create_time; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER supplier_type_create_time BEFORE INSERT OR UPDATE OF supplier_id, supplier_create_time ON public.supplier_type FOR EACH ROW EXECUTE FUNCTION public.supplier_type_copy_create_time();


--
-- Name: supplier_type supplier_type_no_physical_delete; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER supplier_type_no_physical_delete BEFORE DELETE ON public.supplier_type FOR EACH ROW EXECUTE FUNCTION public.forbid_delete();


--
-- Name: approval_log approval_log_supplier_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.approval_log
    ADD CONSTRAINT approval_log_supplier_id_fkey FOREIGN KEY (supplier_id) REFERENCES public.supplier(supplier_id);


--
-- Name: change_log change_log_approval_log_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.change_log
    ADD CONSTRAINT change_log_approval_log_id_fkey FOREIGN KEY (approval_log_id) REFERENCES public.approval_log(approval_log_id);


--
-- Name: change_log change_log_supplier_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.change_log
    ADD CONSTRAINT change_log_supplier_id_fkey FOREIGN KEY (supplier_id) REFERENCES public.supplier(supplier_id);


--
-- Name: qualification_reminder qualification_reminder_qualification_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.qualification_reminder
    ADD CONSTRAINT qualification_reminder_qualification_id_fkey FOREIGN KEY (qualification_id) REFERENCES public.supplier_qualification(qualification_id);


--
-- Name: resource_season_link resource_season_link_season_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.resource_season_link
    ADD CONSTRAINT resource_season_link_season_fk FOREIGN KEY (season_code) REFERENCES public.resource_season(season_code);


--
-- Name: resource_tag_link resource_tag_link_tag_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.resource_tag_link
    ADD CONSTRAINT resource_tag_link_tag_fk FOREIGN KEY (tag_id) REFERENCES public.resource_tag(tag_id);


--
-- Name: supplier_bank_account supplier_bank_account_supplier_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.supplier_bank_account
    ADD CONSTRAINT supplier_bank_account_supplier_id_fkey FOREIGN KEY (supplier_id) REFERENCES public.supplier(supplier_id);


--
-- Name: supplier_contact supplier_contact_supplier_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.supplier_contact
    ADD CONSTRAINT supplier_contact_supplier_id_fkey FOREIGN KEY (supplier_id) REFERENCES public.supplier(supplier_id);


--
-- Name: supplier_contract supplier_contract_supplier_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.supplier_contract
    ADD CONSTRAINT supplier_contract_supplier_id_fkey FOREIGN KEY (supplier_id) REFERENCES public.supplier(supplier_id);


--
-- Name: supplier_evaluation supplier_evaluation_supplier_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.supplier_evaluation
    ADD CONSTRAINT supplier_evaluation_supplier_id_fkey FOREIGN KEY (supplier_id) REFERENCES public.supplier(supplier_id);


--
-- Name: supplier_name_key supplier_name_key_supplier_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.supplier_name_key
    ADD CONSTRAINT supplier_name_key_supplier_id_fkey FOREIGN KEY (supplier_id) REFERENCES public.supplier(supplier_id);


--
-- Name: supplier_qualification supplier_qualification_supplier_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.supplier_qualification
    ADD CONSTRAINT supplier_qualification_supplier_id_fkey FOREIGN KEY (supplier_id) REFERENCES public.supplier(supplier_id);


--
-- Name: supplier_resource_relation supplier_resource_relation_supplier_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.supplier_resource_relation
    ADD CONSTRAINT supplier_resource_relation_supplier_id_fkey FOREIGN KEY (supplier_id) REFERENCES public.supplier(supplier_id);


--
-- Name: supplier_search supplier_search_supplier_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.supplier_search
    ADD CONSTRAINT supplier_search_supplier_id_fkey FOREIGN KEY (supplier_id) REFERENCES public.supplier(supplier_id);


--
-- Name: supplier_type supplier_type_supplier_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.supplier_type
    ADD CONSTRAINT supplier_type_supplier_id_fkey FOREIGN KEY (supplier_id) REFERENCES public.supplier(supplier_id);


--
-- PostgreSQL database dump complete
--

\unrestrict dbmate


--
-- Dbmate schema migrations
--

INSERT INTO public.schema_migrations (version) VALUES
    ('20261121000100'),
    ('20261121000200'),
    ('20261123000100'),
    ('20261123000200'),
    ('20261123020100'),
    ('20261123030100'),
    ('20261123040000'),
    ('20261123050000'),
    ('20261123060100'),
    ('20261124000000'),
    ('20261124120000'),
    ('20261125000100'),
    ('20261125100000'),
    ('20261125100100'),
    ('20261125200000'),
    ('20261126000100'),
    ('20261126120000'),
    ('20261127000100'),
    ('20261202000100'),
    ('20261202000200'),
    ('20261202000300'),
    ('20261202000400'),
    ('20261202000500'),
    ('20261202000600'),
    ('20261202000700'),
    ('20261203000100'),
    ('20261203000700'),
    ('20261203000800'),
    ('20261203000900');
