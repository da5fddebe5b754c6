import { expect } from 'vitest'
import type { Harness } from './harness'

/*
 * "Nothing was written": the one proof of the suite that a refused or failed request left the
 * database as it found it.
 *
 * A snapshot names every row of every table by its physical place (`ctid`) and the transaction
 * that wrote it (`xmin`). A committed insert, update or delete changes that set, even an update
 * that writes the same values again; reading, locking (`FOR UPDATE`) and a rolled-back
 * transaction do not. No column value is read, so a table holding 16 MiB remarks costs no more
 * than any other.
 */

/** Tables that are not data: the migration and seed bookkeeping, the background jobs' leases. */
const BOOKKEEPING = ['schema_migrations', 'seed_run', 'job_lease']
/** The administrators' grants: `h.call` makes a caller holding every permission when none is named. */
const GRANTS = ['admin_permission', 'admin_role']

export interface SnapshotOptions {
  /** Include the grant tables (only where the work names all its callers). */
  grants?: boolean
}

/** The data tables, by name: all but the bookkeeping and, unless asked for, the grants. */
async function tablesOf(h: Pick<Harness, 'sql'>, options: SnapshotOptions) {
  const skipped = options.grants ? BOOKKEEPING : [...BOOKKEEPING, ...GRANTS]
  const tables = await h.sql<{ name: string }[]>`
    SELECT tablename AS name FROM pg_tables
    WHERE schemaname = 'public' AND tablename <> ALL(${skipped}::text[])
    ORDER BY tablename`
  return tables.map((t) => t.name)
}

/** Every table's row count and a digest of its rows' identities, by table name. */
export async function snapshot(
  h: Pick<Harness, 'sql'>,
  options: SnapshotOptions = {},
): Promise<Record<string, string>> {
  const parts = (await tablesOf(h, options)).map(
    (name) =>
      `SELECT '${name}' AS name, count(*)::text || ' rows ' || ` +
      `md5(COALESCE(string_agg(t.ctid::text || t.xmin::text, ',' ORDER BY t.ctid), '')) AS rows ` +
      `FROM public."${name}" t`,
  )
  const rows = await h.sql.unsafe<{ name: string; rows: string }[]>(parts.join(' UNION ALL '))
  return Object.fromEntries(rows.map((r) => [r.name, r.rows]))
}

/**
 * Runs `work` (requests that must be refused, with their own assertions) and asserts that it
 * wrote nothing at all; returns what `work` returned.
 */
export async function unchanged<T>(
  h: Pick<Harness, 'sql'>,
  work: () => Promise<T>,
  options: SnapshotOptions & { message?: string } = {},
): Promise<T> {
  const before = await snapshot(h, options)
  const result = await work()
  expect(await snapshot(h, options), options.message ?? 'nothing was written').toEqual(before)
  return result
}

/** Row counts of the data tables, for tests that expect a number of new rows. */
export async function rowCounts(h: Pick<Harness, 'sql'>): Promise<Record<string, number>> {
  const parts = (await tablesOf(h, {})).map(
    (name) => `SELECT '${name}' AS name, count(*)::int AS n FROM public."${name}"`,
  )
  const rows = await h.sql.unsafe<{ name: string; n: number }[]>(parts.join(' UNION ALL '))
  return Object.fromEntries(rows.map((r) => [r.name, r.n]))
}
