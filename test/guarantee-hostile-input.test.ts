import fc from 'fast-check'
import { beforeAll, describe, expect, inject, it } from 'vitest'
import { CLIENT_FORBIDDEN_FIELDS } from '../src/http/validate'
import { insertSupplier, randomAccountNo } from './fixtures'
import { useHarness, type Harness } from './harness'
import { versionOf } from './client'
import { expectEnvelope } from './guarantees'
import { snapshot, unchanged } from './unchanged'
import { insertResource } from './resource-data'
import { ACCOUNT_NO, TAX_NO, fullDraftBody, uniqueName } from './supplier-data'

/**
 * Hostile input, property-based, on every write route the app serves (enumerated from the
 * document it generates from its own zod schemas, so routes added later are covered): a value
 * shaped by the route's schema, then broken in one place (wrong type, bounds ±1 in UTF-8 bytes
 * with multi-byte characters, unknown and client-forbidden fields, huge strings and arrays,
 * 64-bit overflowing ids, NUL and lone surrogates), plus hostile path segments and sensitive values
 * in the query string. Never a 500, always the envelope, the database unchanged by every refusal.
 */

type Schema = {
  type?: string
  properties?: Record<string, Schema>
  required?: string[]
  items?: Schema
  enum?: unknown[]
  anyOf?: Schema[]
  oneOf?: Schema[]
  nullable?: boolean
  minLength?: number
  maxLength?: number
  pattern?: string
  minimum?: number
  maximum?: number
  minItems?: number
  maxItems?: number
}

interface WriteRoute {
  method: string
  path: string
  body?: Schema
  params: string[]
}

/** Generated bodies per route: PGlite in-process is several times slower per request. */
const NUM_RUNS = inject('database').kind === 'embedded' ? 12 : 30
const WRITE_METHODS = new Set(['post', 'put', 'patch', 'delete'])

async function writeRoutes(h: Harness): Promise<WriteRoute[]> {
  const doc = (await (await h.app.request('/openapi.json')).json()) as {
    paths: Record<string, Record<string, any>>
  }
  const routes: WriteRoute[] = []
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      if (!WRITE_METHODS.has(method)) continue
      routes.push({
        method: method.toUpperCase(),
        path,
        body: op.requestBody?.content?.['application/json']?.schema,
        params: [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]),
      })
    }
  }
  return routes
}

// Values shaped by a schema ------------------------------------------------------------------

const DATE_TIME = /^\(\\d\{4\}\)-/
const cap = (n: number | undefined, limit: number) => Math.min(n ?? limit, limit)

function shaped(s: Schema): fc.Arbitrary<unknown> {
  const base = ((): fc.Arbitrary<unknown> => {
    if (s.enum) return fc.constantFrom(...s.enum)
    const alternatives = s.anyOf ?? s.oneOf
    if (alternatives) return fc.oneof(...alternatives.map(shaped))
    switch (s.type) {
      case 'string':
        if (s.pattern && DATE_TIME.test(s.pattern)) return fc.constant('2030-01-01 00:00:00')
        if (s.pattern?.includes('\\d{4}-\\d{2}-\\d{2}')) return fc.constant('2030-01-01')
        if (s.pattern) {
          return fc
            .stringMatching(new RegExp(s.pattern))
            .filter((v) => v.length >= (s.minLength ?? 0) && v.length <= (s.maxLength ?? 1e9))
        }
        return fc.string({
          minLength: s.minLength ?? 0,
          maxLength: Math.max(s.minLength ?? 0, cap(s.maxLength, 24)),
          unit: fc.constantFrom('a', 'Z', '7', ' ', '汉', 'é', '😀'),
        })
      case 'integer':
        return fc.integer({ min: s.minimum ?? 0, max: cap(s.maximum, 1_000) })
      case 'number':
        return fc.double({ min: s.minimum ?? 0, max: cap(s.maximum, 1_000), noNaN: true })
      case 'boolean':
        return fc.boolean()
      case 'array':
        return fc.array(shaped(s.items ?? {}), {
          minLength: s.minItems ?? 0,
          maxLength: Math.max(s.minItems ?? 0, cap(s.maxItems, 2)),
        })
      case 'object': {
        const props = s.properties ?? {}
        return fc.record(
          Object.fromEntries(Object.entries(props).map(([k, v]) => [k, shaped(v)])),
          { requiredKeys: (s.required ?? []).filter((k) => k in props) },
        )
      }
      default:
        return fc.constant(null)
    }
  })()
  return s.nullable ? fc.option(base, { nil: null }) : base
}

