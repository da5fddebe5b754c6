import { runInNewContext } from 'node:vm'
import { gunzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { useHarness } from './harness'
import { draftBody } from './supplier-data'

/**
 * What an HTTP client expects besides the API's own answers: a body that is not JSON is 415, a
 * wrong method 405 with Allow, `/docs/` finds the page, the big documents travel compressed, the
 * reference page carries security headers, and no browser origin is allowed unless configured.
 */

const h = useHarness()

const suppliers = async () => Number((await h.sql`SELECT count(*)::int AS n FROM supplier`)[0].n)

describe('a write whose body is not JSON', () => {
  it.each([
    ['text/plain', JSON.stringify(draftBody())],
    ['application/x-www-form-urlencoded', 'fullName=%E6%9D%AD%E5%B7%9E&taxNo=9133'],
    [
      'multipart/form-data; boundary=x',
      '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--',
    ],
  ])('is refused with HTTP 415 and a message saying so (%s)', async (type, raw) => {
    const before = await suppliers()
    const res = await h.call('POST', '/admin/supplier/items', {
      raw,
      headers: { 'content-type': type },
    })
    expect(res.status).toBe(415)
    expect(res.body).toMatchObject({ code: 415, success: false, data: null })
    expect(res.body.message).toMatch(/JSON/)
    expect(res.body.message).not.toMatch(/undefined/)
    expect(await suppliers()).toBe(before)
  })

  it('is refused with 415 when it has no Content-Type at all', async () => {
    const res = await h.app.request('/admin/supplier/items/9007199254741007', {
      method: 'PUT',
      headers: await authHeaders(),
      body: JSON.stringify({ changeReason: 'x' }),
    })
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    expect(res.status).toBe(415)
    expect(await res.json()).toMatchObject({ code: 415, success: false })
  })

  it('application/json with a charset, or a +json type, is still JSON', async () => {
    for (const type of ['application/json; charset=utf-8', 'application/merge-patch+json']) {
      const res = await h.call('POST', '/admin/supplier/items', {
        body: draftBody(),
        headers: { 'content-type': type },
      })
      expect(res.status, type).toBe(200)
      expect(res.body.code, type).toBe(200)
    }
  })
})

describe('a known path with a method it does not serve', () => {
  it('is HTTP 405 with Allow listing the methods it does serve', async () => {
    const res = await h.call('POST', '/admin/supplier/items/9007199254741007')
    expect(res.status).toBe(405)
    expect(res.body).toMatchObject({ code: 405, success: false, data: null })
    const patch = await h.app.request('/admin/supplier/items/9007199254741007', {
      method: 'PATCH',
      headers: await authHeaders(),
    })
    expect(patch.status).toBe(405)
    const openapi = await h.call('DELETE', '/openapi.json', { admin: null })
    expect(openapi.status).toBe(405)
    expect((await h.app.request('/openapi.json', { method: 'DELETE' })).headers.get('allow')).toBe(
      'GET, HEAD',
    )
    const submit = await h.app.request('/admin/supplier/items/9007199254741007/submit', {
      method: 'GET',
      headers: await authHeaders(),
    })
    expect(submit.status).toBe(405)
    expect(submit.headers.get('allow')).toBe('POST')
  })

  it('Allow of a path served with several methods names each once, HEAD with GET', async () => {
    const res = await h.app.request('/admin/supplier/items/9007199254741007', {
      method: 'POST',
      headers: await authHeaders(),
    })
    expect(res.headers.get('allow')).toBe('DELETE, GET, HEAD, PUT')
  })

  it('an unknown path is still 404', async () => {
    const res = await h.call('POST', '/admin/supplier/no-such-thing')
    expect(res.status).toBe(404)
    expect((await h.app.request('/nothing-here', { method: 'PATCH' })).status).toBe(404)
  })
})

async function authHeaders() {
  const admin = await h.admin()
  return { authorization: `Bearer ${await h.token(admin)}`, 'x-admin-id': admin }
}

describe('the reference page', () => {
  it('/docs/ redirects to /docs, relative so that a path prefix keeps working', async () => {
    const res = await h.app.request('/docs/')
    expect(res.status).toBe(301)
    expect(res.headers.get('location')).toBe('../docs')
    expect(new URL(res.headers.get('location')!, 'http://host/prefix/docs/').pathname).toBe(
      '/prefix/docs',
    )
  })

  it('/docs carries security headers; its one inline script runs by the CSP nonce', async () => {
    const res = await h.app.request('/docs')
    expect(res.status).toBe(200)
    const csp = res.headers.get('content-security-policy') ?? ''
    expect(csp).toMatch(/default-src 'self'/)
    expect(csp).toMatch(/frame-ancestors 'none'/)
    expect(csp).toMatch(/object-src 'none'/)
    const nonce = /script-src 'self' 'nonce-([^']+)'/.exec(csp)?.[1]
    expect(nonce).toBeTruthy()
    const page = await res.text()
    const scripts = [...page.matchAll(/<script([^>]*)>/g)].map(([, attributes]) => attributes)
    expect(scripts.filter((a) => !/src=/.test(a))).toEqual([` nonce="${nonce}"`])
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    expect(res.headers.get('referrer-policy')).toBe('no-referrer')
    expect(res.headers.get('x-frame-options')).toBe('DENY')
    // A new nonce for every page.
    const again = (await h.app.request('/docs')).headers.get('content-security-policy')
    expect(again).not.toBe(csp)
  })

  it('keeps the bearer token in memory only: Swagger UI is told not to persist it', async () => {
    const page = await (await h.app.request('/docs')).text()
    const [inline] = [...page.matchAll(/<script nonce="[^"]+">([\s\S]*?)<\/script>/g)].map(
      ([, code]) => code,
    )
    // The page's own script, run against a stand-in for the bundle: the configuration it passes.
    let config: Record<string, unknown> | undefined
    const SwaggerUIBundle = Object.assign((c: Record<string, unknown>) => (config = c), {
      presets: { apis: 'apis' },
    })
    const storage = () => {
      throw new Error('the page touched browser storage')
    }
    runInNewContext(inline, {
      window: {},
      SwaggerUIBundle,
      localStorage: { getItem: storage, setItem: storage },
      sessionStorage: { getItem: storage, setItem: storage },
    })
    expect(config).toMatchObject({ url: 'openapi.json', dom_id: '#reference' })
    // Swagger UI writes the authorization to localStorage only when this is true.
    expect(config!.persistAuthorization).toBe(false)
    expect(page).not.toMatch(/localStorage|sessionStorage/)
  })

  it('the assets are served with nosniff', async () => {
    const res = await h.app.request('/docs/assets/swagger-ui.css')
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
  })
})

