import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { build, type Metafile } from 'esbuild'
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { sign } from 'hono/jwt'
import { DEV_SECRETS } from '../src/config'
import edge, { consoleLogger, type EdgeEnv } from '../src/edge'
import { useHarness } from './harness'
import { REAL_SECRETS } from './secrets'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const DICT = '/admin/dict/data/supplier_type'

/** Bundles src/edge.ts the way a Workers/Deno bundler does (no Node platform, worker conditions). */
const bundle = (external: string[]) =>
  build({
    absWorkingDir: ROOT,
    entryPoints: ['src/edge.ts'],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    conditions: ['workerd', 'worker', 'browser'],
    metafile: true,
    logLevel: 'silent',
    external,
  })

/** Imports left in the output (not bundled), by path. */
const externalImports = (metafile: Metafile) =>
  new Set(Object.values(metafile.outputs).flatMap((o) => o.imports.map((i) => i.path)))

/**
 * Inputs that must never reach the edge: Node entry, embedded database, pino, the tracing SDK,
 * test code.
 */
const FORBIDDEN_INPUTS = [
  /^src\/main\.ts$/,
  /^src\/db\//,
  /^src\/logger\.ts$/,
  /^test\//,
  /^scripts\//,
  /node_modules\/(pino|pino-[\w-]+|thread-stream|sonic-boom)\//,
  /node_modules\/@electric-sql\//,
  /node_modules\/@hono\/node-server\//,
  /node_modules\/dbmate\//,
  // The OpenTelemetry SDK (Node's async_hooks and http) is the Node entry's; the edge has the API.
  /^src\/tracing\.ts$/,
  /node_modules\/@opentelemetry\/(?!api\/)/,
]

