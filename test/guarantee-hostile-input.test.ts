import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLIENT_FORBIDDEN_FIELDS } from '../src/http/validate'
import { insertSupplier } from './fixtures'
import { useHarness, type Harness } from './harness'
import { expectEnvelope } from './guarantees'
import { snapshot, unchanged } from './unchanged'
import { insertResource } from './resource-data'
import { ACCOUNT_NO, TAX_NO } from './supplier-data'
import { spoilingProvider } from './failed-approvals'
import { confirmingFinance, resolveVersions, validRequest } from './valid-requests'

/**
 * Hostile input on every write route the app serves (enumerated from the document it generates
 * from its own zod schemas, so routes added later are covered). Each route's body starts as a
 * request the route accepts (test/valid-requests.ts: the control sends it, and it succeeds), and
 * every field of its schema, at every level, is broken in turn:
 * - deterministically: the wrong type, a required field missing, an unknown or client-forbidden
 *   field beside it, each refused with 400 naming that field (so the breakage reached the field);
 * - by fast-check, RUNS_PER_FIELD values per field from `hostile` (wrong types, bounds ±1 in
 *   UTF-8 bytes with multi-byte characters, huge strings, very wide arrays, objects with many
 *   keys, 64-bit overflowing ids, NUL and lone surrogates): never a 500, always the envelope, and
 *   the database unchanged by every refusal. The seed is FC_SEED or the clock, printed at the
 *   start; a failure prints fast-check's seed and path, and `FC_SEED=<seed>` replays the file.
 * Then the size shapes at every place they fit, hostile path segments, and sensitive values in
 * the query string.
 */

type Schema = {
  $ref?: string
  type?: string | string[]
  properties?: Record<string, Schema>
  required?: string[]
  items?: Schema
  enum?: unknown[]
  anyOf?: Schema[]
  oneOf?: Schema[]
  minLength?: number
  maxLength?: number
  pattern?: string
  minimum?: number
  maximum?: number
  minItems?: number
  maxItems?: number
  examples?: unknown[]
}

interface WriteRoute {
  method: string
  path: string
  body?: Schema
  params: string[]
}

/** fast-check's seeds are 32-bit: the one printed on a failure is the one FC_SEED takes. */
const SEED = Number(process.env.FC_SEED ?? Date.now()) | 0
/** fast-check values per field of every route (every field is reached: each has its own runs). */
const RUNS_PER_FIELD = 3
const WRITE_METHODS = new Set(['post', 'put', 'patch', 'delete'])

/** The document's schemas with every `$ref` resolved, so that every field can be reached. */
function resolver(components: Record<string, Schema>) {
  const resolve = (s: Schema | undefined, depth = 0): Schema => {
    if (!s) return {}
    if (depth > 20) throw new Error('schema nested deeper than 20 references')
    if (s.$ref) return resolve(components[s.$ref.split('/').pop()!], depth + 1)
    const out: Schema = { ...s }
    if (s.properties) {
      out.properties = Object.fromEntries(
        Object.entries(s.properties).map(([k, v]) => [k, resolve(v, depth + 1)]),
      )
    }
    if (s.items) out.items = resolve(s.items, depth + 1)
    if (s.anyOf) out.anyOf = s.anyOf.map((a) => resolve(a, depth + 1))
    if (s.oneOf) out.oneOf = s.oneOf.map((a) => resolve(a, depth + 1))
    return out
  }
  return resolve
}

async function writeRoutes(h: Harness): Promise<WriteRoute[]> {
  const doc = (await (await h.app.request('/openapi.json')).json()) as {
    paths: Record<string, Record<string, any>>
    components: { schemas: Record<string, Schema> }
  }
  const resolve = resolver(doc.components.schemas)
  const routes: WriteRoute[] = []
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      if (!WRITE_METHODS.has(method)) continue
      const body = op.requestBody?.content?.['application/json']?.schema
      routes.push({
        method: method.toUpperCase(),
        path,
        body: body && resolve(body),
        params: [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]),
      })
    }
  }
  return routes
}

// The fields of a schema --------------------------------------------------------------------

/** The schema without its `null` alternative (a nullable field is its value's schema). */
function valueSchema(s: Schema): Schema {
  const alternatives = (s.anyOf ?? s.oneOf)?.filter((a) => a.type !== 'null')
  if (alternatives?.length === 1) return valueSchema(alternatives[0])
  if (Array.isArray(s.type)) {
    const types = s.type.filter((t) => t !== 'null')
    if (types.length === 1) return { ...s, type: types[0] }
  }
  return s
}

