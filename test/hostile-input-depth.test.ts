import { beforeAll, describe, expect, it } from 'vitest'
import { MAX_BODY_DEPTH } from '../src/http/body-shape'
import { findUnstorableText } from '../src/http/validate'
import { expectEnvelope } from './guarantees'
import { unchanged } from './unchanged'
import { useHarness } from './harness'
import { draftBody } from './supplier-data'

/**
 * Deeply nested bodies: refused with HTTP 400 on every write route (enumerated from the app's own
 * document, so a later route is covered) before anything walks them, never a 500 from a stack
 * overflow; the database unchanged. The bound is MAX_BODY_DEPTH (docs/api.md, "Body depth").
 */

const h = useHarness()

/** `[[[ … ]]]`, `levels` arrays deep: 8,000 levels are 16 KB. */
const arrays = (levels: number) => '['.repeat(levels) + ']'.repeat(levels)
/** `{"a":{"a": … {} … }}` under a field of a real body, `levels` objects deep in all. */
const objects = (levels: number, field = 'fullName') => {
  const inner = '{"a":'.repeat(levels - 2) + '{}' + '}'.repeat(levels - 2)
  return `{"${field}":${inner}}`
}

interface WriteRoute {
  method: string
  path: string
  hasBody: boolean
}

async function writeRoutes(): Promise<WriteRoute[]> {
  const doc = (await (await h.app.request('/openapi.json')).json()) as {
    paths: Record<string, Record<string, any>>
  }
  const routes: WriteRoute[] = []
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      if (method === 'get') continue
      routes.push({
        method: method.toUpperCase(),
        path,
        hasBody: Boolean(op.requestBody?.content?.['application/json']),
      })
    }
  }
  return routes
}

describe('bodies nested deeper than MAX_BODY_DEPTH', () => {
  let admin: string
  beforeAll(async () => {
    admin = await h.admin()
  })

  /** A path of the route with every parameter filled; no id exists, so nothing may change. */
  const concrete = (path: string) =>
    path
      .replace('{typeCode}', 'OTHER')
      .replace('{resourceModule}', 'HOTEL')
      .replace(/\{\w+\}/g, '9223372036854775807')

  /** The depth, or the route's body limit where 16 KB is over it (docs/limits.md). */
  const BOUND = new RegExp(
    `^(\\(body\\): nested deeper than ${MAX_BODY_DEPTH} levels|request body exceeds \\d+ bytes)$`,
  )

  it('8,000 levels (16 KB): HTTP 400 naming the bound on every write route with a body, never a 500, nothing written', async () => {
    const routes = await writeRoutes()
    expect(routes.filter((r) => r.hasBody).length).toBeGreaterThanOrEqual(10)
    await unchanged(
      h,
      async () => {
        for (const route of routes) {
          for (const raw of [arrays(8_000), objects(8_000)]) {
            const where = `${route.method} ${route.path}`
            const res = await h.call(route.method, concrete(route.path), {
              admin,
              raw,
              headers: { 'idempotency-key': `depth-${Math.random()}` },
            })
            expectEnvelope(res.status, res.body, where)
            if (route.hasBody) {
              expect(res.status, where).toBe(400)
              expect(res.body, where).toEqual({
                code: 400,
                message: expect.stringMatching(BOUND),
                success: false,
                data: null,
              })
            }
          }
        }
      },
      { grants: true },
    )
  })

  it('the bound itself is accepted and judged by the schema; one level more is refused', async () => {
    const atBound = await h.call('POST', '/admin/supplier/items', {
      raw: objects(MAX_BODY_DEPTH),
    })
    // Parsed, then refused by the schema for what it is: fullName is not text (HTTP 200, 400).
    expect(atBound.status).toBe(200)
    expect(atBound.body).toMatchObject({ code: 400, success: false })
    expect(atBound.body.message).toMatch(/^fullName: /)
    const over = await h.call('POST', '/admin/supplier/items', {
      raw: objects(MAX_BODY_DEPTH + 1),
    })
    expect(over.status).toBe(400)
    expect(over.body.message).toBe(`(body): nested deeper than ${MAX_BODY_DEPTH} levels`)
  })

  it('brackets inside strings are text, not nesting', async () => {
    const name = `${'['.repeat(100)}{"\\"]${'{'.repeat(100)}`
    const res = await h.call('POST', '/admin/supplier/items', {
      body: draftBody({ remark: name, mainCooperation: '\\'.repeat(7) + '[[[' }),
    })
    expect(res.body, res.body.message).toMatchObject({ code: 200, success: true })
  })

  it('a body of millions of brackets is refused at once, not parsed', async () => {
    const started = performance.now()
    const res = await h.call('POST', '/admin/supplier/items', { raw: arrays(4_000_000) })
    expect(res.status).toBe(400)
    expect(res.body.message).toBe(`(body): nested deeper than ${MAX_BODY_DEPTH} levels`)
    // JSON.parse alone takes seconds on this body; the scan stops at level MAX_BODY_DEPTH + 1.
    expect(performance.now() - started).toBeLessThan(1_500)
  })
})

describe('the scan for text PostgreSQL cannot store', () => {
  /** `levels` arrays around `leaf`. */
  const nested = (levels: number, leaf: unknown) => {
    let value: unknown = leaf
    for (let i = 0; i < levels; i++) value = [value]
    return value
  }

  it('walks any depth without a stack, in linear time, and still names the path', () => {
    // Recursive, this overflowed the stack at 8,000 levels and copied its path at each level.
    const started = performance.now()
    const found = findUnstorableText(nested(200_000, 'a\u0000'))
    expect(performance.now() - started).toBeLessThan(2_000)
    expect(found).toBe(`${Array(200_000).fill('0').join('.')}: must not contain NUL characters`)
  })

  it('reports the first offender in document order, a field name before its value', () => {
    expect(findUnstorableText({ a: ['ok', { b: 'x\u0000' }], c: '\u0000' })).toBe(
      'a.1.b: must not contain NUL characters',
    )
    expect(findUnstorableText({ ok: 1, ['k\u0000']: '\u0000' })).toBe(
      '(unnamed): must not contain NUL characters',
    )
    expect(findUnstorableText({ a: { ['\ud800']: 1 } })).toBe(
      'a.(unnamed): must not contain unpaired UTF-16 surrogates',
    )
    expect(findUnstorableText('\u0000')).toBe('(body): must not contain NUL characters')
    expect(findUnstorableText({ a: [1, true, null, 'ok'] })).toBeUndefined()
  })
})
