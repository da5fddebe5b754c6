import { beforeAll, describe, expect, it } from 'vitest'
import { useHarness } from './harness'

interface Operation {
  'x-permissions'?: string[]
  requestBody?: { content: Record<string, { schema: unknown }> }
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>
  parameters?: { name: string; in: string }[]
}
type Document = { openapi: string; paths: Record<string, Record<string, Operation>> }

const h = useHarness()

/** Every (path, method) the app serves, as OpenAPI keys ("/items/{supplierId}", "get"). */
const servedRoutes = () => {
  const keys = new Set<string>()
  for (const route of h.app.routes) {
    if (route.method === 'ALL') continue
    keys.add(`${route.method.toLowerCase()} ${route.path.replace(/:(\w+)/g, '{$1}')}`)
  }
  return [...keys].sort().map((key) => {
    const [method, path] = key.split(' ')
    return { method, path }
  })
}

/** A value for a path parameter that passes its own validation, so a body check is reached. */
const sampleParam = (name: string) => (/id$/i.test(name) ? '9007199254740993' : 'SCENIC')

const fill = (path: string) => path.replace(/\{(\w+)\}/g, (_, name) => sampleParam(name))

describe('/openapi.json', () => {
  let doc: Document

  beforeAll(async () => {
    const res = await h.call('GET', '/openapi.json', { admin: null })
    expect(res.status).toBe(200)
    doc = res.body
  })

  it('is served without authentication as an OpenAPI 3 document', () => {
    expect(doc.openapi).toMatch(/^3\./)
    expect(Object.keys(doc.paths).length).toBeGreaterThan(0)
  })

  it('describes every route the app serves', () => {
    const served = servedRoutes()
    expect(served.length).toBeGreaterThanOrEqual(6)
    const missing = served.filter(({ path, method }) => !doc.paths[path]?.[method])
    expect(missing).toEqual([])
  })

  it('describes no route that the app does not serve', () => {
    const served = new Set(servedRoutes().map(({ method, path }) => `${method} ${path}`))
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method} ${path}`),
    )
    expect(documented.filter((key) => !served.has(key))).toEqual([])
  })

  it('includes the system and dictionary routes', () => {
    for (const path of [
      '/healthz',
      '/readyz',
      '/openapi.json',
      '/docs',
      '/admin/dict/data/supplier_type',
      '/admin/dict/data/supplier_lifecycle_status',
    ]) {
      expect(doc.paths[path]?.get, path).toBeDefined()
    }
  })

  it('declares every path parameter', () => {
    for (const [path, ops] of Object.entries(doc.paths)) {
      const names = [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => name)
      for (const [method, op] of Object.entries(ops)) {
        const declared = (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name)
        expect(declared.sort(), `${method} ${path}`).toEqual([...names].sort())
      }
    }
  })

  it('every /admin/supplier operation declares x-permissions and a 200 response schema', () => {
    const supplierOps = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/admin/supplier'))
      .flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method, op })))
    expect(supplierOps.length, 'no /admin/supplier route is served yet').toBeGreaterThan(0)
    for (const { path, method, op } of supplierOps) {
      const where = `${method} ${path}`
      expect(op['x-permissions'], where).toEqual(expect.arrayContaining([expect.any(String)]))
      expect(op['x-permissions']!.length, where).toBeGreaterThan(0)
      expect(op.responses?.['200']?.content?.['application/json']?.schema, where).toBeDefined()
    }
  })

  it('the dictionary and health operations document their 200 response schema', () => {
    for (const path of ['/healthz', '/readyz', '/admin/dict/data/supplier_type']) {
      const schema = doc.paths[path].get.responses?.['200']?.content?.['application/json']?.schema
      expect(schema, path).toMatchObject({ type: 'object' })
    }
  })

  it('every route that parses a JSON body documents its requestBody, and vice versa', async () => {
    // Observable test of "has a JSON validator": a malformed JSON body is refused with HTTP 400
    // only by routes that parse JSON. Every write route is probed; GET routes never take a body.
    const writes = servedRoutes().filter(({ method }) => method !== 'get')
    expect(writes.length, 'the app serves no write route yet').toBeGreaterThan(0)
    const parsesJson: string[] = []
    for (const { method, path } of writes) {
      const res = await h.call(method.toUpperCase(), fill(path), {
        raw: '{"malformed": ',
        headers: {
          'idempotency-key': crypto.randomUUID(),
          'x-internal-token': h.config.internalToken,
        },
      })
      if (res.status === 400) parsesJson.push(`${method} ${path}`)
    }
    const documented = writes
      .filter(({ method, path }) => doc.paths[path]?.[method]?.requestBody)
      .map(({ method, path }) => `${method} ${path}`)
    expect(parsesJson.length).toBeGreaterThan(0)
    expect(parsesJson.sort()).toEqual(documented.sort())
    for (const key of documented) {
      const [method, path] = key.split(' ')
      const body = doc.paths[path][method].requestBody!
      expect(body.content['application/json']?.schema, key).toMatchObject({ type: 'object' })
    }
  })

  it('the qualification-rule replace request documents its body schema', () => {
    const op = doc.paths['/admin/supplier/types/{typeCode}/qualification-rules']?.put
    expect(op?.requestBody?.content['application/json']?.schema).toMatchObject({
      type: 'object',
      properties: { rules: { type: 'array' } },
    })
  })
})

describe('/docs', () => {
  it('is an HTML page naming every documented path', async () => {
    const res = await h.app.request('/docs')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/html/)
    const page = await res.text()
    expect(page).toMatch(/^<!doctype html>/i)
    const doc = (await h.call('GET', '/openapi.json', { admin: null })).body as Document
    for (const { path } of servedRoutes()) expect(page, path).toContain(`<code>${path}</code>`)
    for (const path of Object.keys(doc.paths)) expect(page, path).toContain(path)
  })

  it('loads no script or stylesheet from another origin', async () => {
    const page = await (await h.app.request('/docs')).text()
    expect(page).not.toMatch(/<script[^>]+src=["']https?:/i)
    expect(page).not.toMatch(/<link[^>]+href=["']https?:/i)
  })
})
