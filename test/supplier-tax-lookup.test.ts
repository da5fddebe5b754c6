import { describe, expect, it } from 'vitest'
import { ALL_PERMISSIONS, useHarness } from './harness'
import { insertSupplier, randomTaxNo } from './fixtures'

/*
 * POST /admin/supplier/tax-number-lookup (an addition to the spec, docs/api.md): which live
 * supplier holds a tax number. The number travels in the body and is compared through C-02's
 * blind index; the supplier comes back masked; a supplier found is a sensitive read, audited in
 * the transaction that reads it; the number is never echoed or logged.
 */

const h = useHarness()
const LOOKUP = '/admin/supplier/tax-number-lookup'

const audits = (adminId: string) => h.sql`
  SELECT subject, subject_id::text AS "subjectId", field_name AS "fieldName", request_id AS "requestId"
  FROM sensitive_read_audit WHERE admin_id = ${adminId} ORDER BY id`

describe('tax-number lookup', () => {
  it('happy: any spelling C-02 folds finds the holder, masked, and the read is audited', async () => {
    const taxNo = randomTaxNo()
    const s = await insertSupplier(h, { taxNo, fullName: '温州澜沧旅游有限公司', status: 'ACTIVE' })
    const admin = await h.admin(['supplier:view'])
    const spelled = ` ${taxNo.toLowerCase().replace(/[0-9A-Z]/gi, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0))} `
    for (const sent of [taxNo, spelled]) {
      const res = await h.call('POST', LOOKUP, { admin, body: { taxNo: sent } })
      expect(res.body).toMatchObject({ code: 200, success: true })
      expect(res.body.data.supplier).toMatchObject({
        supplierId: s.supplierId,
        fullName: '温州澜沧旅游有限公司',
        status: 'ACTIVE',
      })
      expect(res.body.data.supplier.taxNoMask).toMatch(/\*/)
      expect(JSON.stringify(res.body)).not.toContain(taxNo)
      expect(JSON.stringify(res.body)).not.toContain(taxNo.slice(0, 10))
    }
    const rows = await audits(admin)
    expect(rows).toHaveLength(2)
    for (const row of rows) {
      expect(row).toMatchObject({
        subject: 'supplier',
        subjectId: s.supplierId,
        fieldName: 'taxNo',
      })
      expect(row.requestId).toBeTruthy()
    }
    expect(h.logs.join('\n')).not.toContain(taxNo)
  })

  it('happy: a number no live supplier holds answers null and audits nothing', async () => {
    const admin = await h.admin(['supplier:view'])
    const res = await h.call('POST', LOOKUP, { admin, body: { taxNo: randomTaxNo() } })
    expect(res.body).toMatchObject({ code: 200, success: true, data: { supplier: null } })
    const deletedTaxNo = randomTaxNo()
    await insertSupplier(h, { taxNo: deletedTaxNo, deletedAt: 'now' })
    const deleted = await h.call('POST', LOOKUP, { admin, body: { taxNo: deletedTaxNo } })
    expect(deleted.body.data).toEqual({ supplier: null })
    expect(await audits(admin)).toEqual([])
  })

  it('error: a blank or oversized number, or another field, is 400 and nothing is written', async () => {
    const admin = await h.admin([...ALL_PERMISSIONS])
    for (const body of [{ taxNo: '  ' }, { taxNo: 'X'.repeat(65) }, { taxNo: 'A', other: 1 }, {}]) {
      const res = await h.call('POST', LOOKUP, { admin, body })
      expect(res.body).toMatchObject({ code: 400, success: false, data: null })
    }
    expect(await audits(admin)).toEqual([])
  })

  it('security: without supplier:view the answer is 395002 and nothing is looked up', async () => {
    const taxNo = randomTaxNo()
    await insertSupplier(h, { taxNo })
    const admin = await h.admin(['supplier:list'])
    const res = await h.call('POST', LOOKUP, { admin, body: { taxNo } })
    expect(res.body).toMatchObject({ code: 395002, success: false, data: null })
    expect(await audits(admin)).toEqual([])
  })

  it('security: the number is refused in the URL', async () => {
    const admin = await h.admin(['supplier:list', 'supplier:view'])
    const res = await h.call('GET', `/admin/supplier/items?taxNo=${randomTaxNo()}`, { admin })
    expect(res.body).toMatchObject({ code: 400, success: false })
  })
})