/** A step into a value: a property, or the first item of an array. */
type Step = string | 0
interface Field {
  path: Step[]
  schema: Schema
}
const named = (path: Step[]) => path.join('.')

/** Every field of `s`, at every level (an array's items through its first item). */
function fieldsOf(s: Schema, path: Step[] = []): Field[] {
  const v = valueSchema(s)
  if (v.type === 'array' && v.items) {
    const item: Step[] = [...path, 0]
    return [{ path: item, schema: v.items }, ...fieldsOf(v.items, item)]
  }
  return Object.entries(v.properties ?? {}).flatMap(([key, child]) => [
    { path: [...path, key], schema: child },
    ...fieldsOf(child, [...path, key]),
  ])
}

/** Every object of `s` (the body itself included), for unknown and missing fields. */
function objectsOf(s: Schema, path: Step[] = []): Field[] {
  const v = valueSchema(s)
  if (v.type === 'array' && v.items) return objectsOf(v.items, [...path, 0])
  if (!v.properties) return []
  return [
    { path, schema: v },
    ...Object.entries(v.properties).flatMap(([k, child]) => objectsOf(child, [...path, k])),
  ]
}

/** A valid value of `s`: its documented example (validated by openapi-examples), or built. */
function exampleOf(s: Schema): unknown {
  if (s.examples?.length) return structuredClone(s.examples[0])
  const v = valueSchema(s)
  if (v.examples?.length) return structuredClone(v.examples[0])
  if (v.enum) return v.enum[0]
  switch (Array.isArray(v.type) ? v.type[0] : v.type) {
    case 'object':
      return Object.fromEntries(
        (v.required ?? []).map((k) => [k, exampleOf(v.properties?.[k] ?? {})]),
      )
    case 'array':
      return Array.from({ length: v.minItems ?? 0 }, () => exampleOf(v.items ?? {}))
    case 'string':
      return 'a'.repeat(Math.max(1, v.minLength ?? 0))
    case 'integer':
    case 'number':
      return v.minimum ?? 0
    case 'boolean':
      return true
    default:
      return null
  }
}

/**
 * `root` (a value of `s`) with the value at `path` replaced by `replace(current)`; containers
 * that are missing on the way (an optional object, an empty array) get their valid example.
 */
function edit(root: unknown, s: Schema, path: Step[], replace: (current: unknown) => unknown) {
  if (!path.length) return replace(root)
  const [step, ...rest] = path
  const v = valueSchema(s)
  if (step === 0) {
    const items = Array.isArray(root) && root.length ? [...root] : [exampleOf(v.items ?? {})]
    items[0] = edit(items[0], v.items ?? {}, rest, replace)
    return items
  }
  const obj: Record<string, unknown> =
    root && typeof root === 'object' && !Array.isArray(root)
      ? { ...(root as Record<string, unknown>) }
      : (exampleOf(v) as Record<string, unknown>)
  const child = v.properties?.[step] ?? {}
  const current = obj[step] ?? (rest.length ? exampleOf(child) : obj[step])
  obj[step] = edit(current, child, rest, replace)
  return obj
}

/** A value no schema of this type accepts. */
const wrongType = (s: Schema) => (valueSchema(s).type === 'object' ? 'not an object' : { x: 1 })

// Hostile values -----------------------------------------------------------------------------

const HUGE = 1_100_000
/**
 * The size shapes, each far beyond any list or field of the spec and well within the body limit.
 * An object's unknown keys are 10,000, not 100,000: today each one is named in the refusal
 * (a 3.4 MB message, 2 s a request for 100,000), which the body bounds cap.
 */
const SIZE_SHAPES = {
  'a 100,000-item array': Array.from({ length: 100_000 }, () => ({})),
  '100,000 small strings': Array.from({ length: 100_000 }, (_, i) => `s${i % 10}`),
  'an object with 10,000 keys': Object.fromEntries(
    Array.from({ length: 10_000 }, (_, i) => [`k${i}`, i]),
  ),
  'a 1,100,000-character string': 'x'.repeat(HUGE),
  'a 1,100,000-byte string of 3-byte characters': '汉'.repeat(HUGE / 3),
}
const OVERFLOWING_IDS = [
  '9223372036854775808',
  '18446744073709551616',
  '99999999999999999999',
  '0',
  '-1',
  ' 1',
  '1e3',
  '0x10',
]

