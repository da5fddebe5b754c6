import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest'
import { connect, type ConnectionBounds } from '../sql/db'
import { createApp } from '../src/app'
import { createLogger } from '../src/logger'
import { sqlPermissionLookup } from '../src/ports/permission'
import { ITEMS, newDraft, submitBodyFrom, versionOf } from './client'
import { snapshot } from './unchanged'
import { useHarness } from './harness'
import { commandComplete, tcpProxy } from './tcp-proxy'
import { draftBody } from './supplier-data'

/**
 * A write whose COMMIT got no answer says so (395033, outcome unknown), and a retry with the
 * same Idempotency-Key replays what committed; a write that reached its deadline before COMMIT
 * rolls back, so the 395030 it answered stays true.
 */

const embedded = inject('database').kind === 'embedded'
const ON_EMBEDDED =
  'needs a real PostgreSQL: a TCP proxy between the service and its database, and a second session holding a lock'

// Long enough that the work before COMMIT (a draft, a registration's checks) ends well within it
// on a machine loaded by the whole suite; each test then waits for the deadline or a lock.
const DEADLINE_MS = 3000
const SLACK_MS = 300
const UNKNOWN = { code: 395033, success: false, data: null }

describe('writes at the edge of the request deadline', () => {
  const h = useHarness({
    env: { REQUEST_TIMEOUT_MS: String(DEADLINE_MS), DUPLICATE_SUBMIT_WINDOW_SECONDS: '0' },
  })
  let proxy: Awaited<ReturnType<typeof tcpProxy>>
  const pools: postgres.Sql[] = []
  const logs: string[] = []

  beforeAll(async () => {
    if (embedded) return
    const url = new URL(h.db.url)
    proxy = await tcpProxy({ host: url.hostname, port: Number(url.port) })
  })
  afterAll(async () => {
    await proxy?.stop()
    for (const pool of pools) await pool.end({ timeout: 1 })
  })

  /** The app on a pool of its own (one connection); permissions are asked of the harness pool. */
  function appOn(options: { url: string; bounds?: ConnectionBounds; applicationName?: string }) {
    const sql = connect({ ...options, max: 1, timezone: h.config.timezone })
    pools.push(sql)
    const logger = createLogger({
      level: 'info',
      destination: { write: (line: string) => void logs.push(line) },
    })
    const deps = { config: h.config, sql, logger, cipher: h.cipher }
    return createApp({ ...deps, permissions: sqlPermissionLookup(h.sql) })
  }

  const behindProxy = (bounds: Partial<ConnectionBounds> = {}) =>
    appOn({ url: proxy.urlFor(h.db.url), bounds: { ...h.config.deadline, ...bounds } })

  /**
   * Creates a draft through `app` while the proxy loses the server's answer to its COMMIT
   * (`silence`: nothing more arrives on that connection; `cut`: the connection drops).
   */
  async function loseCommitAnswer(app: ReturnType<typeof createApp>, then: 'silence' | 'cut') {
    const admin = await h.admin()
    const body = draftBody()
    const key = `lost-commit-${crypto.randomUUID()}`
    const lost = proxy.arm({
      from: 'server',
      matches: commandComplete('COMMIT'),
      deliver: false,
      then,
    })
    const first = await h.callVia(app, 'POST', ITEMS, {
      admin,
      body,
      headers: { 'idempotency-key': key },
    })
    await lost
    return { admin, body, key, first, ms: first.ms }
  }

  /** The answer kept for the key, and the suppliers of that name: the write did commit. */
  async function committed(admin: string, key: string, fullName: string) {
    const kept = await h.sql<{ response: unknown }[]>`
      SELECT response FROM idempotency_record
      WHERE admin_id = ${admin} AND idempotency_key = ${key} AND status = 'DONE'`
    const suppliers = await h.sql<{ supplierId: string }[]>`
      SELECT supplier_id::text AS "supplierId" FROM supplier
      WHERE full_name = ${fullName} AND deleted_at IS NULL`
    return { kept: kept.map((r) => r.response), suppliers: suppliers.map((r) => r.supplierId) }
  }

  /**
   * The same request again, once the network is back: it replays the committed answer and
   * writes nothing more, in any table (every attempt until the replay included).
   */
  async function retryReplays(
    app: ReturnType<typeof createApp>,
    lost: Awaited<ReturnType<typeof loseCommitAnswer>>,
  ) {
    const { admin, body, key } = lost
    const before = await committed(admin, key, body.fullName)
    expect(before.kept).toHaveLength(1)
    expect(before.suppliers).toHaveLength(1)
    const written = await snapshot(h, { grants: true })
    await proxy.restore()
    const retry = await vi.waitFor(
      async () => {
        const res = await h.callVia(app, 'POST', ITEMS, {
          admin,
          body,
          headers: { 'idempotency-key': key },
        })
        expect(res.body.code).toBe(200)
        return res
      },
      { timeout: 5_000, interval: 100 },
    )
    expect(retry.body.data).toEqual(before.kept[0])
    expect(retry.body.data.supplierId).toBe(before.suppliers[0])
    expect(await committed(admin, key, body.fullName)).toEqual(before)
    expect(await snapshot(h, { grants: true }), 'the retry wrote nothing').toEqual(written)
  }

  it('its answer lost on a silent connection: 395033 at the deadline; the retry replays', async (ctx) => {
    if (embedded) ctx.skip(ON_EMBEDDED)
    const app = behindProxy()
    const lost = await loseCommitAnswer(app, 'silence')
    expect(lost.first.body).toMatchObject(UNKNOWN)
    expect(lost.first.body.message).toMatch(/unknown.*same Idempotency-Key is safe/)
    // The frame answered, knowing a COMMIT was in flight.
    expect(lost.ms).toBeGreaterThanOrEqual(DEADLINE_MS - 5)
    expect(lost.ms).toBeLessThan(DEADLINE_MS + SLACK_MS)
    expect(logs.join('\n')).toContain('"state":"committing"')
    await retryReplays(app, lost)
  })

  it('no byte for answer_timeout while COMMIT waits: 395033 before the deadline; the retry replays', async (ctx) => {
    if (embedded) ctx.skip(ON_EMBEDDED)
    const app = behindProxy({ answerTimeoutSeconds: 0.3 })
    const lost = await loseCommitAnswer(app, 'silence')
    expect(lost.first.body).toMatchObject(UNKNOWN)
    // The write path answered, from the driver's ANSWER_TIMEOUT on its COMMIT.
    expect(lost.ms).toBeLessThan(DEADLINE_MS)
    expect(logs.join('\n')).toMatch(/ANSWER_TIMEOUT[^\n]*COMMIT sent without an answer/)
    await retryReplays(app, lost)
  })

  it('the connection lost while COMMIT waits: 395033 at once; the retry replays', async (ctx) => {
    if (embedded) ctx.skip(ON_EMBEDDED)
    const app = behindProxy()
    const lost = await loseCommitAnswer(app, 'cut')
    expect(lost.first.body).toMatchObject(UNKNOWN)
    expect(lost.ms).toBeLessThan(DEADLINE_MS)
    expect(logs.join('\n')).toMatch(/CONNECTION_CLOSED[^\n]*COMMIT sent without an answer/)
    await retryReplays(app, lost)
  })

  it('the deadline passing before COMMIT: 395030, then the transaction rolls back; nothing written', async (ctx) => {
    if (embedded) ctx.skip(ON_EMBEDDED)
    // No server-side bounds on this pool: only the request deadline can stop the write.
    const applicationName = 'deadline-before-commit'
    const app = appOn({ url: h.db.url, applicationName })
    const admin = await h.admin()
    const { supplierId } = await newDraft(h, admin)
    const body = {
      shortName: 'Past its deadline',
      changeReason: 'deadline test',
      expectedUpdateTime: await versionOf(h, supplierId),
    }
    const holder = postgres(h.db.url, { max: 1, onnotice: () => {} })
    pools.push(holder)
    const held = await holder.reserve()
    await held`BEGIN`
    await held`SELECT 1 FROM supplier WHERE supplier_id = ${supplierId} FOR UPDATE`
    const before = await snapshot(h, { grants: true })
    const answer = h.callVia(app, 'PUT', `${ITEMS}/${supplierId}`, {
      admin,
      body,
      headers: { 'idempotency-key': `past-deadline-${supplierId}` },
    })
    // The write is inside its transaction (key and duplicate-submit claims written), waiting
    // for the row lock.
    await vi.waitFor(
      async () => {
        // Not on `held`: inside a transaction pg_stat_activity is read once.
        const waiting = await h.sql`
          SELECT 1 FROM pg_stat_activity
          WHERE application_name = ${applicationName} AND wait_event_type = 'Lock'`
        expect(waiting).toHaveLength(1)
      },
      { timeout: DEADLINE_MS, interval: 20 },
    )
    const res = await answer
    expect(res.body).toMatchObject({ code: 395030, success: false, data: null })
    expect(res.ms).toBeLessThan(DEADLINE_MS + SLACK_MS)
    // The lock goes; the write finishes its work after its deadline and must not commit it.
    await held`ROLLBACK`
    held.release()
    await vi.waitFor(() => expect(logs.join('\n')).toContain('passed before COMMIT: rolled back'), {
      timeout: 5_000,
    })
    expect(await snapshot(h, { grants: true })).toEqual(before)
  })
})

