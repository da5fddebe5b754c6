import type postgres from 'postgres'
import { z } from 'zod'
import { formatDateTime, many, maybeOne, none, one, secondOf, type Sql } from './db'
import type { SupplierSortKey } from '../src/vocabulary'
import {
  SupplierBasicInfoVO,
  SupplierListItemVO,
  SupplierTaxNoLookupVO,
} from '../src/schemas/supplier'
import { complianceOf } from './compliance'
import { activeAccountCount } from './account'
import { subjectColumns } from './supplier'

/*
 * Read side of the supplier aggregate: list, basic-information detail, account information.
 * Only mask columns are selected; no `*_enc`, `*_bidx`, approve_note or is_related_party ever
 * leaves this module. Every table a query touches is filtered on `deleted_at IS NULL`.
 */

/** The list's filter, paging and order without a keyword (a keyword search is KeywordSearch). */
export interface SupplierListFilter {
  status?: string
  typeCode?: string
  sortBy?: SupplierSortKey
  sortDirection?: 'ASC' | 'DESC'
  limit: number
  offset: number
  /** Zone the date-times are rendered in (the service's), whatever the session's. */
  timezone: string
}

export interface KeywordSearch extends SupplierListFilter {
  /** Trimmed, non-empty, as the caller typed it (the typo fallback compares it). */
  keyword: string
  /**
   * The keyword folded like the names (src/domain/supplier/search.ts: `keywordTerms`) and the
   * index terms each match holds. An empty fold (no letter, digit or Han character) matches none.
   */
  fold: string
  terms: string[]
  /**
   * pg_trgm similarity from which the keyword matches a full or short name that does not
   * contain it, when no spelling contains it; 0 turns that off. searchSuppliers makes it the
   * transaction's `pg_trgm.similarity_threshold`, which the `%` operator and its index read.
   */
  similarity?: number
}

/** `%`, `_` and `\` match themselves (LIKE's default escape character is `\`). */
export const escapeLike = (s: string) => s.replace(/[\\%_]/g, '\\$&')

/*
 * The list and detail rows are parsed by the response shapes (src/schemas/supplier.ts): zod
 * objects strip unknown keys, so a column added to a query never reaches a client unless the
 * response lists it.
 */

/**
 * JSON array of the live types of supplier `s`, primary first then dictionary order. typeName
 * is the label of a live, enabled `supplier_type` item of a live, enabled dictionary; else null.
 */
const typesOf = (sql: Sql) => sql`
  COALESCE((
    SELECT json_agg(
             json_build_object('typeCode', t.type_code, 'typeName', d.dict_label, 'isPrimary', t.is_primary)
             ORDER BY t.is_primary DESC, d.sort_order NULLS LAST, t.type_code)
    FROM supplier_type t
    LEFT JOIN (
      dict_data d
      JOIN dict_type dt ON dt.dict_type = d.dict_type AND dt.status = 'ACTIVE' AND dt.deleted_at IS NULL
    ) ON d.dict_type = 'supplier_type' AND d.dict_value = t.type_code
         AND d.status = 'ACTIVE' AND d.deleted_at IS NULL
    WHERE t.supplier_id = s.supplier_id AND t.deleted_at IS NULL
  ), '[]'::json)
`

const listWhere = (sql: Sql, f: SupplierListFilter) => {
  const status = f.status ? sql`AND s.status = ${f.status}` : sql``
  const typeCode = f.typeCode
    ? sql`AND EXISTS (
        SELECT 1 FROM supplier_type ft
        WHERE ft.supplier_id = s.supplier_id AND ft.type_code = ${f.typeCode} AND ft.deleted_at IS NULL
      )`
    : sql``
  return sql`WHERE s.deleted_at IS NULL ${status} ${typeCode}`
}

/** The list's order; `first` (a keyword's rank) goes before it. */
const listOrder = (sql: Sql, f: SupplierListFilter, first?: postgres.Fragment) => {
  const column = {
    createTime: secondOf(sql, sql`s.create_time`),
    updateTime: sql`s.update_time`,
    fullName: sql`s.full_name`,
    supplierNo: sql`s.supplier_no`,
  }[f.sortBy ?? 'createTime']
  const asc = f.sortDirection === 'ASC'
  // createTime sorts by the second it is shown at, so suppliers shown with the same time are in
  // id order. supplierNo is null until approval: unnumbered suppliers sort as the smallest values.
  // The NOT NULL columns keep the plain direction so the order index serves it both ways.
  const nulls = f.sortBy === 'supplierNo' ? (asc ? sql`NULLS FIRST` : sql`NULLS LAST`) : sql``
  const direction = asc ? sql`ASC` : sql`DESC`
  return sql`ORDER BY ${first ? sql`${first},` : sql``} ${column} ${direction} ${nulls}, s.supplier_id ${direction}`
}

