import { describe, expect, it } from 'vitest'
import { useHarness } from './harness'
import {
  LICENSE,
  create,
  createDraft,
  detail,
  ok,
  refused,
  registerActive,
  submit,
  submitBodyFrom,
  update,
  type Body,
} from './client'
import { CONTACT_PHONE, STORAGE, draftBody, uniqueTaxNo } from './supplier-data'
import { unchanged } from './unchanged'

/*
 * Findings of a review of registration, through the HTTP API on a real
 * database: C-06 answers its own code at submit, changeReason is required on every update, at
 * most one primary type, and the change-log rows of added items name the new item.
 */

const h = useHarness()

async function changeLogs(supplierId: string) {
  return (await h.sql`
    SELECT operation_type, target_type, target_id::text AS target_id, field_name,
           old_value_masked, new_value_masked, change_reason
    FROM change_log WHERE supplier_id = ${supplierId} ORDER BY change_log_id
  `) as unknown as Body[]
}

async function typeRows(supplierId: string) {
  return (await h.sql`
    SELECT id::text AS id, type_code, is_primary FROM supplier_type
    WHERE supplier_id = ${supplierId} AND deleted_at IS NULL ORDER BY type_code
  `) as unknown as { id: string; type_code: string; is_primary: boolean }[]
}

describe('C-06 at submit: the licence image answers 395007, not 400', () => {
  it('error: a submit without licenseImageUrl is 395007 even when the draft holds one, and writes nothing', async () => {
    const body = draftBody({ licenseImageUrl: LICENSE })
    const draft = await createDraft(h, body)
    const full = submitBodyFrom(body, draft.version)
    delete full.licenseImageUrl
    await unchanged(h, async () => {
      refused(await submit(h, draft.supplierId, full), 395007)
      refused(await submit(h, draft.supplierId, { ...full, licenseImageUrl: null }), 395007)
      refused(await submit(h, draft.supplierId, { ...full, licenseImageUrl: '' }), 395007)
    })
    const view = ok(await detail(h, draft.supplierId))
    expect(view).toMatchObject({ status: 'DRAFT', licenseImageUrl: LICENSE, supplierNo: null })
    // The same form with the image registers: nothing else in it was wrong.
    expect(
      ok(await submit(h, draft.supplierId, { ...full, licenseImageUrl: LICENSE })),
    ).toMatchObject({
      approvalStatus: 'APPLIED',
    })
  })

  it('error: a draft that never had a licence image is 395007 at submit', async () => {
    const body = draftBody()
    const draft = await createDraft(h, body)
    await unchanged(h, async () => {
      const noLicence = submitBodyFrom(body, draft.version, { licenseImageUrl: undefined })
      refused(await submit(h, draft.supplierId, noLicence), 395007)
    })
    expect(ok(await detail(h, draft.supplierId)).status).toBe('DRAFT')
  })

  it('error: a licence image URL off the storage prefixes is still 395018; over 500 characters 400', async () => {
    const body = draftBody({ licenseImageUrl: LICENSE })
    const draft = await createDraft(h, body)
    await unchanged(h, async () => {
      refused(
        await submit(
          h,
          draft.supplierId,
          submitBodyFrom(body, draft.version, {
            licenseImageUrl: 'https://evil.example.org/l.png',
          }),
        ),
        395018,
      )
      refused(
        await submit(
          h,
          draft.supplierId,
          submitBodyFrom(body, draft.version, { licenseImageUrl: `${STORAGE}${'x'.repeat(500)}` }),
        ),
        400,
        'licenseImageUrl',
      )
    })
  })
})

describe('changeReason is required on SupplierUpdateRequest', () => {
  it('error: an update without changeReason is 400 naming it, for a DRAFT and an ACTIVE supplier', async () => {
    const draft = await createDraft(h, draftBody())
    const active = await registerActive(h)
    await unchanged(h, async () => {
      for (const s of [draft, active]) {
        const patch = { shortName: 'Lakeside', expectedUpdateTime: s.version }
        refused(await update(h, s.supplierId, patch), 400, 'changeReason')
        refused(
          await update(h, s.supplierId, { ...patch, changeReason: null }),
          400,
          'changeReason',
        )
        refused(await update(h, s.supplierId, { ...patch, changeReason: '' }), 400, 'changeReason')
        refused(
          await update(h, s.supplierId, { ...patch, changeReason: '   ' }),
          400,
          'changeReason',
        )
        refused(
          await update(h, s.supplierId, { ...patch, changeReason: 'x'.repeat(501) }),
          400,
          'changeReason',
        )
      }
    })
  })

  it('happy: the reason (trimmed) is recorded on every change-log row of the update; 500 characters fit', async () => {
    const draft = await createDraft(h, draftBody())
    const reason = `${'r'.repeat(498)}ok`
    const data = ok(
      await update(h, draft.supplierId, {
        shortName: 'Lakeside',
        remark: 'seen at the fair',
        changeReason: ` ${reason} `,
        expectedUpdateTime: draft.version,
      }),
    )
    expect(data.status).toBe('DRAFT')
    const rows = (await changeLogs(draft.supplierId)).filter(
      (r) => r.operation_type === 'DRAFT_UPDATE',
    )
    expect(rows.map((r) => r.field_name).sort()).toEqual(['remark', 'shortName'])
    for (const r of rows) expect(r.change_reason).toBe(reason)

    const active = await registerActive(h)
    ok(
      await update(h, active.supplierId, {
        address: 'Hangzhou',
        changeReason: 'moved office',
        expectedUpdateTime: active.version,
      }),
    )
    const [row] = (await changeLogs(active.supplierId)).filter(
      (r) => r.operation_type === 'PROFILE_UPDATE',
    )
    expect(row).toMatchObject({ field_name: 'address', change_reason: 'moved office' })
  })
})

