import postgres from 'postgres'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../src/app'
import { createLogger } from '../src/logger'
import { sqlPermissionLookup } from '../src/ports/permission'
import { insertSupplier } from './fixtures'
import { useHarness } from './harness'
import { unchanged } from './unchanged'
import {
  fleetVehicle,
  insertRelation,
  insertResource,
  MODULES,
  startFleet,
  type Module,
} from './resource-data'

const FLEET_TOKEN = 'fleet-internal-token-0123456789'
const BATCH_PATH = '/internal/fleet/vehicles/supplier-resource-info/batch'
const pagePath = (supplierId: string, query = '') =>
  `/admin/supplier/items/${supplierId}/resource-info/page${query ? `?${query}` : ''}`

describe('resource-information page with the fleet service over HTTP', () => {
  let fleet: Awaited<ReturnType<typeof startFleet>>
  beforeAll(async () => {
    fleet = await startFleet()
  })
  const h = useHarness({
    env: () => ({
      FLEET_BASE_URL: `${fleet.url}/`,
      FLEET_INTERNAL_TOKEN: FLEET_TOKEN,
      FLEET_TIMEOUT_MS: '2500',
    }),
  })
  afterAll(async () => {
    await fleet?.close()
  })
  afterEach(() => fleet.reset())

  let admin: string
  let supplierId: string
  /** Vehicle ids of the supplier's relations (no local vehicle row: the fleet owns them). */
  const vehicleIds = ['9007199254800001', '9007199254800002', '9007199254800003']
  let hotelId: string

  beforeAll(async () => {
    admin = await h.admin()
    ;({ supplierId } = await insertSupplier(h, { status: 'ACTIVE', supplierNo: 'SPF1' }))
    let s = 10
    hotelId = await insertResource(h, 'HOTEL', { name: '西湖国宾馆' })
    await insertRelation(h, {
      supplierId,
      module: 'HOTEL',
      resourceId: hotelId,
      updateTime: `2026-08-01 10:00:${s++}`,
    })
    for (const resourceId of vehicleIds) {
      await insertRelation(h, {
        supplierId,
        module: 'VEHICLE',
        resourceId,
        updateTime: `2026-08-01 10:00:${s++}`,
      })
    }
  })

  const get = (query = '', id = supplierId) => h.call('GET', pagePath(id, query), { admin })

  it('asks the fleet once per page, for all vehicle ids of the page, with X-Internal-Token; maps the answer', async () => {
    fleet.answer((ids) => ({
      body: {
        code: 200,
        message: 'ok',
        success: true,
        // Any order; a deleted vehicle is reported as such.
        data: [...ids]
          .reverse()
          .map((id) =>
            id === vehicleIds[0]
              ? fleetVehicle(id, { deleted: true, vehicleName: null, statusCode: null })
              : fleetVehicle(id, { isCharged: false, settleTypeCode: null }),
          ),
      },
    }))
    const { body } = await get()
    expect(body, body.message).toMatchObject({ code: 200, success: true, data: { total: 4 } })
    expect(fleet.requests).toHaveLength(1)
    const [req] = fleet.requests
    expect(req.method).toBe('POST')
    expect(req.path).toBe(BATCH_PATH)
    expect(req.headers['x-internal-token']).toBe(FLEET_TOKEN)
    expect(req.headers['content-type']).toMatch(/^application\/json/)
    expect(req.body).toEqual({ vehicleIds: [...vehicleIds].reverse() })
    const records = body.data.records
    expect(records.map((r: any) => r.resourceId)).toEqual([...vehicleIds].reverse().concat(hotelId))
    expect(records[0]).toEqual({
      relationId: expect.any(String),
      resourceModule: 'VEHICLE',
      moduleName: '车队管理-车队管理',
      resourceId: vehicleIds[2],
      resourceName: `大巴车 ${vehicleIds[2].slice(-4)}`,
      coverUrl: 'https://storage.example.com/fleet/bus.jpg',
      city: '杭州',
      isCharged: false,
      isChargedName: '免费',
      settleTypeCode: null,
      settleTypeName: null,
      tags: [{ tagId: '9007199254740999', tagName: '热门', tagColor: '#FF5722' }],
      seasons: [{ seasonCode: 'SUMMER', seasonName: '夏季' }],
      statusCode: 'ON_SALE',
      statusName: '在售',
      enabled: true,
      resourceAvailable: true,
      updateTime: '2026-05-01 08:30:00',
    })
    expect(records[2]).toMatchObject({
      resourceId: vehicleIds[0],
      resourceAvailable: false,
      resourceName: null,
      statusCode: null,
      tags: [],
      seasons: [],
      updateTime: null,
    })
    expect(records[3]).toMatchObject({ resourceModule: 'HOTEL', resourceName: '西湖国宾馆' })
  })

  it('asks only for the vehicles of the page, and not at all when the page has none', async () => {
    const second = await get('page=2&pageSize=2')
    expect(second.body.data.records.map((r: any) => r.resourceModule)).toEqual(['VEHICLE', 'HOTEL'])
    expect(fleet.requests.map((r) => r.body)).toEqual([{ vehicleIds: [vehicleIds[0]] }])
    fleet.reset()
    const hotels = await get('resourceModule=HOTEL')
    expect(hotels.body.data.total).toBe(1)
    expect(fleet.requests).toHaveLength(0)
  })

  const ok = (data: unknown) => ({ body: { code: 200, message: 'ok', success: true, data } })
  const FAULTS: [
    string,
    (ids: string[]) => { status?: number; body: unknown; delayMs?: number },
  ][] = [
    ['an empty list', () => ok([])],
    ['a null data', () => ok(null)],
    [
      'a non-success envelope',
      (ids) => ({
        body: {
          code: 500,
          message: 'busy',
          success: false,
          data: ids.map((id) => fleetVehicle(id)),
        },
      }),
    ],
    [
      'success false with code 200',
      (ids) => ({
        body: { code: 200, message: 'x', success: false, data: ids.map((id) => fleetVehicle(id)) },
      }),
    ],
    ['HTTP 503', (ids) => ({ status: 503, body: ok(ids.map((id) => fleetVehicle(id))).body })],
    ['HTTP 404', () => ({ status: 404, body: 'not found' })],
    ['a duplicated vehicle', (ids) => ok([...ids, ids[0]].map((id) => fleetVehicle(id)))],
    ['a missing vehicle', (ids) => ok(ids.slice(1).map((id) => fleetVehicle(id)))],
    ['an extra vehicle', (ids) => ok([...ids, '9007199254899999'].map((id) => fleetVehicle(id)))],
    [
      'a vehicle id as a JSON number',
      (ids) => ok(ids.map((id) => ({ ...fleetVehicle(id), vehicleId: Number(id) }))),
    ],
    [
      'a missing field',
      (ids) =>
        ok(
          ids.map((id) => {
            const { tags: _t, ...v } = fleetVehicle(id)
            return v
          }),
        ),
    ],
    ['tags not an array', (ids) => ok(ids.map((id) => fleetVehicle(id, { tags: null })))],
    [
      'a malformed updateTime',
      (ids) => ok(ids.map((id) => fleetVehicle(id, { updateTime: '2026-05-01T08:30:00Z' }))),
    ],
    [
      'a live vehicle without a name',
      (ids) => ok(ids.map((id) => fleetVehicle(id, { vehicleName: null }))),
    ],
    [
      'a status code the dictionary does not know',
      (ids) => ok(ids.map((id) => fleetVehicle(id, { statusCode: 'SOLD_OUT' }))),
    ],
    [
      'a settlement type the dictionary does not know',
      (ids) => ok(ids.map((id) => fleetVehicle(id, { settleTypeCode: 'BARTER' }))),
    ],
    ['a body that is not JSON', () => ({ body: '<html>gateway</html>' })],
    ['a truncated body', () => ({ body: '{"code":200,"success":true,"data":[{"vehicleId"' })],
    [
      'no answer within the timeout',
      (ids) => ({ ...ok(ids.map((id) => fleetVehicle(id))), delayMs: 4000 }),
    ],
  ]

  for (const [fault, answer] of FAULTS) {
    it(`fails the whole page with 395039 on ${fault}`, async () => {
      fleet.answer(answer)
      const started = Date.now()
      const { status, body } = await get()
      expect(status).toBe(200)
      expect(body).toMatchObject({ code: 395039, success: false, data: null })
      // One request, never a retry.
      expect(fleet.requests).toHaveLength(1)
      expect(Date.now() - started).toBeLessThan(3900)
    })
  }

  it('binding a vehicle asks the fleet whether it exists: its name in the answer, 395031 when deleted, 395039 on a fault (nothing written)', async () => {
    const writer = await h.admin(['supplier:update', 'supplier:view'], [])
    const { supplierId: owner } = await insertSupplier(h, {
      status: 'ACTIVE',
      supplierNo: 'SPF3',
      types: [{ typeCode: 'FLEET', isPrimary: true }],
    })
    const bind = (vehicleId: string) =>
      h.call('PUT', `/admin/supplier/resource-relations/VEHICLE/${vehicleId}`, {
        admin: writer,
        body: { supplierId: owner, requiredTypeCode: 'FLEET', changeReason: '车辆签约' },
      })
    const bound = await bind('9007199254820001')
    expect(bound.body).toMatchObject({
      code: 200,
      data: { resourceModule: 'VEHICLE', resourceName: '大巴车 0001', available: true },
    })
    expect(fleet.requests.map((r) => r.body)).toEqual([{ vehicleIds: ['9007199254820001'] }])
    await unchanged(h, async () => {
      fleet.answer((ids) => ok(ids.map((id) => fleetVehicle(id, { deleted: true }))))
      expect((await bind('9007199254820002')).body).toMatchObject({ code: 395031 })
      fleet.answer(() => ({ status: 502, body: 'bad gateway' }))
      expect((await bind('9007199254820003')).body).toMatchObject({ code: 395039 })
    })
  })

  it('an unreachable fleet service is 395039 too', async () => {
    const closed = await startFleet()
    await closed.close()
    const other = createApp({
      config: { ...h.config, fleet: { ...h.config.fleet, baseUrl: closed.url } },
      sql: h.sql,
      logger: createLogger({ level: 'silent' }),
      cipher: h.cipher,
      permissions: sqlPermissionLookup(h.sql),
    })
    const res = await other.request(pagePath(supplierId), {
      headers: { authorization: `Bearer ${await h.token(admin)}`, 'x-admin-id': admin },
    })
    expect(await res.json()).toMatchObject({ code: 395039, success: false, data: null })
  })

  it('a full page costs one statement for the relations, one per local module, one fleet call, in one READ ONLY transaction', async () => {
    const { supplierId: big } = await insertSupplier(h, { status: 'ACTIVE', supplierNo: 'SPF2' })
    for (let i = 0; i < 100; i++) {
      const module = MODULES[i % 10] as Module
      const resourceId =
        module === 'VEHICLE'
          ? String(9007199254810000n + BigInt(i))
          : await insertResource(h, module)
      await insertRelation(h, { supplierId: big, module, resourceId })
    }
    const statements: string[] = []
    const counted = postgres(h.db.url, {
      max: 3,
      onnotice: () => {},
      debug: (_connection, query) => void statements.push(query),
    })
    try {
      // The client's one-off type lookup happens on its first connection: not the page's.
      await counted`SELECT 1`
      const app = createApp({
        config: h.config,
        sql: counted,
        logger: createLogger({ level: 'silent' }),
        cipher: h.cipher,
        // Permission lookups on another client: only the page's own statements are counted.
        permissions: sqlPermissionLookup(h.sql),
      })
      const headers = { authorization: `Bearer ${await h.token(admin)}`, 'x-admin-id': admin }
      for (const pageSize of [100, 10]) {
        statements.length = 0
        fleet.reset()
        const res = await app.request(pagePath(big, `pageSize=${pageSize}`), { headers })
        const body = await res.json()
        expect(body.data.records).toHaveLength(pageSize)
        expect(body.data.records.every((r: any) => r.resourceAvailable)).toBe(true)
        const modulesOnPage = new Set(body.data.records.map((r: any) => r.resourceModule))
        const localModules = [...modulesOnPage].filter((m) => m !== 'VEHICLE').length
        expect(statements[0]).toMatch(/^begin ISOLATION LEVEL REPEATABLE READ READ ONLY$/i)
        expect(statements.at(-1)).toMatch(/^commit$/i)
        // begin + relations frame + one per local module + commit
        expect(statements).toHaveLength(2 + 1 + localModules)
        expect(fleet.requests).toHaveLength(1)
      }
    } finally {
      await counted.end()
    }
  })
})