/**
 * The ids of a page, in the list's order, reading only what the page needs:
 * - a type in the default order walks that type's live rows in supplier_type_list_order and
 *   probes each supplier (live, of the status asked): the entries of other types are never read,
 *   where the order index filtered by the type read about fifteen per row kept for HOTEL;
 * - otherwise the order index alone (with status in it), filtered by a type when another order
 *   is asked for. A keyword search selects its matches first instead (keywordMatches).
 */
const pageIds = (sql: Sql, f: SupplierListFilter) => {
  const page = sql`LIMIT ${f.limit} OFFSET ${f.offset}`
  if (f.typeCode && (f.sortBy ?? 'createTime') === 'createTime') {
    const direction = f.sortDirection === 'ASC' ? sql`ASC` : sql`DESC`
    return sql`
      SELECT ft.supplier_id FROM supplier_type ft
      JOIN supplier s ON s.supplier_id = ft.supplier_id
      ${listWhere(sql, { ...f, typeCode: undefined })}
        AND ft.type_code = ${f.typeCode} AND ft.deleted_at IS NULL
      ORDER BY ${secondOf(sql, sql`ft.supplier_create_time`)} ${direction}, ft.supplier_id ${direction}
      ${page}
    `
  }
  return sql`SELECT s.supplier_id FROM supplier s ${listWhere(sql, f)} ${listOrder(sql, f)} ${page}`
}

/**
 * One page of live suppliers matching the filter, in the whitelisted order (SUP-ADM-001). The
 * page's ids are chosen first, from the order index alone where it can (the rows OFFSET skips
 * cost an index entry each), and only those rows are read and decorated with their types and
 * active account count: evaluated in the ordered query, those subqueries ran for every skipped
 * row too (page 400 cost 85 times page 1 at 10,000 suppliers).
 */
export function supplierListPage(sql: Sql, f: SupplierListFilter) {
  return decoratedPage(sql, sql`ARRAY(${pageIds(sql, f)})`, f.timezone)
}

/**
 * The list rows of the suppliers in `ids` (a bigint[] expression), in the array's order: its
 * positions are the page's order (ARRAY(subquery) keeps the subquery's).
 */
function decoratedPage<T extends z.ZodType = typeof SupplierListItemVO>(
  sql: Sql,
  ids: postgres.Fragment,
  timezone: string,
  {
    row = SupplierListItemVO as unknown as T,
    taxNoMask = false,
  }: { row?: T; taxNoMask?: boolean } = {},
) {
  return many(
    sql`
      SELECT s.supplier_id::text AS "supplierId", s.supplier_no AS "supplierNo",
             ${taxNoMask ? sql`s.tax_no_mask AS "taxNoMask",` : sql``}
             s.full_name AS "fullName", s.short_name AS "shortName",
             ${typesOf(sql)} AS types,
             s.status, s.credit_level AS "creditLevel", s.total_score::float8 AS "totalScore",
             ${activeAccountCount(sql, sql`s.supplier_id`)} AS "activeAccountCount",
             ${formatDateTime(sql, sql`s.create_time`, timezone)} AS "createTime",
             ${formatDateTime(sql, sql`s.update_time`, timezone)} AS "updateTime"
      FROM unnest(${ids}) WITH ORDINALITY AS page (supplier_id, position)
      JOIN supplier s ON s.supplier_id = page.supplier_id AND s.deleted_at IS NULL
      ORDER BY page.position
    `,
    row,
  )
}

/** The lookup's answer: the list row and the tax number's mask. */
const TaxNoHolderRow = SupplierTaxNoLookupVO.shape.supplier.unwrap()

/**
 * The live supplier whose tax number has blind index `taxNoBidx` (C-02's, unique among live
 * suppliers: supplier_tax_no_live), as a list row with its mask; null when none.
 */
export async function taxNoHolder(sql: Sql, taxNoBidx: string, timezone: string) {
  const rows = await decoratedPage(sql, sql`ARRAY(${holderIds(sql, taxNoBidx)})`, timezone, {
    row: TaxNoHolderRow,
    taxNoMask: true,
  })
  return rows[0] ?? null
}

