import { beforeAll, describe, expect, it } from 'vitest'
import { ALL_PERMISSIONS, useHarness } from './harness'

/*
 * Paging numbers are decimal integers only, on every paged route. The routes are read from
 * /openapi.json (every GET with a `page` query parameter), so a paged route added later is
 * covered without touching this file.
 */

type Parameter = { name: string; in: string; schema?: { enum?: string[] } }
type Document = { paths: Record<string, Record<string, { parameters?: Parameter[] }>> }

const h = useHarness()

/** A path parameter value that passes its own validation, so the query check is reached. */
const sample = (p: Parameter | undefined, name: string) =>
  p?.schema?.enum?.[0] ?? (/id$/i.test(name) ? '9007199254740993' : 'SCENIC')

const REFUSED = [
  '0x2',
  '0X2',
  '0b10',
  '0o2',
  '1e2',
  '2e0',
  ' 2',
  '2 ',
  '+2',
  '-2',
  '2.0',
  '2.',
  '.5',
  '02',
  '0',
  '',
  'Infinity',
  'NaN',
  '٢', // Arabic-Indic digit two
  '２', // full-width two
  '9007199254740993', // beyond a safe integer
]

describe('paging numbers on every paged route', () => {
  const routes: string[] = []
  /** Routes that also take `pageNo` (the resource page's compatible name of `page`). */
  const pageNo = new Set<string>()
  let admin: string

  beforeAll(async () => {
    const doc = (await h.call('GET', '/openapi.json', { admin: null })).body as Document
    const query = (ops: Document['paths'][string], name: string) =>
      ops.get?.parameters?.some((p) => p.in === 'query' && p.name === name)
    for (const [template, ops] of Object.entries(doc.paths)) {
      if (!query(ops, 'page')) continue
      const path = template.replace(/\{(\w+)\}/g, (_, name: string) =>
        sample(
          ops.get.parameters?.find((p) => p.in === 'path' && p.name === name),
          name,
        ),
      )
      routes.push(path)
      if (query(ops, 'pageNo')) pageNo.add(path)
    }
    admin = await h.admin(ALL_PERMISSIONS, ['ADMIN', 'FINANCE', 'SUPER_ADMIN'])
  })

  it('finds the paged routes (list, approval records and the resource page at least)', () => {
    expect(routes).toEqual(
      expect.arrayContaining([
        '/admin/supplier/items',
        '/admin/supplier/approval-records',
        '/admin/supplier/items/9007199254740993/resource-info/page',
      ]),
    )
    expect([...pageNo]).toEqual(['/admin/supplier/items/9007199254740993/resource-info/page'])
  })

  it('error: hex, exponent, sign, spaces, fractions, leading zeros and non-ASCII digits are 400 naming the parameter', async () => {
    for (const path of routes) {
      for (const name of ['page', 'pageSize', ...(pageNo.has(path) ? ['pageNo'] : [])]) {
        for (const value of REFUSED) {
          const res = await h.call('GET', `${path}?${name}=${encodeURIComponent(value)}`, { admin })
          expect({ path, name, value, status: res.status, code: res.body.code }).toEqual({
            path,
            name,
            value,
            status: 200,
            code: 400,
          })
          expect(res.body.message).toContain(name)
        }
      }
    }
  })

  it('error: a repeated parameter is 400', async () => {
    for (const path of routes) {
      const res = await h.call('GET', `${path}?page=1&page=2`, { admin })
      expect({ path, code: res.body.code }).toEqual({ path, code: 400 })
    }
  })

  it('happy: plain decimal numbers are accepted and echoed as integers; the bounds stay', async () => {
    for (const path of routes) {
      const res = await h.call('GET', `${path}?page=2&pageSize=100`, { admin })
      expect(res.body.code, `${path}: ${JSON.stringify(res.body)}`).not.toBe(400)
      if (res.body.code === 200) expect(res.body.data).toMatchObject({ page: 2, pageSize: 100 })
      const defaults = await h.call('GET', path, { admin })
      if (defaults.body.code === 200)
        expect(defaults.body.data).toMatchObject({ page: 1, pageSize: 20 })
      expect((await h.call('GET', `${path}?pageSize=101`, { admin })).body.code).toBe(400)
      const far = await h.call('GET', `${path}?page=9007199254740991`, { admin })
      expect(far.body.code, `${path}: ${JSON.stringify(far.body)}`).not.toBe(400)
    }
  })
})
