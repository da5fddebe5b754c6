import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { statementSummary } from '../sql/trace'
import { httpPermissionLookup } from '../src/ports/permission'
import { insertSupplier, tag } from './fixtures'
import { ALL_PERMISSIONS, useHarness } from './harness'
import {
  callerTrace,
  OWN_STATEMENT,
  SPAN_KIND,
  startOtlpReceiver,
  type ReceivedSpan,
} from './otlp-receiver'
import { insertRelation, insertResource, startFleet } from './resource-data'
import { STORAGE } from './supplier-data'

/*
 * Distributed tracing through the HTTP API on a real database, exported to a real OTLP/HTTP
 * receiver on 127.0.0.1 (JSON), with the fleet, permission and finance clearance services as real
 * local servers that record the trace context they are sent. Configured only by OTEL_* variables,
 * as the service is. The process-level run (`npm start`) is in tracing-process.test.ts.
 */

const FLEET_TOKEN = 'fleet-internal-token-0123456789'
const PAGE_ROUTE = '/admin/supplier/items/:supplierId/resource-info/page'
const pagePath = (supplierId: string) => `/admin/supplier/items/${supplierId}/resource-info/page`

const traceparentOf = (headers: IncomingHttpHeaders) => String(headers.traceparent ?? '')

/** A local server that answers every request with `reply` and records its headers and body. */
async function recordingServer(reply: (body: any) => { status?: number; body: unknown }) {
  const seen: { path: string; headers: IncomingHttpHeaders; body: any }[] = []
  const server: Server = createServer((req, res) => {
    let text = ''
    req.on('data', (c) => (text += c))
    req.on('end', () => {
      const body = text ? JSON.parse(text) : null
      seen.push({ path: req.url ?? '', headers: req.headers, body })
      const answer = reply(body)
      res.writeHead(answer.status ?? 200, { 'content-type': 'application/json' })
      res.end(JSON.stringify(answer.body))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>
let fleet: Awaited<ReturnType<typeof startFleet>>
let finance: Awaited<ReturnType<typeof recordingServer>>
beforeAll(async () => {
  otlp = await startOtlpReceiver()
  fleet = await startFleet()
  // Finance refuses: the archive answers 395032-like "not cleared" and logs why.
  finance = await recordingServer((body) => ({
    body: { code: 200, success: true, data: { supplierId: body?.supplierId, cleared: false } },
  }))
})
afterAll(async () => {
  await otlp?.close()
  await fleet?.close()
  await finance?.close()
})

const TRACED_ENV = () => ({
  OTEL_TRACES_EXPORTER: 'otlp',
  OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
  OTEL_SERVICE_NAME: 'supplier-admin-under-test',
  FLEET_BASE_URL: fleet.url,
  FLEET_INTERNAL_TOKEN: FLEET_TOKEN,
  FINANCE_CLEARANCE_URL: `${finance.url}/clearance`,
})

let vehicles = 0
/** A supplier whose resource page holds a hotel and two vehicles (the fleet's). */
async function supplierWithVehicles(h: ReturnType<typeof useHarness>) {
  const { supplierId } = await insertSupplier(h, { status: 'ACTIVE', supplierNo: `SPT${tag()}` })
  const hotelId = await insertResource(h, 'HOTEL', { name: `酒店 ${tag()}` })
  await insertRelation(h, { supplierId, module: 'HOTEL', resourceId: hotelId })
  const vehicleIds = [1, 2].map(() => String(9007199254810000n + BigInt(++vehicles)))
  for (const resourceId of vehicleIds) {
    await insertRelation(h, { supplierId, module: 'VEHICLE', resourceId })
  }
  return { supplierId, vehicleIds }
}

/** The request's log lines (by its request id, whichever way a line carries it). */
const linesOf = (logs: string[], requestId: string) =>
  logs.map((l) => JSON.parse(l)).filter((l) => l.requestId === requestId)

describe('tracing on (OTEL_TRACES_EXPORTER=otlp): a resource-page request', () => {
  const statements: string[] = []
  const h = useHarness({ env: TRACED_ENV, onStatement: (text) => statements.push(text) })
  let admin: string
  beforeAll(async () => {
    admin = await h.admin()
  })
  beforeEach(() => {
    otlp.reset()
    fleet.reset()
  })

  it("arrives at the receiver under the caller's trace id: a server span named by the route template, a span per statement, a fleet span; the fleet gets the same trace id", async () => {
    const { supplierId, vehicleIds } = await supplierWithVehicles(h)
    const caller = callerTrace()
    statements.length = 0
    const res = await h.call('GET', pagePath(supplierId), { admin, headers: caller.headers })
    expect(res.body, JSON.stringify(res.body)).toMatchObject({ code: 200, data: { total: 3 } })
    const sent = statements.filter((s) => !OWN_STATEMENT.test(s))
    await h.tracing!.flush()

    const spans = otlp.trace(caller.traceId)
    const server = spans.find((s) => s.kind === SPAN_KIND.SERVER)!
    expect(server, JSON.stringify(otlp.spans.map((s) => s.name))).toBeDefined()
    expect(server).toMatchObject({
      name: `GET ${PAGE_ROUTE}`,
      parentSpanId: caller.parentId,
      scope: 'supplier-admin',
      resource: { 'service.name': 'supplier-admin-under-test' },
      attributes: {
        'http.request.method': 'GET',
        'http.route': PAGE_ROUTE,
        'http.response.status_code': 200,
        'supplier_admin.result_code': 200,
      },
    })
    // The request is one trace: every span hangs under the server span.
    const byId = new Map(spans.map((s) => [s.spanId, s]))
    const rootOf = (s: ReceivedSpan): ReceivedSpan =>
      byId.has(s.parentSpanId) ? rootOf(byId.get(s.parentSpanId)!) : s
    for (const s of spans) expect(rootOf(s).spanId, s.name).toBe(server.spanId)

    // One CLIENT span per statement the request sent, named by its kind and table.
    const db = spans.filter((s) => s.attributes['db.system.name'] === 'postgresql')
    expect(db.length).toBe(sent.length)
    expect(db.map((s) => s.name).sort()).toEqual(
      sent.map((s) => statementSummary(s).summary).sort(),
    )
    expect(db.map((s) => s.name)).toEqual(
      expect.arrayContaining([
        'SELECT supplier supplier_resource_relation resource_status resource_settle_type',
        expect.stringMatching(/^SELECT resource_hotel /),
      ]),
    )
    expect(db.find((s) => s.name.startsWith('SELECT resource_hotel'))?.attributes).toMatchObject({
      'db.operation.name': 'SELECT',
      'db.collection.name': 'resource_hotel',
      'db.response.returned_rows': 1,
    })
    for (const s of db) {
      expect(s.kind).toBe(SPAN_KIND.CLIENT)
      expect(s.attributes['db.operation.name']).toMatch(/^[A-Z]+$/)
      expect(Object.keys(s.attributes).sort()).toEqual(
        expect.arrayContaining(['db.operation.name', 'db.system.name']),
      )
      expect(Object.keys(s.attributes).some((k) => /statement|query\.text|param/.test(k))).toBe(
        false,
      )
    }

    // The fleet call: a CLIENT span, whose context the fleet received.
    const call = spans.find((s) => s.attributes['peer.service'] === 'fleet')!
    expect(call).toMatchObject({
      name: 'POST /internal/fleet/vehicles/supplier-resource-info/batch',
      kind: SPAN_KIND.CLIENT,
      attributes: { 'http.request.method': 'POST', 'http.response.status_code': 200 },
    })
    expect(fleet.requests).toHaveLength(1)
    expect(fleet.requests[0].body).toEqual({ vehicleIds: expect.arrayContaining(vehicleIds) })
    expect(traceparentOf(fleet.requests[0].headers)).toBe(`00-${caller.traceId}-${call.spanId}-01`)
    expect(fleet.requests[0].headers.tracestate).toBe('gateway=edge1')
  })

  it('without a traceparent the request starts a trace of its own, and the fleet is sent that one', async () => {
    const { supplierId } = await supplierWithVehicles(h)
    await h.call('GET', pagePath(supplierId), { admin })
    await h.tracing!.flush()
    const server = otlp.spans.find((s) => s.kind === SPAN_KIND.SERVER)!
    expect(server.name).toBe(`GET ${PAGE_ROUTE}`)
    expect(server.parentSpanId).toBe('')
    expect(traceparentOf(fleet.requests[0].headers)).toMatch(
      new RegExp(`^00-${server.traceId}-[0-9a-f]{16}-01$`),
    )
  })

  it("a caller's unsampled trace is not exported, but its trace id still travels to the fleet", async () => {
    const { supplierId } = await supplierWithVehicles(h)
    const caller = callerTrace()
    const traceparent = caller.headers.traceparent.replace(/-01$/, '-00')
    await h.call('GET', pagePath(supplierId), { admin, headers: { traceparent } })
    await h.tracing!.flush()
    expect(otlp.trace(caller.traceId)).toEqual([])
    expect(traceparentOf(fleet.requests[0].headers)).toMatch(
      new RegExp(`^00-${caller.traceId}-[0-9a-f]{16}-00$`),
    )
  })

  it('every log line of the request carries its request id and trace id, a domain line that names neither included', async () => {
    const { supplierId } = await insertSupplier(h, {
      status: 'SUSPENDED',
      supplierNo: `SPT${tag()}`,
      licenseImageUrl: `${STORAGE}license.png`,
      types: [{ typeCode: 'OTHER', isPrimary: true }],
      contacts: [{ contactName: '周八', contactPhone: '13655556666' }],
    })
    const caller = callerTrace()
    const from = h.logs.length
    finance.seen.length = 0
    const res = await h.call('POST', `/admin/supplier/items/${supplierId}/archive`, {
      admin,
      headers: caller.headers,
    })
    expect(res.body.success).toBe(false)
    const lines = h.logs.slice(from).map((l) => JSON.parse(l))
    const refused = lines.find((l) => l.msg === 'archive refused by clearance')
    const request = lines.find((l) => l.msg === 'request')
    expect(refused, JSON.stringify(lines)).toBeDefined()
    expect(request).toBeDefined()
    for (const line of [refused, request]) {
      expect(line).toMatchObject({
        requestId: request.requestId,
        traceId: caller.traceId,
        spanId: expect.stringMatching(/^[0-9a-f]{16}$/),
      })
    }
    expect(linesOf(h.logs.slice(from), request.requestId)).toHaveLength(lines.length)
    // And the clearance service was sent the same trace.
    expect(finance.seen).toHaveLength(1)
    expect(traceparentOf(finance.seen[0].headers)).toMatch(
      new RegExp(`^00-${caller.traceId}-[0-9a-f]{16}-01$`),
    )
    await h.tracing!.flush()
    const server = otlp.trace(caller.traceId).find((s) => s.kind === SPAN_KIND.SERVER)
    expect(server?.attributes['supplier_admin.request_id']).toBe(request.requestId)
    const clearance = otlp
      .trace(caller.traceId)
      .find((s) => s.attributes['peer.service'] === 'finance-clearance')
    expect(clearance).toMatchObject({ name: 'POST /clearance', kind: SPAN_KIND.CLIENT })
  })
})

describe('tracing on, with the permission service over HTTP', () => {
  let permission: Awaited<ReturnType<typeof recordingServer>>
  beforeAll(async () => {
    permission = await recordingServer(() => ({ body: { code: 200, success: true, data: true } }))
  })
  afterAll(async () => {
    await permission?.close()
  })
  const h = useHarness({
    env: () => ({ ...TRACED_ENV(), PERMISSION_READ_CACHE_SECONDS: '0' }),
    permissions: () => ({
      ...httpPermissionLookup({ baseUrl: permission.url, timeoutMs: 2000 }),
      // Roles answered locally: only the permission codes go over HTTP here.
      roles: async () => ['ADMIN'],
    }),
  })

  it('each permission lookup is a CLIENT span named without ids, and carries the trace to the service', async () => {
    const { supplierId } = await insertSupplier(h, { status: 'ACTIVE', supplierNo: `SPT${tag()}` })
    const caller = callerTrace()
    otlp.reset()
    const res = await h.call('GET', `/admin/supplier/items/${supplierId}`, {
      admin: '9007199254812345',
      headers: caller.headers,
    })
    expect(res.body.code, JSON.stringify(res.body)).toBe(200)
    expect(permission.seen.length).toBeGreaterThan(0)
    await h.tracing!.flush()
    const lookups = otlp
      .trace(caller.traceId)
      .filter((s) => s.attributes['peer.service'] === 'permission')
    expect(lookups.map((s) => s.name)).toEqual(
      permission.seen.map(() => 'GET /admins/{adminId}/permissions/{code}'),
    )
    for (const seen of permission.seen) {
      const span = lookups.find((s) => traceparentOf(seen.headers).includes(s.spanId))
      expect(span, traceparentOf(seen.headers)).toBeDefined()
      expect(traceparentOf(seen.headers)).toMatch(new RegExp(`^00-${caller.traceId}-`))
    }
    for (const span of lookups) {
      expect(JSON.stringify(span)).not.toContain('9007199254812345')
    }
  })
})

describe('tracing off (no OTEL_* exporter): nothing is read, sent or exported', () => {
  const h = useHarness({
    env: () => ({ FLEET_BASE_URL: fleet.url, FLEET_INTERNAL_TOKEN: FLEET_TOKEN }),
  })

  it("the caller's traceparent goes no further, no span is exported, log lines carry no trace id", async () => {
    expect(h.tracing).toBeUndefined()
    const { supplierId } = await supplierWithVehicles(h)
    otlp.reset()
    fleet.reset()
    const caller = callerTrace()
    const from = h.logs.length
    const res = await h.call('GET', pagePath(supplierId), {
      admin: await h.admin(ALL_PERMISSIONS),
      headers: caller.headers,
    })
    expect(res.body.code).toBe(200)
    expect(fleet.requests).toHaveLength(1)
    expect(fleet.requests[0].headers.traceparent).toBeUndefined()
    expect(fleet.requests[0].headers.tracestate).toBeUndefined()
    const lines = h.logs.slice(from).map((l) => JSON.parse(l))
    expect(lines.length).toBeGreaterThan(0)
    for (const line of lines) expect(line.traceId).toBeUndefined()
    await new Promise((r) => setTimeout(r, 200))
    expect(otlp.exports).toEqual([])
  })
})

describe('tracing on with the default protocol (OTLP/HTTP protobuf)', () => {
  const h = useHarness({
    env: () => ({
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=k%2C1',
    }),
  })

  it("exports protobuf to {endpoint}/v1/traces with OTEL_EXPORTER_OTLP_HEADERS, the caller's trace id inside", async () => {
    otlp.reset()
    const caller = callerTrace()
    const res = await h.call('GET', '/admin/dict/data/supplier_type', { headers: caller.headers })
    expect(res.body.code).toBe(200)
    await h.tracing!.flush()
    expect(otlp.exports.length).toBeGreaterThan(0)
    for (const e of otlp.exports) {
      expect(e).toMatchObject({ path: '/v1/traces', contentType: 'application/x-protobuf' })
      expect(e.headers['x-collector-key']).toBe('k,1')
    }
    const bytes = Buffer.from(caller.traceId, 'hex')
    expect(otlp.exports.some((e) => e.body.includes(bytes))).toBe(true)
  })
})

describe('statementSummary: what a statement span is named by', () => {
  it.each([
    [
      'SELECT s.full_name FROM supplier s WHERE s.supplier_id = $1',
      'SELECT',
      'supplier',
      'SELECT supplier',
    ],
    [
      'SELECT (SELECT count(*) FROM supplier_resource_relation r WHERE r.supplier_id = $1) AS n, s.x FROM supplier s JOIN supplier_type t ON true',
      'SELECT',
      'supplier',
      'SELECT supplier supplier_resource_relation supplier_type',
    ],
    ['INSERT INTO change_log (a, b) VALUES ($1, $2)', 'INSERT', 'change_log', 'INSERT change_log'],
    [
      'UPDATE "supplier_contact" SET deleted_at = now() WHERE supplier_id = $1',
      'UPDATE',
      'supplier_contact',
      'UPDATE supplier_contact',
    ],
    [
      'DELETE FROM ONLY idempotency_key WHERE k = $1',
      'DELETE',
      'idempotency_key',
      'DELETE idempotency_key',
    ],
    [
      'WITH moved AS (UPDATE supplier SET status = $1 RETURNING supplier_id) INSERT INTO change_log SELECT supplier_id FROM moved',
      'INSERT',
      'change_log',
      'INSERT change_log supplier moved',
    ],
    [
      'SELECT id FROM supplier WHERE id IS DISTINCT FROM $1::bigint FOR UPDATE',
      'SELECT',
      'supplier',
      'SELECT supplier',
    ],
    ['SELECT x FROM unnest($1::text[]) u', 'SELECT', undefined, 'SELECT'],
    ["SELECT set_config('pg_trgm.similarity_threshold', $1, true)", 'SELECT', undefined, 'SELECT'],
    ['SELECT 1', 'SELECT', undefined, 'SELECT'],
  ])('%s', (text, operation, table, summary) => {
    expect(statementSummary(text)).toEqual(
      table ? { operation, table, summary } : { operation, summary },
    )
  })

  it('never takes a name from a literal or a comment', () => {
    const text = `SELECT 'FROM 91330106MA2H7Q' AS a /* FROM secret_table */ -- FROM other\n FROM $$ FROM x $$`
    expect(statementSummary(text)).toEqual({ operation: 'SELECT', summary: 'SELECT' })
  })
})