describe('at most one primary type', () => {
  const twoPrimaries = [
    { typeCode: 'SCENIC', isPrimary: true },
    { typeCode: 'OTHER', isPrimary: true },
  ]

  it('error: two types with isPrimary true are 400 on create, update and submit, and nothing is written', async () => {
    const body = draftBody({ licenseImageUrl: LICENSE })
    const draft = await createDraft(h, body)
    await unchanged(h, async () => {
      refused(await create(h, draftBody({ types: twoPrimaries })), 400, 'types')
      refused(
        await update(h, draft.supplierId, {
          types: twoPrimaries,
          changeReason: 'types',
          expectedUpdateTime: draft.version,
        }),
        400,
        'types',
      )
      refused(
        await submit(
          h,
          draft.supplierId,
          submitBodyFrom(body, draft.version, { types: twoPrimaries }),
        ),
        400,
        'types',
      )
    })
    // One primary among several types is fine.
    const one = await createDraft(
      h,
      draftBody({ types: [{ typeCode: 'SCENIC', isPrimary: true }, { typeCode: 'OTHER' }] }),
    )
    expect(await typeRows(one.supplierId)).toMatchObject([
      { type_code: 'OTHER', is_primary: false },
      { type_code: 'SCENIC', is_primary: true },
    ])
  })

  it('happy: naming another primary type makes it the only one (the old one, sent without isPrimary, loses it)', async () => {
    const draft = await createDraft(
      h,
      draftBody({ types: [{ typeCode: 'SCENIC', isPrimary: true }, { typeCode: 'OTHER' }] }),
    )
    ok(
      await update(h, draft.supplierId, {
        types: [{ typeCode: 'SCENIC' }, { typeCode: 'OTHER', isPrimary: true }],
        changeReason: 'main business changed',
        expectedUpdateTime: draft.version,
      }),
    )
    const rows = await typeRows(draft.supplierId)
    expect(rows).toMatchObject([
      { type_code: 'OTHER', is_primary: true },
      { type_code: 'SCENIC', is_primary: false },
    ])
    const view = ok(await detail(h, draft.supplierId))
    expect(view.types.filter((t: Body) => t.isPrimary).map((t: Body) => t.typeCode)).toEqual([
      'OTHER',
    ])
    const logged = (await changeLogs(draft.supplierId))
      .filter((r) => r.operation_type === 'DRAFT_UPDATE')
      .map((r) => [r.target_id, r.field_name, r.old_value_masked, r.new_value_masked])
    const id = Object.fromEntries(rows.map((r) => [r.type_code, r.id]))
    expect(logged.sort()).toEqual(
      [
        [id.OTHER, 'type.OTHER.isPrimary', 'false', 'true'],
        [id.SCENIC, 'type.SCENIC.isPrimary', 'true', 'false'],
      ].sort(),
    )
  })

  it('error: a supplier stored with two primaries (before the rule) must choose one; choosing fixes it', async () => {
    const draft = await createDraft(
      h,
      draftBody({ types: [{ typeCode: 'SCENIC' }, { typeCode: 'OTHER' }] }),
    )
    await h.sql`UPDATE supplier_type SET is_primary = true WHERE supplier_id = ${draft.supplierId}`
    await unchanged(h, async () => {
      refused(
        await update(h, draft.supplierId, {
          types: [{ typeCode: 'SCENIC' }, { typeCode: 'OTHER' }, { typeCode: 'HOTEL' }],
          changeReason: 'hotel too',
          expectedUpdateTime: draft.version,
        }),
        400,
        'isPrimary',
      )
    })
    ok(
      await update(h, draft.supplierId, {
        types: [{ typeCode: 'SCENIC', isPrimary: true }, { typeCode: 'OTHER' }],
        changeReason: 'one primary',
        expectedUpdateTime: draft.version,
      }),
    )
    expect(
      (await typeRows(draft.supplierId)).filter((r) => r.is_primary).map((r) => r.type_code),
    ).toEqual(['SCENIC'])
  })
})

