import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest'
import { grant } from '../sql/admin'
import { connect } from '../sql/db'
import { createApp } from '../src/app'
import { createLogger } from '../src/logger'
import { sqlPermissionLookup } from '../src/ports/permission'
import { READINESS_TIMEOUT_MS } from '../src/routes/system'
import { createTestDatabase, ALL_PERMISSIONS, useHarness, type TestDatabase } from './harness'
import { devHeaders, request, startService, type Service } from './service'
import { tcpProxy } from './tcp-proxy'
import { draftBody } from './supplier-data'

/**
 * The database going away under load, against the real service process on PostgreSQL: the
 * process survives its connections being killed mid-write, and answers again once they are back.
 */

const embedded = inject('database').kind === 'embedded'
const ON_EMBEDDED =
  'needs a real PostgreSQL: pg_terminate_backend, and the embedded engine serves one session'

describe('PostgreSQL dropping the service connections during a write burst', () => {
  let db: TestDatabase
  let killer: postgres.Sql
  let service: Service
  const adminId = '9007199254741001'

  beforeAll(async () => {
    if (embedded) return
    db = await createTestDatabase()
    await grant(db.sql, adminId, { permissions: ALL_PERMISSIONS, roles: ['ADMIN'] })
    killer = postgres(db.url, { max: 1, onnotice: () => {} })
    service = await startService({ DATABASE_URL: db.url, MIGRATE_ON_START: 'false' })
    await service.ready
  }, 60_000)

  afterAll(async () => {
    await service?.stop()
    await killer?.end()
    await db?.close()
  })

  it('keeps the process up, and answers successfully once the database is back', async (ctx) => {
    if (embedded) ctx.skip(ON_EMBEDDED)
    const headers = await devHeaders(adminId)
    const create = () =>
      request(`${service.base}/admin/supplier/items`, {
        method: 'POST',
        headers,
        body: JSON.stringify(draftBody()),
      })
    const until = Date.now() + 6_000
    const answers: { status: number; body: any }[] = []
    let terminated = 0
    const writers = Array.from({ length: 6 }, async () => {
      while (Date.now() < until && !service.hasExited()) answers.push(await create())
    })
    const kills = (async () => {
      while (Date.now() < until && !service.hasExited()) {
        const rows = await killer`
          SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
          WHERE datname = current_database()
            AND application_name LIKE ${`supplier-admin %:${service.child.pid}`}
            AND pid <> pg_backend_pid()
        `
        terminated += rows.length
        await new Promise((r) => setTimeout(r, 100))
      }
    })()
    await Promise.all([...writers, kills])

    expect(service.output()).not.toContain('TypeError')
    expect(service.hasExited(), service.output().slice(-2000)).toBe(false)
    expect(terminated).toBeGreaterThan(20)
    expect(answers.length).toBeGreaterThan(0)
    // Every answer during the outage was an envelope (no dropped connection, no bare error).
    for (const a of answers) expect(a.body).toMatchObject({ code: expect.any(Number) })

    // The database is back. A connection killed in the last rounds may still fail one request
    // while it is replaced; within a bound, rounds of parallel writes all succeed, and go on doing so.
    const started = Date.now()
    let round: { status: number; body: any }[]
    do {
      round = await Promise.all(Array.from({ length: 6 }, create))
    } while (round.some((a) => a.body.code !== 200) && Date.now() - started < 5_000)
    expect(round.map((a) => a.body.code)).toEqual([200, 200, 200, 200, 200, 200])
    for (let i = 0; i < 3; i++) {
      const again = await Promise.all(Array.from({ length: 6 }, create))
      expect(again.map((a) => a.body.code)).toEqual([200, 200, 200, 200, 200, 200])
    }
    expect((await request(`${service.base}/readyz`)).status).toBe(200)
  }, 60_000)
})

