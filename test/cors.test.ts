import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../src/config'
import { useHarness } from './harness'

/**
 * CORS for the browser origins listed in CORS_ORIGINS (the default, none, is in
 * http-behaviour.test.ts): a preflight from a listed origin is answered before authentication,
 * with the headers the API reads; an unlisted origin gets nothing a browser would accept.
 */

const ADMIN_UI = 'https://admin.example.com'
const DEV_UI = 'http://localhost:5173'

const h = useHarness({ env: { CORS_ORIGINS: `${ADMIN_UI}, ${DEV_UI}` } })

const preflight = (origin: string, path = '/admin/supplier/items', method = 'POST') =>
  h.app.request(path, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'authorization,content-type,x-admin-id,idempotency-key',
    },
  })

describe('CORS for configured origins', () => {
  it('a preflight from a listed origin is answered without a token, naming what it may send', async () => {
    for (const origin of [ADMIN_UI, DEV_UI]) {
      const res = await preflight(origin)
      expect(res.status, origin).toBe(204)
      expect(res.headers.get('access-control-allow-origin')).toBe(origin)
      const methods = res.headers.get('access-control-allow-methods')!.split(',')
      expect(methods).toEqual(expect.arrayContaining(['GET', 'POST', 'PUT', 'DELETE']))
      const headers = res.headers.get('access-control-allow-headers')!.toLowerCase().split(',')
      expect(headers).toEqual(
        expect.arrayContaining(['authorization', 'content-type', 'x-admin-id', 'idempotency-key']),
      )
      expect(res.headers.get('access-control-max-age')).toBe('600')
      expect(res.headers.get('vary')).toMatch(/Origin/)
      // No cookies are involved: the API authenticates by bearer token.
      expect(res.headers.get('access-control-allow-credentials')).toBeNull()
    }
  })

  it('a call from a listed origin is answered as usual, X-Request-Id readable by the page', async () => {
    const admin = await h.admin()
    const res = await h.app.request('/admin/supplier/items', {
      headers: {
        origin: ADMIN_UI,
        authorization: `Bearer ${await h.token(admin)}`,
        'x-admin-id': admin,
      },
    })
    expect(res.status).toBe(200)
    expect((await res.json()).code).toBe(200)
    expect(res.headers.get('access-control-allow-origin')).toBe(ADMIN_UI)
    expect(res.headers.get('access-control-expose-headers')).toMatch(/X-Request-Id/i)
    expect(res.headers.get('vary')).toMatch(/Origin/)
  })

  it('an unlisted origin gets no Access-Control-Allow-Origin, so the browser refuses', async () => {
    for (const origin of [
      'https://evil.example.com',
      'https://admin.example.com.evil.net',
      'null',
    ]) {
      const res = await preflight(origin)
      expect(res.headers.get('access-control-allow-origin'), origin).toBeNull()
      const call = await h.app.request('/healthz', { headers: { origin } })
      expect(call.headers.get('access-control-allow-origin'), origin).toBeNull()
    }
  })

  it('a preflight for a write with a query string is answered too (a preflight is no write)', async () => {
    const res = await preflight(ADMIN_UI, '/admin/supplier/items/9007199254741007/submit?x=1')
    expect(res.status).toBe(204)
  })
})

describe('CORS_ORIGINS', () => {
  it('is empty (no cross-origin access) by default', () => {
    expect(loadConfig({ NODE_ENV: 'test' }).corsOrigins).toEqual([])
  })

  it.each([
    'https://admin.example.com/',
    'https://admin.example.com/app',
    '*',
    'admin.example.com',
    'ftp://x.example.com',
  ])('refuses %s, naming the variable', (value) => {
    expect(() => loadConfig({ NODE_ENV: 'test', CORS_ORIGINS: value })).toThrow(ConfigError)
    expect(() => loadConfig({ NODE_ENV: 'test', CORS_ORIGINS: value })).toThrow(/CORS_ORIGINS/)
  })
})