/** The id of the live supplier holding the blind index (none or one: supplier_tax_no_live). */
const holderIds = (sql: Sql, taxNoBidx: string) =>
  sql`SELECT h.supplier_id FROM supplier h WHERE h.tax_no_bidx = ${taxNoBidx} AND h.deleted_at IS NULL`

const KeywordMatches = z.object({ total: z.number().int(), ids: z.array(z.string()) })

/**
 * The live suppliers one of whose spellings contains the folded keyword, from supplier_search
 * alone: the rows holding every term of the keyword (itself when one character long, else its
 * pairs of adjacent characters) from supplier_search_terms, rechecked by LIKE on the texts, and
 * filtered by the mirrored status and the type. `rank` is 0 for a name equal to the keyword, 1 a
 * name containing it, 2 another spelling (pinyin, initials, supplier number). A keyword with a
 * digit (numberShape), such as a supplier number or a part of one, finds its candidates by
 * numberMatches instead, and one of three or more letters a-z alone (pinyin, a Latin word), whose
 * pairs most rows' pinyin holds, by supplier_search_latin (latinTerms).
 */
const spellingMatches = (sql: Sql, f: KeywordSearch) => {
  const contains = `%${escapeLike(f.fold)}%`
  const status = f.status ? sql`AND s.status = ${f.status}` : sql`AND s.status IS NOT NULL`
  const typeCode = f.typeCode
    ? sql`AND EXISTS (
        SELECT 1 FROM supplier_type ft
        WHERE ft.supplier_id = s.supplier_id AND ft.type_code = ${f.typeCode} AND ft.deleted_at IS NULL
      )`
    : sql``
  const number = numberShape(f.fold)
  const latin = latinTerms(f.fold)
  const candidates = number
    ? numberMatches(sql, f, number)
    : latin
      ? sql`search_latin_grams(s.full_fold, s.short_fold, s.spellings, supplier_no_fold(s.supplier_no)) @> ${latin}::text[]`
      : sql`s.terms @> ${f.terms}::text[]`
  return sql`
    SELECT s.supplier_id, s.create_time, s.update_time, s.full_name, s.supplier_no,
           CASE WHEN s.full_fold = ${f.fold} OR s.short_fold = ${f.fold} THEN 0
                WHEN s.full_fold LIKE ${contains} OR s.short_fold LIKE ${contains} THEN 1
                ELSE 2 END AS rank
    FROM supplier_search s
    WHERE ${candidates}
      AND (s.full_fold LIKE ${contains} OR s.short_fold LIKE ${contains}
           OR s.spellings LIKE ${contains} OR supplier_no_fold(s.supplier_no) LIKE ${contains})
      ${status} ${typeCode}
  `
}

/**
 * The terms of supplier_search_latin (migration 20261203000800) that every text holding a keyword
 * of three or more letters a-z alone holds: the keyword itself when three letters long, else each
 * of its sequences of four. Undefined for any other keyword.
 */
function latinTerms(fold: string): string[] | undefined {
  if (!/^[a-z]{3,}$/.test(fold)) return undefined
  if (fold.length === 3) return [fold]
  const grams = new Set<string>()
  for (let i = 0; i + 4 <= fold.length; i++) grams.add(fold.slice(i, i + 4))
  return [...grams].sort()
}

/**
 * Where in a number of the drawn shape (`sp` and digits, folded) a keyword holding an ASCII digit
 * can sit: at the start, as `prefix` (`s` is only ever first in one and `p` second); anywhere
 * after `sp` (digits alone); nowhere (any other letter or character). Undefined, for the terms to
 * serve it: no digit (a name holds it without one), or digits alone too short for a trigram.
 */
type NumberShape = { at: 'start'; prefix: string } | { at: 'anywhere' | 'nowhere' }
function numberShape(fold: string): NumberShape | undefined {
  if (!/[0-9]/.test(fold)) return undefined
  if (/^[0-9]+$/.test(fold)) return fold.length >= 3 ? { at: 'anywhere' } : undefined
  if (/^s[a-z0-9]*$/.test(fold)) return { at: 'start', prefix: fold }
  if (/^p[a-z0-9]*$/.test(fold)) return { at: 'start', prefix: `s${fold}` }
  return { at: 'nowhere' }
}

