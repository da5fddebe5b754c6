import postgres from 'postgres'
import type { z } from 'zod'
import { runStatement } from './trace'

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

/**
 * The second `column` is shown at (formatDateTime), as the lists order by it: a time shown as
 * equal must sort as equal, so that the id tie-break decides (SUP-ADM-001, 012). Truncating the
 * UTC wall time gives the order of truncating in any zone (offsets are whole seconds) and, unlike
 * date_trunc of a timestamptz, is IMMUTABLE: the order indexes are built on this very expression
 * (migration 20261125100000), so it must be spelled exactly so.
 */
export const secondOf = (sql: Sql, column: postgres.Fragment) =>
  sql`date_trunc('second', ${column} AT TIME ZONE 'UTC')`

/** The column a field is stored in: its name in snake_case (`accountNoBidx` → `account_no_bidx`). */
export type ColumnOf<F extends string> = F extends `${infer C}${infer Rest}`
  ? `${C extends Lowercase<C> ? C : `_${Lowercase<C>}`}${ColumnOf<Rest>}`
  : F

export const columnOf = <F extends string>(field: F) =>
  field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) as ColumnOf<F>

/**
 * The select list of a row parser: each of its fields as `alias.column AS "field"`, the column
 * named after the field (`columnOf`), or as `read[field]` where the field is not a column read
 * as stored (a cast, a format, another table's column). A field added to the parser is selected
 * with it.
 */
export function selectFields(
  sql: Sql,
  alias: string,
  row: z.ZodObject,
  read: { readonly [field: string]: postgres.Fragment } = {},
): postgres.Fragment {
  return Object.keys(row.shape)
    .map(
      (field) => sql`${read[field] ?? sql`${sql(alias)}.${sql(columnOf(field))}`} AS ${sql(field)}`,
    )
    .reduce((list, item) => sql`${list}, ${item}`)
}

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

/*
 * Every statement of the service goes through these four helpers (and `runStatement`, which
 * traces it when the request is traced); a statement awaited directly would be missing from its
 * trace, which the leak scan's count of statements against spans would catch.
 */

/** Exactly one row, parsed; anything else is a bug. */
export async function one<T extends z.ZodType>(query: Query, row: T): Promise<z.output<T>> {
  const rows = await runStatement(query)
  if (rows.length !== 1) throw new RowShapeError(`expected one row, got ${rows.length}`)
  return parse(row, rows[0])
}

/** Zero or one row, parsed. */
export async function maybeOne<T extends z.ZodType>(
  query: Query,
  row: T,
): Promise<z.output<T> | null> {
  const rows = await runStatement(query)
  if (rows.length > 1) throw new RowShapeError(`expected at most one row, got ${rows.length}`)
  return rows.length === 0 ? null : parse(row, rows[0])
}

/** Any number of rows, each parsed. */
export async function many<T extends z.ZodType>(query: Query, row: T): Promise<z.output<T>[]> {
  const rows = await runStatement(query)
  return rows.map((r) => parse(row, r))
}

/** A statement whose rows nobody reads; returns the affected row count. */
export async function none(query: Query): Promise<number> {
  const result = await runStatement(query)
  return result.count
}

/** postgres.js and Node socket error codes that mean the connection, not the query, failed. */
const CONNECTION_CODES = new Set([
  'CONNECTION_CLOSED',
  'CONNECTION_DESTROYED',
  'CONNECTION_ENDED',
  'CONNECT_TIMEOUT',
  // The connection had statements outstanding and heard nothing for `answer_timeout` seconds.
  'ANSWER_TIMEOUT',
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
])

/**
 * SQLSTATEs of a server that is going away, not accepting work yet, or that ended the work at
 * one of the bounds the service sets: class 08 (connection exception), 57P01..57P03 (terminated
 * by an administrator, crash shutdown, cannot connect now), 53300 (too many connections), 57014
 * (statement timeout, or a cancel), 55P03 (lock timeout) and 25P03 (idle-in-transaction timeout).
 * The request may be retried as it is.
 */
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[123]|53300|57014|55P03|25P03)$/

