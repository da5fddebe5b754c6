import { execFile } from 'node:child_process'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { promisify } from 'node:util'
import type { AddressInfo } from 'node:net'
import { sign } from 'hono/jwt'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { ALL_PERMISSIONS, useHarness, type Harness } from './harness'
import { createApp } from '../src/app'
import type { Config } from '../src/config'
import { resetJwksCaches } from '../src/http/auth'
import {
  httpPermissionLookup,
  sqlPermissionLookup,
  type PermissionLookup,
} from '../src/ports/permission'
import { createLogger } from '../src/logger'

const run = promisify(execFile)
const DICT = '/admin/dict/data/supplier_type'
const UNAUTHORIZED = { code: 401, success: false, data: null }
const PERMISSION_DENIED = 395002
const DEPENDENCY_UNAVAILABLE = { code: 395039, success: false, data: null }

/** A real HTTP server on 127.0.0.1 whose behaviour each test sets; records what it received. */
function localServer() {
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end()
  const received: { method?: string; url?: string; authorization?: string }[] = []
  const open = new Set<ServerResponse>()
  const server = createServer((req, res) => {
    received.push({ method: req.method, url: req.url, authorization: req.headers.authorization })
    open.add(res)
    res.on('close', () => open.delete(res))
    handler(req, res)
  })
  return {
    received,
    get url() {
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    },
    handle(h: typeof handler) {
      handler = h
    },
    start: () => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve)),
    stop: () =>
      new Promise<void>((resolve) => {
        // Hanging responses would keep close() waiting forever.
        for (const res of open) res.destroy()
        server.close(() => resolve())
      }),
  }
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(typeof body === 'string' ? body : JSON.stringify(body))
}

const nowSeconds = () => Math.floor(Date.now() / 1000)

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

