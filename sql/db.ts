import postgres from 'postgres'
import type { z } from 'zod'

/** The pool, or a transaction opened on it: every query function takes either. */
export type Sql = postgres.Sql | postgres.TransactionSql
export type Query = postgres.PendingQuery<postgres.Row[]>

/**
 * The spec's date-time, as every query formats timestamps (in the session time zone, which is
 * the service's). Versions are compared in this format too, so there must be one spelling.
 */
export const DATE_TIME = 'YYYY-MM-DD HH24:MI:SS'

/**
 * `column` rendered as the spec's date-time in `timezone`, whatever the session's TimeZone:
 * poolers and edge proxies (Hyperdrive, PgBouncer in transaction mode) may drop that start-up
 * parameter, so the queries the edge serves name the zone themselves. NULL stays NULL.
 */
export const formatDateTime = (sql: Sql, column: postgres.Fragment, timezone: string) =>
  sql`to_char((${column}) AT TIME ZONE ${timezone}::text, ${DATE_TIME})`

export class RowShapeError extends Error {
  constructor(issues: string) {
    super(`row did not match its parser: ${issues}`)
    this.name = 'RowShapeError'
  }
}

const parse = <T extends z.ZodType>(row: T, value: unknown): z.output<T> => {
  const result = row.safeParse(value)
  if (!result.success) {
    throw new RowShapeError(
      result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
    )
  }
  return result.data
}

/** Exactly one row, parsed; anything else is a bug. */
export async function one<T extends z.ZodType>(query: Query, row: T): Promise<z.output<T>> {
  const rows = await query
  if (rows.length !== 1) throw new RowShapeError(`expected one row, got ${rows.length}`)
  return parse(row, rows[0])
}

/** Zero or one row, parsed. */
export async function maybeOne<T extends z.ZodType>(
  query: Query,
  row: T,
): Promise<z.output<T> | null> {
  const rows = await query
  if (rows.length > 1) throw new RowShapeError(`expected at most one row, got ${rows.length}`)
  return rows.length === 0 ? null : parse(row, rows[0])
}

/** Any number of rows, each parsed. */
export async function many<T extends z.ZodType>(query: Query, row: T): Promise<z.output<T>[]> {
  const rows = await query
  return rows.map((r) => parse(row, r))
}

/** A statement whose rows nobody reads; returns the affected row count. */
export async function none(query: Query): Promise<number> {
  const result = await query
  return result.count
}

export interface DatabaseOptions {
  url: string
  /** One connection in embedded mode: pglite-socket serves one session at a time. */
  max: number
  timezone: string
}

/**
 * postgres.js client. Sessions run in the service time zone so that `to_char(ts, …)` renders
 * the spec's `yyyy-MM-dd HH:mm:ss`; times never round-trip through JavaScript `Date`.
 */
export function connect({ url, max, timezone }: DatabaseOptions): postgres.Sql {
  return postgres(url, {
    max,
    onnotice: () => {},
    connection: { TimeZone: timezone, application_name: 'supplier-admin' },
    idle_timeout: 60,
    connect_timeout: 10,
  })
}