/**
 * Whether `err` says the database could not be reached or dropped the connection, as opposed to
 * refusing the statement itself. Such failures are "temporarily unavailable", never a verdict.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (err instanceof DatabaseUnavailableError) return true
  if (!err || typeof err !== 'object') return false
  const code = (err as { code?: unknown }).code
  if (typeof code !== 'string') return false
  return CONNECTION_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code)
}

/**
 * Whether the server itself refused the statement (an ErrorResponse of severity ERROR): then it,
 * a COMMIT included, certainly took no effect. A lost or silent connection, or a session the
 * server ended (FATAL), says nothing of the kind: a COMMIT sent before it may have committed.
 */
export function isServerRefusal(err: unknown): boolean {
  return err instanceof postgres.PostgresError && err.severity === 'ERROR'
}

/** Whether the server ended a statement at its statement timeout (or a cancel): 57014. */
export const isStatementTimeout = (err: unknown) =>
  err instanceof postgres.PostgresError && err.code === '57014'

/** The database did not answer within a bound set by the caller. */
export class DatabaseUnavailableError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'DatabaseUnavailableError'
  }
}

/**
 * `work` within `ms`, else a DatabaseUnavailableError. The query itself is not cancelled (it has
 * nowhere to go while the server is unreachable); the caller stops waiting for it.
 */
export function withinDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(new DatabaseUnavailableError(`${what}: no answer from the database in ${ms} ms`)),
      ms,
    )
    work.then(resolve, reject).finally(() => clearTimeout(timer))
  })
}

/**
 * Bounds of the service's own pool, derived from the request deadline (`deadlineBounds` in
 * src/config.ts). Scripts and start-up work that legitimately run long connect without them.
 */
export interface ConnectionBounds {
  /** Server side, per connection: no statement, lock wait or idle transaction outlives these. */
  statementTimeoutMs: number
  lockTimeoutMs: number
  idleInTransactionTimeoutMs: number
  /** Client side: silence while statements are outstanding, then the connection is destroyed. */
  answerTimeoutSeconds: number
  connectTimeoutSeconds: number
}

export interface DatabaseOptions {
  url: string
  /** One connection in embedded mode: pglite-socket serves one session at a time. */
  max: number
  timezone: string
  /** How the server lists these connections (pg_stat_activity); /metrics reads it back. */
  applicationName?: string
  /** Sees every statement and its parameters (the benchmark and the plan checks record them). */
  debug?: (connection: number, query: string, parameters: unknown[]) => void
  /** The service's bounds; without them statements may run and wait as long as they take. */
  bounds?: ConnectionBounds
  /**
   * A pooler in transaction mode between the service and PostgreSQL (PgBouncer): a statement
   * prepared on one server connection may be executed on another, and start-up parameters other
   * than the ones it tracks (TimeZone, application_name) are refused, so neither is used.
   */
  pooler?: 'none' | 'transaction'
}

/**
 * Seconds before a closed connection is opened again: postgres.js's jittered 3^retries / 100,
 * capped at 1 s instead of 20 s, so that the pool is back within a second of the database.
 */
const reconnectDelay = (retries: number) =>
  (0.5 + Math.random() / 2) * Math.min(3 ** retries / 100, 1)

/**
 * postgres.js client. Sessions run in the service time zone so that `to_char(ts, …)` renders
 * the spec's `yyyy-MM-dd HH:mm:ss`; times never round-trip through JavaScript `Date`.
 *
 * With `bounds`, the server-side timeouts travel as start-up parameters: set per connection at
 * no round trip, and kept by every backend that replaces a dead one. The embedded engine
 * (pglite-socket) ignores start-up parameters, so there only the client-side bounds apply.
 */
export function connect({
  url,
  max,
  timezone,
  applicationName = 'supplier-admin',
  debug,
  bounds,
  pooler = 'none',
}: DatabaseOptions): postgres.Sql {
  const pooled = pooler === 'transaction'
  return postgres(url, {
    max,
    ...(debug && { debug }),
    ...(pooled && { prepare: false }),
    onnotice: () => {},
    connection: {
      TimeZone: timezone,
      application_name: applicationName,
      ...(bounds &&
        !pooled && {
          statement_timeout: bounds.statementTimeoutMs,
          lock_timeout: bounds.lockTimeoutMs,
          idle_in_transaction_session_timeout: bounds.idleInTransactionTimeoutMs,
        }),
    },
    idle_timeout: 60,
    connect_timeout: bounds?.connectTimeoutSeconds ?? 10,
    ...(bounds && { answer_timeout: bounds.answerTimeoutSeconds, backoff: reconnectDelay }),
  })
}