/** A value that breaks schema `s` (or merely pushes it to an edge it must handle). */
function hostile(s: Schema): fc.Arbitrary<unknown> {
  const v = valueSchema(s)
  const options: fc.Arbitrary<unknown>[] = [
    fc.constantFrom<unknown>(null, true, 0, -1, 1.5, 1e308, [], {}, '', 'x', [[]]),
  ]
  const type = v.type
  if (type === 'string') {
    const max = v.maxLength
    const min = v.minLength
    options.push(fc.constantFrom('a\u0000b', '\u0000', '\ud800', 'x\udc00y', '\udfff\ud800'))
    options.push(fc.constantFrom(...OVERFLOWING_IDS, '2030-02-30 00:00:00', '0000-01-01', '  '))
    if (max !== undefined) {
      // Bounds ±1, in characters and in UTF-8 bytes (3- and 4-byte characters).
      options.push(
        fc.constantFrom(
          'a'.repeat(max + 1),
          'a'.repeat(max),
          '汉'.repeat(max),
          '汉'.repeat(max + 1),
          '😀'.repeat(Math.ceil(max / 2) + 1),
          `${'a'.repeat(Math.max(0, max - 1))}汉`,
        ),
      )
    }
    if (min) options.push(fc.constant('a'.repeat(min - 1)))
    if (v.enum) options.push(fc.constantFrom(...v.enum.map((e) => `${String(e)}x`)))
  }
  if (type === 'integer' || type === 'number') {
    options.push(
      fc.constantFrom(
        (v.maximum ?? 2147483647) + 1,
        (v.minimum ?? 0) - 1,
        2 ** 31,
        2 ** 53 + 2,
        -(2 ** 63),
        0.5,
        '1',
      ),
    )
  }
  if (type === 'array') {
    options.push(
      fc.constant(Array.from({ length: (v.maxItems ?? 100) + 1 }, () => exampleOf(v.items ?? {}))),
      fc.constant([null]),
    )
  }
  // The size shapes are slow to refuse today (up to a third of a second each): one draw in ten.
  return fc.oneof(...options.map((arbitrary) => ({ arbitrary, weight: 9 })), {
    arbitrary: fc.constantFrom(...Object.values(SIZE_SHAPES)),
    weight: options.length,
  })
}

const HOSTILE_SEGMENTS = [
  ...OVERFLOWING_IDS.map(encodeURIComponent),
  '%00',
  '1%00',
  'a%2F..%2F..',
  '%ED%A0%80',
  'x'.repeat(5_000),
  encodeURIComponent(TAX_NO),
]