describe('fleet configuration', () => {
  it('needs FLEET_INTERNAL_TOKEN with FLEET_BASE_URL, and https in production', async () => {
    const { loadConfig } = await import('../src/config')
    expect(() => loadConfig({ NODE_ENV: 'test', FLEET_BASE_URL: 'http://127.0.0.1:9' })).toThrow(
      /FLEET_INTERNAL_TOKEN: required with FLEET_BASE_URL/,
    )
    expect(() =>
      loadConfig({
        NODE_ENV: 'test',
        FLEET_BASE_URL: 'http://127.0.0.1:9',
        FLEET_INTERNAL_TOKEN: 'short',
      }),
    ).toThrow(/FLEET_INTERNAL_TOKEN: must be at least 16 characters/)
    const config = loadConfig({
      NODE_ENV: 'test',
      FLEET_BASE_URL: 'http://127.0.0.1:9',
      FLEET_INTERNAL_TOKEN: FLEET_TOKEN,
      FLEET_TIMEOUT_MS: '1500',
    })
    expect(config.fleet).toEqual({
      baseUrl: 'http://127.0.0.1:9',
      token: FLEET_TOKEN,
      timeoutMs: 1500,
    })
    expect(loadConfig({ NODE_ENV: 'test' }).fleet).toEqual({ timeoutMs: 3000 })
    expect(() =>
      loadConfig({
        NODE_ENV: 'production',
        FLEET_BASE_URL: 'http://fleet.internal',
        FLEET_INTERNAL_TOKEN: FLEET_TOKEN,
      }),
    ).toThrow(/FLEET_BASE_URL: must be https in production/)
  })
})
