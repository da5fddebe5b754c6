import { z } from 'zod'
import { many, none, one, type Sql } from './db'

/*
 * supplier_search: the folded names and other spellings the list's keyword finds a supplier by
 * (src/domain/supplier/search.ts derives them; migration 20261202000300 indexes them). Derived
 * data: the statement that writes a supplier's names writes its row (sql/supplier.ts), and the
 * backfill writes the rows of suppliers written before.
 */

/** The derived texts of one supplier (each a folded text; spellings separated by U+001F). */
export interface SearchFields {
  fullFold: string
  shortFold: string
  spellings: string
  version: number
}

/**
 * The search row of the supplier a statement writes (`written`, a CTE answering supplier_id),
 * stored in the same statement: a renamed supplier is never found under its old name. The
 * supplier's list columns are mirrored by the triggers of migration 20261202000300, which run
 * once the statement has.
 */
export const storeSearchRow = (sql: Sql, f: SearchFields) => sql`
  , searchable AS (
    INSERT INTO supplier_search (supplier_id, full_fold, short_fold, spellings, version)
    SELECT w.supplier_id, ${f.fullFold}, ${f.shortFold}, ${f.spellings}, ${f.version} FROM written w
    ON CONFLICT (supplier_id) DO UPDATE SET full_fold = EXCLUDED.full_fold,
      short_fold = EXCLUDED.short_fold, spellings = EXCLUDED.spellings, version = EXCLUDED.version
  )
`

const Unsearchable = z.object({
  supplierId: z.string(),
  fullName: z.string(),
  shortName: z.string().nullable(),
})

/** Live suppliers without a search row, or with one older than `version`. */
const unsearchable = (sql: Sql, version: number) => sql`
  s.deleted_at IS NULL AND NOT EXISTS (
    SELECT 1 FROM supplier_search k WHERE k.supplier_id = s.supplier_id AND k.version >= ${version})
`

/** The next unsearchable live suppliers in id order after `afterId` (the backfill's walk). */
export function unsearchableSuppliers(sql: Sql, afterId: string, limit: number, version: number) {
  return many(
    sql`
      SELECT s.supplier_id::text AS "supplierId", s.full_name AS "fullName", s.short_name AS "shortName"
      FROM supplier s
      WHERE s.supplier_id > ${afterId}::bigint AND ${unsearchable(sql, version)}
      ORDER BY s.supplier_id
      LIMIT ${limit}
    `,
    Unsearchable,
  )
}

const Count = z.object({ count: z.number().int() })

/** How many live suppliers the keyword cannot find yet (a full pass: asked until it is 0). */
export async function countUnsearchableSuppliers(sql: Sql, version: number): Promise<number> {
  const row = await one(
    sql`SELECT count(*)::int AS count FROM supplier s WHERE ${unsearchable(sql, version)}`,
    Count,
  )
  return row.count
}

/**
 * Writes the rows the backfill derived, each only if the supplier's names are still those they
 * were derived from and its row is missing or older: a write that renamed it meanwhile wrote its
 * own (the upsert waits for that write's commit, then keeps the newer row).
 */
export function setSearchRows(
  sql: Sql,
  rows: (SearchFields & { supplierId: string; fullName: string; shortName: string | null })[],
) {
  if (!rows.length) return Promise.resolve(0)
  const col = <K extends keyof (typeof rows)[number]>(k: K) => rows.map((r) => r[k])
  return none(sql`
    INSERT INTO supplier_search AS k (supplier_id, full_fold, short_fold, spellings, version,
                                      status, create_time, update_time, full_name, supplier_no)
    SELECT s.supplier_id, v.full_fold, v.short_fold, v.spellings, v.version,
           s.status, s.create_time, s.update_time, s.full_name, s.supplier_no
    FROM unnest(${col('supplierId')}::bigint[], ${col('fullName')}::text[], ${col('shortName')}::text[],
                ${col('fullFold')}::text[], ${col('shortFold')}::text[], ${col('spellings')}::text[],
                ${col('version')}::int[])
         AS v(supplier_id, full_name, short_name, full_fold, short_fold, spellings, version)
    JOIN supplier s ON s.supplier_id = v.supplier_id
    WHERE s.deleted_at IS NULL
      AND s.full_name = v.full_name AND s.short_name IS NOT DISTINCT FROM v.short_name
    ORDER BY s.supplier_id
    ON CONFLICT (supplier_id) DO UPDATE SET full_fold = EXCLUDED.full_fold,
      short_fold = EXCLUDED.short_fold, spellings = EXCLUDED.spellings, version = EXCLUDED.version
    WHERE k.version < EXCLUDED.version
  `)
}