describe('edge bundle', () => {
  it('our code bundles for a non-Node platform with no node: import (postgres.js left to the runtime)', async () => {
    // platform 'neutral' resolves no Node built-in: any node:* or bare built-in import in our
    // code (or hono, zod) fails this build.
    const result = await bundle(['postgres'])
    expect(result.errors).toEqual([])
    expect([...externalImports(result.metafile)]).toEqual(['postgres'])
    const text = result.outputFiles[0].text
    expect(text).not.toMatch(/from\s*["']node:/)
    expect(text).not.toMatch(/require\(\s*["']node:/)
    expect(text).not.toMatch(/import\(\s*["']node:/)
    const inputs = Object.keys(result.metafile.inputs)
    expect(inputs).toContain('src/edge.ts')
    expect(inputs).toContain('src/routes/dict.ts')
    for (const pattern of FORBIDDEN_INPUTS) {
      expect(
        inputs.filter((i) => pattern.test(i)),
        String(pattern),
      ).toEqual([])
    }
  })

  it('with postgres.js bundled (its workerd build), only the Workers runtime modules stay external, all from postgres.js', async () => {
    const result = await bundle(['cloudflare:sockets', 'node:*'])
    expect(result.errors).toEqual([])
    const left = [...externalImports(result.metafile)].sort()
    // Provided by workerd (Node.js compatibility is on by default from 2026-08-04; see wrangler.toml).
    expect(left).toEqual(['cloudflare:sockets', 'node:buffer', 'node:events', 'node:stream'])
    const importers = Object.entries(result.metafile.inputs)
      .filter(([, input]) => input.imports.some((i) => i.external))
      .map(([path]) => path)
    expect(importers.length).toBeGreaterThan(0)
    for (const path of importers) expect(path).toMatch(/^node_modules\/postgres\/cf\//)
    const inputs = Object.keys(result.metafile.inputs)
    for (const pattern of FORBIDDEN_INPUTS) {
      expect(
        inputs.filter((i) => pattern.test(i)),
        String(pattern),
      ).toEqual([])
    }
  })
})

describe('edge fetch against the test database', () => {
  // The edge refuses the development secrets: the harness writes and signs with the same real ones.
  const h = useHarness({ env: REAL_SECRETS })
  let admin: string
  let pending: Promise<unknown>[] = []
  const ctx = {
    waitUntil: (p: Promise<unknown>) => void pending.push(p),
    passThroughOnException: () => {},
  }
  const baseEnv = (): EdgeEnv => ({
    DATABASE_URL: h.db.url,
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    ...REAL_SECRETS,
  })

  /** One edge request; waits for the work handed to waitUntil (closing the database client). */
  const fetchEdge = async (path: string, init: RequestInit = {}, env: EdgeEnv = baseEnv()) => {
    const before = pending.length
    const res = await edge.fetch(new Request(`http://edge.test${path}`, init), env, ctx)
    const text = await res.text()
    const closed = pending.slice(before)
    await Promise.all(closed)
    let body: any = text
    try {
      body = JSON.parse(text)
    } catch {
      // HTML
    }
    return { res, body, closed }
  }

  const authHeaders = async (adminId = admin) => ({
    authorization: `Bearer ${await h.token(adminId)}`,
    'x-admin-id': adminId,
  })

  beforeAll(async () => {
    admin = await h.admin()
  })
  afterEach(() => {
    vi.restoreAllMocks()
    pending = []
  })

  it('serves the fifteen supplier types, as the Node app does, and closes its client', async () => {
    const { res, body, closed } = await fetchEdge(DICT, { headers: await authHeaders() })
    expect(res.status).toBe(200)
    expect(body).toMatchObject({ code: 200, success: true, message: '成功' })
    expect(body.data).toHaveLength(15)
    expect(body.data[0]).toEqual({
      dictType: 'supplier_type',
      dictLabel: expect.any(String),
      dictValue: 'SCENIC',
      sortOrder: expect.any(Number),
      status: 'ACTIVE',
    })
    const node = await h.call('GET', DICT, { admin })
    expect(body).toEqual(node.body)
    expect(closed).toHaveLength(1)
  })

  it('serves the lifecycle status dictionary', async () => {
    const { body } = await fetchEdge('/admin/dict/data/supplier_lifecycle_status', {
      headers: await authHeaders(),
    })
    expect(body).toMatchObject({ code: 200, success: true })
    expect(body.data.length).toBeGreaterThan(0)
  })

  it('authenticates like the Node app: 401 envelopes for no token and for a foreign sub', async () => {
    const none = await fetchEdge(DICT, { headers: { 'x-admin-id': admin } })
    expect(none.res.status).toBe(200)
    expect(none.body).toMatchObject({ code: 401, success: false, data: null })
    const other = await h.admin()
    const foreign = await fetchEdge(DICT, {
      headers: { ...(await authHeaders(other)), 'x-admin-id': admin },
    })
    expect(foreign.body).toMatchObject({ code: 401, success: false, data: null })
  })

  it('answers /healthz and /readyz', async () => {
    for (const path of ['/healthz', '/readyz']) {
      const { res, body } = await fetchEdge(path)
      expect(res.status, path).toBe(200)
      expect(body, path).toEqual({
        code: 200,
        message: '成功',
        success: true,
        data: { status: 'UP' },
      })
    }
  })

  it('documents exactly the read-only routes it serves, and serves /docs', async () => {
    const { body: doc } = await fetchEdge('/openapi.json')
    const ops = Object.entries(doc.paths as Record<string, object>).flatMap(([path, methods]) =>
      Object.keys(methods).map((m) => `${m} ${path}`),
    )
    expect(ops.sort()).toEqual(
      [
        'get /admin/dict/data/supplier_lifecycle_status',
        'get /admin/dict/data/supplier_type',
        'get /admin/supplier/items',
        'get /admin/supplier/items/{supplierId}',
        'get /admin/supplier/items/{supplierId}/account-info',
        'get /admin/supplier/approval-records',
        'get /admin/supplier/items/{supplierId}/resource-info/page',
        'get /asyncapi.json',
        'get /docs',
        'get /healthz',
        'get /openapi.json',
        'get /readyz',
      ].sort(),
    )
    const docs = await fetchEdge('/docs')
    expect(docs.res.headers.get('content-type')).toMatch(/^text\/html/)
    expect(docs.body).toContain('<code>/admin/dict/data/supplier_type</code>')
  })

  it('serves the supplier list, as the Node app does', async () => {
    const { res, body } = await fetchEdge('/admin/supplier/items?pageSize=5', {
      headers: await authHeaders(),
    })
    expect(res.status).toBe(200)
    expect(body).toMatchObject({ code: 200, success: true, data: { page: 1, pageSize: 5 } })
    expect(body.data.records).toEqual(expect.any(Array))
  })

  it('has no write route: a write is 405 where the edge reads the path, 404 elsewhere', async () => {
    const headers = { ...(await authHeaders()), 'content-type': 'application/json' }
    for (const [method, path, status] of [
      ['POST', '/admin/supplier/items', 405],
      ['PUT', '/admin/supplier/types/SCENIC/qualification-rules', 404],
      ['POST', DICT, 405],
      ['GET', '/no/such/route', 404],
    ] as const) {
      const { res, body } = await fetchEdge(path, {
        method,
        headers,
        body: method === 'GET' ? undefined : '{}',
      })
      expect(res.status, `${method} ${path}`).toBe(status)
      expect(body, `${method} ${path}`).toMatchObject({ code: status, success: false, data: null })
      if (status === 405) expect(res.headers.get('allow'), path).toBe('GET, HEAD')
    }
  })

  it('decides permissions like the Node service: PERMISSION_SERVICE_URL replaces the local tables', async () => {
    // Grants only what the service says, whatever the local tables hold.
    const asked: string[] = []
    const service = createServer((req, res) => {
      asked.push(req.url ?? '')
      const granted = (req.url ?? '').includes('/admins/4242/')
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ code: 200, message: 'ok', success: true, data: granted }))
    })
    await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve))
    try {
      const env: EdgeEnv = {
        ...baseEnv(),
        PERMISSION_SERVICE_URL: `http://127.0.0.1:${(service.address() as AddressInfo).port}`,
      }
      const path = '/admin/supplier/items?pageSize=1'
      // Holds every permission locally: the service says no.
      const denied = await fetchEdge(path, { headers: await authHeaders() }, env)
      expect(denied.body).toMatchObject({ code: 395002, success: false })
      // Holds nothing locally: the service says yes.
      const granted = await fetchEdge(path, { headers: await authHeaders('4242') }, env)
      expect(granted.body).toMatchObject({ code: 200, success: true })
      expect(asked).toEqual([
        `/admins/${admin}/permissions/supplier%3Alist`,
        '/admins/4242/permissions/supplier%3Alist',
      ])
    } finally {
      service.closeAllConnections()
      await new Promise((resolve) => service.close(resolve))
    }
  })

  it('prefers the Hyperdrive binding over DATABASE_URL', async () => {
    const env: EdgeEnv = {
      ...baseEnv(),
      DATABASE_URL: 'postgres://nobody@127.0.0.1:1/unreachable',
      HYPERDRIVE: { connectionString: h.db.url },
    }
    const { body } = await fetchEdge(DICT, { headers: await authHeaders() }, env)
    expect(body).toMatchObject({ code: 200, success: true })
    expect(body.data).toHaveLength(15)
  })

  it('a database it cannot reach: /readyz 503 and calls 395030 (retry later), logged', async () => {
    const warnings = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const env: EdgeEnv = {
      ...baseEnv(),
      LOG_LEVEL: 'info',
      DATABASE_URL: 'postgres://nobody@127.0.0.1:1/unreachable',
    }
    vi.spyOn(console, 'log').mockImplementation(() => {})
    const ready = await fetchEdge('/readyz', {}, env)
    expect(ready.res.status).toBe(503)
    expect(ready.body).toMatchObject({ code: 395030, success: false, data: null })
    const unavailable = await fetchEdge(DICT, { headers: await authHeaders() }, env)
    expect(unavailable.res.status).toBe(200)
    expect(unavailable.body).toMatchObject({ code: 395030, success: false, data: null })
    expect(JSON.stringify(unavailable.body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|\bat \S+:\d+/)
    const logged = warnings.mock.calls.map(([line]) => JSON.parse(String(line)))
    expect(logged).toContainEqual(
      expect.objectContaining({ level: 40, msg: 'database unavailable' }),
    )
  })

  it('answers a 500 envelope, and logs why, when it has no database or a bad configuration', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {})
    for (const env of [
      { NODE_ENV: 'test', ...REAL_SECRETS },
      { ...baseEnv(), PORT: 'abc' },
      { DATABASE_URL: h.db.url, NODE_ENV: 'production' },
    ] as EdgeEnv[]) {
      const { res, body } = await fetchEdge('/healthz', {}, env)
      expect(res.status).toBe(500)
      expect(body).toEqual({
        code: 500,
        message: 'service misconfigured',
        success: false,
        data: null,
      })
    }
    const lines = errors.mock.calls.map(([line]) => String(line)).join('\n')
    expect(lines).toContain('DATABASE_URL or a HYPERDRIVE binding')
    expect(lines).toContain('PORT')
    expect(lines).toContain('AUTH_JWT_SECRET')
  })

  it('never takes the public development secrets, even with NODE_ENV=development on loopback', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {})
    const unset = { DATABASE_URL: h.db.url, LOG_LEVEL: 'silent', HOST: '127.0.0.1' }
    const cases: [EdgeEnv, string[]][] = [
      [{ ...unset, NODE_ENV: 'development' }, Object.keys(DEV_SECRETS)],
      [{ ...unset, NODE_ENV: 'test' }, Object.keys(DEV_SECRETS)],
      ...Object.entries(DEV_SECRETS).map(([name, value]): [EdgeEnv, string[]] => [
        { ...baseEnv(), NODE_ENV: 'development', [name]: value },
        [name],
      ]),
    ]
    for (const [env, named] of cases) {
      errors.mockClear()
      const { res, body } = await fetchEdge('/healthz', {}, env)
      expect(res.status).toBe(500)
      expect(body).toMatchObject({ code: 500, message: 'service misconfigured', data: null })
      const logged = errors.mock.calls.map(([line]) => String(line)).join('\n')
      for (const name of Object.keys(DEV_SECRETS)) {
        const expected = named.includes(name)
        expect(logged.includes(`${name}: development secret refused by the edge entry`), name).toBe(
          expected,
        )
      }
    }
    // A token signed with the public secret is not a way in either: the same edge, real secrets.
    const now = Math.floor(Date.now() / 1000)
    const forged = await sign(
      { sub: admin, iat: now, exp: now + 600 },
      DEV_SECRETS.AUTH_JWT_SECRET,
      'HS256',
    )
    const res = await fetchEdge('/admin/dict/data/supplier_type', {
      headers: { authorization: `Bearer ${forged}`, 'x-admin-id': admin },
    })
    expect(res.body).toMatchObject({ code: 401, success: false })
    expect(
      (await fetchEdge('/admin/dict/data/supplier_type', { headers: await authHeaders() })).body,
    ).toMatchObject({ code: 200, success: true })
  })

  it('its console logger redacts sensitive keys and honours the level', () => {
    const out: string[] = []
    vi.spyOn(console, 'log').mockImplementation((line: string) => void out.push(line))
    vi.spyOn(console, 'warn').mockImplementation((line: string) => void out.push(line))
    const logger = consoleLogger('info').child({ service: 'edge' })
    logger.debug({ taxNo: 'dropped' }, 'below the level')
    logger.info(
      { taxNo: '91330106MA2KXY712Q', req: { headers: { authorization: 'Bearer abc.def.ghi' } } },
      'hello',
    )
    logger.warn('plain message')
    expect(out).toHaveLength(2)
    const [first, second] = out.map((line) => JSON.parse(line))
    expect(first).toMatchObject({ level: 30, msg: 'hello', service: 'edge', taxNo: '[REDACTED]' })
    expect(first.req.headers.authorization).toBe('[REDACTED]')
    expect(second).toMatchObject({ level: 40, msg: 'plain message' })
    expect(out.join('\n')).not.toMatch(/91330106MA2KXY712Q|abc\.def\.ghi|dropped/)
  })
})