describe('change-log rows of added items name the new item (targetId)', () => {
  it('happy: a new draft logs its types, contacts and qualifications with their new ids', async () => {
    const draft = await createDraft(
      h,
      draftBody({
        types: [{ typeCode: 'SCENIC', isPrimary: true }, { typeCode: 'OTHER' }],
        contacts: [
          { contactName: 'Li Si', contactPhone: CONTACT_PHONE },
          { contactName: 'Wang Wu', contactPhone: '13700001111' },
        ],
        qualifications: [{ qualType: 'BUSINESS_LICENSE' }, { qualType: 'TRAVEL_PERMIT' }],
      }),
    )
    const view = ok(await detail(h, draft.supplierId))
    const types = await typeRows(draft.supplierId)
    const added = (await changeLogs(draft.supplierId)).filter((r) => r.target_type !== 'SUPPLIER')
    const ids = (targetType: string) =>
      added
        .filter((r) => r.target_type === targetType)
        .map((r) => r.target_id)
        .sort()
    expect(ids('TYPE')).toEqual(types.map((t) => t.id).sort())
    expect(ids('CONTACT')).toEqual(view.contacts.map((c: Body) => c.contactId).sort())
    expect(ids('QUALIFICATION')).toEqual(
      view.qualifications.map((q: Body) => q.qualificationId).sort(),
    )
    for (const r of added) expect(r.target_id).toMatch(/^[1-9][0-9]+$/)
    // Each row names its own item (ids are unique per table, so per target type).
    expect(new Set(added.map((r) => `${r.target_type}:${r.target_id}`)).size).toBe(added.length)
  })

  it('happy: an update logs added contacts, qualifications, types, contracts and evaluations with their new ids; the approval records show them', async () => {
    const draft = await createDraft(h, draftBody())
    ok(
      await update(h, draft.supplierId, {
        types: [{ typeCode: 'OTHER' }, { typeCode: 'HOTEL' }],
        contacts: [{ contactName: 'Zhao Liu', contactPhone: '13600002222' }],
        qualifications: [{ qualType: 'BUSINESS_LICENSE', expiryDate: '2099-12-31' }],
        contracts: [{}, {}],
        evaluations: [{}],
        changeReason: 'completed the profile',
        expectedUpdateTime: draft.version,
      }),
    )
    const live = async (table: string, id: string) =>
      (
        await h.sql`
          SELECT ${h.sql(id)}::text AS id FROM ${h.sql(table)}
          WHERE supplier_id = ${draft.supplierId} AND deleted_at IS NULL ORDER BY 1
        `
      ).map((r) => r.id as string)
    const expected: Record<string, string[]> = {
      TYPE: (await typeRows(draft.supplierId))
        .filter((t) => t.type_code === 'HOTEL')
        .map((t) => t.id),
      CONTACT: await live('supplier_contact', 'contact_id'),
      QUALIFICATION: await live('supplier_qualification', 'qualification_id'),
      CONTRACT: await live('supplier_contract', 'contract_id'),
      EVALUATION: await live('supplier_evaluation', 'evaluation_id'),
    }
    expect(expected.CONTRACT).toHaveLength(2)

    const records = ok(
      await h.call(
        'GET',
        `/admin/supplier/approval-records?supplierId=${draft.supplierId}&operationType=DRAFT_UPDATE&pageSize=100`,
      ),
    ).records as Body[]
    for (const [targetType, ids] of Object.entries(expected)) {
      const got = records
        .filter((r) => r.targetType === targetType)
        .map((r) => r.targetId)
        .sort()
      expect({ targetType, got }).toEqual({ targetType, got: [...ids].sort() })
    }
  })

  it('happy: removed and edited items keep naming their ids (unchanged behaviour)', async () => {
    const draft = await createDraft(
      h,
      draftBody({ contacts: [{ contactName: 'Li Si', contactPhone: CONTACT_PHONE }] }),
    )
    const [contact] = ok(await detail(h, draft.supplierId)).contacts
    ok(
      await update(h, draft.supplierId, {
        contacts: [],
        changeReason: 'left the company',
        expectedUpdateTime: draft.version,
      }),
    )
    const [removed] = (await changeLogs(draft.supplierId)).filter(
      (r) => r.operation_type === 'DRAFT_UPDATE' && r.target_type === 'CONTACT',
    )
    expect(removed).toMatchObject({ target_id: contact.contactId, new_value_masked: null })
  })
})

describe('refusals echo nothing sensitive', () => {
  it('security: a refused update echoes no sensitive value', async () => {
    const taxNo = uniqueTaxNo()
    const draft = await createDraft(h, draftBody({ taxNo, contactPhone: '13812340000' }))
    const res = await update(h, draft.supplierId, {
      taxNo,
      contactPhone: '13812340000',
      expectedUpdateTime: draft.version,
    })
    refused(res, 400, 'changeReason')
    expect(JSON.stringify(res.body)).not.toContain(taxNo)
    expect(JSON.stringify(res.body)).not.toContain('13812340000')
  })
})
