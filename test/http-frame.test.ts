import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../src/app'
import { createLogger } from '../src/logger'
import { sqlPermissionLookup } from '../src/ports/permission'
import { useHarness } from './harness'

const SUCCESS = { code: 200, success: true, message: '成功' }
const RULES_PATH = '/admin/supplier/types/SCENIC/qualification-rules'
const validRule = { qualType: 'BUSINESS_LICENSE', isRequired: true, warningDays: 30, sortOrder: 1 }

/** Text that must never reach a client: stack frames, SQL, driver and socket internals. */
const LEAKS = [
  /\bat .+\(.*:\d+:\d+\)/,
  /\.ts:\d+/,
  /node_modules/,
  /\bSELECT\b/i,
  /\bFROM\b/,
  /ECONNREFUSED/,
  /127\.0\.0\.1/,
  /postgres:\/\//,
  /dict_data/,
  /stack/i,
]

describe('HTTP frame', () => {
  const h = useHarness({ env: { BODY_LIMIT_BYTES: '2048' } })

  describe('routing and health', () => {
    it('an unknown route is HTTP 404 with the 404 envelope', async () => {
      const res = await h.call('GET', '/no/such/route', { admin: null })
      expect(res.status).toBe(404)
      expect(res.body).toMatchObject({ code: 404, success: false, data: null })
      expect(res.body.message).toEqual(expect.any(String))
    })

    it('an unknown /admin route, once authenticated, is the 404 envelope too', async () => {
      const res = await h.call('POST', '/admin/dict/data/nope', { body: {} })
      expect(res.status).toBe(404)
      expect(res.body).toMatchObject({ code: 404, success: false, data: null })
    })

    it('a known path with an unserved method is HTTP 405 with Allow (the 405 envelope)', async () => {
      const res = await h.call('DELETE', '/healthz', { admin: null })
      expect(res.status).toBe(405)
      expect(res.body).toMatchObject({ code: 405, success: false, data: null })
    })

    it('ignores a caller-chosen X-Request-Id: every request gets an id of the service', async () => {
      const res = await h.app.request('/healthz', {
        headers: { 'x-request-id': 'attacker-chosen-id' },
      })
      const id = res.headers.get('x-request-id')
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
      const again = await h.app.request('/healthz', { headers: { 'x-request-id': id! } })
      expect(again.headers.get('x-request-id')).not.toBe(id)
    })

    it('/healthz answers the success envelope without authentication', async () => {
      const res = await h.call('GET', '/healthz', { admin: null })
      expect(res.status).toBe(200)
      expect(res.body).toEqual({ ...SUCCESS, data: { status: 'UP' } })
    })

    it('/readyz answers the success envelope when the database is reachable', async () => {
      const res = await h.call('GET', '/readyz', { admin: null })
      expect(res.status).toBe(200)
      expect(res.body).toEqual({ ...SUCCESS, data: { status: 'UP' } })
    })

    it('every success envelope has code 200, success true and the message 成功', async () => {
      for (const path of [
        '/healthz',
        '/readyz',
        '/admin/dict/data/supplier_type',
        '/admin/dict/data/supplier_lifecycle_status',
      ]) {
        const res = await h.call('GET', path)
        expect(res.status, path).toBe(200)
        expect(res.body, path).toMatchObject(SUCCESS)
        expect(Object.keys(res.body).sort(), path).toEqual(['code', 'data', 'message', 'success'])
      }
    })

    it('every response carries a request id header', async () => {
      const res = await h.app.request('/healthz')
      expect(res.headers.get('x-request-id')).toMatch(/^[\w-]{8,}$/)
    })
  })

  describe('with a database that cannot be reached', () => {
    let broken: postgres.Sql
    let app: ReturnType<typeof createApp>

    beforeAll(() => {
      broken = postgres('postgres://postgres@127.0.0.1:1/x', {
        max: 1,
        connect_timeout: 1,
        onnotice: () => {},
      })
      app = createApp({
        config: h.config,
        sql: broken,
        logger: createLogger({ level: 'silent' }),
        cipher: h.cipher,
        permissions: sqlPermissionLookup(broken),
      })
    })
    afterAll(() => broken.end({ timeout: 1 }))

    it('/readyz is HTTP 503 with the database-unavailable envelope (395030)', async () => {
      const res = await app.request('/readyz')
      expect(res.status).toBe(503)
      const body = (await res.json()) as any
      expect(body).toMatchObject({ code: 395030, success: false, data: null })
      for (const leak of LEAKS) expect(body.message).not.toMatch(leak)
    })

    it('/healthz still answers UP: liveness does not depend on the database', async () => {
      const res = await app.request('/healthz')
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual({ ...SUCCESS, data: { status: 'UP' } })
    })

    it('a call is 395030 "retry later" (HTTP 200), without driver or socket details', async () => {
      const admin = '9007199254740993'
      const res = await app.request('/admin/dict/data/supplier_type', {
        headers: { authorization: `Bearer ${await h.token(admin)}`, 'x-admin-id': admin },
      })
      expect(res.status).toBe(200)
      const body = (await res.json()) as any
      expect(body).toMatchObject({ code: 395030, success: false, data: null })
      for (const leak of LEAKS) expect(JSON.stringify(body)).not.toMatch(leak)
    })
  })

  describe('with a database that fails a statement (an unexpected fault)', () => {
    const logs: string[] = []
    let app: ReturnType<typeof createApp>

    beforeAll(() => {
      // Every statement fails with an error that is not a connection failure.
      const failing = Object.assign(
        () =>
          Promise.reject(
            Object.assign(new Error('relation "dict_data" does not exist at 127.0.0.1'), {
              code: '42P01',
            }),
          ),
        { options: { max: 1 } },
      ) as unknown as postgres.Sql
      app = createApp({
        config: h.config,
        sql: failing,
        logger: createLogger({
          level: 'info',
          destination: { write: (line: string) => void logs.push(line) },
        }),
        cipher: h.cipher,
        permissions: sqlPermissionLookup(h.sql),
      })
    })

    const authed = async (path: string) => {
      const admin = '9007199254740993'
      const res = await app.request(path, {
        headers: { authorization: `Bearer ${await h.token(admin)}`, 'x-admin-id': admin },
      })
      return { res, body: (await res.json()) as any }
    }
    it('an unexpected fault is HTTP 500 whose data is { requestId } and whose message names it', async () => {
      const { res, body } = await authed('/admin/dict/data/supplier_type')
      expect(res.status).toBe(500)
      expect(body).toMatchObject({ code: 500, success: false })
      expect(Object.keys(body.data)).toEqual(['requestId'])
      const requestId = body.data.requestId as string
      expect(requestId).toMatch(/^[\w-]{8,}$/)
      expect(res.headers.get('x-request-id')).toBe(requestId)
      expect(body.message).toContain(requestId)
      const text = JSON.stringify(body)
      for (const leak of LEAKS) expect(text).not.toMatch(leak)
    })

    it('the fault is logged with its request id (the operator side of the 500)', async () => {
      const { body } = await authed('/admin/dict/data/supplier_lifecycle_status')
      const requestId = body.data.requestId as string
      const records = logs.map((line) => JSON.parse(line) as Record<string, any>)
      const fault = records.find((r) => r.requestId === requestId && r.msg === 'unexpected fault')
      expect(fault).toBeDefined()
      expect(fault!.level).toBe(50)
      expect(fault!.err).toBeDefined()
    })

    it('two faults get two different request ids', async () => {
      const a = await authed('/admin/dict/data/supplier_type')
      const b = await authed('/admin/dict/data/supplier_type')
      expect(a.body.data.requestId).not.toBe(b.body.data.requestId)
    })
  })

  describe('JSON request bodies (PUT qualification rules)', () => {
    it('malformed JSON is HTTP 400 with the 400 envelope', async () => {
      const res = await h.call('PUT', RULES_PATH, { raw: '{"rules": [' })
      expect(res.status).toBe(400)
      expect(res.body).toMatchObject({ code: 400, success: false, data: null })
    })

    it('a body over BODY_LIMIT_BYTES (2048) is HTTP 400 with the 400 envelope', async () => {
      const rules = Array.from({ length: 40 }, (_, i) => ({
        ...validRule,
        qualType: `QUALIFICATION_TYPE_${i}`.padEnd(60, 'X'),
        sortOrder: i,
      }))
      const raw = JSON.stringify({ rules })
      expect(raw.length).toBeGreaterThan(2048)
      const res = await h.call('PUT', RULES_PATH, { raw })
      expect(res.status).toBe(400)
      expect(res.body).toMatchObject({ code: 400, success: false, data: null })
      expect(res.body.message).toContain('2048')
    })

    it('an oversized body announced by Content-Length is refused the same way', async () => {
      const raw = JSON.stringify({ rules: [validRule], padding: 'x'.repeat(4096) })
      const res = await h.call('PUT', RULES_PATH, {
        raw,
        headers: { 'content-length': String(new TextEncoder().encode(raw).length) },
      })
      expect(res.status).toBe(400)
      expect(res.body).toMatchObject({ code: 400, success: false })
    })

    it('an oversized body is refused before authentication when its size is announced, and an anonymous one of unannounced size is refused unread', async () => {
      const raw = JSON.stringify({ padding: 'x'.repeat(4096) })
      const announced = await h.call('PUT', RULES_PATH, {
        admin: null,
        raw,
        headers: { 'content-length': String(new TextEncoder().encode(raw).length) },
      })
      expect(announced.status).toBe(400)
      expect(announced.body).toMatchObject({ code: 400, success: false })
      // Without a Content-Length the size is known only by reading, which waits for the sender.
      const unannounced = await h.call('PUT', RULES_PATH, { admin: null, raw })
      expect(unannounced.body).toMatchObject({ code: 401, success: false })
    })

    it('an unknown top-level field is HTTP 200 + code 400 naming the field', async () => {
      const res = await h.call('PUT', RULES_PATH, {
        body: { rules: [validRule], surpriseField: 1 },
      })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ code: 400, success: false })
      expect(res.body.message).toContain('surpriseField')
    })

    it('an unknown field inside a rule is code 400 naming the field', async () => {
      const res = await h.call('PUT', RULES_PATH, {
        body: { rules: [{ ...validRule, colour: 'red' }] },
      })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ code: 400, success: false })
      expect(res.body.message).toContain('colour')
    })

    it.each(['adminId', 'provider', 'spStatus'])(
      'the client-forbidden field %s is code 400 naming it',
      async (field) => {
        for (const body of [
          { rules: [validRule], [field]: field === 'adminId' ? '9007199254740993' : 'X' },
          { rules: [{ ...validRule, [field]: 'X' }] },
        ]) {
          const res = await h.call('PUT', RULES_PATH, { body })
          expect(res.status).toBe(200)
          expect(res.body).toMatchObject({ code: 400, success: false })
          expect(res.body.message).toContain(field)
          expect(res.body.message).toMatch(/forbidden/i)
        }
      },
    )

    it('a field-level violation (warningDays < 0) is code 400 naming the field', async () => {
      const res = await h.call('PUT', RULES_PATH, {
        body: { rules: [{ ...validRule, warningDays: -1 }] },
      })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ code: 400, success: false })
      expect(res.body.message).toContain('warningDays')
    })
  })

  describe('ids in paths are validated', () => {
    it.each(['abc', '0', '-1', '1.5', '01', '99999999999999999999'])(
      'GET /admin/supplier/items/%s is code 400',
      async (id) => {
        const res = await h.call('GET', `/admin/supplier/items/${id}`)
        expect(res.status).toBe(200)
        expect(res.body).toMatchObject({ code: 400, success: false })
        expect(res.body.message).toContain('supplierId')
      },
    )

    it('a well-formed id that does not exist is 395001, not 400', async () => {
      const res = await h.call('GET', '/admin/supplier/items/9223372036854775000')
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ code: 395001, success: false })
    })
  })
})
