import { beforeAll, describe, expect, it } from 'vitest'
import { insertSupplier } from './fixtures'
import { useHarness } from './harness'
import { insertRelation, insertResource } from './resource-data'

const relationPath = (module: string, resourceId: string) =>
  `/admin/supplier/resource-relations/${module}/${resourceId}`

describe('SUP-ADM-048: the current relation of a resource', () => {
  const h = useHarness()
  let admin: string
  beforeAll(async () => {
    admin = await h.admin(['supplier:view'], [])
  })
  const get = (module: string, resourceId: string, as = admin) =>
    h.call('GET', relationPath(module, resourceId), { admin: as })

  it('answers the valid relation with its supplier, module name, resource name, required type and version', async () => {
    const { supplierId } = await insertSupplier(h, {
      status: 'ACTIVE',
      supplierNo: 'SPR1',
      fullName: '杭州湖畔酒店管理有限公司',
      types: [{ typeCode: 'HOTEL', isPrimary: true }],
    })
    const resourceId = await insertResource(h, 'HOTEL', { name: '湖畔酒店' })
    await insertRelation(h, {
      supplierId,
      module: 'HOTEL',
      resourceId,
      deleted: true,
      requiredTypeCode: 'OTHER',
    })
    const relationId = await insertRelation(h, {
      supplierId,
      module: 'HOTEL',
      resourceId,
      requiredTypeCode: 'HOTEL',
      remark: '合作酒店',
      updateTime: '2026-09-01 12:00:00',
    })
    const { body } = await get('HOTEL', resourceId)
    expect(body).toEqual({
      code: 200,
      message: '成功',
      success: true,
      data: {
        relationId,
        supplierId,
        supplierNo: 'SPR1',
        supplierName: '杭州湖畔酒店管理有限公司',
        resourceModule: 'HOTEL',
        moduleName: '酒店管理',
        resourceId,
        resourceName: '湖畔酒店',
        requiredTypeCode: 'HOTEL',
        requiredTypeName: '酒店',
        remark: '合作酒店',
        available: true,
        reasons: [],
        createTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
        updateTime: '2026-09-01 12:00:00',
      },
    })
  })

  it('is null for a resource without a valid relation', async () => {
    const resourceId = await insertResource(h, 'SCENIC')
    expect((await get('SCENIC', resourceId)).body).toEqual({
      code: 200,
      message: '成功',
      success: true,
      data: null,
    })
  })

  it('reports why a relation is no longer available: supplier status, required type gone, resource deleted', async () => {
    for (const status of ['SUSPENDED', 'FROZEN', 'BLACKLIST', 'ARCHIVED'] as const) {
      const { supplierId } = await insertSupplier(h, { status, supplierNo: `SPR${status}` })
      const resourceId = await insertResource(h, 'STAFF')
      await insertRelation(h, { supplierId, module: 'STAFF', resourceId })
      const { body } = await get('STAFF', resourceId)
      expect(body.data, status).toMatchObject({
        available: false,
        reasons: [`SUPPLIER_STATUS_${status}`],
      })
    }
    const { supplierId } = await insertSupplier(h, {
      status: 'ACTIVE',
      supplierNo: 'SPR2',
      types: [{ typeCode: 'SCENIC', isPrimary: true }],
    })
    const deleted = await insertResource(h, 'VEHICLE', { deleted: true })
    await insertRelation(h, {
      supplierId,
      module: 'VEHICLE',
      resourceId: deleted,
      requiredTypeCode: 'FLEET',
    })
    const { body } = await get('VEHICLE', deleted)
    expect(body.data).toMatchObject({
      resourceModule: 'VEHICLE',
      moduleName: '车队管理-车队管理',
      resourceName: null,
      requiredTypeCode: 'FLEET',
      requiredTypeName: '车队',
      available: false,
      reasons: ['REQUIRED_TYPE_NOT_HELD', 'RESOURCE_UNAVAILABLE'],
    })
  })

  it('validates the path: unknown module 395034, bad resource id 400', async () => {
    expect((await get('hotel', '9007199254740993')).body).toEqual({
      code: 395034,
      message: 'unsupported resource module',
      success: false,
      data: null,
    })
    for (const id of ['0', 'abc', '-5']) {
      expect((await get('HOTEL', id)).body, id).toMatchObject({ code: 400, success: false })
    }
  })

  it('requires supplier:view', async () => {
    const resourceId = await insertResource(h, 'SCENIC')
    const nobody = await h.admin(['supplier:list'], ['ADMIN'])
    expect((await get('SCENIC', resourceId, nobody)).body).toMatchObject({
      code: 395002,
      success: false,
      data: null,
    })
  })
})
