import { describe, expect, it } from 'vitest'
import { expiringQualificationQuery } from '../sql/compliance'
import { insertQualification, insertSupplier, tag } from './fixtures'
import { useHarness } from './harness'

/*
 * Per-type compliance in the supplier detail, and the qualification expiry list
 * (GET /admin/supplier/qualifications/expiring), through the HTTP API on a real database.
 */

const h = useHarness()

/** yyyy-MM-dd of today + n days in the service time zone (the session's). */
async function day(n: number) {
  const [row] = await h.sql`SELECT to_char(current_date + ${n}::int, 'YYYY-MM-DD') AS d`
  return row.d as string
}

/** A supplier type code of this test alone, so rules of other tests never interfere. */
const newType = () => `T_${tag().toUpperCase()}`

async function rule(
  typeCode: string,
  qualType: string,
  warningDays: number,
  o: { isRequired?: boolean; sortOrder?: number; deleted?: boolean } = {},
) {
  await h.sql`
    INSERT INTO qualification_rule (type_code, qual_type, is_required, warning_days, sort_order, deleted_at)
    VALUES (${typeCode}, ${qualType}, ${o.isRequired ?? true}, ${warningDays}, ${o.sortOrder ?? 0},
            ${o.deleted ? h.sql`now()` : null})`
}

const detail = async (supplierId: string) => {
  const res = await h.call('GET', `/admin/supplier/items/${supplierId}`)
  expect(res.body.code).toBe(200)
  return res.body.data
}

describe('compliance in the supplier detail', () => {
  it('happy: OK, EXPIRING, EXPIRED and MISSING per type, worst state wins', async () => {
    const [ok, expiring, expired, missing] = [newType(), newType(), newType(), newType()]
    await rule(ok, 'LICENSE', 30, { sortOrder: 1 })
    await rule(ok, 'FOREVER', 30, { sortOrder: 2 })
    await rule(expiring, 'LICENSE', 30, { sortOrder: 1 })
    await rule(expiring, 'HEALTH', 10, { sortOrder: 2 })
    await rule(expired, 'FIRE', 5)
    await rule(missing, 'ROAD', 5, { sortOrder: 1 })
    await rule(missing, 'FIRE', 5, { sortOrder: 2 })
    const s = await insertSupplier(h, {
      status: 'ACTIVE',
      types: [
        { typeCode: ok, isPrimary: true },
        { typeCode: expiring },
        { typeCode: expired },
        { typeCode: missing },
      ],
      qualifications: [
        { qualType: 'LICENSE', expiryDate: await day(100) },
        { qualType: 'FOREVER', expiryDate: null },
        { qualType: 'HEALTH', expiryDate: await day(10) },
        { qualType: 'FIRE', expiryDate: await day(-1) },
      ],
    })
    const d = await detail(s.supplierId)
    const byType = Object.fromEntries(d.compliance.map((c: any) => [c.typeCode, c]))
    expect(d.compliance[0].typeCode).toBe(ok) // primary first
    expect(byType[ok]).toEqual({
      typeCode: ok,
      state: 'OK',
      requiredQualifications: [
        {
          qualType: 'LICENSE',
          state: 'OK',
          expiryDate: await day(100),
          daysLeft: 100,
          warningDays: 30,
        },
        { qualType: 'FOREVER', state: 'OK', expiryDate: null, daysLeft: null, warningDays: 30 },
      ],
    })
    expect(byType[expiring].state).toBe('EXPIRING')
    expect(byType[expiring].requiredQualifications[1]).toEqual({
      qualType: 'HEALTH',
      state: 'EXPIRING',
      expiryDate: await day(10),
      daysLeft: 10,
      warningDays: 10,
    })
    expect(byType[expired]).toEqual({
      typeCode: expired,
      state: 'EXPIRED',
      requiredQualifications: [
        {
          qualType: 'FIRE',
          state: 'EXPIRED',
          expiryDate: await day(-1),
          daysLeft: -1,
          warningDays: 5,
        },
      ],
    })
    expect(byType[missing].state).toBe('MISSING')
    expect(byType[missing].requiredQualifications.map((q: any) => q.state)).toEqual([
      'MISSING',
      'EXPIRED',
    ])
  })

  it('edges: the best live qualification counts; deleted ones, deleted rules and optional rules do not', async () => {
    const type = newType()
    await rule(type, 'LICENSE', 30)
    await rule(type, 'OLD_RULE', 30, { deleted: true })
    await rule(type, 'NICE_TO_HAVE', 30, { isRequired: false })
    const s = await insertSupplier(h, {
      types: [
        { typeCode: type, isPrimary: true },
        { typeCode: newType(), deletedAt: 'now' },
      ],
      qualifications: [
        { qualType: 'LICENSE', expiryDate: await day(-30) },
        { qualType: 'LICENSE', expiryDate: await day(45) },
        { qualType: 'LICENSE', expiryDate: null, deletedAt: 'now' },
      ],
    })
    const d = await detail(s.supplierId)
    expect(d.compliance).toEqual([
      {
        typeCode: type,
        state: 'OK',
        requiredQualifications: [
          {
            qualType: 'LICENSE',
            state: 'OK',
            expiryDate: await day(45),
            daysLeft: 45,
            warningDays: 30,
          },
        ],
      },
    ])
  })

  it('edges: expiring today is EXPIRING with 0 days left; warningDays 0 means OK until the day itself', async () => {
    const type = newType()
    await rule(type, 'TODAY', 0, { sortOrder: 1 })
    await rule(type, 'TOMORROW', 0, { sortOrder: 2 })
    const s = await insertSupplier(h, {
      types: [{ typeCode: type, isPrimary: true }],
      qualifications: [
        { qualType: 'TODAY', expiryDate: await day(0) },
        { qualType: 'TOMORROW', expiryDate: await day(1) },
      ],
    })
    const d = await detail(s.supplierId)
    expect(d.compliance[0].requiredQualifications.map((q: any) => [q.state, q.daysLeft])).toEqual([
      ['EXPIRING', 0],
      ['OK', 1],
    ])
  })
})