describe('authentication (HS256): every 401 answers HTTP 200 with the 401 envelope', () => {
  const h = useHarness()
  let admin: string

  beforeAll(async () => {
    admin = await h.admin()
  })

  const call = (options: Parameters<Harness['call']>[2]) => h.call('GET', DICT, options)

  it('accepts a valid bearer token whose sub matches X-Admin-Id', async () => {
    const res = await call({ admin, token: await h.token(admin) })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ code: 200, success: true })
    expect(res.body.data).toHaveLength(15)
  })

  it('401 for a token without sub: it would otherwise do for any X-Admin-Id', async () => {
    for (const sub of [undefined, '', null]) {
      const res = await call({ admin, token: await h.token(admin, { sub }) })
      expect(res.body).toMatchObject(UNAUTHORIZED)
      expect(res.body.message).toContain('sub')
    }
    // …the all-permission administrator included.
    const all = await h.admin()
    const res = await call({ admin: all, token: await h.token(all, { sub: undefined }) })
    expect(res.body).toMatchObject(UNAUTHORIZED)
  })

  it('401 for a token without iat: its lifetime could not be bounded', async () => {
    const res = await call({ admin, token: await h.token(admin, { iat: undefined }) })
    expect(res.body).toMatchObject(UNAUTHORIZED)
    expect(res.body.message).toContain('iat')
  })

  it('401 for a token living longer than AUTH_TOKEN_MAX_LIFETIME_SECONDS (exp − iat)', async () => {
    const max = h.config.auth.maxTokenLifetimeSeconds
    expect(max).toBe(12 * 3600)
    const now = nowSeconds()
    for (const exp of [now + max + 1, 1e20, now + 10 * 365 * 86400]) {
      const res = await call({ admin, token: await h.token(admin, { iat: now, exp }) })
      expect(res.body, String(exp)).toMatchObject(UNAUTHORIZED)
      expect(res.body.message).toContain('lifetime')
    }
    // Backdating iat does not help: a token issued long ago with a far expiry is as long-lived.
    const backdated = await h.token(admin, { iat: now - 30 * 86400, exp: now + 600 })
    expect((await call({ admin, token: backdated })).body).toMatchObject(UNAUTHORIZED)
    // Exactly the maximum is accepted.
    const longest = await h.token(admin, { iat: now, exp: now + max })
    expect((await call({ admin, token: longest })).body).toMatchObject({ code: 200 })
  })

  it('`npm run token` mints a token the service accepts (sub, iat, exp within the maximum)', async () => {
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', 'scripts/token.ts', '--admin', admin],
      { env: { ...process.env, NODE_ENV: 'development', DATABASE_URL: '' } },
    )
    const token = stdout.trim()
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString())
    expect(claims).toMatchObject({ sub: admin, iat: expect.any(Number), exp: expect.any(Number) })
    expect(claims.exp - claims.iat).toBeLessThanOrEqual(h.config.auth.maxTokenLifetimeSeconds)
    const res = await call({ admin, token })
    expect(res.body).toMatchObject({ code: 200, success: true })
  })

  it('401 for an exp that is not a number', async () => {
    const res = await call({ admin, token: await h.token(admin, { exp: '99999999999' }) })
    expect(res.body).toMatchObject(UNAUTHORIZED)
  })

  it('401 without an Authorization header', async () => {
    const res = await call({ admin, token: null })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject(UNAUTHORIZED)
  })

  it('401 for the Basic scheme', async () => {
    const res = await call({
      admin,
      token: null,
      headers: { authorization: `Basic ${btoa(`${admin}:secret`)}` },
    })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject(UNAUTHORIZED)
  })

  it.each([
    ['not a JWT', 'Bearer not-a-jwt'],
    ['two segments', 'Bearer aaa.bbb'],
    ['empty token', 'Bearer '],
    ['garbage segments', 'Bearer !!!.???.***'],
    ['token without the scheme', 'eyJhbGciOiJIUzI1NiJ9.e30.c2ln'],
  ])('401 for a malformed bearer (%s)', async (_name, authorization) => {
    const res = await call({ admin, token: null, headers: { authorization } })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject(UNAUTHORIZED)
  })

  it('401 for a token that expired', async () => {
    const token = await h.token(admin, { exp: nowSeconds() - 5 })
    const res = await call({ admin, token })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject(UNAUTHORIZED)
  })

  it('401 for a token signed with another secret', async () => {
    const token = await sign(
      { sub: admin, exp: nowSeconds() + 600 },
      'another-secret-of-at-least-32-characters!!',
      'HS256',
    )
    const res = await call({ admin, token })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject(UNAUTHORIZED)
  })

  it('401 for a token whose payload was altered after signing', async () => {
    const [header, , signature] = (await h.token(admin)).split('.')
    const forged = `${header}.${base64url({ sub: admin, exp: nowSeconds() + 99999 })}.${signature}`
    const res = await call({ admin, token: forged })
    expect(res.body).toMatchObject(UNAUTHORIZED)
  })

  it('401 for an alg:none token (with and without a signature segment)', async () => {
    const unsigned = `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url({
      sub: admin,
      exp: nowSeconds() + 600,
    })}`
    for (const token of [`${unsigned}.`, `${unsigned}.c2lnbmF0dXJl`]) {
      const res = await call({ admin, token })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject(UNAUTHORIZED)
    }
  })

  it('401 for an HS256 header on a token signed with a different algorithm (HS512)', async () => {
    const token = await sign(
      { sub: admin, exp: nowSeconds() + 600 },
      h.config.auth.jwtSecret as string,
      'HS512',
    )
    const res = await call({ admin, token })
    expect(res.body).toMatchObject(UNAUTHORIZED)
  })

  it('401 for a correctly signed token without exp', async () => {
    const token = await sign({ sub: admin }, h.config.auth.jwtSecret as string, 'HS256')
    const res = await call({ admin, token })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject(UNAUTHORIZED)
  })

  it('401 without X-Admin-Id', async () => {
    const res = await call({ admin: null, token: await h.token(admin) })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject(UNAUTHORIZED)
  })

  it.each(['0', 'abc', '-1', '1.5', '', '01', '1e3', '+1', '12345678901234567890'])(
    '401 when X-Admin-Id is %j (not a positive integer)',
    async (value) => {
      // A token whose sub is the same text, so that only X-Admin-Id's format is under test.
      const token = await h.token(admin, { sub: value })
      const res = await call({ admin: null, token, headers: { 'x-admin-id': value } })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject(UNAUTHORIZED)
    },
  )

  it('401 when sub names another administrator than X-Admin-Id', async () => {
    const other = await h.admin()
    const res = await call({ admin, token: await h.token(other) })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject(UNAUTHORIZED)
  })

  it('401 when a numeric sub differs from X-Admin-Id', async () => {
    const res = await call({ admin: '5', token: await h.token('5', { sub: 6 }) })
    expect(res.body).toMatchObject(UNAUTHORIZED)
  })
})