describe('the database unreachable: answers stay bounded and say "retry", not "denied"', () => {
  const h = useHarness({ env: { PERMISSION_TIMEOUT_MS: '600' } })
  let proxy: Awaited<ReturnType<typeof tcpProxy>>
  let proxied: postgres.Sql
  /** The whole app on the database behind the proxy. */
  let app: ReturnType<typeof createApp>
  /** Permissions answered from the database directly; everything else behind the proxy. */
  let appWithLivePermissions: ReturnType<typeof createApp>
  let admin: string

  beforeAll(async () => {
    const url = new URL(h.db.url)
    proxy = await tcpProxy({ host: url.hostname, port: Number(url.port) })
    proxied = connect({ url: proxy.urlFor(h.db.url), max: 1, timezone: h.config.timezone })
    const logger = createLogger({ level: 'silent' })
    const deps = { config: h.config, sql: proxied, logger, cipher: h.cipher }
    app = createApp({ ...deps, permissions: sqlPermissionLookup(proxied) })
    appWithLivePermissions = createApp({ ...deps, permissions: sqlPermissionLookup(h.sql) })
    admin = await h.admin()
  })
  afterAll(async () => {
    await proxy?.stop()
    await proxied?.end({ timeout: 1 })
  })

  const call = async (
    target: ReturnType<typeof createApp>,
    method: string,
    path: string,
    body?: unknown,
  ) => {
    const started = performance.now()
    const res = await target.request(path, {
      method,
      headers: {
        authorization: `Bearer ${await h.token(admin)}`,
        'x-admin-id': admin,
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    })
    return { status: res.status, body: (await res.json()) as any, ms: performance.now() - started }
  }
  const rows = async () => {
    const [r] = await h.sql`
      SELECT (SELECT count(*) FROM supplier)::int AS s, (SELECT count(*) FROM change_log)::int AS c`
    return r
  }
  const UNAVAILABLE = { code: 395030, success: false, data: null }

  it('control: through the proxy, /readyz is UP and a write succeeds', async () => {
    expect((await app.request('/readyz')).status).toBe(200)
    expect((await call(app, 'POST', '/admin/supplier/items', draftBody())).body.code).toBe(200)
  })

  it('connections dropped and the port closed: 503 from /readyz and 395030 for calls, at once', async () => {
    await proxy.cut()
    const before = await rows()
    const started = performance.now()
    const ready = await app.request('/readyz')
    expect(ready.status).toBe(503)
    expect(await ready.json()).toMatchObject(UNAVAILABLE)
    expect(performance.now() - started).toBeLessThan(READINESS_TIMEOUT_MS)
    for (const [method, path, body] of [
      ['POST', '/admin/supplier/items', draftBody()],
      ['GET', '/admin/supplier/items', undefined],
      ['GET', '/admin/dict/data/supplier_type', undefined],
    ] as const) {
      const res = await call(app, method, path, body)
      expect(res.body, `${method} ${path}`).toMatchObject(UNAVAILABLE)
      expect(res.body.message).toMatch(/retry/)
      expect(res.ms).toBeLessThan(1_000)
    }
    // The permission lookup answered; the write itself found the database gone (the error
    // mapper, not the permission check, answers).
    const write = await call(appWithLivePermissions, 'POST', '/admin/supplier/items', draftBody())
    expect(write.body).toMatchObject(UNAVAILABLE)
    expect(await rows()).toEqual(before)
  })

  it('a silent database (accepts, never answers): both answers stay within their bounds', async () => {
    await proxy.restore()
    proxy.blackhole()
    const started = performance.now()
    const ready = await app.request('/readyz')
    expect(ready.status).toBe(503)
    expect(await ready.json()).toMatchObject(UNAVAILABLE)
    expect(performance.now() - started).toBeLessThan(READINESS_TIMEOUT_MS + 500)
    // The permission lookup is the first query of a call: its deadline bounds the answer.
    const res = await call(app, 'POST', '/admin/supplier/items', draftBody())
    expect(res.body).toMatchObject(UNAVAILABLE)
    expect(res.ms).toBeLessThan(h.config.permissions.timeoutMs + 500)
  })

  it('once the database is back, the same calls succeed again', async () => {
    await proxy.restore()
    await vi.waitFor(async () => expect((await app.request('/readyz')).status).toBe(200), {
      timeout: 15_000,
      interval: 200,
    })
    const res = await call(app, 'POST', '/admin/supplier/items', draftBody())
    expect(res.body.code).toBe(200)
  }, 30_000)

  it('a denial is still a denial, and a lookup failing for another reason still refuses (395002)', async () => {
    const nobody = await h.admin([])
    const denied = await h.call('GET', '/admin/supplier/items', { admin: nobody })
    expect(denied.body).toMatchObject({ code: 395002 })
    // A statement error (undefined table) is no connection failure: fail closed, as denied.
    const failing = (() =>
      Promise.reject(
        Object.assign(new Error('relation "admin_permission" does not exist'), { code: '42P01' }),
      )) as unknown as postgres.Sql
    const broken = createApp({
      config: h.config,
      sql: h.sql,
      logger: createLogger({ level: 'silent' }),
      cipher: h.cipher,
      permissions: sqlPermissionLookup(failing),
    })
    const res = await call(broken, 'GET', '/admin/supplier/items')
    expect(res.body).toMatchObject({ code: 395002, success: false })
  })
})