describe('a write that committed before its deadline', () => {
  // The approval provider never answers: the registration's own transaction has committed, its
  // outbound step (provider, then applier) is still waiting when the deadline comes.
  let release: () => void = () => {}
  const h = useHarness({
    env: { REQUEST_TIMEOUT_MS: String(DEADLINE_MS) },
    approvalProvider: () => ({
      name: 'LOCAL_AUTO',
      submit: () => new Promise((_resolve, reject) => (release = () => reject(new Error('gone')))),
    }),
  })
  afterAll(() => release())

  it('answers what committed at the deadline; the approval is left for reconciliation', async () => {
    const admin = await h.admin()
    const { body, supplierId, version } = await newDraft(h, admin)
    const res = await h.call('POST', `${ITEMS}/${supplierId}/submit`, {
      admin,
      body: submitBodyFrom(body, version),
    })
    expect(res.body).toMatchObject({
      code: 200,
      success: true,
      data: { approvalStatus: 'SUBMITTED', businessApplied: false },
    })
    expect(res.ms).toBeGreaterThanOrEqual(DEADLINE_MS - 5)
    expect(res.ms).toBeLessThan(DEADLINE_MS + SLACK_MS)
    const [row] = await h.sql`
      SELECT s.status, a.status AS approval FROM supplier s
      JOIN approval_log a ON a.supplier_id = s.supplier_id
      WHERE s.supplier_id = ${supplierId}`
    expect(row).toEqual({ status: 'VETTING', approval: 'SUBMITTED' })
  })
})
