import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest'
import { grant } from '../sql/admin'
import { connect } from '../sql/db'
import { createApp } from '../src/app'
import { deadlineBounds } from '../src/config'
import { createLogger } from '../src/logger'
import { sqlPermissionLookup } from '../src/ports/permission'
import { createTestDatabase, ALL_PERMISSIONS, useHarness, type TestDatabase } from './harness'
import { snapshot } from './unchanged'
import { devHeaders, request, startService, type Service } from './service'
import { readyInTransaction, tcpProxy } from './tcp-proxy'
import { draftBody } from './supplier-data'

/**
 * One deadline per request, on the real service process, whatever the database does: the
 * network to it silent (bytes stop, nothing closes), its backends killed, a lock held
 * elsewhere. Every route kind answers within REQUEST_TIMEOUT_MS (395030, retry later), works
 * again within that and a second of the network coming back, the writes refused meanwhile leave nothing
 * in any table, and the server ends what the service left.
 */

const embedded = inject('database').kind === 'embedded'
const ON_EMBEDDED =
  'needs a real PostgreSQL behind a TCP proxy: the embedded engine lives in the test process, serves one session, and enforces no server-side timeout'

const DEADLINE_MS = 1200
const BOUNDS = deadlineBounds(DEADLINE_MS)
/** The answer leaves the service at the deadline; this is for HTTP and a loaded machine. */
const SLACK_MS = 400
const READINESS_MS = Math.min(2000, BOUNDS.statementTimeoutMs)
/**
 * Every route kind answers successfully again within this of the network coming back. Not a
 * second, as the README had it: a request sent at once may wait on a connection the pool began
 * during the silence, and be answered at its deadline (395030, or 395033 for a write whose COMMIT
 * was under way); the next one succeeds. Measured 0.4–1.8 s here on two loaded cores.
 */
const RECOVERY_MS = DEADLINE_MS + 1000

const QUIET_MS = 300

/**
 * Waits until no backend but the caller's own is running a statement or sitting in a
 * transaction: what the service sent into the silence has reached the server and ended there
 * (rolled back, or cut by idle_in_transaction_session_timeout).
 */
