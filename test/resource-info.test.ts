import { beforeAll, describe, expect, it } from 'vitest'
import { insertSupplier } from './fixtures'
import { ALL_PERMISSIONS, useHarness } from './harness'
import {
  insertRelation,
  insertResource,
  insertTag,
  linkSeason,
  linkTag,
  MODULES,
  type Module,
} from './resource-data'

const MODULE_NAMES: Record<Module, string> = {
  SCENIC: '景区管理',
  RESTAURANT: '餐厅管理',
  SUPPLIES: '备品管理',
  SUPPLIES_COMBO: '组合配品',
  ACTIVITY: '游玩项目管理',
  HOTEL: '酒店管理',
  SERVICE: '服务管理',
  COST_ITEM: '额外成本',
  STAFF: '服务人员管理',
  VEHICLE: '车队管理-车队管理',
}

const pagePath = (supplierId: string, query = '') =>
  `/admin/supplier/items/${supplierId}/resource-info/page${query ? `?${query}` : ''}`

describe('resource-information page (embedded fleet)', () => {
  const h = useHarness()
  let admin: string

  beforeAll(async () => {
    admin = await h.admin()
  })

  const get = (supplierId: string, query = '', as = admin) =>
    h.call('GET', pagePath(supplierId, query), { admin: as })

  it('maps every one of the ten modules: names, dictionary labels, tags, seasons, the resource own updateTime', async () => {
    const { supplierId } = await insertSupplier(h, { status: 'ACTIVE', supplierNo: 'SP1' })
    const hot = await insertTag(h, '#FF5722')
    const plain = await insertTag(h, null)
    const expected = new Map<string, Record<string, unknown>>()
    let second = 10
    for (const module of MODULES) {
      const resourceId = await insertResource(h, module, {
        name: `${module} 资源`,
        coverUrl: `https://storage.example.com/r/${module}.jpg`,
        city: '苏州',
        isCharged: module === 'SCENIC' ? false : true,
        settleTypeCode: module === 'COST_ITEM' ? null : 'PER_ORDER',
        statusCode: module === 'HOTEL' ? 'OFF_SALE' : 'ON_SALE',
        enabled: module !== 'STAFF',
        updateTime: '2026-03-04 05:06:07',
      })
      await linkTag(h, module, resourceId, plain.tagId, 2)
      await linkTag(h, module, resourceId, hot.tagId, 1)
      await linkSeason(h, module, resourceId, 'WINTER', 1)
      await linkSeason(h, module, resourceId, 'SPRING', 0)
      const relationId = await insertRelation(h, {
        supplierId,
        module,
        resourceId,
        updateTime: `2026-06-01 10:00:${String(second++).padStart(2, '0')}`,
      })
      expected.set(relationId, {
        relationId,
        resourceModule: module,
        moduleName: MODULE_NAMES[module],
        resourceId,
        resourceName: `${module} 资源`,
        coverUrl: `https://storage.example.com/r/${module}.jpg`,
        city: '苏州',
        isCharged: module !== 'SCENIC',
        isChargedName: module === 'SCENIC' ? '免费' : '收费',
        settleTypeCode: module === 'COST_ITEM' ? null : 'PER_ORDER',
        settleTypeName: module === 'COST_ITEM' ? null : '单结',
        tags: [
          { tagId: hot.tagId, tagName: hot.tagName, tagColor: '#FF5722' },
          { tagId: plain.tagId, tagName: plain.tagName, tagColor: '#909399' },
        ],
        seasons: [
          { seasonCode: 'SPRING', seasonName: '春季' },
          { seasonCode: 'WINTER', seasonName: '冬季' },
        ],
        statusCode: module === 'HOTEL' ? 'OFF_SALE' : 'ON_SALE',
        statusName: module === 'HOTEL' ? '已下架' : '在售',
        enabled: module !== 'STAFF',
        resourceAvailable: true,
        updateTime: '2026-03-04 05:06:07',
      })
    }
    const { status, body } = await get(supplierId)
    expect(status).toBe(200)
    expect(body).toMatchObject({ code: 200, success: true, message: '成功' })
    expect(body.data).toMatchObject({ total: 10, page: 1, pageSize: 20 })
    // Latest relation first: the reverse of insertion order.
    expect(body.data.records).toEqual([...expected.values()].reverse())
    for (const record of body.data.records) {
      expect(Object.keys(record).sort()).toEqual(
        [
          'relationId',
          'resourceModule',
          'moduleName',
          'resourceId',
          'resourceName',
          'coverUrl',
          'city',
          'isCharged',
          'isChargedName',
          'settleTypeCode',
          'settleTypeName',
          'tags',
          'seasons',
          'statusCode',
          'statusName',
          'enabled',
          'resourceAvailable',
          'updateTime',
        ].sort(),
      )
    }
  })

  it('null scalars of a live resource stay null; tags and seasons are [] when it has none, or only deleted ones', async () => {
    const { supplierId } = await insertSupplier(h, { status: 'ACTIVE', supplierNo: 'SP2' })
    const resourceId = await insertResource(h, 'SERVICE', {
      coverUrl: null,
      city: null,
      isCharged: null,
      settleTypeCode: null,
    })
    const gone = await insertTag(h)
    await linkTag(h, 'SERVICE', resourceId, gone.tagId, 0)
    await h.sql`UPDATE resource_tag SET deleted_at = now() WHERE tag_id = ${gone.tagId}`
    await insertRelation(h, { supplierId, module: 'SERVICE', resourceId })
    const { body } = await get(supplierId)
    expect(body.data.records[0]).toMatchObject({
      resourceAvailable: true,
      coverUrl: null,
      city: null,
      isCharged: null,
      isChargedName: null,
      settleTypeCode: null,
      settleTypeName: null,
      tags: [],
      seasons: [],
    })
  })

  it('keeps relations to deleted and missing resources (local and vehicle) with null current fields and empty arrays', async () => {
    const { supplierId } = await insertSupplier(h, { status: 'ACTIVE', supplierNo: 'SP3' })
    const deletedHotel = await insertResource(h, 'HOTEL', { deleted: true })
    const deletedVehicle = await insertResource(h, 'VEHICLE', { deleted: true })
    const hot = await insertTag(h)
    await linkTag(h, 'HOTEL', deletedHotel, hot.tagId, 0)
    await linkSeason(h, 'HOTEL', deletedHotel, 'SUMMER', 0)
    const rows: [Module, string][] = [
      ['HOTEL', deletedHotel],
      ['VEHICLE', deletedVehicle],
      ['STAFF', '9007199254999999'],
      ['VEHICLE', '9007199254999998'],
    ]
    const relationIds: string[] = []
    for (const [module, resourceId] of rows)
      relationIds.push(await insertRelation(h, { supplierId, module, resourceId }))
    const { body } = await get(supplierId)
    expect(body).toMatchObject({ code: 200, success: true })
    expect(body.data.total).toBe(4)
    const byId = new Map(body.data.records.map((r: any) => [r.relationId, r]))
    rows.forEach(([module, resourceId], i) => {
      expect(byId.get(relationIds[i])).toEqual({
        relationId: relationIds[i],
        resourceModule: module,
        moduleName: MODULE_NAMES[module],
        resourceId,
        resourceName: null,
        coverUrl: null,
        city: null,
        isCharged: null,
        isChargedName: null,
        settleTypeCode: null,
        settleTypeName: null,
        tags: [],
        seasons: [],
        statusCode: null,
        statusName: null,
        enabled: null,
        resourceAvailable: false,
        updateTime: null,
      })
    })
  })

  it('reads only valid relations, by relation update time DESC then relation id DESC; pages are stable and complete', async () => {
    const { supplierId } = await insertSupplier(h, { status: 'ACTIVE', supplierNo: 'SP4' })
    const ids: { relationId: string; updateTime: string }[] = []
    // Three relations per second over five seconds: ties broken by relation id.
    for (let i = 0; i < 15; i++) {
      const resourceId = await insertResource(h, MODULES[i % 9])
      const updateTime = `2026-07-01 09:00:0${[3, 1, 4, 0, 2][i % 5]}`
      ids.push({
        relationId: await insertRelation(h, {
          supplierId,
          module: MODULES[i % 9],
          resourceId,
          updateTime,
        }),
        updateTime,
      })
    }
    const resourceId = await insertResource(h, 'SCENIC')
    await insertRelation(h, { supplierId, module: 'SCENIC', resourceId, deleted: true })
    const other = await insertSupplier(h, { status: 'ACTIVE', supplierNo: 'SP5' })
    await insertRelation(h, { supplierId: other.supplierId, module: 'SCENIC', resourceId })

    const order = [...ids]
      .sort((a, b) =>
        a.updateTime !== b.updateTime
          ? b.updateTime.localeCompare(a.updateTime)
          : Number(BigInt(b.relationId) - BigInt(a.relationId)),
      )
      .map((r) => r.relationId)
    const all = await get(supplierId, 'pageSize=100')
    expect(all.body.data.total).toBe(15)
    expect(all.body.data.records.map((r: any) => r.relationId)).toEqual(order)

    const seen: string[] = []
    for (let p = 1; p <= 4; p++) {
      const { body } = await get(supplierId, `page=${p}&pageSize=4`)
      expect(body.data).toMatchObject({ total: 15, page: p, pageSize: 4 })
      seen.push(...body.data.records.map((r: any) => r.relationId))
    }
    expect(seen).toEqual(order)
    // Asking again gives the same pages.
    const again = await get(supplierId, 'page=2&pageSize=4')
    expect(again.body.data.records.map((r: any) => r.relationId)).toEqual(order.slice(4, 8))
    // pageNo is the compatible name of page.
    const alias = await get(supplierId, 'pageNo=2&pageSize=4')
    expect(alias.body.data).toMatchObject({ page: 2 })
    expect(alias.body.data.records.map((r: any) => r.relationId)).toEqual(order.slice(4, 8))
    const both = await get(supplierId, 'page=2&pageNo=2&pageSize=4')
    expect(both.body.data.records.map((r: any) => r.relationId)).toEqual(order.slice(4, 8))
    // Past the end: empty records, the total still told.
    const past = await get(supplierId, 'page=9&pageSize=4')
    expect(past.body.data).toEqual({ records: [], total: 15, page: 9, pageSize: 4 })
  })

  it('filters on the module frozen in the relation; empty means all; an unknown code is 395034', async () => {
    const { supplierId } = await insertSupplier(h, { status: 'ACTIVE', supplierNo: 'SP6' })
    for (const module of ['HOTEL', 'HOTEL', 'SCENIC', 'VEHICLE'] as Module[])
      await insertRelation(h, { supplierId, module, resourceId: await insertResource(h, module) })
    const hotels = await get(supplierId, 'resourceModule=HOTEL')
    expect(hotels.body.data.total).toBe(2)
    expect(hotels.body.data.records).toHaveLength(2)
    for (const r of hotels.body.data.records) expect(r.resourceModule).toBe('HOTEL')
    const vehicles = await get(supplierId, 'resourceModule=VEHICLE')
    expect(vehicles.body.data.records.map((r: any) => r.resourceModule)).toEqual(['VEHICLE'])
    const none = await get(supplierId, 'resourceModule=STAFF')
    expect(none.body.data).toEqual({ records: [], total: 0, page: 1, pageSize: 20 })
    const empty = await get(supplierId, 'resourceModule=')
    expect(empty.body.data.total).toBe(4)
    for (const code of ['hotel', 'FLEET', 'HOTEL ', 'UNKNOWN', 'x'.repeat(300)]) {
      const { status, body } = await get(supplierId, `resourceModule=${encodeURIComponent(code)}`)
      expect(status, code).toBe(200)
      expect(body, code).toEqual({
        code: 395034,
        message: 'unsupported resource module',
        success: false,
        data: null,
      })
    }
  })

  it('validates supplierId, page, pageNo and pageSize (400 naming the field)', async () => {
    const { supplierId } = await insertSupplier(h, { status: 'ACTIVE', supplierNo: 'SP7' })
    const cases: [string, string, string][] = [
      [supplierId, 'pageSize=0', 'pageSize'],
      [supplierId, 'pageSize=101', 'pageSize'],
      [supplierId, 'pageSize=abc', 'pageSize'],
      [supplierId, 'page=0', 'page'],
      [supplierId, 'pageNo=0', 'pageNo'],
      [supplierId, 'page=1.5', 'page'],
      [supplierId, 'page=1&pageNo=2', 'pageNo'],
      [supplierId, 'sortBy=name', 'sortBy'],
      ['0', '', 'supplierId'],
      ['abc', '', 'supplierId'],
      ['-1', '', 'supplierId'],
    ]
    for (const [id, query, field] of cases) {
      const { status, body } = await get(id, query)
      expect(status, query).toBe(200)
      expect(body, `${id} ${query}`).toMatchObject({ code: 400, success: false, data: null })
      expect(body.message, query).toContain(field)
    }
    const max = await get(supplierId, 'pageSize=100')
    expect(max.body.data).toMatchObject({ pageSize: 100, page: 1 })
    const min = await get(supplierId, 'pageSize=1')
    expect(min.body.data).toMatchObject({ pageSize: 1 })
  })

  it('reads a supplier in any status; no relation is an empty success; a missing or deleted supplier is 395001', async () => {
    for (const status of [
      'DRAFT',
      'VETTING',
      'ACTIVE',
      'SUSPENDED',
      'FROZEN',
      'BLACKLIST',
      'ARCHIVED',
    ] as const) {
      const { supplierId } = await insertSupplier(h, {
        status,
        supplierNo: ['DRAFT', 'VETTING'].includes(status) ? null : `SPS${status}`,
      })
      const empty = await get(supplierId)
      expect(empty.body, status).toEqual({
        code: 200,
        message: '成功',
        success: true,
        data: { records: [], total: 0, page: 1, pageSize: 20 },
      })
      await insertRelation(h, {
        supplierId,
        module: 'SCENIC',
        resourceId: await insertResource(h, 'SCENIC'),
      })
      const one = await get(supplierId)
      expect(one.body.data.total, status).toBe(1)
    }
    const missing = await get('9007199254999997')
    expect(missing.body).toMatchObject({ code: 395001, success: false, data: null })
    const { supplierId: deleted } = await insertSupplier(h, { deletedAt: 'now' })
    expect((await get(deleted)).body).toMatchObject({ code: 395001, success: false })
  })

  it('requires role ADMIN, FINANCE or SUPER_ADMIN and both supplier:view and supplier:resource:view', async () => {
    const { supplierId } = await insertSupplier(h, { status: 'ACTIVE', supplierNo: 'SP8' })
    const both = ['supplier:view', 'supplier:resource:view']
    for (const role of ['ADMIN', 'FINANCE', 'SUPER_ADMIN']) {
      const who = await h.admin(both, [role])
      expect((await get(supplierId, '', who)).body, role).toMatchObject({ code: 200 })
    }
    const denied: [readonly string[], string[]][] = [
      [both, []],
      [both, ['OPERATOR']],
      [['supplier:view'], ['ADMIN']],
      [['supplier:resource:view'], ['ADMIN']],
      [ALL_PERMISSIONS.filter((p) => p !== 'supplier:resource:view'), ['SUPER_ADMIN']],
    ]
    for (const [permissions, roles] of denied) {
      const who = await h.admin(permissions, roles)
      const { body } = await get(supplierId, '', who)
      expect(body, `${permissions} ${roles}`).toMatchObject({
        code: 395002,
        success: false,
        data: null,
      })
    }
    // Authorization is checked before the supplier is looked up.
    const nobody = await h.admin([], [])
    expect((await get('9007199254999997', '', nobody)).body).toMatchObject({ code: 395002 })
    const anonymous = await h.call('GET', pagePath(supplierId), { admin: null })
    expect(anonymous.body).toMatchObject({ code: 401, success: false })
  })
})
