import { sign } from 'hono/jwt'
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest'
import type postgres from 'postgres'
import { grant } from '../sql/admin'
import edge from '../src/edge'
import { ALL_PERMISSIONS } from './harness'
import { REAL_SECRETS } from './secrets'
import { sampleSum } from './metrics-page'
import { postgresBinaries, startReplicaSet, type ReplicaSet } from './replicas'
import { devHeaders, request, startService, type Service } from './service'
import { draftBody } from './supplier-data'

/**
 * Reads from a real streaming standby (DATABASE_READ_URL), through the real service process:
 * replay is paused on purpose (pg_wal_replay_pause()) to make the standby lag, so what a read
 * returns tells where it was served. Two service processes share the clusters: one that tolerates
 * any lag (so its stale answers prove the standby served them) and one with a 1 s bound.
 */

const embedded = inject('database').kind === 'embedded'
const ON_EMBEDDED =
  'streaming replication needs PostgreSQL servers (initdb, pg_basebackup); the embedded engine has neither'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('reads from a streaming standby', () => {
  let set: ReplicaSet
  let loose: Service
  let strict: Service
  let standbyAdmin: postgres.Sql
  const reader = '9007199254743001'
  const writer = '9007199254743002'

  beforeAll(async () => {
    if (embedded) return
    if (!postgresBinaries()) throw new Error('PostgreSQL server binaries not found (PG_BINDIR)')
    set = await startReplicaSet()
    const standby = set.standbys[0]
    const env = {
      DATABASE_URL: set.primary.url('test'),
      DATABASE_READ_URL: standby.url('test'),
    }
    loose = await startService({ ...env, DATABASE_READ_MAX_LAG_MS: '600000' })
    await loose.ready
    strict = await startService({
      ...env,
      DATABASE_READ_MAX_LAG_MS: '1000',
      MIGRATE_ON_START: 'false',
    })
    await strict.ready
    const primary = set.primary.admin('test')
    for (const admin of [reader, writer]) {
      await grant(primary, admin, { permissions: ALL_PERMISSIONS, roles: ['ADMIN'] })
    }
    await set.caughtUp(standby)
    standbyAdmin = standby.admin('test')
  }, 120_000)

  afterAll(async () => {
    await loose?.stop()
    await strict?.stop()
    await set?.stop()
  })

  const get = async (service: Service, admin: string, path: string) =>
    request(`${service.base}${path}`, { headers: await devHeaders(admin) })
  const metrics = async (service: Service) =>
    String((await request(`${service.base}/metrics`)).body)
  const create = async (service: Service, admin: string) => {
    const body = draftBody()
    const res = await request(`${service.base}/admin/supplier/items`, {
      method: 'POST',
      headers: await devHeaders(admin),
      body: JSON.stringify(body),
    })
    expect(res.body.code, JSON.stringify(res.body)).toBe(200)
    return { id: res.body.data.supplierId as string, fullName: body.fullName as string }
  }

  /** Stops the standby's replay; it takes effect at the next WAL record, so emit one until it has. */
  const pauseReplay = async () => {
    await standbyAdmin`SELECT pg_wal_replay_pause()`
    const primary = set.primary.admin('test')
    for (let i = 0; ; i++) {
      const [{ state }] = await standbyAdmin<{ state: string }[]>`
        SELECT pg_get_wal_replay_pause_state() AS state`
      if (state === 'paused') break
      expect(i, 'replay did not pause').toBeLessThan(100)
      await primary`SELECT pg_logical_emit_message(false, 'test', 'pause')`
      await sleep(50)
    }
  }

  /**
   * One request to the edge build (src/edge.ts) on the same clusters, in this process; answers
   * its code and where its reads went (the edge's debug lines: it has no metrics).
   */
  const edgeGet = async (admin: string, path: string) => {
    const lines: string[] = []
    const spy = vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line))
    const closing: Promise<unknown>[] = []
    try {
      const now = Math.floor(Date.now() / 1000)
      const token = await sign(
        { sub: admin, iat: now, exp: now + 600 },
        REAL_SECRETS.AUTH_JWT_SECRET,
        'HS256',
      )
      const res = await edge.fetch(
        new Request(`http://edge.test${path}`, {
          headers: { authorization: `Bearer ${token}`, 'x-admin-id': admin },
        }),
        {
          ...REAL_SECRETS,
          DATABASE_URL: set.primary.url('test'),
          DATABASE_READ_URL: set.standbys[0].url('test'),
          LOG_LEVEL: 'debug',
        },
        { waitUntil: (p) => void closing.push(p) },
      )
      const body = (await res.json()) as { code: number }
      await Promise.all(closing)
      const reads = lines
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { msg?: string; target?: string; reason?: string })
        .filter((l) => l.msg === 'database read')
        .map((l) => `${l.target}:${l.reason}`)
      return { code: body.code, reads }
    } finally {
      spy.mockRestore()
    }
  }

  it('read-only routes read the standby; the writer reads its write; lag past the bound goes to the primary', async (ctx) => {
    if (embedded) ctx.skip(ON_EMBEDDED)
    const standby = set.standbys[0]
    // Every read-only route answers from the standby when it is caught up.
    const before = await create(loose, writer)
    await set.caughtUp(standby)
    await sleep(600) // a poll or two: the standby's position is known
    const routes = [
      `/admin/supplier/items?pageSize=5`,
      `/admin/supplier/items?keyword=${encodeURIComponent(before.fullName)}`,
      `/admin/supplier/items/${before.id}`,
      `/admin/supplier/items/${before.id}/account-info`,
      `/admin/supplier/approval-records?supplierId=${before.id}`,
      `/admin/supplier/items/${before.id}/resource-info/page`,
      `/admin/dict/data/supplier_type`,
    ]
    const standbyReads = () =>
      metrics(loose).then((m) =>
        sampleSum(m, 'supplier_db_reads_total', { target: 'standby', reason: 'caught-up' }),
      )
    const counted = await standbyReads()
    for (const path of routes) {
      const res = await get(loose, reader, path)
      expect(res.body.code, `${path}: ${JSON.stringify(res.body)}`).toBe(200)
    }
    expect((await standbyReads()) - counted).toBe(routes.length)

    // The standby stops replaying: a write now is on the primary only.
    await pauseReplay()
    const written = await create(loose, writer)
    // The writer reads what they wrote: the standby has not replayed it, so the primary serves.
    expect((await get(loose, writer, `/admin/supplier/items/${written.id}`)).body.code).toBe(200)
    // Another administrator on the tolerant instance reads the standby: not there yet.
    expect((await get(loose, reader, `/admin/supplier/items/${written.id}`)).body.code).toBe(395001)
    const search = await get(
      loose,
      reader,
      `/admin/supplier/items?keyword=${encodeURIComponent(written.fullName)}`,
    )
    expect(search.body.data.total).toBe(0)
    // The strict instance sees the lag pass 1 s and reads the primary: the supplier is there.
    const started = Date.now()
    let strictAnswer: number | undefined
    do {
      await sleep(200)
      strictAnswer = (await get(strict, reader, `/admin/supplier/items/${written.id}`)).body.code
    } while (strictAnswer !== 200 && Date.now() - started < 15_000)
    expect(strictAnswer).toBe(200)

    const looseMetrics = await metrics(loose)
    expect(
      sampleSum(looseMetrics, 'supplier_db_reads_total', {
        target: 'primary',
        reason: 'read-your-writes',
      }),
    ).toBeGreaterThanOrEqual(1)
    const strictMetrics = await metrics(strict)
    expect(
      sampleSum(strictMetrics, 'supplier_db_reads_total', { target: 'primary', reason: 'lagging' }),
    ).toBeGreaterThanOrEqual(1)
    const standbyName = `127.0.0.1:${standby.port}`
    expect(
      sampleSum(strictMetrics, 'supplier_db_standby_lag_seconds', { standby: standbyName }),
    ).toBeGreaterThan(1)
    expect(sampleSum(strictMetrics, 'supplier_db_standby_up', { standby: standbyName })).toBe(1)

    // Replay resumes: the reader sees the supplier on the standby, the strict instance reads it again.
    await standbyAdmin`SELECT pg_wal_replay_resume()`
    await set.caughtUp(standby)
    expect((await get(loose, reader, `/admin/supplier/items/${written.id}`)).body.code).toBe(200)
    const resumed = Date.now()
    let lag: number
    do {
      await sleep(200)
      lag = sampleSum(await metrics(strict), 'supplier_db_standby_lag_seconds', {
        standby: standbyName,
      })
    } while (lag > 1 && Date.now() - resumed < 15_000)
    expect(lag).toBeLessThanOrEqual(1)
  }, 120_000)

  it('the edge build reads the standby once it has replayed every acknowledged commit, else the primary', async (ctx) => {
    if (embedded) ctx.skip(ON_EMBEDDED)
    const standby = set.standbys[0]
    const first = await create(loose, writer)
    await set.caughtUp(standby)
    const detail = (id: string) => `/admin/supplier/items/${id}`
    expect(await edgeGet(reader, detail(first.id))).toEqual({
      code: 200,
      reads: ['standby:caught-up'],
    })
    expect(await edgeGet(reader, `/admin/supplier/items?pageSize=5`)).toMatchObject({
      code: 200,
      reads: ['standby:caught-up'],
    })
    // A request that reads nothing asks no server about replication.
    expect(await edgeGet(reader, '/healthz')).toMatchObject({ reads: [] })

    // Replay paused, then a write through the Node service: the standby has not got it, so every
    // administrator's edge read goes to the primary and finds it (the edge never read it stale).
    await pauseReplay()
    try {
      const second = await create(loose, writer)
      for (const admin of [writer, reader]) {
        expect(await edgeGet(admin, detail(second.id))).toEqual({
          code: 200,
          reads: ['primary:lagging'],
        })
      }
      // The standby itself does not have it: the primary answered above.
      const onStandby = await standbyAdmin`
        SELECT 1 FROM supplier WHERE supplier_id = ${second.id} AND deleted_at IS NULL`
      expect(onStandby).toHaveLength(0)
    } finally {
      await standbyAdmin`SELECT pg_wal_replay_resume()`
    }
    await set.caughtUp(standby)
    expect(await edgeGet(reader, detail(first.id))).toEqual({
      code: 200,
      reads: ['standby:caught-up'],
    })
  }, 60_000)

  it('a standby going down: the primary serves every read, none fails', async (ctx) => {
    if (embedded) ctx.skip(ON_EMBEDDED)
    const supplier = await create(loose, writer)
    await set.standbys[0].stop('immediate')
    const answers: number[] = []
    for (let i = 0; i < 10; i++) {
      for (const service of [loose, strict]) {
        answers.push((await get(service, reader, `/admin/supplier/items/${supplier.id}`)).body.code)
        answers.push((await get(service, reader, `/admin/supplier/items?pageSize=5`)).body.code)
      }
    }
    expect(
      answers.every((code) => code === 200),
      JSON.stringify(answers),
    ).toBe(true)
    // The edge build too.
    expect(await edgeGet(reader, `/admin/supplier/items/${supplier.id}`)).toEqual({
      code: 200,
      reads: ['primary:down'],
    })
    const page = await metrics(loose)
    const fallbacks =
      sampleSum(page, 'supplier_db_reads_total', { target: 'primary', reason: 'standby-failed' }) +
      sampleSum(page, 'supplier_db_reads_total', { target: 'primary', reason: 'down' })
    expect(fallbacks).toBeGreaterThanOrEqual(20)
    expect(
      sampleSum(page, 'supplier_db_standby_up', { standby: `127.0.0.1:${set.standbys[0].port}` }),
    ).toBe(0)
  }, 60_000)
})