const expiring = (query = '', admin?: string) =>
  h.call('GET', `/admin/supplier/qualifications/expiring${query}`, admin ? { admin } : {})

describe('GET /qualifications/expiring', () => {
  it("happy: by default each qualification's own rule warningDays decides; soonest first; days left", async () => {
    const type = newType()
    await rule(type, 'LICENSE', 30)
    await rule(type, 'HEALTH', 5)
    const s = await insertSupplier(h, {
      fullName: `到期测试 ${tag()}`,
      status: 'ACTIVE',
      supplierNo: `SPX${tag()}`,
      types: [{ typeCode: type, isPrimary: true }],
    })
    const license = await insertQualification(h, s.supplierId, {
      qualType: 'LICENSE',
      certNo: 'LIC-2026-00981',
      expiryDate: await day(20),
    })
    const healthSoon = await insertQualification(h, s.supplierId, {
      qualType: 'HEALTH',
      expiryDate: await day(3),
    })
    await insertQualification(h, s.supplierId, { qualType: 'HEALTH', expiryDate: await day(8) }) // beyond 5
    await insertQualification(h, s.supplierId, { qualType: 'LICENSE', expiryDate: await day(-1) }) // expired
    await insertQualification(h, s.supplierId, { qualType: 'LICENSE', expiryDate: null }) // never
    await insertQualification(h, s.supplierId, {
      qualType: 'LICENSE',
      expiryDate: await day(2),
      deletedAt: 'now',
    })
    const res = await expiring(`?typeCode=${type}`)
    expect(res.body).toMatchObject({ code: 200, success: true })
    expect(res.body.data).toEqual({
      records: [
        {
          qualificationId: healthSoon,
          supplierId: s.supplierId,
          supplierNo: expect.stringMatching(/^SPX/),
          fullName: expect.stringMatching(/^到期测试/),
          supplierStatus: 'ACTIVE',
          qualType: 'HEALTH',
          certNoMask: null,
          expiryDate: await day(3),
          daysLeft: 3,
          typeCodes: [type],
          warningDays: 5,
        },
        expect.objectContaining({
          qualificationId: license,
          qualType: 'LICENSE',
          certNoMask: 'LI********0981',
          daysLeft: 20,
          warningDays: 30,
        }),
      ],
      total: 2,
      page: 1,
      pageSize: 20,
    })
    expect(JSON.stringify(res.body)).not.toContain('LIC-2026-00981')
  })

  it('happy: withinDays overrides the rules, also for qualifications no rule names', async () => {
    const type = newType()
    await rule(type, 'LICENSE', 1)
    const s = await insertSupplier(h, { status: 'SUSPENDED', types: [{ typeCode: type }] })
    const named = await insertQualification(h, s.supplierId, {
      qualType: 'LICENSE',
      expiryDate: await day(9),
    })
    const unnamed = await insertQualification(h, s.supplierId, {
      qualType: `UNRULED_${tag()}`,
      expiryDate: await day(10),
    })
    await insertQualification(h, s.supplierId, { qualType: 'LICENSE', expiryDate: await day(11) })
    const typed = await expiring(`?typeCode=${type}&withinDays=10`)
    expect(typed.body.data.records.map((r: any) => r.qualificationId)).toEqual([named])
    const all = await expiring('?withinDays=10&pageSize=100')
    const mine = all.body.data.records.filter((r: any) => r.supplierId === s.supplierId)
    expect(mine.map((r: any) => [r.qualificationId, r.typeCodes, r.warningDays])).toEqual([
      [named, [type], 1],
      [unnamed, [], null],
    ])
    const byDefault = await expiring('?pageSize=100')
    expect(byDefault.body.data.records.some((r: any) => r.supplierId === s.supplierId)).toBe(false)
  })

  it('edges: deleted and archived suppliers, and types the supplier no longer has, are left out', async () => {
    const type = newType()
    await rule(type, 'LICENSE', 30)
    const archived = await insertSupplier(h, {
      status: 'ARCHIVED',
      supplierNo: `SPA${tag()}`,
      types: [{ typeCode: type }],
      qualifications: [{ qualType: 'LICENSE', expiryDate: await day(1) }],
    })
    const deleted = await insertSupplier(h, {
      deletedAt: 'now',
      types: [{ typeCode: type }],
      qualifications: [{ qualType: 'LICENSE', expiryDate: await day(1) }],
    })
    const typeGone = await insertSupplier(h, {
      types: [
        { typeCode: 'OTHER', isPrimary: true },
        { typeCode: type, deletedAt: 'now' },
      ],
      qualifications: [{ qualType: 'LICENSE', expiryDate: await day(1) }],
    })
    const live = await insertSupplier(h, {
      types: [{ typeCode: type }],
      qualifications: [{ qualType: 'LICENSE', expiryDate: await day(1) }],
    })
    const res = await expiring(`?typeCode=${type}&withinDays=5`)
    const suppliers = res.body.data.records.map((r: any) => r.supplierId)
    expect(suppliers).toEqual([live.supplierId])
    expect(suppliers).not.toContain(archived.supplierId)
    expect(suppliers).not.toContain(deleted.supplierId)
    expect(suppliers).not.toContain(typeGone.supplierId)
  })

  it('happy: pages are stable (expiry, then id) and total counts them all', async () => {
    const type = newType()
    await rule(type, 'LICENSE', 60)
    const s = await insertSupplier(h, { types: [{ typeCode: type }] })
    const ids: string[] = []
    for (const n of [5, 1, 5, 3, 2]) {
      ids.push(
        await insertQualification(h, s.supplierId, {
          qualType: 'LICENSE',
          expiryDate: await day(n),
        }),
      )
    }
    const [q5a, q1, q5b, q3, q2] = ids
    const page1 = await expiring(`?typeCode=${type}&pageSize=2&page=1`)
    const page2 = await expiring(`?typeCode=${type}&pageSize=2&page=2`)
    const page3 = await expiring(`?typeCode=${type}&pageSize=2&page=3`)
    expect(page1.body.data.total).toBe(5)
    expect(
      [page1, page2, page3].flatMap((p) => p.body.data.records.map((r: any) => r.qualificationId)),
    ).toEqual([q1, q2, q3, q5a, q5b])
  })

  it('security: needs supplier:view (395002); bad or unknown parameters are 400', async () => {
    const viewer = await h.admin(['supplier:list'])
    expect((await expiring('', viewer)).body.code).toBe(395002)
    for (const q of [
      '?withinDays=-1',
      '?withinDays=1e2',
      '?withinDays=0x2',
      '?withinDays=%202',
      '?withinDays=02',
      '?withinDays=abc',
      '?withinDays=3651',
      '?pageSize=101',
      '?taxNo=1',
    ]) {
      const res = await expiring(q)
      expect(res.body.code, q).toBe(400)
    }
  })

  it('index-backed: the page query reads supplier_qualification_expiring in order (no sort)', async () => {
    const plans: string[] = []
    await h.sql.begin(async (tx) => {
      // The test tables are tiny, so a sequential scan would win on cost: take it away to see
      // whether the index can serve the query at all.
      await tx`SET LOCAL enable_seqscan = off`
      await tx`SET LOCAL enable_bitmapscan = off`
      for (const f of [{}, { withinDays: 30 }, { typeCode: 'HOTEL' }]) {
        const rows =
          await tx`EXPLAIN ${expiringQualificationQuery(tx, { ...f, limit: 20, offset: 0 })}`
        plans.push(rows.map((r: any) => r['QUERY PLAN']).join('\n'))
      }
    })
    for (const plan of plans) {
      expect(plan).toContain('supplier_qualification_expiring')
      expect(plan).not.toMatch(/\bSort\b/)
    }
  })
})