// Broken values ------------------------------------------------------------------------------

const HUGE = 1_100_000
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
  const wrongType = fc.constantFrom<unknown>(null, true, 0, -1, 1.5, 1e308, [], {}, '', 'x', [[]])
  const options: fc.Arbitrary<unknown>[] = [wrongType]
  const type = s.type ?? s.anyOf?.[0]?.type
  if (type === 'string') {
    const max = s.maxLength
    const min = s.minLength
    options.push(fc.constantFrom('a\u0000b', '\u0000', '\ud800', 'x\udc00y', '\udfff\ud800'))
    options.push(
      fc.constantFrom(
        'x'.repeat(HUGE),
        '汉'.repeat(HUGE / 3),
        ...OVERFLOWING_IDS,
        '2030-02-30 00:00:00',
        '0000-01-01',
        '  ',
      ),
    )
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
  }
  if (type === 'integer' || type === 'number') {
    options.push(
      fc.constantFrom(
        (s.maximum ?? 2147483647) + 1,
        (s.minimum ?? 0) - 1,
        2 ** 31,
        2 ** 53 + 2,
        -(2 ** 63),
        0.5,
        '1',
      ),
    )
  }
  if (type === 'array') {
    const item = s.items ?? {}
    options.push(
      fc.constant(Array.from({ length: 10_000 }, () => ({}))),
      shaped(item).map((v) => Array.from({ length: (s.maxItems ?? 100) + 1 }, () => v)),
      fc.constant([null]),
    )
  }
  return fc.oneof(...options)
}

