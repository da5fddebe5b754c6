import { describe, expect, it } from 'vitest'
import { useHarness } from './harness'
import { ITEMS, newDraft, retry, submit } from './client'
import { STORAGE, draftBody, uniqueName } from './supplier-data'

/*
 * The approval applier's harder paths: a fault while applying, a retry of a superseded
 * approval, and the derived account name; plus number and character bounds that floats and
 * UTF-16 get wrong.
 */

let accountSeq = 0
const accountNo = () =>
  `62220299${String(Date.now()).slice(-7)}${String(++accountSeq).padStart(4, '0')}`

let providerDown = false
/** Runs inside the provider call: after the submit committed, before the applier. */
let meanwhile: (() => Promise<unknown>) | undefined
const h = useHarness({
  approvalProvider: () => ({
    name: 'LOCAL_AUTO',
    submit: async (approval) => {
      if (providerDown) throw new Error('provider down')
      await meanwhile?.()
      return { approvalLogId: approval.approvalLogId, decision: 'APPROVED', schemaVersion: 1 }
    },
  }),
})

const supplier = async (id: string) =>
  (
    await h.sql`SELECT status, supplier_no AS "supplierNo" FROM supplier WHERE supplier_id = ${id}`
  )[0]

const approval = async (id: string) =>
  (
    await h.sql`SELECT status, failure_code AS "failureCode" FROM approval_log WHERE approval_log_id = ${id}`
  )[0]

/**
 * Submits the draft while any update of `table` that sets this supplier's status to `status`
 * raises an error the service cannot classify; the fault is removed whatever the answer.
 */
async function submitFailingOn(
  table: 'supplier' | 'approval_log',
  status: string,
  draft: { admin: string; body: object; data: { supplierId: string; updateTime: string } },
) {
  const { admin, body, data } = draft
  await h.sql.unsafe(`
    CREATE FUNCTION boom() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk on fire'; END $$;
    CREATE TRIGGER boom BEFORE UPDATE ON ${table} FOR EACH ROW
      WHEN (NEW.status = '${status}' AND NEW.supplier_id = ${data.supplierId}) EXECUTE FUNCTION boom();
  `)
  try {
    return await submit(
      h,
      data.supplierId,
      { ...body, expectedUpdateTime: data.updateTime },
      { admin },
    )
  } finally {
    await h.sql.unsafe(`DROP TRIGGER boom ON ${table}; DROP FUNCTION boom();`)
  }
}