describe('authentication with a JWKS endpoint (RS256)', () => {
  const jwks = localServer()
  let privateJwk: JsonWebKey & { kid: string; alg: string }
  let strangerJwk: JsonWebKey & { kid: string; alg: string }
  let publicKeys: JsonWebKey[]
  let jwksStatus = 200
  let jwksDelayMs = 0

  const rsaKeyPair = async (kid: string) => {
    const pair = await crypto.subtle.generateKey(
      {
        name: 'RSASSA-PKCS1-v1_5',
        modulusLength: 2048,
        publicExponent: new Uint8Array([1, 0, 1]),
        hash: 'SHA-256',
      },
      true,
      ['sign', 'verify'],
    )
    const priv = await crypto.subtle.exportKey('jwk', pair.privateKey)
    const pub = await crypto.subtle.exportKey('jwk', pair.publicKey)
    return {
      privateJwk: { ...priv, kid, alg: 'RS256' },
      publicJwk: { kty: pub.kty, n: pub.n, e: pub.e, kid, alg: 'RS256', use: 'sig' },
    }
  }

  // Registered before useHarness: its beforeAll reads the server's port through `env`.
  beforeAll(async () => {
    const trusted = await rsaKeyPair('trusted-1')
    const stranger = await rsaKeyPair('trusted-1-impostor')
    privateJwk = trusted.privateJwk
    strangerJwk = stranger.privateJwk
    publicKeys = [trusted.publicJwk]
    jwks.handle((req, res) => {
      // The query string only tells caches apart (one per URL): `/jwks?fresh=1` is the same set.
      if (new URL(req.url!, jwks.url).pathname !== '/jwks') {
        return json(res, 404, { error: 'not found' })
      }
      const answer = () =>
        jwksStatus !== 200
          ? json(res, jwksStatus, { error: 'boom' })
          : json(res, 200, { keys: publicKeys })
      if (jwksDelayMs > 0) setTimeout(answer, jwksDelayMs)
      else answer()
    })
    await jwks.start()
  })
  afterAll(() => jwks.stop())
  beforeEach(() => {
    jwksStatus = 200
    jwksDelayMs = 0
  })
  // The key caches live at module level, one per URL, shared by every app: each test starts cold.
  afterEach(() => {
    vi.useRealTimers()
    resetJwksCaches()
  })

  const h = useHarness({ env: () => ({ AUTH_JWKS_URL: `${jwks.url}/jwks` }) })

  const rs256 = (key: JsonWebKey, claims: Record<string, unknown>) =>
    sign(
      { iat: nowSeconds(), exp: nowSeconds() + 600, ...claims },
      key as Parameters<typeof sign>[1],
      'RS256',
    )

  /** A new app, as the edge builds one per request, whose JWKS URL is `jwksUrl`. */
  const appFor = (jwksUrl: string) => {
    const config: Config = { ...h.config, auth: { ...h.config.auth, jwksUrl } }
    return createApp({
      config,
      sql: h.sql,
      logger: createLogger({ level: 'silent' }),
      cipher: h.cipher,
      permissions: sqlPermissionLookup(h.sql),
    })
  }

  const callApp = async (app: ReturnType<typeof createApp>, admin: string, token: string) => {
    const res = await app.request(DICT, {
      headers: { authorization: `Bearer ${token}`, 'x-admin-id': admin },
    })
    return { status: res.status, body: await res.json() }
  }

  const fetches = () => jwks.received.filter((r) => r.url?.startsWith('/jwks')).length

  /** Moves Date (only Date: timers and fetch timeouts stay real) `ms` into the future. */
  const advanceClock = (ms: number) => {
    const now = Date.now()
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(now + ms)
  }

  it('accepts a token signed by a key of the JWKS, fetched from the endpoint', async () => {
    const admin = await h.admin()
    const before = jwks.received.length
    const res = await h.call('GET', DICT, { admin, token: await rs256(privateJwk, { sub: admin }) })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ code: 200, success: true })
    expect(res.body.data).toHaveLength(15)
    expect(jwks.received.length).toBeGreaterThan(before)
    expect(jwks.received.at(-1)).toMatchObject({ method: 'GET', url: '/jwks' })
  })

  it('401 for a token signed by a key that is not in the JWKS', async () => {
    const admin = await h.admin()
    for (const key of [strangerJwk, { ...strangerJwk, kid: privateJwk.kid }]) {
      const res = await h.call('GET', DICT, { admin, token: await rs256(key, { sub: admin }) })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject(UNAUTHORIZED)
    }
  })

  it('401 for an HS256 token signed with the development secret (no algorithm confusion)', async () => {
    const admin = await h.admin()
    const token = await sign(
      { sub: admin, exp: nowSeconds() + 600 },
      'dev-only-jwt-secret-change-me-0123456789abcdef',
      'HS256',
    )
    const res = await h.call('GET', DICT, { admin, token })
    expect(res.body).toMatchObject(UNAUTHORIZED)
  })

  it('401 for an expired or exp-less RS256 token', async () => {
    const admin = await h.admin()
    for (const exp of [nowSeconds() - 5, undefined]) {
      const res = await h.call('GET', DICT, {
        admin,
        token: await rs256(privateJwk, { sub: admin, exp }),
      })
      expect(res.body).toMatchObject(UNAUTHORIZED)
    }
  })

  it('401 for an RS256 token whose sub differs from X-Admin-Id', async () => {
    const admin = await h.admin()
    const res = await h.call('GET', DICT, {
      admin,
      token: await rs256(privateJwk, { sub: `${admin}1` }),
    })
    expect(res.body).toMatchObject(UNAUTHORIZED)
  })

  it('caches the key set: a second request does not fetch the JWKS again', async () => {
    const admin = await h.admin()
    await h.call('GET', DICT, { admin, token: await rs256(privateJwk, { sub: admin }) })
    const before = jwks.received.length
    const res = await h.call('GET', DICT, { admin, token: await rs256(privateJwk, { sub: admin }) })
    expect(res.body).toMatchObject({ code: 200, success: true })
    expect(jwks.received.length).toBe(before)
  })

  it('395039 (not 401, not 500) when the JWKS endpoint answers HTTP 500 and no keys are cached', async () => {
    // A URL of its own: a cache nothing has filled, so the request must fetch, and the fetch fails.
    const fresh = appFor(`${jwks.url}/jwks?fresh=1`)
    const admin = await h.admin()
    jwksStatus = 500
    const res = await callApp(fresh, admin, await rs256(privateJwk, { sub: admin }))
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject(DEPENDENCY_UNAVAILABLE)
    expect(jwks.received.at(-1)).toMatchObject({ method: 'GET', url: '/jwks?fresh=1' })
  })

  it('10 concurrent first requests on a cold cache share exactly one JWKS fetch', async () => {
    const admin = await h.admin()
    const token = await rs256(privateJwk, { sub: admin })
    jwksDelayMs = 200
    const before = fetches()
    const results = await Promise.all(
      Array.from({ length: 10 }, () => h.call('GET', DICT, { admin, token })),
    )
    for (const res of results) expect(res.body).toMatchObject({ code: 200, success: true })
    expect(fetches() - before).toBe(1)
  })

  it('apps built per request (as on the edge) share one cache per JWKS URL', async () => {
    const admin = await h.admin()
    const token = await rs256(privateJwk, { sub: admin })
    const url = h.config.auth.jwksUrl as string
    expect((await callApp(appFor(url), admin, token)).body).toMatchObject({ success: true })
    const before = fetches()
    for (let i = 0; i < 3; i++) {
      expect((await callApp(appFor(url), admin, token)).body).toMatchObject({ success: true })
    }
    expect(fetches()).toBe(before)
  })

  it('serves the stale keys when the refresh after the 5-minute TTL fails (stale-if-error)', async () => {
    const admin = await h.admin()
    await h.call('GET', DICT, { admin, token: await rs256(privateJwk, { sub: admin }) })
    jwksStatus = 500
    advanceClock(6 * 60_000)
    const before = fetches()
    const res = await h.call('GET', DICT, { admin, token: await rs256(privateJwk, { sub: admin }) })
    expect(res.body).toMatchObject({ code: 200, success: true })
    expect(fetches() - before).toBe(1) // it did try to refresh
    // Within 10 s of the failure: still the stale keys, and no new attempt.
    const again = await h.call('GET', DICT, {
      admin,
      token: await rs256(privateJwk, { sub: admin }),
    })
    expect(again.body).toMatchObject({ code: 200, success: true })
    expect(fetches() - before).toBe(1)
    // A token the stale keys do not verify is still 401, not 395039.
    const stranger = await h.call('GET', DICT, {
      admin,
      token: await rs256(strangerJwk, { sub: admin }),
    })
    expect(stranger.body).toMatchObject(UNAUTHORIZED)
  })

  it('395039 when the endpoint fails with nothing cached; no new fetch within 10 s of the failure', async () => {
    const admin = await h.admin()
    const token = await rs256(privateJwk, { sub: admin })
    jwksStatus = 500
    const before = fetches()
    expect((await h.call('GET', DICT, { admin, token })).body).toMatchObject(DEPENDENCY_UNAVAILABLE)
    expect(fetches() - before).toBe(1)
    expect((await h.call('GET', DICT, { admin, token })).body).toMatchObject(DEPENDENCY_UNAVAILABLE)
    expect(fetches() - before).toBe(1)
    // Past the 10 s backoff the next request tries again, and recovers once the endpoint does.
    jwksStatus = 200
    advanceClock(11_000)
    const res = await h.call('GET', DICT, { admin, token: await rs256(privateJwk, { sub: admin }) })
    expect(res.body).toMatchObject({ code: 200, success: true })
    expect(fetches() - before).toBe(2)
  })

  it('401 without asking the endpoint for a token no JWKS key could verify (no kid, HS256)', async () => {
    const admin = await h.admin()
    jwksStatus = 500
    const before = fetches()
    const token = await sign(
      { sub: admin, exp: nowSeconds() + 600 },
      'dev-only-jwt-secret-change-me-0123456789abcdef',
      'HS256',
    )
    expect((await h.call('GET', DICT, { admin, token })).body).toMatchObject(UNAUTHORIZED)
    expect(fetches()).toBe(before)
  })
})