async function settled(sql: postgres.Sql) {
  const busy = async () =>
    (
      await sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND state IN ('active', 'idle in transaction', 'idle in transaction (aborted)')`
    )[0].n
  // Quiet is none seen for QUIET_MS on end, not one look: right after the network comes back,
  // what the proxy delivered may not have begun on the server when first asked (seen in CI: the
  // loop ended at once, and the check after it found the statement running).
  const since = performance.now()
  let quietSince: number | undefined
  while (performance.now() - since < 10_000) {
    const now = performance.now()
    if ((await busy()) > 0) quietSince = undefined
    else if (now - (quietSince ??= now) >= QUIET_MS) break
    await new Promise((r) => setTimeout(r, 50))
  }
  expect(await busy(), 'the service left a statement or transaction running').toBe(0)
}

/** Sends every route kind, round after round, until all answer 200; the ms that took. */
async function recovery<A extends { body: any }>(round: () => Promise<Record<string, A>>) {
  const started = performance.now()
  let answers: Record<string, A>
  do answers = await round()
  while (
    Object.values(answers).some((a) => a.body?.code !== 200) &&
    performance.now() - started < 10_000
  )
  for (const [kind, answer] of Object.entries(answers)) {
    expect(answer.body, kind).toMatchObject({ code: 200, success: true })
  }
  return Math.round(performance.now() - started)
}

type Answer = Awaited<ReturnType<typeof request>>

describe('the request deadline on the real service', () => {
  let db: TestDatabase
  let proxy: Awaited<ReturnType<typeof tcpProxy>>
  let service: Service
  /** A session of the test's own, straight to the database. */
  let direct: postgres.Sql
  const reader = '9007199254742001'
  const newcomer = '9007199254742002'
  let supplierId: string
  /** Every write sent by `routeKinds`, with the code it was answered. */
  const writes: { fullName: string; code?: number }[] = []
  /** Every table before the network went silent, and the writes sent until then. */
  let beforeSilence: Record<string, string>
  let sentBeforeSilence = 0

  beforeAll(async () => {
    if (embedded) return
    db = await createTestDatabase()
    for (const admin of [reader, newcomer]) {
      await grant(db.sql, admin, { permissions: ALL_PERMISSIONS, roles: ['ADMIN'] })
    }
    direct = postgres(db.url, { max: 2, onnotice: () => {} })
    const url = new URL(db.url)
    proxy = await tcpProxy({ host: url.hostname, port: Number(url.port) })
    service = await startService({
      DATABASE_URL: proxy.urlFor(db.url),
      MIGRATE_ON_START: 'false',
      REQUEST_TIMEOUT_MS: String(DEADLINE_MS),
      PERMISSION_READ_CACHE_SECONDS: '60',
      APPROVAL_RECONCILE_INTERVAL_SECONDS: '0',
      DUPLICATE_SUBMIT_WINDOW_SECONDS: '0',
    })
    await service.ready
  }, 60_000)

  afterAll(async () => {
    await service?.stop()
    await proxy?.stop()
    await direct?.end({ timeout: 1 })
    await db?.close()
  })

  const send = async (admin: string, method: string, path: string, body?: unknown) =>
    request(`${service.base}${path}`, {
      method,
      headers: { ...(await devHeaders(admin)), 'idempotency-key': crypto.randomUUID() },
      body: body === undefined ? undefined : JSON.stringify(body),
    })

  /** Every route kind; `readyz` answers its own 503 within its bound. */
  const routeKinds = (): Record<string, () => Promise<Answer>> => ({
    'cached read': () => send(reader, 'GET', `/admin/supplier/items/${supplierId}`),
    'uncached read': () => send(newcomer, 'GET', `/admin/supplier/items/${supplierId}`),
    list: () => send(reader, 'GET', '/admin/supplier/items?page=1&pageSize=10'),
    write: async () => {
      const body = draftBody()
      const answer = await send(reader, 'POST', '/admin/supplier/items', body)
      writes.push({ fullName: body.fullName, code: answer.body?.code })
      return answer
    },
    'resource page': () =>
      send(reader, 'GET', `/admin/supplier/items/${supplierId}/resource-info/page`),
    readyz: () => request(`${service.base}/readyz`),
  })

  const all = async () => {
    const kinds = Object.entries(routeKinds())
    const answers = await Promise.all(kinds.map(([, send]) => send()))
    return Object.fromEntries(kinds.map(([kind], i) => [kind, answers[i]]))
  }

  it('control: every route kind answers through the proxy (and the reads remember grants)', async (ctx) => {
    if (embedded) ctx.skip(ON_EMBEDDED)
    const created = await send(reader, 'POST', '/admin/supplier/items', draftBody())
    expect(created.body).toMatchObject({ code: 200 })
    supplierId = created.body.data.supplierId
    for (const [kind, send] of Object.entries(routeKinds())) {
      if (kind === 'uncached read') continue // its grant must not be remembered
      const answer = await send()
      expect(answer.body, kind).toMatchObject({ code: 200, success: true })
    }
  })

  it('a silent network: every route kind answers within the deadline, round after round', async (ctx) => {
    if (embedded) ctx.skip(ON_EMBEDDED)
    beforeSilence = await snapshot({ sql: direct }, { grants: true })
    sentBeforeSilence = writes.length
    proxy.silence()
    const times: Record<string, number[]> = {}
    // Three rounds: on the pool's existing connections, once those were given up on (answer
    // timeout), and while new connections wait for a handshake that never comes.
    for (const pause of [0, BOUNDS.answerTimeoutSeconds * 1000, 500]) {
      await new Promise((r) => setTimeout(r, pause))
      for (const [kind, answer] of Object.entries(await all())) {
        ;(times[kind] ??= []).push(Math.round(answer.ms))
        if (kind === 'readyz') {
          expect(answer.status, kind).toBe(503)
          expect(answer.body).toMatchObject({ code: 395030, success: false })
          expect(answer.ms, kind).toBeLessThan(READINESS_MS + SLACK_MS)
        } else {
          expect(answer.body, kind).toMatchObject({ code: 395030, success: false, data: null })
          expect(answer.body.message, kind).toMatch(/retry/)
          expect(answer.ms, kind).toBeLessThan(DEADLINE_MS + SLACK_MS)
        }
      }
    }
    await ctx.annotate(`ms while silent (deadline ${DEADLINE_MS}): ${JSON.stringify(times)}`)
    expect(service.hasExited()).toBe(false)
  }, 30_000)

  it('the network back: the writes refused while silent left nothing in any table', async (ctx) => {
    if (embedded) ctx.skip(ON_EMBEDDED)
    const silent = writes.slice(sentBeforeSilence)
    expect(silent.filter((w) => w.code === 395030).length).toBeGreaterThanOrEqual(3)
    expect(silent.filter((w) => w.code === 200)).toEqual([])
    // What the service sent while silent reaches the server on restore (the proxy delivers it,
    // as TCP would); nothing else is sent until it has ended there.
    await proxy.restore()
    await settled(direct)
    expect(await snapshot({ sql: direct }, { grants: true })).toEqual(beforeSilence)
  }, 30_000)

  it('silent again, then back: every route kind answers successfully within the deadline and a second', async (ctx) => {
    if (embedded) ctx.skip(ON_EMBEDDED)
    // As before: a round on the pool's connections, then one after they were given up on.
    proxy.silence()
    for (const pause of [0, BOUNDS.answerTimeoutSeconds * 1000]) {
      await new Promise((r) => setTimeout(r, pause))
      for (const [kind, answer] of Object.entries(await all())) {
        expect(answer.body, kind).toMatchObject({ code: 395030 })
      }
    }
    await proxy.restore()
    const recoveredMs = await recovery(all)
    await ctx.annotate(`every route kind answered 200 again ${recoveredMs} ms after restore`)
    expect(recoveredMs).toBeLessThan(RECOVERY_MS)
  }, 30_000)

  it('a transaction left open on a silent network is ended by the server within its bound', async (ctx) => {
    if (embedded) ctx.skip(ON_EMBEDDED)
    // The write's connection goes silent right after BEGIN reached the server: the backend
    // waits inside a transaction for a client that is gone.
    const silenced = proxy.arm({
      from: 'server',
      matches: readyInTransaction,
      deliver: true,
      then: 'silence',
    })
    const answer = send(reader, 'POST', '/admin/supplier/items', draftBody())
    await silenced
    const since = performance.now()
    const abandoned = async () =>
      direct<{ pid: number }[]>`
        SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND state = 'idle in transaction'
          AND application_name LIKE ${`supplier-admin %:${service.child.pid}`}`
    const [backend] = await abandoned()
    expect(backend, 'the backend waits in its transaction').toBeDefined()
    expect((await answer).body).toMatchObject({ code: 395030 })
    while ((await abandoned()).length && performance.now() - since < 10_000) {
      await new Promise((r) => setTimeout(r, 50))
    }
    const endedMs = Math.round(performance.now() - since)
    await ctx.annotate(
      `the abandoned transaction's backend ended ${endedMs} ms after it went silent`,
    )
    expect(await abandoned()).toEqual([])
    // idle_in_transaction_session_timeout, not the proxy: the network is still silent for it.
    expect(endedMs).toBeLessThan(BOUNDS.idleInTransactionTimeoutMs + 1_000)
    await proxy.restore()
  }, 30_000)

  it('a write waiting for a lock held elsewhere: 395030 from the server before the deadline, nothing written', async (ctx) => {
    if (embedded) ctx.skip(ON_EMBEDDED)
    const detail = await send(reader, 'GET', `/admin/supplier/items/${supplierId}`)
    const version = detail.body.data.updateTime
    const held = await direct.reserve()
    try {
      await held`BEGIN`
      await held`SELECT 1 FROM supplier WHERE supplier_id = ${supplierId} FOR UPDATE`
      const before = await snapshot({ sql: direct }, { grants: true })
      const answer = await send(reader, 'PUT', `/admin/supplier/items/${supplierId}`, {
        shortName: 'Waited for a lock',
        changeReason: 'deadline test',
        expectedUpdateTime: version,
      })
      expect(answer.body).toMatchObject({ code: 395030, success: false })
      expect(answer.ms).toBeLessThan(DEADLINE_MS)
      // Log lines are flushed every 250 ms.
      await vi.waitFor(() =>
        expect(service.output()).toContain('canceling statement due to lock timeout'),
      )
      expect(await snapshot({ sql: direct }, { grants: true })).toEqual(before)
    } finally {
      await held`ROLLBACK`
      held.release()
    }
  })

  it('a backend-kill storm with the grant memory on: every answer within the deadline', async (ctx) => {
    if (embedded) ctx.skip(ON_EMBEDDED)
    const until = Date.now() + 3_000
    const answers: Answer[] = []
    let terminated = 0
    const readers = Array.from({ length: 4 }, async () => {
      while (Date.now() < until) {
        answers.push(await send(reader, 'GET', `/admin/supplier/items/${supplierId}`))
      }
    })
    const kills = (async () => {
      while (Date.now() < until) {
        const rows = await direct`
          SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
          WHERE datname = current_database()
            AND application_name LIKE ${`supplier-admin %:${service.child.pid}`}`
        terminated += rows.length
        await new Promise((r) => setTimeout(r, 50))
      }
    })()
    await Promise.all([...readers, kills])
    const slowest = Math.round(Math.max(...answers.map((a) => a.ms)))
    await ctx.annotate(
      `${answers.length} reads, ${terminated} backends killed, slowest answer ${slowest} ms`,
    )
    expect(terminated).toBeGreaterThan(10)
    for (const a of answers) expect([200, 395030]).toContain(a.body.code)
    expect(slowest).toBeLessThan(DEADLINE_MS + SLACK_MS)
    const after = await send(reader, 'GET', `/admin/supplier/items/${supplierId}`)
    expect(after.body).toMatchObject({ code: 200 })
    // Through silence, restore, a lock wait and the storm, no statement was ever handed another
    // one's answer (a row count or shape that does not parse is an unexpected fault).
    await new Promise((r) => setTimeout(r, 300)) // log lines are flushed every 250 ms
    expect(service.output()).not.toMatch(/unexpected fault|did not match its parser/)
  }, 30_000)
})