/**
 * The candidates of a keyword with a digit (numberShape) without supplier_search_terms, where the
 * pairs of digits and of `sp` of most rows' numbers are (migration 20261203000700):
 * - the numbers holding it: by their trigrams (supplier_search_number_trgm) when it is digits
 *   alone, else those of the drawn shape it starts, a range of supplier_search_number;
 * - the rows of supplier_search_digits holding its terms: those whose names or other spellings
 *   have a digit (as every one holding the keyword has) or whose number has another shape.
 * The caller rechecks both by LIKE. The shape and the digit test are literals, for the planner to
 * match the partial indexes' predicates.
 */
const numberMatches = (sql: Sql, f: KeywordSearch, shape: NumberShape) => {
  const digits = sql`(
    (s.full_fold || s.short_fold || s.spellings) ~ '[0-9]' OR supplier_no_fold(s.supplier_no) !~ '^sp[0-9]*$'
  ) AND s.terms @> ${f.terms}::text[]`
  const no = sql`supplier_no_fold(s.supplier_no)`
  if (shape.at === 'anywhere') return sql`(${no} LIKE ${`%${escapeLike(f.fold)}%`} OR (${digits}))`
  if (shape.at !== 'start') return digits
  // The strings starting with the prefix in byte order (text_pattern_ops): up to its last
  // character (a-z or 0-9) plus one, exclusive.
  const { prefix } = shape
  const end = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1)
  return sql`((${no} ~ '^sp[0-9]*$' AND ${no} ~>=~ ${prefix} AND ${no} ~<~ ${end}) OR (${digits}))`
}

/**
 * A keyword's total and its page's ids, from one pass over its matches, counted and sorted (rank
 * first, then the order asked for). MATERIALIZED keeps the CTE from being inlined into an ordered
 * query, where the planner (which cannot estimate `@>` and LIKE well) would rather walk an order
 * index and test every row until a page is full. With `similar`, the matches are instead the full
 * or short names trigram-similar to the keyword (`%`, served by the trigram indexes of supplier),
 * all of one rank.
 */
function keywordMatches(sql: Sql, f: KeywordSearch, similar: boolean) {
  const kw = sql`lower(${f.keyword})`
  const matches = similar
    ? sql`SELECT s.supplier_id, s.create_time, s.update_time, s.full_name, s.supplier_no, 0 AS rank
          FROM supplier s ${listWhere(sql, f)}
          AND (lower(s.full_name) % ${kw} OR lower(s.short_name) % ${kw})`
    : spellingMatches(sql, f)
  return one(
    sql`
      WITH matches AS MATERIALIZED (${matches})
      SELECT (SELECT count(*)::int FROM matches) AS total,
             ARRAY(SELECT s.supplier_id::text FROM matches s ${listOrder(sql, f, sql`s.rank`)}
                   LIMIT ${f.limit} OFFSET ${f.offset}) AS ids
    `,
    KeywordMatches,
  )
}

const KeptCounts = z.object({
  ready: z.boolean(),
  names: z.number().int(),
  others: z.number().int(),
  live: z.number().int(),
  exact: z.array(z.string()),
})

/** The default order, which supplier_search_list_order serves both ways. */
const walkable = (f: KeywordSearch) => !f.typeCode && (f.sortBy ?? 'createTime') === 'createTime'

/**
 * A keyword of one or two characters (one index term), or a kept one of three or more that is
 * ready (migration 20261202000700), in the default order without a type, from the kept counts and
 * a walk of the order index (migration 20261202000500), instead of a pass over its matches: its
 * exact total is the sum of its supplier_term_count (or supplier_keyword_count) rows (names: a
 * folded name holds it; others: only another spelling does), the rank-0 names equal to it are
 * looked up by their folds, and each further rank's part of the page walks
 * supplier_search_list_order keeping that rank's rows. The walk reads about (offset + limit) ×
 * live ÷ rank matches rows: when that is more than the keyword's matches, which the terms index
 * reads once, for a longer keyword not kept, or before the backfill has counted every row, `found`
 * is null: keywordMatches serves it. `kept`: a kept keyword's counts were read.
 */
