import { randomBytes } from 'node:crypto'
import { isDeepStrictEqual } from 'node:util'
import postgres from 'postgres'
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest'
import { connect, isDatabaseUnavailable, type DatabaseOptions } from '../sql/db'
import { createTestDatabase, type TestDatabase } from './harness'
import { formatCounts, runIntegrityStress, WRONG_ANSWERS } from './integrity-stress'

/**
 * postgres.js must give every statement its own answer, also when a connection dies under it:
 * reproductions of driver bugs, each against a pool of one connection so that "the next
 * statement" runs on the same Connection object, and a stress that looks for the same faults
 * under a killer. Upstream: porsager/postgres#1119 and #1181 (a stale row counter), #1186 and
 * PR #1215 (sql.begin and sql.reserve carrying on after their connection died).
 */

const embedded = inject('database').kind === 'embedded'
const ON_EMBEDDED =
  'needs a real PostgreSQL: pg_terminate_backend, and the embedded engine serves one session'

/** How long a statement may take to settle before it counts as never settling. */
const SETTLE_MS = 3_000

type Outcome = { rows: unknown[] } | { error: unknown } | { pending: number }

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** The statement's outcome, or `pending` once `ms` have passed. */
async function settle(statement: PromiseLike<unknown>, ms = SETTLE_MS): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined
  return Promise.race([
    Promise.resolve(statement).then(
      (rows) => ({ rows: rows as unknown[] }),
      (error: unknown) => ({ error }),
    ),
    new Promise<Outcome>((r) => (timer = setTimeout(() => r({ pending: ms }), ms))),
  ]).finally(() => clearTimeout(timer))
}

/** An answer's rows as they are, holes shown (postgres.js answers are sparse when this breaks). */
const shown = (rows: unknown[]) =>
  Array.from({ length: rows.length }, (_, i) => (i in rows ? rows[i] : '<empty slot>'))

/**
 * One line saying what a statement got: 'own rows' when its answer is exactly `own`, else what it
 * got instead, so that a failed expectation reads as the symptom.
 */
function verdict(outcome: Outcome, own?: unknown[]): string {
  if ('pending' in outcome) return `still pending after ${outcome.pending} ms`
  if ('error' in outcome) {
    const e = outcome.error as { code?: string; message?: string }
    return `${isDatabaseUnavailable(e) ? 'connection error' : 'rejected'} ${e.code}: ${e.message}`
  }
  const rows = shown(outcome.rows)
  return own && isDeepStrictEqual(rows, own) ? 'own rows' : `rows ${JSON.stringify(rows)}`
}

/** A statement the callback was to issue, if it got that far. */
const recorded = (outcome: Outcome | undefined) =>
  outcome ? verdict(outcome) : 'never issued: the callback did not get there'

const CONNECTION_ERROR = expect.stringMatching(/^connection error /)
/** A statement of a dead transaction or session: any rejection will do, an answer will not. */
const REJECTED = expect.stringMatching(/^(connection error|rejected) /)