describe('the request deadline alone, on a pool without bounds', () => {
  // Nothing below the frame bounds this pool (no answer_timeout, no server-side timeout): a
  // statement sent into the silence would wait for TCP to give up, minutes later.
  const h = useHarness({
    env: { REQUEST_TIMEOUT_MS: String(DEADLINE_MS), PERMISSION_READ_CACHE_SECONDS: '60' },
  })
  let proxy: Awaited<ReturnType<typeof tcpProxy>>
  let pool: postgres.Sql
  let app: ReturnType<typeof createApp>

  beforeAll(async () => {
    if (embedded) return
    const url = new URL(h.db.url)
    proxy = await tcpProxy({ host: url.hostname, port: Number(url.port) })
    pool = connect({ url: proxy.urlFor(h.db.url), max: 4, timezone: h.config.timezone })
    const logger = createLogger({ level: 'silent' })
    const deps = { config: h.config, sql: pool, logger, cipher: h.cipher }
    app = createApp({ ...deps, permissions: sqlPermissionLookup(pool) })
  })
  afterAll(async () => {
    await proxy?.stop()
    await pool?.end({ timeout: 1 })
  })

  it('every route kind answers 395030 within the deadline while silent, then works again', async (ctx) => {
    if (embedded) ctx.skip(ON_EMBEDDED)
    const [cached, uncached] = [await h.admin(), await h.admin()]
    const created = await h.callVia(app, 'POST', '/admin/supplier/items', {
      admin: cached,
      body: draftBody(),
    })
    const item = `/admin/supplier/items/${created.body.data.supplierId}`
    const written: { fullName: string; code: number }[] = []
    const kinds: Record<string, [string, string, string | undefined, (() => any)?]> = {
      'cached read': ['GET', item, cached],
      'uncached read': ['GET', item, uncached],
      list: ['GET', '/admin/supplier/items?page=1&pageSize=10', cached],
      write: ['POST', '/admin/supplier/items', cached, () => draftBody()],
      'resource page': ['GET', `${item}/resource-info/page`, cached],
      readyz: ['GET', '/readyz', undefined],
    }
    const all = () =>
      Promise.all(
        Object.entries(kinds).map(async ([kind, [method, path, admin, body]]) => {
          const sent = body?.()
          const res = await h.callVia(app, method, path, { admin: admin ?? null, body: sent })
          if (sent) written.push({ fullName: sent.fullName, code: res.body.code })
          return { kind, ...res, ms: Math.round(res.ms) }
        }),
      )
    for (const a of await all())
      if (a.kind !== 'uncached read') expect(a.body.code, a.kind).toBe(200)

    const beforeSilence = await snapshot(h, { grants: true })
    proxy.silence()
    const times: Record<string, number> = {}
    for (const a of await all()) {
      times[a.kind] = a.ms
      expect(a.body, a.kind).toMatchObject({ code: 395030, success: false })
      const bound = a.kind === 'readyz' ? READINESS_MS : DEADLINE_MS
      expect(a.ms, a.kind).toBeLessThan(bound + SLACK_MS)
    }
    await ctx.annotate(
      `ms while silent, the frame alone (deadline ${DEADLINE_MS}): ${JSON.stringify(times)}`,
    )
    expect(written.filter((w) => w.code === 395030)).toHaveLength(1)

    // The write refused while silent goes on once the network is back, after its deadline: it
    // rolls back instead of committing, and leaves nothing in any table.
    await proxy.restore()
    await settled(h.sql)
    expect(await snapshot(h, { grants: true })).toEqual(beforeSilence)

    // Silent again, then back: every route kind answers successfully within RECOVERY_MS.
    proxy.silence()
    for (const a of await all()) expect(a.body.code, a.kind).toBe(395030)
    await proxy.restore()
    const recoveredMs = await recovery(async () =>
      Object.fromEntries((await all()).map((a) => [a.kind, a])),
    )
    await ctx.annotate(`every route kind answered 200 again ${recoveredMs} ms after restore`)
    expect(recoveredMs).toBeLessThan(RECOVERY_MS)
  }, 30_000)
})