/** A GET route that declares permissions (read from /openapi.json), without path parameters. */
async function guardedRoute(h: Harness): Promise<{ path: string; permissions: string[] }> {
  const doc = (await h.call('GET', '/openapi.json', { admin: null })).body as {
    paths: Record<string, Record<string, { 'x-permissions'?: string[]; 'x-roles'?: string[] }>>
  }
  const preferred = doc.paths['/admin/supplier/items']?.get
  if (preferred?.['x-permissions']?.length) {
    return { path: '/admin/supplier/items', permissions: preferred['x-permissions'] }
  }
  for (const [path, ops] of Object.entries(doc.paths)) {
    const op = ops.get
    if (!path.includes('{') && op?.['x-permissions']?.length && !op['x-roles']) {
      return { path, permissions: op['x-permissions'] }
    }
  }
  // No permissioned route is served yet: fall back to the planned list route, so that these
  // tests fail loudly (404) rather than pass vacuously.
  return { path: '/admin/supplier/items', permissions: ['supplier:list'] }
}

describe('authorization through the default (SQL) permission port', () => {
  const h = useHarness()
  let route: { path: string; permissions: string[] }

  beforeAll(async () => {
    route = await guardedRoute(h)
  })

  it('the route under test declares x-permissions in /openapi.json', async () => {
    const doc = (await h.call('GET', '/openapi.json', { admin: null })).body
    expect(doc.paths[route.path]?.get?.['x-permissions']).toEqual(route.permissions)
  })

  it('an administrator holding the permission gets the data', async () => {
    const admin = await h.admin(route.permissions, ['ADMIN'])
    const res = await h.call('GET', route.path, { admin })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ code: 200, success: true })
  })

  it('395002 for an administrator holding no permission', async () => {
    const admin = await h.admin([], ['ADMIN'])
    const res = await h.call('GET', route.path, { admin })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ code: PERMISSION_DENIED, success: false, data: null })
  })

  it('395002 for an administrator holding every other permission', async () => {
    const others = ALL_PERMISSIONS.filter((p) => !route.permissions.includes(p))
    const admin = await h.admin(others, ['ADMIN', 'SUPER_ADMIN'])
    const res = await h.call('GET', route.path, { admin })
    expect(res.body).toMatchObject({ code: PERMISSION_DENIED, success: false })
  })

  it('395002 for an administrator whose permission was revoked (soft-deleted)', async () => {
    const admin = await h.admin(route.permissions, ['ADMIN'])
    await h.sql`UPDATE admin_permission SET deleted_at = now() WHERE admin_id = ${admin}`
    const res = await h.call('GET', route.path, { admin })
    expect(res.body).toMatchObject({ code: PERMISSION_DENIED, success: false })
  })

  it('authentication comes first: no token is 401, not 395002', async () => {
    const admin = await h.admin([], ['ADMIN'])
    const res = await h.call('GET', route.path, { admin, token: null })
    expect(res.body).toMatchObject(UNAUTHORIZED)
  })
})