/** `value` (shaped by `s`) with one place broken: the value itself, or a field or item inside. */
function broken(s: Schema, value: unknown): fc.Arbitrary<unknown> {
  const here = hostile(s)
  if (s.type === 'object' && value && typeof value === 'object' && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>
    const props = Object.entries(s.properties ?? {})
    const options: fc.Arbitrary<unknown>[] = [
      here,
      // Unknown and client-forbidden fields, at this level.
      fc
        .constantFrom('zzUnknown', '__proto__', 'constructor', ...CLIENT_FORBIDDEN_FIELDS)
        .map((k) => ({ ...obj, [k]: '9007199254740993' })),
      // A required field missing.
      ...(s.required?.length
        ? [
            fc.constantFrom(...s.required).map((k) => {
              const { [k]: _drop, ...rest } = obj
              return rest
            }),
          ]
        : []),
    ]
    if (props.length) {
      options.push(
        fc
          .constantFrom(...props)
          .chain(([k, ps]) => broken(ps, obj[k]).map((v) => ({ ...obj, [k]: v }))),
      )
    }
    return fc.oneof(...options)
  }
  if (s.type === 'array' && Array.isArray(value) && value.length > 0 && s.items) {
    return fc.oneof(
      here,
      fc
        .nat(value.length - 1)
        .chain((i) =>
          broken(s.items!, value[i]).map((v) => value.map((x, j) => (j === i ? v : x))),
        ),
    )
  }
  return here
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

/** Marks a version the test fills in at send time (the target's current updateTime). */
const CURRENT_VERSION = '@current-version'
/** The same for the target account's updateTime. */
const ACCOUNT_VERSION = '@account-version'

/**
 * Valid bodies of the routes known today, so that a broken value reaches the domain and SQL
 * instead of stopping at another field's validation. Routes without one (added later) are
 * fuzzed from their schema alone.
 */
const EXAMPLES: Record<string, (v: Record<string, string>) => unknown> = {
  'POST /admin/supplier/items': () => fullDraftBody(),
  'PUT /admin/supplier/items/{supplierId}': () => ({
    shortName: uniqueName('Short'),
    changeReason: 'hostile',
    remark: 'note',
    contacts: [{ contactName: 'Li Si', contactPhone: '13900001111' }],
    expectedUpdateTime: CURRENT_VERSION,
  }),
  'PUT /admin/supplier/items/{supplierId}/contacts': () => ({
    contacts: [{ contactName: 'Wang Wu', contactPhone: '13900002222', remark: 'r' }],
    changeReason: 'why',
    expectedUpdateTime: CURRENT_VERSION,
  }),
  'POST /admin/supplier/items/{supplierId}/submit': () =>
    fullDraftBody({ expectedUpdateTime: CURRENT_VERSION, initialAccounts: undefined }),
  'PUT /admin/supplier/types/{typeCode}/qualification-rules': () => ({
    rules: [{ qualType: 'BUSINESS_LICENSE', isRequired: false, warningDays: 30, sortOrder: 1 }],
  }),
  'POST /admin/supplier/items/{supplierId}/accounts/batch': () => ({
    accounts: [
      {
        accountType: 'CORPORATE',
        bankName: 'ICBC Hangzhou',
        accountNo: randomAccountNo(),
        settleMode: 'MONTHLY',
        accountPeriod: 30,
        invoiceType: 'SPECIAL',
        taxRate: 6,
      },
    ],
  }),
  'POST /admin/supplier/items/{supplierId}/accounts/{accountId}/change': () => ({
    bankName: 'Bank of Hangzhou',
    accountNo: randomAccountNo(),
    changeReason: 'moved',
    expectedUpdateTime: ACCOUNT_VERSION,
  }),
  'PUT /admin/supplier/items/{supplierId}/accounts/{accountId}/default': () => ({
    expectedUpdateTime: ACCOUNT_VERSION,
  }),
  'POST /admin/supplier/items/{supplierId}/status': () => ({
    targetStatus: 'SUSPENDED',
    changeReason: 'hostile',
    expectedUpdateTime: CURRENT_VERSION,
  }),
  'PUT /admin/supplier/resource-relations/{resourceModule}/{resourceId}': (v) => ({
    supplierId: v.activeSupplierId,
    remark: 'r',
    changeReason: 'bind',
  }),
}

describe('hostile input on every write route: never a 500, the envelope, nothing written', () => {
  const h = useHarness({ env: { DUPLICATE_SUBMIT_WINDOW_SECONDS: '0' } })
  let routes: WriteRoute[]
  let admin: string

  beforeAll(async () => {
    routes = await writeRoutes(h)
    admin = await h.admin()
  })

  /** Real targets, so that a shaped body can reach the domain (a fresh draft per route). */
  const targets = async (route: WriteRoute): Promise<Record<string, string>> => {
    last = undefined
    const active = await insertSupplier(h, {
      status: 'ACTIVE',
      supplierNo: `SPH${Date.now()}${Math.floor(Math.random() * 1e6)}`,
      types: [{ typeCode: 'HOTEL', isPrimary: true }],
      accounts: [{}],
    })
    return {
      // Account and lifecycle routes act on a registered supplier; the others on a draft.
      supplierId: /\/(accounts|status|archive)/.test(route.path)
        ? active.supplierId
        : (await insertSupplier(h)).supplierId,
      activeSupplierId: active.supplierId,
      accountId: active.accountIds[0],
      resourceModule: 'HOTEL',
      resourceId: await insertResource(h, 'HOTEL'),
      typeCode: 'OTHER',
    }
  }

  /** Fills in the targets' current versions wherever the body asks for them. */
  const resolve = async (body: unknown, values: Record<string, string>): Promise<unknown> => {
    let text = JSON.stringify(body)
    if (text?.includes(CURRENT_VERSION)) {
      const version = await versionOf(h, values.supplierId)
      text = text.split(CURRENT_VERSION).join(version ?? '2030-01-01 00:00:00')
    }
    if (text?.includes(ACCOUNT_VERSION)) {
      const [row] = await h.sql`
        SELECT to_char(update_time, 'YYYY-MM-DD HH24:MI:SS') AS v FROM supplier_bank_account
        WHERE account_id = ${values.accountId}`
      text = text.split(ACCOUNT_VERSION).join(row?.v ?? '2030-01-01 00:00:00')
    }
    return text === undefined ? body : JSON.parse(text)
  }
  const url = (route: WriteRoute, values: Record<string, string>) =>
    route.path.replace(/\{(\w+)\}/g, (_, n: string) => values[n] ?? '9007199254740993')

  const send = (method: string, path: string, body: unknown) =>
    h.call(method, path, {
      admin,
      raw: body === undefined ? undefined : JSON.stringify(body),
      headers: {
        'x-internal-token': h.config.internalToken,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
    })

  /** The database as the last check left it (fixtures inserted since reset it). */
  let last: Record<string, string> | undefined

  /** Sends one request and checks the guarantee; returns the business code. */
  const check = async (method: string, path: string, body: unknown) => {
    const before = last ?? (await snapshot(h, { grants: true }))
    const res = await send(method, path, body)
    const context = `${method} ${path.slice(0, 200)} ${JSON.stringify(body)?.slice(0, 300)}`
    expectEnvelope(res.status, res.body, context)
    last = await snapshot(h, { grants: true })
    if (res.body.code !== 200) expect(last, context).toEqual(before)
    return res.body.code as number
  }

  it('enumerates the write routes from the app', () => {
    const keys = routes.map((r) => `${r.method} ${r.path}`)
    expect(keys).toEqual(
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
  })

  it('bodies shaped by each route’s schema, broken in one place', async () => {
    let refused = 0
    for (const route of routes.filter((r) => r.body)) {
      const values = await targets(route)
      const schema = route.body!
      const example = EXAMPLES[`${route.method} ${route.path}`]
      const base = example
        ? fc.oneof(
            { weight: 4, arbitrary: fc.constant(null).map(() => example(values)) },
            { weight: 1, arbitrary: shaped(schema) },
          )
        : shaped(schema)
      await fc.assert(
        fc.asyncProperty(
          base.chain((v) => broken(schema, v)),
          async (body) => {
            const sent = await resolve(body, values)
            if ((await check(route.method, url(route, values), sent)) !== 200) refused++
          },
        ),
        { numRuns: NUM_RUNS, endOnFailure: true },
      )
    }
    expect(refused).toBeGreaterThan(NUM_RUNS)
  }, 120_000)

  it('hostile path segments on every write route', async () => {
    for (const route of routes.filter((r) => r.params.length)) {
      const values = await targets(route)
      for (const param of route.params) {
        for (const segment of HOSTILE_SEGMENTS) {
          const code = await check(
            route.method,
            url(route, { ...values, [param]: segment }),
            route.body ? {} : undefined,
          )
          expect(code, `${route.method} ${route.path} ${param}=${segment.slice(0, 40)}`).not.toBe(
            200,
          )
        }
      }
    }
  }, 120_000)

  it('sensitive values in the query string of a write are refused, and never echoed', async () => {
    for (const route of routes) {
      const values = await targets(route)
      for (const query of [`taxNo=${TAX_NO}`, `accountNo=${ACCOUNT_NO}`, `${TAX_NO}`]) {
        const path = `${url(route, values)}?${query}`
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
