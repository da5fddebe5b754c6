import { describe, expect, it } from 'vitest'
import { createDraft, submit, submitBodyFrom } from './client'
import { useHarness } from './harness'
import { dayFromToday, putRules, qual, supplierRow } from './supplier-submit-data'
import { draftBody } from './supplier-data'
import { unchanged } from './unchanged'

/*
 * SUP-ADM-007 submit registration, C-09: every required qualification of every chosen type,
 * valid on the day of the submit, from the rules put through the API; a refusal writes
 * nothing (the form sent with it included).
 */

type Body = Record<string, any>

describe('SUP-ADM-007 submit registration: C-09, the union of required qualifications of all chosen types', () => {
  const h = useHarness()

  const setRules = async () => {
    await putRules(h, 'HOTEL', [
      { qualType: 'BUSINESS_LICENSE', isRequired: true, warningDays: 30, sortOrder: 1 },
      { qualType: 'PUBLIC_HEALTH_PERMIT', isRequired: true, warningDays: 30, sortOrder: 2 },
      { qualType: 'TAX_REGISTRATION', isRequired: false, warningDays: 30, sortOrder: 3 },
    ])
    await putRules(h, 'RESTAURANT', [
      { qualType: 'BUSINESS_LICENSE', isRequired: true, warningDays: 30, sortOrder: 1 },
      { qualType: 'FOOD_OPERATION_PERMIT', isRequired: true, warningDays: 30, sortOrder: 2 },
    ])
  }
  const HOTEL_AND_RESTAURANT = [{ typeCode: 'HOTEL' }, { typeCode: 'RESTAURANT' }]

  /** Submits and expects 395008 with nothing written; returns the error. */
  async function expectMissing(admin: string, body: Body, submitOverrides: Body = {}) {
    const draft = await createDraft(h, body, admin)
    const row = await supplierRow(h, draft.supplierId)
    const res = await unchanged(h, () =>
      submit(h, draft.supplierId, submitBodyFrom(body, draft.version, submitOverrides), { admin }),
    )
    expect(res.body, JSON.stringify(res.body)).toMatchObject({ code: 395008, success: false })
    expect(await supplierRow(h, draft.supplierId)).toEqual(row)
    expect(row.status).toBe('DRAFT')
    return res.body
  }

  describe('happy', () => {
    it('applies when every required one is present and valid (expiring today counts; optional not needed)', async () => {
      await setRules()
      const admin = await h.admin()
      const body = draftBody({ types: HOTEL_AND_RESTAURANT })
      const draft = await createDraft(h, body, admin)
      const res = await submit(
        h,
        draft.supplierId,
        submitBodyFrom(body, draft.version, {
          qualifications: [
            qual('BUSINESS_LICENSE', null),
            qual('FOOD_OPERATION_PERMIT'),
            qual('PUBLIC_HEALTH_PERMIT', dayFromToday(h, 0)),
          ],
        }),
        { admin },
      )
      expect(res.body, JSON.stringify(res.body)).toMatchObject({
        code: 200,
        data: { approvalStatus: 'APPLIED' },
      })
      expect((await supplierRow(h, draft.supplierId)).status).toBe('ACTIVE')
    })
  })

  describe('error', () => {
    it('lists every missing required qualification of the type union (395008, nothing written)', async () => {
      await setRules()
      const admin = await h.admin()
      const error = await expectMissing(admin, draftBody({ types: HOTEL_AND_RESTAURANT }), {
        // The form sent with the submit is rolled back too.
        shortName: 'changed at submit',
      })
      const missing = ['BUSINESS_LICENSE', 'FOOD_OPERATION_PERMIT', 'PUBLIC_HEALTH_PERMIT']
      for (const m of missing) expect(error.message).toContain(m)
      expect(error.message).not.toContain('TAX_REGISTRATION')
      expect(error.data.missing.map((m: Body) => m.qualType).sort()).toEqual(missing)
      expect(error.data.missing.find((m: Body) => m.qualType === 'BUSINESS_LICENSE')).toMatchObject(
        { typeCodes: ['HOTEL', 'RESTAURANT'] },
      )
    })

    it('requires only the missing one when some are present (HOTEL only)', async () => {
      await setRules()
      const admin = await h.admin()
      const error = await expectMissing(
        admin,
        draftBody({ types: [{ typeCode: 'HOTEL' }], qualifications: [qual('BUSINESS_LICENSE')] }),
      )
      expect(error.data.missing.map((m: Body) => m.qualType)).toEqual(['PUBLIC_HEALTH_PERMIT'])
    })

    it('counts an expired qualification (expiryDate yesterday) as missing', async () => {
      await setRules()
      const admin = await h.admin()
      const error = await expectMissing(
        admin,
        draftBody({
          types: HOTEL_AND_RESTAURANT,
          qualifications: [
            qual('BUSINESS_LICENSE'),
            qual('FOOD_OPERATION_PERMIT'),
            qual('PUBLIC_HEALTH_PERMIT', dayFromToday(h, -1)),
          ],
        }),
      )
      expect(error.data.missing.map((m: Body) => m.qualType)).toEqual(['PUBLIC_HEALTH_PERMIT'])
    })

    it('checks the qualifications sent with the submit: an empty list removes them and fails', async () => {
      await setRules()
      const admin = await h.admin()
      const error = await expectMissing(
        admin,
        draftBody({
          types: HOTEL_AND_RESTAURANT,
          qualifications: [
            qual('BUSINESS_LICENSE'),
            qual('FOOD_OPERATION_PERMIT'),
            qual('PUBLIC_HEALTH_PERMIT'),
          ],
        }),
        { qualifications: [] },
      )
      expect(error.data.missing).toHaveLength(3)
    })

    it('ignores a soft-deleted qualification', async () => {
      await setRules()
      const admin = await h.admin()
      const body = draftBody({
        types: [{ typeCode: 'HOTEL' }],
        qualifications: [qual('BUSINESS_LICENSE'), qual('PUBLIC_HEALTH_PERMIT')],
      })
      const draft = await createDraft(h, body, admin)
      await h.sql`
        UPDATE supplier_qualification SET deleted_at = now()
        WHERE supplier_id = ${draft.supplierId} AND qual_type = 'PUBLIC_HEALTH_PERMIT'`
      const res = await submit(h, draft.supplierId, submitBodyFrom(body, draft.version), { admin })
      expect(res.body).toMatchObject({ code: 395008 })
      expect(res.body.data.missing.map((m: Body) => m.qualType)).toEqual(['PUBLIC_HEALTH_PERMIT'])
      expect((await supplierRow(h, draft.supplierId)).status).toBe('DRAFT')
    })
  })
})