describe('authorization fails closed whatever the permission port does', () => {
  const service = localServer()
  let port: PermissionLookup = { has: async () => false, roles: async () => [] }
  const switchable: PermissionLookup = {
    has: (adminId, code) => port.has(adminId, code),
    roles: (adminId) => port.roles(adminId),
  }
  // Every request asks the port (a granted read is otherwise remembered for a few seconds).
  const h = useHarness({
    env: { PERMISSION_READ_CACHE_SECONDS: '0' },
    permissions: () => switchable,
  })
  let route: { path: string; permissions: string[] }
  let admin: string
  let answer: (req: IncomingMessage, res: ServerResponse) => void

  const http = (token?: string, prefix = '/platform/') =>
    httpPermissionLookup({ baseUrl: `${service.url}${prefix}`, token, timeoutMs: 200 })

  beforeAll(async () => {
    service.handle((req, res) => answer(req, res))
    await service.start()
    route = await guardedRoute(h)
    admin = await h.admin([])
  })
  afterAll(() => service.stop())
  beforeEach(() => {
    service.received.length = 0
    answer = (_req, res) => json(res, 200, { code: 200, success: true, data: true })
  })

  const expectDenied = async () => {
    const res = await h.call('GET', route.path, { admin })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ code: PERMISSION_DENIED, success: false, data: null })
  }

  it('control: a lookup answering true lets the request through', async () => {
    port = { has: async () => true, roles: async () => ['ADMIN'] }
    const res = await h.call('GET', route.path, { admin })
    expect(res.body).toMatchObject({ code: 200, success: true })
  })

  it('395002 when the lookup throws', async () => {
    port = {
      has: async () => {
        throw new Error('permission backend exploded')
      },
      roles: async () => ['ADMIN'],
    }
    await expectDenied()
    expect(h.logs.join('\n')).toContain('permission lookup failed')
  })

  it('395002 when the lookup never answers: every adapter is bounded by PERMISSION_TIMEOUT_MS', async () => {
    port = { has: () => new Promise<boolean>(() => {}), roles: async () => ['ADMIN'] }
    const started = Date.now()
    await expectDenied()
    expect(Date.now() - started).toBeLessThan(h.config.permissions.timeoutMs + 1500)
    expect(h.logs.join('\n')).toContain('exceeded')
  })

  it('395002 when the lookup throws synchronously', async () => {
    port = {
      has: () => {
        throw new Error('sync failure')
      },
      roles: async () => ['ADMIN'],
    }
    await expectDenied()
  })

  it('395002 when the lookup answers a truthy non-boolean', async () => {
    port = {
      has: async () => 'yes' as unknown as boolean,
      roles: async () => ['ADMIN'],
    }
    await expectDenied()
  })

  describe('HTTP adapter against a real permission service', () => {
    it('allowed on {code:200,success:true,data:true}; path carries admin id and code; bearer service token', async () => {
      port = http('svc-token-123')
      const res = await h.call('GET', route.path, { admin })
      expect(res.body).toMatchObject({ code: 200, success: true })
      const expected = route.permissions.map(
        (code) =>
          `/platform/admins/${encodeURIComponent(admin)}/permissions/${encodeURIComponent(code)}`,
      )
      expect(service.received.map((r) => r.url).sort()).toEqual(expected.sort())
      for (const r of service.received) {
        expect(r.method).toBe('GET')
        expect(r.authorization).toBe('Bearer svc-token-123')
        expect(decodeURIComponent(r.url!)).toContain(`/admins/${admin}/permissions/`)
      }
    })

    it('sends no Authorization header when no service token is configured', async () => {
      port = http(undefined, '')
      const res = await h.call('GET', route.path, { admin })
      expect(res.body).toMatchObject({ code: 200, success: true })
      expect(service.received.length).toBeGreaterThan(0)
      for (const r of service.received) {
        expect(r.url).toMatch(new RegExp(`^/admins/${admin}/permissions/`))
        expect(r.authorization).toBeUndefined()
      }
    })

    it.each([
      ['data:false', { code: 200, success: true, data: false }],
      ['code 500, success false', { code: 500, success: false }],
      ['success true but code 500', { code: 500, success: true, data: true }],
      ["data: 'yes'", { code: 200, success: true, data: 'yes' }],
      ['data: 1', { code: 200, success: true, data: 1 }],
      ['no data', { code: 200, success: true }],
      ['JSON null', 'null'],
      ['invalid JSON', '{"code":200,"success":true,"data":tru'],
    ])('395002 when the service answers %s', async (_name, body) => {
      port = http('svc-token-123')
      answer = (_req, res) => json(res, 200, body)
      await expectDenied()
      expect(service.received.length).toBeGreaterThan(0)
    })

    it.each([503, 500, 404])('395002 when the service answers HTTP %i', async (status) => {
      port = http('svc-token-123')
      answer = (_req, res) =>
        json(res, status, { code: 200, success: true, data: true, location: '/elsewhere' })
      await expectDenied()
    })

    it('395002 when the answer (true) arrives after timeoutMs (200 ms)', async () => {
      port = http('svc-token-123')
      answer = (_req, res) => {
        const timer = setTimeout(
          () => json(res, 200, { code: 200, success: true, data: true }),
          1000,
        )
        res.on('close', () => clearTimeout(timer))
      }
      const started = Date.now()
      await expectDenied()
      expect(Date.now() - started).toBeLessThan(900)
    })

    it('395002 within the timeout when the service never answers', async () => {
      port = http('svc-token-123')
      answer = () => {
        // accept the request and never respond
      }
      const started = Date.now()
      await expectDenied()
      expect(Date.now() - started).toBeLessThan(2000)
    })

    it('395002 when the service sends headers then stalls the body past the timeout', async () => {
      port = http('svc-token-123')
      answer = (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.write('{"code":200,')
      }
      await expectDenied()
    })

    it('395002 when the service is not listening at all', async () => {
      port = httpPermissionLookup({ baseUrl: 'http://127.0.0.1:1', timeoutMs: 200 })
      await expectDenied()
    })
  })
})
