import { beforeAll, describe, expect, it } from 'vitest'
import { useHarness } from './harness'
import { TAX_NO } from './supplier-data'

/**
 * Every route the app serves refuses a query parameter it does not declare, whatever its value:
 * the routes are read from the app itself (`app.routes`), so a route added later without a
 * strict query schema fails here. Reads refuse with the 400 envelope (HTTP 200; HTTP 400 where
 * the success is a document rather than the envelope), writes in the frame before anything runs.
 */

const METRICS_TOKEN = 'metrics-token-0123456789'
const INTERNAL_TOKEN = 'internal-token-for-strict-queries'
const h = useHarness({ env: { METRICS_TOKEN, INTERNAL_TOKEN } })

/** Hostile queries: NUL, a sensitive value, a lone surrogate (raw and percent-encoded). */
const QUERIES = [
  'x=%00',
  `taxNo=${TAX_NO}`,
  `x=${TAX_NO}`,
  'x=%ED%A0%80',
  'x=\ud800',
  '%00=1',
  'x',
  'page=1&x=1',
]

/** Plausible values of path parameters; no id exists, so no route can change anything. */
const PARAMS: Record<string, string> = {
  typeCode: 'OTHER',
  resourceModule: 'HOTEL',
  // No such file (a 404 envelope): the assets' documented media types carry a charset that
  // the harness's contract check does not match.
  file: 'none.css',
}
const concrete = (path: string) =>
  path.replace(/:(\w+)/g, (_, name: string) => PARAMS[name] ?? '9223372036854775807')

describe('every route refuses an undeclared query parameter', () => {
  let admin: string
  let routes: { method: string; path: string }[]
  beforeAll(async () => {
    admin = await h.admin()
    const seen = new Set<string>()
    // Middlewares are registered for every method ('ALL'); each other entry is a route.
    routes = h.app.routes
      .filter((r) => r.method !== 'ALL')
      .filter((r) => !seen.has(`${r.method} ${r.path}`) && seen.add(`${r.method} ${r.path}`))
      .map(({ method, path }) => ({ method, path }))
  })

  const headersFor = async (path: string): Promise<Record<string, string>> => {
    if (path === '/metrics') return { authorization: `Bearer ${METRICS_TOKEN}` }
    if (path.startsWith('/internal/')) return { 'x-internal-token': INTERNAL_TOKEN }
    return {}
  }

  /** The answer's status and body (its timing is not under test). */
  const call = async (method: string, path: string) => {
    const { status, body } = await h.call(method, path, {
      admin: path.startsWith('/admin/') ? admin : null,
      headers: await headersFor(path),
    })
    return { status, body }
  }

  it('finds the routes of every area, reads and writes', () => {
    const gets = routes.filter((r) => r.method === 'GET').map((r) => r.path)
    expect(gets).toEqual(
      expect.arrayContaining([
        '/admin/dict/data/supplier_type',
        '/admin/dict/data/supplier_lifecycle_status',
        '/admin/supplier/items/:supplierId',
        '/admin/supplier/items/:supplierId/account-info',
        '/admin/supplier/types/:typeCode/qualification-rules',
        '/admin/supplier/resource-relations/:resourceModule/:resourceId',
        '/healthz',
        '/metrics',
      ]),
    )
    expect(routes.length).toBeGreaterThan(30)
  })

  it('control: without a query no read answers 400', async () => {
    // (A write without its body is refused for the body, so writes have no such control.)
    for (const { method, path } of routes.filter((r) => r.method === 'GET')) {
      const res = await call(method, concrete(path))
      expect(res.status, `${method} ${path}`).not.toBe(500)
      if (typeof res.body === 'object') expect(res.body.code, `${method} ${path}`).not.toBe(400)
    }
  })

  it('with a query every route answers 400, success false, and never echoes the value', async () => {
    const wrong: string[] = []
    for (const { method, path } of routes) {
      for (const query of QUERIES) {
        const res = await call(method, `${concrete(path)}?${query}`)
        const refused =
          [200, 400].includes(res.status) &&
          res.body?.code === 400 &&
          res.body.success === false &&
          res.body.data === null &&
          !res.body.message.includes(TAX_NO)
        if (!refused) wrong.push(`${method} ${path}?${query}: HTTP ${res.status} ${res.body?.code}`)
      }
    }
    // All of them listed at once, so that a failure shows every route that lets a query through.
    expect(wrong).toEqual([])
  })

  it('reads answer the 400 envelope naming the parameter (HTTP 200, or 400 for documents)', async () => {
    const detail = await call('GET', `/admin/supplier/items/9223372036854775807?taxNo=${TAX_NO}`)
    expect(detail).toEqual({
      status: 200,
      body: { code: 400, message: 'taxNo: unknown field', success: false, data: null },
    })
    const nul = await call('GET', '/admin/dict/data/supplier_type?x=%00')
    expect(nul.body.message).toBe('x: must not contain NUL characters')
    const openapi = await call('GET', '/openapi.json?x=1')
    expect(openapi).toEqual({
      status: 400,
      body: { code: 400, message: 'x: unknown field', success: false, data: null },
    })
    // Declared parameters still work.
    const list = await call('GET', '/admin/supplier/items?page=1&pageSize=5')
    expect(list.body).toMatchObject({ code: 200, success: true })
  })
})