async function keptMatches(
  sql: Sql,
  f: KeywordSearch,
): Promise<{ kept: boolean; found: z.infer<typeof KeywordMatches> | null }> {
  const contains = `%${escapeLike(f.fold)}%`
  const status = f.status ? sql`AND s.status = ${f.status}` : sql``
  const term = [...f.fold].length <= 2
  const counts = term
    ? sql`supplier_term_count c WHERE c.term = ${f.fold}`
    : sql`supplier_keyword_count c WHERE c.keyword = ${f.fold}`
  // A keyword's counts are read only once its build has made them exact.
  const built = term
    ? sql``
    : sql`AND EXISTS (SELECT 1 FROM supplier_keyword k WHERE k.keyword = ${f.fold} AND k.state = 'ready')`
  // The rank-0 suppliers (a folded name equal to the keyword) are few: all of them, in order.
  const kept = await one(
    sql`
      SELECT NOT EXISTS (SELECT 1 FROM supplier_search u WHERE u.version < 2 AND u.status IS NOT NULL)
             ${built} AS ready,
             coalesce(sum(c.n) FILTER (WHERE c.source = 1), 0)::int AS names,
             coalesce(sum(c.n) FILTER (WHERE c.source = 2), 0)::int AS others,
             (SELECT coalesce(sum(l.n), 0)::int FROM list_count l
              WHERE l.list = 'supplier' AND l.type_code = ''
              ${f.status ? sql`AND l.status = ${f.status}` : sql``}) AS live,
             ARRAY(SELECT s.supplier_id::text FROM supplier_search s
                   WHERE s.status IS NOT NULL ${status}
                     AND (s.full_fold = ${f.fold} OR (s.short_fold <> '' AND s.short_fold = ${f.fold}))
                   ${listOrder(sql, f)}) AS exact
      FROM ${counts} ${f.status ? sql`AND c.status = ${f.status}` : sql``}
    `,
    KeptCounts,
  )
  if (!kept.ready) return { kept: false, found: null }
  const total = kept.names + kept.others
  if (total === 0) return { kept: !term, found: { total, ids: [] } }
  // Each rank's slice of the page: [offset, offset + limit) less the ranks before it.
  const end = f.offset + f.limit
  const slices: { rank: 0 | 1 | 2; count: number; offset: number; limit: number }[] = []
  let start = 0
  for (const [rank, count] of [
    [0, kept.exact.length],
    [1, kept.names - kept.exact.length],
    [2, kept.others],
  ] as const) {
    const from = Math.max(start, f.offset)
    const to = Math.min(start + count, end)
    if (to > from) slices.push({ rank, count, offset: from - start, limit: to - from })
    start += count
  }
  const walked = (g: (typeof slices)[number]) => ((g.offset + g.limit) * kept.live) / g.count
  if (slices.some((g) => g.rank > 0 && walked(g) > total)) return { kept: !term, found: null }
  const name = sql`(s.full_fold LIKE ${contains} OR s.short_fold LIKE ${contains})`
  const ids: string[] = []
  for (const g of slices) {
    if (g.rank === 0) {
      ids.push(...kept.exact.slice(g.offset, g.offset + g.limit))
      continue
    }
    const rank =
      g.rank === 1
        ? sql`${name} AND s.full_fold <> ${f.fold} AND s.short_fold <> ${f.fold}`
        : sql`NOT ${name} AND (s.spellings LIKE ${contains} OR supplier_no_fold(s.supplier_no) LIKE ${contains})`
    const page = await many(
      sql`
        SELECT s.supplier_id::text AS id FROM supplier_search s
        WHERE s.status IS NOT NULL ${status} AND ${rank}
        ${listOrder(sql, f)} LIMIT ${g.limit} OFFSET ${g.offset}
      `,
      z.object({ id: z.string() }),
    )
    ids.push(...page.map((r) => r.id))
  }
  return { kept: !term, found: { total, ids } }
}

const Total = z.object({ total: z.number().int() })

/**
 * How many live suppliers match the filter (paging and sorting ignored). Without a keyword the
 * total is read from list_count, which the triggers of migration 20261125100100 keep in the
 * transactions that change it: a few rows, whatever the number of suppliers. A keyword's matches
 * cannot be kept in advance: keywordMatches counts them.
 */
export async function countSuppliers(sql: Sql, f: SupplierListFilter): Promise<number> {
  const row = await one(
    sql`
      SELECT COALESCE(sum(c.n), 0)::int AS total FROM list_count c
      WHERE c.list = 'supplier' AND c.type_code = ${f.typeCode ? sql`${f.typeCode}` : sql`''`}
      ${f.status ? sql`AND c.status = ${f.status}` : sql``}
    `,
    Total,
  )
  return row.total
}

/** A keyword search's answer. */
export interface KeywordAnswer {
  rows: SupplierListItemVO[]
  total: number
  /** The names similar to the keyword (a typo), none of whose spellings contains it. */
  similar: boolean
  /** A kept keyword (supplier_keyword) whose counts were read: it is in use. */
  kept: boolean
}