describe('hostile input on every write route: never a 500, the envelope, nothing written', () => {
  const finance = confirmingFinance()
  beforeAll(() => finance.start())
  afterAll(() => finance.stop())
  const h = useHarness({
    env: () => ({ DUPLICATE_SUBMIT_WINDOW_SECONDS: '0', ...finance.env() }),
    approvalProvider: spoilingProvider,
  })
  let routes: WriteRoute[]
  let admin: string

  beforeAll(async () => {
    routes = await writeRoutes(h)
    admin = await h.admin()
  })

  const send = (method: string, path: string, body: unknown) =>
    h.call(method, path, {
      admin,
      raw: body === undefined ? undefined : JSON.stringify(body),
      headers: {
        'x-internal-token': h.config.internalToken,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
    })

  /** The database as the last check left it (reset whenever fixtures are inserted). */
  let last: { rows: Record<string, string>; nextXid: string } | undefined

  /**
   * The next transaction id. Every row written (inserted, updated, deleted), committed or not,
   * takes one: while it stays the same, nothing at all was written, and the snapshot of every
   * table, several times slower than a request on the embedded engine, need not be taken again.
   */
  const nextXid = async () =>
    (await h.sql<{ x: string }[]>`SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS x`)[0].x
  const state = async () => {
    const nextXidBefore = await nextXid()
    return { rows: await snapshot(h, { grants: true }), nextXid: nextXidBefore }
  }

  /** Sends one request and checks the guarantee; returns the answer. */
  const check = async (method: string, path: string, body: unknown, what = '') => {
    const before = last ?? (await state())
    const res = await send(method, path, body)
    const context = `${method} ${path.slice(0, 200)} ${what} ${JSON.stringify(body)?.slice(0, 300)}`
    expectEnvelope(res.status, res.body, context)
    const xid = await nextXid()
    last = xid === before.nextXid ? before : await state()
    if (res.body.code !== 200) expect(last.rows, context).toEqual(before.rows)
    return res
  }

  /** A route's valid request on a fresh target; the body built, versions filled in at send. */
  const target = async (route: WriteRoute) => {
    const request = await validRequest(h, route)
    last = undefined
    return request
  }

  const bodyRoutes = () => routes.filter((r) => r.body)
  const key = (r: WriteRoute) => `${r.method} ${r.path}`

  it('enumerates the write routes from the app', () => {
    expect(routes.map(key)).toEqual(
      expect.arrayContaining([
        'POST /admin/supplier/items',
        'PUT /admin/supplier/items/{supplierId}',
        'PUT /admin/supplier/items/{supplierId}/contacts',
        'POST /admin/supplier/items/{supplierId}/submit',
        'DELETE /admin/supplier/items/{supplierId}',
        'PUT /admin/supplier/types/{typeCode}/qualification-rules',
        'POST /internal/supplier/approvals/{approvalLogId}/apply',
      ]),
    )
    // Every field of a body is reached: none hides behind an unresolved reference.
    for (const route of bodyRoutes()) {
      expect(JSON.stringify(route.body), key(route)).not.toContain('$ref')
      expect(fieldsOf(route.body!).length, key(route)).toBeGreaterThan(0)
    }
  })

  it('control: each route’s valid request, unbroken, succeeds', async () => {
    for (const route of bodyRoutes()) {
      const request = await target(route)
      const res = await send(route.method, request.url, await resolveVersions(h, request.body?.()))
      expect(res.body, `${key(route)}: ${JSON.stringify(res.body)}`).toMatchObject({
        code: 200,
        success: true,
      })
    }
  })

  it('every field of every route broken: named in a 400 when plainly wrong; fast-check’s values never a 500, nothing written when refused', async (ctx) => {
    await ctx.annotate(`fast-check seed ${SEED}: FC_SEED=${SEED} replays this file's values`)
    /** Per route, the fields whose plain breakage was refused naming them, and the runs. */
    const reached: Record<string, { named: string[]; runs: number }> = {}
    const expected: Record<string, { named: string[]; runs: number }> = {}
    for (const route of bodyRoutes()) {
      const schema = route.body!
      const fields = fieldsOf(schema)
      const objects = objectsOf(schema)
      const tally = (reached[key(route)] = { named: [] as string[], runs: 0 })
      const refusals = [
        ...fields.map((f) => ({
          name: named(f.path),
          path: f.path,
          replace: () => wrongType(f.schema),
        })),
        ...objects.flatMap((o) => [
          ...['zzUnknown', ...(o.path.length ? [] : CLIENT_FORBIDDEN_FIELDS)].map((k) => ({
            name: named([...o.path, k]),
            path: o.path,
            replace: (obj: unknown) => ({ ...(obj as object), [k]: '9007199254740993' }),
          })),
          ...(o.schema.required ?? []).map((k) => ({
            name: named([...o.path, k]),
            path: o.path,
            replace: (obj: unknown) => {
              const { [k]: _dropped, ...rest } = obj as Record<string, unknown>
              return rest
            },
          })),
        ]),
      ]
      expected[key(route)] = {
        named: refusals.map((r) => r.name),
        runs: fields.length * RUNS_PER_FIELD,
      }
      let request = await target(route)
      for (const refusal of refusals) {
        const body = edit(request.body!(), schema, refusal.path, refusal.replace)
        const res = await check(route.method, request.url, await resolveVersions(h, body))
        const where = `${key(route)} ${refusal.name}: ${JSON.stringify(res.body).slice(0, 300)}`
        expect(res.body.code, where).toBe(400)
        expect(res.body.message, where).toContain(`${refusal.name}:`)
        tally.named.push(refusal.name)
      }
      for (const field of fields) {
        await fc.assert(
          fc.asyncProperty(hostile(field.schema), async (value) => {
            const body = edit(request.body!(), schema, field.path, () => value)
            const what = `${named(field.path)} = ${JSON.stringify(value)?.slice(0, 100)}`
            const res = await check(route.method, request.url, await resolveVersions(h, body), what)
            tally.runs++
            // Accepted (an edge it handles): the target moved on; the next runs get a fresh one.
            if (res.body.code === 200) request = await target(route)
          }),
          { seed: SEED, numRuns: RUNS_PER_FIELD, endOnFailure: true },
        )
      }
    }
    // Every route, every field: none skipped, each plainly broken field named in its refusal.
    expect(reached).toEqual(expected)
  }, 240_000)

  it('size shapes on every route: wide arrays, many keys, long strings, many small strings, refused (400) or handled', async (ctx) => {
    let slowest = { ms: 0, where: '' }
    let sent = 0
    for (const route of bodyRoutes()) {
      const schema = route.body!
      const request = await target(route)
      const fields = fieldsOf(schema)
      const typed = (type: string) => fields.find((f) => valueSchema(f.schema).type === type)
      // Where each shape fits first: the body's keys, its first list, its first bounded string.
      const list = typed('array') ?? fields[0]
      const text =
        fields.find((f) => valueSchema(f.schema).maxLength !== undefined) ?? typed('string')!
      const places: [where: Step[], shape: keyof typeof SIZE_SHAPES, refused: boolean][] = [
        [[], 'an object with 10,000 keys', true],
        [list.path, 'a 100,000-item array', true],
        [list.path, '100,000 small strings', true],
        [
          text.path,
          'a 1,100,000-character string',
          valueSchema(text.schema).maxLength !== undefined,
        ],
        [
          text.path,
          'a 1,100,000-byte string of 3-byte characters',
          valueSchema(text.schema).maxLength !== undefined,
        ],
      ]
      for (const [path, shape, refused] of places) {
        const value = SIZE_SHAPES[shape]
        const body = edit(request.body!(), schema, path, (current) =>
          path.length ? value : { ...(current as object), ...(value as object) },
        )
        const where = `${key(route)} ${named(path) || '(body)'}: ${shape}`
        const started = performance.now()
        const res = await check(route.method, request.url, await resolveVersions(h, body))
        const ms = Math.round(performance.now() - started)
        if (ms > slowest.ms) slowest = { ms, where }
        if (refused) expect(res.body.code, where).toBe(400)
        sent++
      }
    }
    expect(sent).toBe(bodyRoutes().length * 5)
    await ctx.annotate(`the slowest size shape took ${slowest.ms} ms: ${slowest.where}`)
  }, 120_000)

  it('hostile path segments on every write route', async () => {
    for (const route of routes.filter((r) => r.params.length)) {
      const request = await target(route)
      const body = await resolveVersions(h, request.body?.())
      for (const param of route.params) {
        for (const segment of HOSTILE_SEGMENTS) {
          // The route's valid URL with one segment replaced.
          const url = route.path.replace(/\{(\w+)\}/g, (_, n: string) =>
            n === param ? segment : request.url.split('/')[route.path.split('/').indexOf(`{${n}}`)],
          )
          const res = await check(route.method, url, body)
          expect(
            res.body.code,
            `${route.method} ${route.path} ${param}=${segment.slice(0, 40)}`,
          ).not.toBe(200)
        }
      }
    }
  }, 120_000)

  it('sensitive values in the query string of a write are refused, and never echoed', async () => {
    for (const route of routes) {
      const supplierId = (await insertSupplier(h)).supplierId
      const values: Record<string, string> = {
        supplierId,
        resourceModule: 'HOTEL',
        resourceId: await insertResource(h, 'HOTEL'),
        typeCode: 'OTHER',
      }
      const url = route.path.replace(
        /\{(\w+)\}/g,
        (_, n: string) => values[n] ?? '9007199254740993',
      )
      for (const query of [`taxNo=${TAX_NO}`, `accountNo=${ACCOUNT_NO}`, `${TAX_NO}`]) {
        const path = `${url}?${query}`
        const res = await unchanged(
          h,
          () => send(route.method, path, route.body ? {} : undefined),
          { grants: true, message: path },
        )
        expectEnvelope(res.status, res.body, path)
        expect(res.body.code, path).toBe(400)
        expect(JSON.stringify(res.body)).not.toContain(TAX_NO)
        expect(JSON.stringify(res.body)).not.toContain(ACCOUNT_NO)
      }
    }
  })
})