describe('the approval applier', () => {
  it('keeps the decision when applying fails for a non-business reason, and the retry applies it', async () => {
    const admin = await h.admin()
    const { body, data } = await newDraft(h, admin)
    // A fault the applier cannot classify (as a lost connection would be) when it activates.
    const res = await submitFailingOn('supplier', 'ACTIVE', { admin, body, data })
    // The submission committed, so the answer is a success that says how far it got.
    expect(res.body).toMatchObject({ code: 200, data: { approvalStatus: 'APPROVED' } })
    expect(await supplier(data.supplierId)).toMatchObject({ status: 'VETTING', supplierNo: null })

    const retried = await retry(h, res.body.data.approvalLogId)
    expect(retried.body).toMatchObject({ code: 200, data: { approvalStatus: 'APPLIED' } })
    expect((await supplier(data.supplierId)).status).toBe('ACTIVE')
  })

  it('leaves an approval undecided when not even its decision can be written, and the retry decides and applies it', async () => {
    const admin = await h.admin()
    const { body, data } = await newDraft(h, admin)
    // The decision is written with the application; when that transaction fails, alone. Here
    // both fail (as they would with the database gone): nothing of either may be left behind.
    const res = await submitFailingOn('approval_log', 'APPROVED', { admin, body, data })
    expect(res.body).toMatchObject({ code: 200, data: { approvalStatus: 'SUBMITTED' } })
    const approvalLogId = res.body.data.approvalLogId
    expect(await approval(approvalLogId)).toMatchObject({ status: 'SUBMITTED', failureCode: null })
    expect(await supplier(data.supplierId)).toMatchObject({ status: 'VETTING', supplierNo: null })

    const retried = await retry(h, approvalLogId)
    expect(retried.body).toMatchObject({ code: 200, data: { approvalStatus: 'APPLIED' } })
    expect((await supplier(data.supplierId)).status).toBe('ACTIVE')
  })

  it('never lets an older approval decide a newer submission of the same supplier', async () => {
    const admin = await h.admin()
    const holder = await newDraft(h, admin)
    const shared = accountNo()
    const { body, data } = await newDraft(h, admin, {
      initialAccounts: [{ accountType: 'CORPORATE', bankName: 'BOC', accountNo: shared }],
    })
    // The number becomes a valid account of another supplier between submit and apply: A fails.
    let planted = ''
    meanwhile = async () => {
      const [row] = await h.sql`
        INSERT INTO supplier_bank_account (supplier_id, account_name, account_type, bank_name,
          account_no_enc, account_no_bidx, account_no_mask, status, created_by)
        VALUES (${holder.data.supplierId}, 'Holder', 'CORPORATE', 'BOC', ${await h.cipher.encrypt(shared)},
          ${await h.cipher.blindIndex(shared, 'accountNo')}, '**** **** 0000', 'ACTIVE', 1)
        RETURNING account_id::text AS id`
      planted = row.id
    }
    const a = await submit(
      h,
      data.supplierId,
      { ...body, initialAccounts: undefined, expectedUpdateTime: data.updateTime },
      { admin },
    )
    meanwhile = undefined
    expect(a.body).toMatchObject({ code: 200, data: { approvalStatus: 'APPLY_FAILED' } })
    await h.sql`UPDATE supplier_bank_account SET deleted_at = now() WHERE account_id = ${planted}`

    // A stays pending (VETTING); its administrator withdraws it to submit again.
    expect((await supplier(data.supplierId)).status).toBe('VETTING')
    const withdrawn = await h.call(
      'POST',
      `/admin/supplier/approvals/${a.body.data.approvalLogId}/withdraw`,
      { admin },
    )
    expect(withdrawn.body, JSON.stringify(withdrawn.body)).toMatchObject({
      code: 200,
      data: { approvalStatus: 'WITHDRAWN', businessApplied: false },
    })
    expect((await supplier(data.supplierId)).status).toBe('DRAFT')
    // The evidence stays: the approval keeps its failure.
    expect(await approval(a.body.data.approvalLogId)).toMatchObject({
      status: 'WITHDRAWN',
      failureCode: 395016,
    })

    // A new submission B is pending (provider down) when someone retries the old A.
    const current = await h.call('GET', `${ITEMS}/${data.supplierId}`, { admin })
    providerDown = true
    const b = await submit(
      h,
      data.supplierId,
      { ...body, initialAccounts: undefined, expectedUpdateTime: current.body.data.updateTime },
      { admin },
    )
    providerDown = false
    expect(b.body).toMatchObject({ code: 200, data: { approvalStatus: 'SUBMITTED' } })
    expect((await supplier(data.supplierId)).status).toBe('VETTING')

    const old = await retry(h, a.body.data.approvalLogId)
    expect(old.body).toMatchObject({ code: 200, data: { approvalStatus: 'WITHDRAWN' } })
    // B's submission is untouched: still VETTING, and B still decides it.
    expect(await supplier(data.supplierId)).toMatchObject({ status: 'VETTING', supplierNo: null })
    const current2 = await retry(h, b.body.data.approvalLogId)
    expect(current2.body).toMatchObject({ code: 200, data: { approvalStatus: 'APPLIED' } })
    expect((await supplier(data.supplierId)).status).toBe('ACTIVE')
  })

  it('names initial accounts after the full name the registration was approved with', async () => {
    const admin = await h.admin()
    const { body, data } = await newDraft(h, admin, {
      initialAccounts: [{ accountType: 'CORPORATE', bankName: 'BOC', accountNo: accountNo() }],
    })
    const renamed = uniqueName('Renamed')
    const res = await submit(
      h,
      data.supplierId,
      { ...body, fullName: renamed, expectedUpdateTime: data.updateTime },
      { admin },
    )
    expect(res.body).toMatchObject({ code: 200, data: { approvalStatus: 'APPLIED' } })
    const info = await h.call('GET', `${ITEMS}/${data.supplierId}/account-info`, { admin })
    expect(info.body.data.bankAccounts.map((a: { accountName: string }) => a.accountName)).toEqual([
      renamed,
    ])
  })
})

