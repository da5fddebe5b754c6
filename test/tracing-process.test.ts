import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { grant } from '../sql/admin'
import { loadConfig } from '../src/config'
import { createCipher } from '../src/crypto/sensitive'
import { insertSupplier } from './fixtures'
import { ALL_PERMISSIONS, createTestDatabase, type Harness, type TestDatabase } from './harness'
import { callerTrace, SPAN_KIND, startOtlpReceiver } from './otlp-receiver'
import { insertRelation, startFleet } from './resource-data'
import { devHeaders, request, startService, type Service } from './service'

/*
 * Tracing of the real process (`npm start`'s command), configured by OTEL_* variables alone,
 * exporting to a real OTLP/HTTP receiver on 127.0.0.1. The spans are sent in one batch a minute
 * (OTEL_BSP_SCHEDULE_DELAY), so that their arrival proves the export on SIGTERM: the last
 * requests' spans are not lost when the service stops.
 */

const FLEET_TOKEN = 'fleet-internal-token-0123456789'
const PAGE_ROUTE = '/admin/supplier/items/:supplierId/resource-info/page'

let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>
let fleet: Awaited<ReturnType<typeof startFleet>>
const services: Service[] = []
const dirs: string[] = []
let db: TestDatabase | undefined
beforeAll(async () => {
  otlp = await startOtlpReceiver()
  fleet = await startFleet()
})
afterAll(async () => {
  for (const s of services) await s.stop()
  for (const d of dirs) await rm(d, { recursive: true, force: true })
  await db?.close()
  await otlp?.close()
  await fleet?.close()
})

const OTEL = () => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
  OTEL_BSP_SCHEDULE_DELAY: '60000',
})

const linesOf = (service: Service) =>
  service
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l))

describe('the service process with OTEL_EXPORTER_OTLP_ENDPOINT set', () => {
  it("exports the request's spans under the caller's trace id when it stops, and logs the trace id", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'supplier-otel-'))
    dirs.push(dataDir)
    const service = await startService({ ...OTEL(), DATA_DIR: dataDir, DEMO_DATA: 'true' })
    services.push(service)
    await service.ready
    const caller = callerTrace()
    const res = await request(`${service.base}/admin/supplier/items?pageSize=5`, {
      headers: { ...(await devHeaders('10001')), ...caller.headers },
    })
    expect(res.body.code, JSON.stringify(res.body)).toBe(200)
    // Log lines reach stdout within 250 ms (written in batches).
    let line: any
    for (let i = 0; i < 40 && !line; i++) {
      await new Promise((r) => setTimeout(r, 50))
      line = linesOf(service).find((l) => l.msg === 'request')
    }
    expect(line).toMatchObject({ route: '/admin/supplier/items', traceId: caller.traceId })
    expect(otlp.trace(caller.traceId)).toEqual([])

    expect(await service.stop()).toBe(0)
    const spans = otlp.trace(caller.traceId)
    const server = spans.find((s) => s.kind === SPAN_KIND.SERVER)
    expect(server).toMatchObject({
      name: 'GET /admin/supplier/items',
      parentSpanId: caller.parentId,
      resource: { 'service.name': 'supplier-admin' },
      attributes: { 'supplier_admin.request_id': line.requestId },
    })
    const statements = spans.filter((s) => s.attributes['db.system.name'] === 'postgresql')
    // The list's page and its total: named by kind and the tables each statement reads.
    expect(statements.map((s) => s.name)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^SELECT\b.* supplier(?: |$)/),
        'SELECT list_count',
      ]),
    )
    for (const s of statements) expect(s.parentSpanId).toBe(server!.spanId)
  }, 90_000)

  // The embedded engine serves the process that owns it: the page's data is written beforehand
  // into a database of its own, which only a real server can share with the process.
  it.skipIf(!process.env.DATABASE_URL)(
    "a resource-page request: its spans arrive with the caller's trace id, and the fleet receives the same trace id (PostgreSQL)",
    async () => {
      db = await createTestDatabase()
      const config = loadConfig({ NODE_ENV: 'test' })
      const h = { sql: db.sql, cipher: await createCipher(config.crypto) } as Harness
      const admin = '9007199254820001'
      await grant(db.sql, admin, { permissions: ALL_PERMISSIONS, roles: ['ADMIN'] })
      const { supplierId } = await insertSupplier(h, { status: 'ACTIVE', supplierNo: 'SPOTEL1' })
      const vehicleId = '9007199254820101'
      await insertRelation(h, { supplierId, module: 'VEHICLE', resourceId: vehicleId })
      fleet.reset()

      const service = await startService({
        ...OTEL(),
        DATABASE_URL: db.url,
        MIGRATE_ON_START: 'false',
        FLEET_BASE_URL: fleet.url,
        FLEET_INTERNAL_TOKEN: FLEET_TOKEN,
      })
      services.push(service)
      await service.ready
      const caller = callerTrace()
      const res = await request(
        `${service.base}/admin/supplier/items/${supplierId}/resource-info/page`,
        { headers: { ...(await devHeaders(admin)), ...caller.headers } },
      )
      expect(res.body, JSON.stringify(res.body)).toMatchObject({ code: 200, data: { total: 1 } })
      expect(await service.stop()).toBe(0)

      const spans = otlp.trace(caller.traceId)
      expect(spans.find((s) => s.kind === SPAN_KIND.SERVER)?.name).toBe(`GET ${PAGE_ROUTE}`)
      expect(spans.some((s) => s.attributes['db.system.name'] === 'postgresql')).toBe(true)
      const call = spans.find((s) => s.attributes['peer.service'] === 'fleet')
      expect(call).toBeDefined()
      expect(fleet.requests).toHaveLength(1)
      expect(fleet.requests[0].headers.traceparent).toBe(`00-${caller.traceId}-${call!.spanId}-01`)
    },
    90_000,
  )
})