describe('postgres.js gives each statement its own answer', () => {
  let db: TestDatabase
  let killer: postgres.Sql
  const pools: postgres.Sql[] = []

  beforeAll(async () => {
    if (embedded) return
    db = await createTestDatabase()
    killer = postgres(db.url, { max: 1, onnotice: () => {} })
    await killer`CREATE TABLE integrity_probe (token text NOT NULL, step int NOT NULL)`
  })
  afterEach(async () => {
    // A pool these bugs have wedged does not end on its own.
    await Promise.all(pools.splice(0).map((sql) => sql.end({ timeout: 1 })))
  })
  afterAll(async () => {
    await killer?.end()
    await db?.close()
  })

  /** The project's pool with one connection, named so that the killer can find it. */
  const pool = (debug?: DatabaseOptions['debug']) => {
    const app = `integrity-${randomBytes(4).toString('hex')}`
    const sql = connect({ url: db.url, max: 1, timezone: 'UTC', applicationName: app, debug })
    pools.push(sql)
    return { sql, app }
  }
  const newToken = () => randomBytes(4).toString('hex')

  /**
   * A pool that can run a function, once, when it next builds a statement: after a kill, that is
   * the reconnected connection's first statement (its type fetch, or the statement that made it
   * reconnect).
   */
  const hookedPool = () => {
    let next: (() => void) | undefined
    const { sql } = pool(() => {
      const run = next
      next = undefined
      run?.()
    })
    return { sql, onNextStatement: (run: () => void) => (next = run) }
  }

  /** Terminates `pid` and returns once the server has let it go. */
  const terminate = async (pid: number) => {
    await killer`SELECT pg_terminate_backend(${pid})`
    await vi.waitFor(
      async () =>
        expect(await killer`SELECT 1 FROM pg_stat_activity WHERE pid = ${pid}`).toEqual([]),
      { timeout: 5_000, interval: 20 },
    )
  }
  /** The pool's backend once it sits in pg_sleep: the rows before it have been produced. */
  const sleepingBackend = (app: string) =>
    vi.waitFor(
      async () => {
        const [row] = await killer<{ pid: number }[]>`
          SELECT pid FROM pg_stat_activity
          WHERE application_name = ${app} AND wait_event = 'PgSleep'`
        if (!row) throw new Error(`no backend of ${app} in pg_sleep yet`)
        return row.pid
      },
      { timeout: 10_000, interval: 20 },
    )
  const committed = async (token: string) =>
    (await killer`SELECT step FROM integrity_probe WHERE token = ${token} ORDER BY step`).map(
      (r) => r.step as number,
    )

  /**
   * Rows 1 to 3 are produced and buffered; row 4 sleeps until the kill. The backend flushes its
   * buffer with the FATAL 57P01 it sends when terminated, so the client always holds three rows
   * of a result that never completes.
   */
  const CUT_SHORT = (sql: postgres.Sql) =>
    sql`SELECT g, pg_sleep(CASE WHEN g = 4 THEN 30 ELSE 0 END)::text AS pause
      FROM generate_series(1, 5) g`

  describe('a result cut short by a dead backend (stale row counter)', () => {
    it('the statements issued after it get exactly their own rows, and no stale 57P01', async (ctx) => {
      if (embedded) ctx.skip(ON_EMBEDDED)
      const { sql, app } = pool()
      await sql`SELECT 1` // connected, array types fetched: the next statement is the query
      const cut = settle(CUT_SHORT(sql), 15_000)
      await terminate(await sleepingBackend(app))
      const cutShort = verdict(await cut)
      // Issued once the driver has seen the connection close: nothing of them went to the dead
      // backend, so a fresh connection must serve them, without error.
      const next = verdict(await settle(sql`SELECT ${1}::int AS n`), [{ n: 1 }])
      const then = verdict(await settle(sql`SELECT ${2}::int AS n`), [{ n: 2 }])
      expect({ cutShort, next, then }).toEqual({
        cutShort: CONNECTION_ERROR,
        next: 'own rows',
        then: 'own rows',
      })
    })

    it('a statement queued behind it may fail with the connection; the ones after it may not', async (ctx) => {
      if (embedded) ctx.skip(ON_EMBEDDED)
      const { sql, app } = pool()
      await sql`SELECT 1`
      const cut = settle(CUT_SHORT(sql), 15_000)
      // Pipelined on the same connection: it was sent to the backend that dies.
      const queued = settle(sql`SELECT ${1}::int AS n`, 15_000)
      await terminate(await sleepingBackend(app))
      const outcomes = {
        cutShort: verdict(await cut),
        queued: verdict(await queued, [{ n: 1 }]),
        next: verdict(await settle(sql`SELECT ${2}::int AS n`), [{ n: 2 }]),
        then: verdict(await settle(sql`SELECT ${3}::int AS n`), [{ n: 3 }]),
      }
      expect(outcomes).toEqual({
        cutShort: CONNECTION_ERROR,
        queued: expect.stringMatching(/^(own rows$|connection error )/),
        next: 'own rows',
        then: 'own rows',
      })
    })
  })

  describe('a statement failing after some of its rows, no fault at all (#1119, #1181)', () => {
    const FAILS_ON_ROW_3 = (sql: postgres.Sql) =>
      sql`SELECT g, 1 / (3 - g) AS q FROM generate_series(1, 5) g`
    const DIVISION_BY_ZERO = 'rejected 22012: division by zero'

    it('the statement queued behind it returns exactly its own row', async (ctx) => {
      if (embedded) ctx.skip(ON_EMBEDDED)
      const { sql } = pool()
      await sql`SELECT 1`
      // Both issued before either answers: the second is pipelined behind the first.
      const failing = settle(FAILS_ON_ROW_3(sql))
      const queued = settle(sql`SELECT ${7}::int AS n`)
      expect({
        failing: verdict(await failing),
        queued: verdict(await queued, [{ n: 7 }]),
      }).toEqual({ failing: DIVISION_BY_ZERO, queued: 'own rows' })
    })

    it('so does the next statement issued after it has failed', async (ctx) => {
      if (embedded) ctx.skip(ON_EMBEDDED)
      const { sql } = pool()
      await sql`SELECT 1`
      const failing = verdict(await settle(FAILS_ON_ROW_3(sql)))
      const next = verdict(await settle(sql`SELECT ${8}::int AS n`), [{ n: 8 }])
      expect({ failing, next }).toEqual({ failing: DIVISION_BY_ZERO, next: 'own rows' })
    })
  })

  /**
   * A transaction whose callback, once it has written step 0 and set app.x, waits for the test:
   * `pausedAt` gives its backend's pid, `resume()` lets it go on with `after`'s statements. It
   * records each one's outcome instead of throwing, so that every one of them can be checked,
   * and `finished` settles when it has returned.
   */
  function pausedTransaction(
    sql: postgres.Sql,
    token: string,
    after: (tx: postgres.TransactionSql) => Record<string, PromiseLike<unknown>>,
  ) {
    let paused!: (pid: number) => void
    let resume!: () => void
    let done!: () => void
    const pausedAt = new Promise<number>((r) => (paused = r))
    const resumed = new Promise<void>((r) => (resume = r))
    const finished = new Promise<void>((r) => (done = r))
    const outcomes: Record<string, Outcome> = {}
    const begin = sql.begin(async (tx) => {
      try {
        await tx`INSERT INTO integrity_probe (token, step) VALUES (${token}, 0)`
        await tx`SELECT set_config('app.x', ${token}, true)`
        const [{ pid }] = await tx<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`
        paused(pid)
        await resumed
        for (const [name, statement] of Object.entries(after(tx)))
          outcomes[name] = await settle(statement)
        return 'returned'
      } finally {
        done()
      }
    })
    return { begin: settle(begin, 15_000), pausedAt, resume, finished, outcomes }
  }

  describe('sql.begin() whose backend dies while its callback runs (#1186, PR #1215)', () => {
    it('its later statements reject, nothing after the kill is committed, and the request served meanwhile gets its own rows', async (ctx) => {
      if (embedded) ctx.skip(ON_EMBEDDED)
      const { sql } = pool()
      const token = newToken()
      const tx = pausedTransaction(sql, token, (tx) => ({
        readBack: tx`SELECT current_setting('app.x', true) AS x`,
        insert: tx`INSERT INTO integrity_probe (token, step) VALUES (${token}, 1) RETURNING step`,
      }))
      await terminate(await tx.pausedAt)
      const begin = verdict(await tx.begin)
      // Another request on the pool, served on the same Connection once it has reconnected
      // (today at once; a fix may also hold it until the transaction is over).
      const other = settle(sql`SELECT ${`other-${token}`}::text AS token`, 10_000)
      await Promise.race([other, sleep(2_000)])
      tx.resume()
      const callback = await settle(tx.finished, 10_000)
      expect({
        begin,
        other: verdict(await other, [{ token: `other-${token}` }]),
        readBack: recorded(tx.outcomes.readBack),
        insert: recorded(tx.outcomes.insert),
        callback: 'pending' in callback ? 'still running' : 'returned',
        committed: await committed(token),
      }).toEqual({
        begin: CONNECTION_ERROR,
        other: 'own rows',
        readBack: REJECTED,
        insert: REJECTED,
        callback: 'returned',
        committed: [],
      })
    })

    it('a request the reconnected connection serves as the callback goes on gets its own rows', async (ctx) => {
      if (embedded) ctx.skip(ON_EMBEDDED)
      // The callback resumes exactly when the reconnected connection sends its first statement.
      const { sql, onNextStatement } = hookedPool()
      const token = newToken()
      const tx = pausedTransaction(sql, token, (tx) => ({
        // No parameter: the statement goes out in one message, with no describe round trip.
        read: tx`SELECT 'from the transaction' AS source, txid_current()::text AS txid`,
        insert: tx`INSERT INTO integrity_probe (token, step) VALUES (${token}, 1) RETURNING step`,
      }))
      await terminate(await tx.pausedAt)
      const begin = verdict(await tx.begin)
      onNextStatement(tx.resume)
      const other = settle(sql`SELECT ${token}::text AS token`, 10_000)
      // Should the pool not reconnect while the transaction is unfinished, resume it anyway.
      const fallback = setTimeout(tx.resume, 2_000)
      const otherOutcome = await other
      const callback = await settle(tx.finished, 10_000)
      clearTimeout(fallback)
      expect({
        begin,
        other: verdict(otherOutcome, [{ token }]),
        read: recorded(tx.outcomes.read),
        insert: recorded(tx.outcomes.insert),
        callback: 'pending' in callback ? 'still running' : 'returned',
        committed: await committed(token),
      }).toEqual({
        begin: CONNECTION_ERROR,
        other: 'own rows',
        read: REJECTED,
        insert: REJECTED,
        callback: 'returned',
        committed: [],
      })
    })

    it('statements waiting in the transaction’s own queue settle instead of hanging', async (ctx) => {
      if (embedded) ctx.skip(ON_EMBEDDED)
      const { sql, app } = pool()
      let sleeping: Promise<Outcome> | undefined
      let queued: PromiseLike<unknown> | undefined
      const begin = settle(
        sql.begin(async (tx) => {
          // A parameter and no prepared statement yet: it is described first, which marks the
          // connection full, so the statement after it waits in the transaction's queue.
          const slow = tx`SELECT pg_sleep(30), ${1}::int AS n`
          const next = tx`SELECT ${2}::int AS n`
          queued = next
          sleeping = settle(slow, 15_000)
          await Promise.all([slow, next])
        }),
        15_000,
      )
      await terminate(await sleepingBackend(app))
      const outcomes = {
        begin: verdict(await begin),
        sleeping: verdict(await sleeping!),
        queued: verdict(await settle(queued!)),
        after: verdict(await settle(sql`SELECT ${3}::int AS n`), [{ n: 3 }]),
      }
      expect(outcomes).toEqual({
        begin: CONNECTION_ERROR,
        sleeping: CONNECTION_ERROR,
        queued: REJECTED,
        after: 'own rows',
      })
    })
  })

  describe('sql.reserve() whose backend dies (the same pattern as begin)', () => {
    it('its later statements reject instead of running on a session lent to someone else', async (ctx) => {
      if (embedded) ctx.skip(ON_EMBEDDED)
      const { sql } = pool()
      const token = newToken()
      const reserved = await sql.reserve()
      await reserved`SELECT set_config('app.x', ${token}, false)`
      const [{ pid }] = await reserved<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`
      await terminate(pid)
      // Waits for the one connection, and gets it as soon as it has closed (today), or once
      // the reservation is released.
      const other = settle(sql`SELECT ${`other-${token}`}::text AS token`, 10_000)
      await Promise.race([other, sleep(2_000)])
      const readBack = verdict(await settle(reserved`SELECT current_setting('app.x', true) AS x`))
      const insert = verdict(
        await settle(
          reserved`INSERT INTO integrity_probe (token, step) VALUES (${token}, 1) RETURNING step`,
        ),
      )
      reserved.release()
      expect({
        other: verdict(await other, [{ token: `other-${token}` }]),
        readBack,
        insert,
        after: verdict(await settle(sql`SELECT ${5}::int AS n`), [{ n: 5 }]),
        committed: await committed(token),
      }).toEqual({
        other: 'own rows',
        readBack: REJECTED,
        insert: REJECTED,
        after: 'own rows',
        committed: [],
      })
    })

    it('a request the reconnected connection serves meanwhile gets its own rows', async (ctx) => {
      if (embedded) ctx.skip(ON_EMBEDDED)
      const { sql, onNextStatement } = hookedPool()
      const token = newToken()
      const reserved = await sql.reserve()
      const [{ pid }] = await reserved<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`
      let late: Promise<Outcome> | undefined
      const issue = () => {
        late ??= settle(reserved`SELECT 'from the reserved session' AS source`)
      }
      await terminate(pid)
      // The reserved session's statement goes out just after the reconnected connection's first
      // statement, in a microtask, as a caller resuming from an await would.
      onNextStatement(() => queueMicrotask(issue))
      const other = settle(sql`SELECT ${token}::text AS token`, 10_000)
      // Should the pool not lend the connection before the release, issue it anyway.
      await Promise.race([other, sleep(2_000)])
      issue()
      const lateOutcome = verdict(await late!)
      reserved.release()
      expect({
        other: verdict(await other, [{ token }]),
        late: lateOutcome,
        after: verdict(await settle(sql`SELECT ${6}::int AS n`), [{ n: 6 }]),
      }).toEqual({ other: 'own rows', late: REJECTED, after: 'own rows' })
    })
  })

  describe('a service-like load while its backends are killed', () => {
    /** Long enough for a few hundred kills; short enough for CI. */
    const SECONDS = 25
    /** Far below what a healthy pool checks in that time on two busy cores. */
    const MIN_CHECKED = 20_000

    it('checks every answer: none foreign, none holed, none miscounted, none outside its transaction', async (ctx) => {
      if (embedded) ctx.skip(ON_EMBEDDED)
      const report = await runIntegrityStress({ url: db.url, seconds: SECONDS })
      const { counts } = report
      const explained = `${formatCounts(report)}\n${JSON.stringify(report.samples, null, 1)}`
      expect(
        Object.fromEntries(WRONG_ANSWERS.map((k) => [k, counts[k]])),
        explained.slice(0, 6_000),
      ).toEqual(Object.fromEntries(WRONG_ANSWERS.map((k) => [k, 0])))
      expect(counts.kills, explained).toBeGreaterThanOrEqual(25)
      expect(counts.checked, explained).toBeGreaterThanOrEqual(MIN_CHECKED)
    }, 120_000)
  })
})