/**
 * A keyword search: its page and total, read from one snapshot. The suppliers one of whose
 * spellings contains the keyword are the answer (spellingMatches); only when none does, the names
 * similar to it (a typo), with `f.similarity` as the transaction's trigram threshold.
 *
 * Similarity is a fallback because of what its candidates cost: the trigram indexes return every
 * name that shares enough trigrams with the keyword, each then read from the heap and rechecked,
 * and for a short keyword that is every short name starting like it (docs/benchmarks.md).
 * `set_config(…, true)` is SET LOCAL: it ends with the transaction, so no pooled session keeps it.
 */
export function searchSuppliers(sql: postgres.Sql, f: KeywordSearch): Promise<KeywordAnswer> {
  if (!f.terms.length) {
    return Promise.resolve({ rows: [], total: 0, similar: false, kept: false })
  }
  return sql.begin('ISOLATION LEVEL REPEATABLE READ READ ONLY', async (tx) => {
    const kept = walkable(f) ? await keptMatches(tx, f) : { kept: false, found: null }
    let found = kept.found ?? (await keywordMatches(tx, f, false))
    const similar = found.total === 0 && !!f.similarity
    if (similar) {
      await none(
        tx`SELECT set_config('pg_trgm.similarity_threshold', ${String(f.similarity)}, true)`,
      )
      found = await keywordMatches(tx, f, true)
    }
    const ids = tx`string_to_array(${found.ids.join(',')}::text, ',')::bigint[]`
    const rows = found.ids.length > 0 ? await decoratedPage(tx, ids, f.timezone) : []
    return { rows, total: found.total, similar, kept: kept.kept }
  })
}

/** The stored part of the detail: the domain adds what the caller may do. */
const SupplierDetailRow = SupplierBasicInfoVO.omit({ allowedActions: true })

/**
 * Basic information of one live supplier with its live types, contacts and qualifications, read
 * in one statement (one snapshot). A qualification is required when a live required rule of any
 * live type of the supplier names its qual_type. Null when missing or soft-deleted.
 */
export function supplierDetail(sql: Sql, supplierId: string, timezone: string) {
  return maybeOne(
    sql`
      SELECT s.supplier_id::text AS "supplierId", s.supplier_no AS "supplierNo",
             ${subjectColumns(sql)},
             ${typesOf(sql)} AS types,
             COALESCE((
               SELECT json_agg(json_build_object(
                        'contactId', c.contact_id::text, 'contactName', c.contact_name,
                        'contactPhoneMask', c.contact_phone_mask, 'contactRole', c.contact_role,
                        'remark', c.remark, 'status', c.status,
                        'updateTime', ${formatDateTime(sql, sql`c.update_time`, timezone)})
                      ORDER BY c.contact_id)
               FROM supplier_contact c
               WHERE c.supplier_id = s.supplier_id AND c.deleted_at IS NULL
             ), '[]'::json) AS contacts,
             COALESCE((
               SELECT json_agg(json_build_object(
                        'qualificationId', q.qualification_id::text, 'qualType', q.qual_type,
                        'certNoMask', q.cert_no_mask, 'imageUrl', q.image_url,
                        'expiryDate', to_char(q.expiry_date, 'YYYY-MM-DD'),
                        'isRequired', EXISTS (
                          SELECT 1
                          FROM qualification_rule r
                          JOIN supplier_type t ON t.type_code = r.type_code AND t.deleted_at IS NULL
                          WHERE t.supplier_id = s.supplier_id AND r.qual_type = q.qual_type
                            AND r.is_required AND r.deleted_at IS NULL),
                        'status', q.status,
                        'updateTime', ${formatDateTime(sql, sql`q.update_time`, timezone)})
                      ORDER BY q.qualification_id)
               FROM supplier_qualification q
               WHERE q.supplier_id = s.supplier_id AND q.deleted_at IS NULL
             ), '[]'::json) AS qualifications,
             ${complianceOf(sql, sql`s.supplier_id`)} AS compliance,
             s.credit_level AS "creditLevel", s.total_score::float8 AS "totalScore", s.status,
             ${formatDateTime(sql, sql`s.create_time`, timezone)} AS "createTime",
             ${formatDateTime(sql, sql`s.update_time`, timezone)} AS "updateTime"
      FROM supplier s
      WHERE s.supplier_id = ${supplierId} AND s.deleted_at IS NULL
    `,
    SupplierDetailRow,
  )
}