describe('compression', () => {
  it('/openapi.json, /asyncapi.json and the reference assets are gzipped when the client accepts it', async () => {
    for (const path of [
      '/openapi.json',
      '/asyncapi.json',
      '/docs/assets/swagger-ui-bundle.js',
      '/docs/assets/swagger-ui.css',
    ]) {
      const plain = Buffer.from(await (await h.app.request(path)).arrayBuffer())
      const res = await h.app.request(path, { headers: { 'accept-encoding': 'gzip, deflate, br' } })
      expect(res.status, path).toBe(200)
      expect(res.headers.get('content-encoding'), path).toBe('gzip')
      expect(res.headers.get('vary'), path).toMatch(/accept-encoding/i)
      const zipped = Buffer.from(await res.arrayBuffer())
      expect(gunzipSync(zipped).equals(plain), path).toBe(true)
      expect(zipped.length, path).toBeLessThan(plain.length / 3)
    }
  })

  it('nothing is compressed for a client that does not ask, nor the API answers', async () => {
    const res = await h.app.request('/openapi.json')
    expect(res.headers.get('content-encoding')).toBeNull()
    const list = await h.app.request('/admin/supplier/items?pageSize=100', {
      headers: { ...(await authHeaders()), 'accept-encoding': 'gzip' },
    })
    expect(list.status).toBe(200)
    expect(list.headers.get('content-encoding')).toBeNull()
  })
})

describe('CORS, when no origin is configured (the default)', () => {
  it('allows no browser origin: a preflight gets no Access-Control-Allow-Origin', async () => {
    const res = await h.app.request('/admin/supplier/items', {
      method: 'OPTIONS',
      headers: {
        origin: 'https://admin.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type,x-admin-id',
      },
    })
    expect(res.headers.get('access-control-allow-origin')).toBeNull()
    const read = await h.app.request('/healthz', {
      headers: { origin: 'https://admin.example.com' },
    })
    expect(read.headers.get('access-control-allow-origin')).toBeNull()
  })
})
