import postgres from 'postgres'
import { beforeAll, describe, expect, inject, it } from 'vitest'
import { supplierChain } from '../sql/audit-trail'
import type { Sql } from '../sql/db'
import { ContentionError, transaction, WRITE_ATTEMPTS } from '../src/domain/write/transaction'
import { ERRORS } from '../src/errors'
import { registeredSupplier } from './account-data'
import { ITEMS, ok } from './client'
import { useHarness } from './harness'

/*
 * A write the server ends as a deadlock (40P01) or serialization failure (40001) wrote nothing,
 * so the write pipeline runs it again; after the last attempt it is the concurrency conflict
 * (395014), never a 500, with nothing written. The conflicts are real server errors: raised with
 * their SQLSTATE by the work itself, and, on PostgreSQL, a true deadlock with an operator's
 * session that locks in the opposite order.
 */

const embedded = inject('database').kind === 'embedded'

describe('a write ended by a lock conflict runs again', () => {
  const h = useHarness()
  beforeAll(async () => {
    await h.sql`CREATE TABLE retry_probe (attempt int NOT NULL, note text NOT NULL)`
  })

  /** The work of one attempt: a row, then the conflict while `failing(attempt)`. */
  const probe = (note: string, failing: (attempt: number) => boolean) => {
    let attempt = 0
    return async (tx: Sql) => {
      attempt++
      await tx`INSERT INTO retry_probe (attempt, note) VALUES (${attempt}, ${note})`
      if (failing(attempt)) {
        await tx`DO $$ BEGIN RAISE EXCEPTION 'could not serialize' USING ERRCODE = '40001'; END $$`
      }
      return attempt
    }
  }

  const observed: string[] = []
  const deps = () => ({
    sql: h.sql,
    logger: h.deps.logger,
    observer: {
      writeConflict: (state: string, outcome: string) => observed.push(`${state} ${outcome}`),
    },
  })

  it('runs a write again after a serialization failure, and keeps only the attempt that committed', async () => {
    observed.length = 0
    const contention = { retries: 0 }
    const attempts = await transaction(
      deps(),
      { requestId: 'retry-once', contention },
      probe('once', (n) => n === 1),
    )
    expect(attempts).toBe(2)
    expect(contention.retries).toBe(1)
    expect(observed).toEqual(['40001 retried'])
    const rows = await h.sql`SELECT attempt FROM retry_probe WHERE note = 'once'`
    expect(rows.map((r) => r.attempt)).toEqual([2])
  })

  it('answers 395014 with nothing written when every attempt fails', async () => {
    observed.length = 0
    const failure = await transaction(
      deps(),
      { requestId: 'retry-never' },
      probe('never', () => true),
    ).catch((err: unknown) => err)
    expect(failure).toBeInstanceOf(ContentionError)
    expect((failure as ContentionError).code).toBe(ERRORS.CONCURRENT_MODIFICATION.code)
    expect(observed).toEqual([
      ...Array.from({ length: WRITE_ATTEMPTS - 1 }, () => '40001 retried'),
      '40001 refused',
    ])
    expect(await h.sql`SELECT attempt FROM retry_probe WHERE note = 'never'`).toHaveLength(0)
  })

  it('does not run again a write the server refused for another reason', async () => {
    observed.length = 0
    let attempts = 0
    const failure = await transaction(deps(), { requestId: 'no-retry' }, async (tx) => {
      attempts++
      await tx`SELECT 1 / 0`
    }).catch((err: unknown) => err)
    expect((failure as postgres.PostgresError).code).toBe('22012')
    expect(attempts).toBe(1)
    expect(observed).toEqual([])
  })

  it('answers a write that a deadlock with an operator session ended, and logs the retry', async (ctx) => {
    if (embedded) ctx.skip('a deadlock needs two sessions: the embedded engine serves one')
    const admin = await h.admin()
    const { supplierId } = await registeredSupplier(h)
    const version = async () => {
      const [row] = await h.sql`SELECT to_char(update_time, 'YYYY-MM-DD HH24:MI:SS') AS v
                                FROM supplier WHERE supplier_id = ${supplierId}`
      return row.v as string
    }
    // A first write makes the supplier's audit chain head.
    ok(
      await h.call('PUT', `${ITEMS}/${supplierId}`, {
        admin,
        body: { shortName: '湖畔一', changeReason: '初始', expectedUpdateTime: await version() },
      }),
    )
    const operator = postgres(h.db.url, { max: 1, onnotice: () => {} })
    try {
      const { write } = await operator.begin(async (tx) => {
        // The operator holds the chain head, then asks for the supplier row: the opposite of
        // the service's order, which locks the supplier first and seals last.
        await tx`SELECT 1 FROM audit_chain_head WHERE chain = ${supplierChain(supplierId)} FOR UPDATE`
        const write = h.call('PUT', `${ITEMS}/${supplierId}`, {
          admin,
          body: { shortName: '湖畔二', changeReason: '更名', expectedUpdateTime: await version() },
        })
        // Until the service's transaction waits for the chain head, holding the supplier.
        for (let i = 0; i < 200; i++) {
          const [waiting] = await tx`
            SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock'
              AND pid <> pg_backend_pid()`
          if (waiting.n > 0) break
          await new Promise((resolve) => setTimeout(resolve, 25))
        }
        await tx`SELECT 1 FROM supplier WHERE supplier_id = ${supplierId} FOR UPDATE`
        // The server ended the service's transaction to break the cycle (its wait began first);
        // this one goes on and commits, and the service's write runs again after it.
        return { write }
      })
      const answer = await write
      expect(answer.status).toBe(200)
      expect(answer.body.code, JSON.stringify(answer.body)).toBe(200)
      const line = h.logs.map((l) => JSON.parse(l)).find((l) => l.requestId === answer.requestId)
      expect(line).toMatchObject({ msg: 'request', lockRetries: 1, code: 200 })
      const logged = await h.sql`
        SELECT count(*)::int AS n FROM change_log
        WHERE supplier_id = ${supplierId} AND request_id = ${answer.requestId}`
      expect(logged[0].n).toBe(1)
    } finally {
      await operator.end({ timeout: 5 })
    }
  })
})