describe('bounds that floats and UTF-16 get wrong', () => {
  it('accepts tax rates with two decimals that binary floats cannot hold exactly', async () => {
    const admin = await h.admin()
    for (const taxRate of [1.15, 4.35, 0.07, 99.99]) {
      const res = await h.call('POST', ITEMS, {
        admin,
        body: draftBody({
          initialAccounts: [
            {
              accountType: 'CORPORATE',
              bankName: 'BOC',
              accountNo: accountNo(),
              invoiceType: 'NORMAL',
              taxRate,
            },
          ],
        }),
      })
      expect(res.body, `taxRate ${taxRate}`).toMatchObject({ code: 200 })
    }
    const tooFine = await h.call('POST', ITEMS, {
      admin,
      body: draftBody({
        initialAccounts: [
          {
            accountType: 'CORPORATE',
            bankName: 'BOC',
            accountNo: accountNo(),
            invoiceType: 'NORMAL',
            taxRate: 1.155,
          },
        ],
      }),
    })
    expect(tooFine.body).toMatchObject({ code: 400 })
    expect(tooFine.body.message).toContain('taxRate')
  })

  it('counts fullName in characters: 500 characters outside the BMP are accepted, 501 are not', async () => {
    const admin = await h.admin()
    const astral = (n: number) => '𠀀'.repeat(n - 8) + Math.random().toString(36).slice(2, 10)
    const ok = await h.call('POST', ITEMS, { admin, body: draftBody({ fullName: astral(500) }) })
    expect(ok.body, JSON.stringify(ok.body).slice(0, 200)).toMatchObject({ code: 200 })
    const over = await h.call('POST', ITEMS, { admin, body: draftBody({ fullName: astral(501) }) })
    expect(over.body).toMatchObject({ code: 400 })
    expect(over.body.message).toContain('fullName')
  })
})

describe('a vetting supplier', () => {
  it('accepts its unchanged types without isPrimary (the flag is kept, not reset)', async () => {
    const admin = await h.admin()
    const { body, data } = await newDraft(h, admin, {
      types: [{ typeCode: 'OTHER', isPrimary: true }],
    })
    providerDown = true
    const submitted = await submit(
      h,
      data.supplierId,
      { ...body, expectedUpdateTime: data.updateTime },
      { admin },
    )
    providerDown = false
    expect(submitted.body).toMatchObject({ code: 200, data: { approvalStatus: 'SUBMITTED' } })
    const detail = await h.call('GET', `${ITEMS}/${data.supplierId}`, { admin })
    const res = await h.call('PUT', `${ITEMS}/${data.supplierId}`, {
      admin,
      body: {
        changeReason: 'moved',
        types: [{ typeCode: 'OTHER' }],
        address: 'Suzhou',
        expectedUpdateTime: detail.body.data.updateTime,
      },
    })
    expect(res.body).toMatchObject({ code: 200, data: { status: 'VETTING' } })
    const after = await h.call('GET', `${ITEMS}/${data.supplierId}`, { admin })
    expect(after.body.data.types).toEqual([
      expect.objectContaining({ typeCode: 'OTHER', isPrimary: true }),
    ])
  })
})

describe('changes that look the same once masked', () => {
  it('saves a new phone or image URL even when the logged (masked or cut) values are equal', async () => {
    const admin = await h.admin()
    const long = (tail: string) => `${STORAGE}${'p'.repeat(250)}/${tail}.png`
    const { data } = await newDraft(h, admin, {
      contacts: [{ contactName: 'Li', contactPhone: '13812345678' }],
      qualifications: [{ qualType: 'BUSINESS_LICENSE', imageUrl: long('a') }],
    })
    const detail = (await h.call('GET', `${ITEMS}/${data.supplierId}`, { admin })).body.data
    const res = await h.call('PUT', `${ITEMS}/${data.supplierId}`, {
      admin,
      body: {
        changeReason: 'contacts',
        contacts: [
          {
            contactId: detail.contacts[0].contactId,
            expectedUpdateTime: detail.contacts[0].updateTime,
            contactName: 'Li',
            contactPhone: '13899995678', // same mask: 138****5678
          },
        ],
        qualifications: [
          {
            qualificationId: detail.qualifications[0].qualificationId,
            expectedUpdateTime: detail.qualifications[0].updateTime,
            qualType: 'BUSINESS_LICENSE',
            imageUrl: long('b'), // same first 200 characters
          },
        ],
        expectedUpdateTime: detail.updateTime,
      },
    })
    expect(res.body).toMatchObject({ code: 200 })
    const [contact] = await h.sql`
      SELECT contact_phone_enc FROM supplier_contact WHERE supplier_id = ${data.supplierId} AND deleted_at IS NULL`
    expect(await h.cipher.decrypt(contact.contact_phone_enc)).toBe('13899995678')
    const after = (await h.call('GET', `${ITEMS}/${data.supplierId}`, { admin })).body.data
    expect(after.qualifications[0].imageUrl).toBe(long('b'))
    const logged = await h.sql`
      SELECT field_name, old_value_masked, new_value_masked FROM change_log
      WHERE supplier_id = ${data.supplierId} AND operation_type = 'DRAFT_UPDATE' ORDER BY change_log_id`
    expect(logged.map((r) => r.field_name)).toEqual(['contactPhone', 'imageUrl'])
    expect(JSON.stringify(logged)).not.toContain('13899995678')
  })
})
