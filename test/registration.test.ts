import { describe, expect, it } from 'vitest'
import { useHarness } from './harness'
import { ACCOUNT_NO, fullDraftBody } from './supplier-data'

const h = useHarness()

describe('registration end to end', () => {
  it('creates a draft, submits it and reads an ACTIVE supplier with a supplierNo', async () => {
    const admin = await h.admin()
    const body = fullDraftBody()
    const created = await h.call('POST', '/admin/supplier/items', { admin, body })
    expect(created.body).toMatchObject({ code: 200, success: true })
    const draft = created.body.data
    expect(draft.status).toBe('DRAFT')
    expect(draft.supplierNo).toBeNull()
    expect(BigInt(draft.supplierId)).toBeGreaterThan(2n ** 53n)

    const submitted = await h.call('POST', `/admin/supplier/items/${draft.supplierId}/submit`, {
      admin,
      body: {
        ...body,
        expectedUpdateTime: draft.updateTime,
        submitNote: 'please approve',
      },
    })
    expect(submitted.body).toMatchObject({ code: 200, success: true })
    expect(submitted.body.data).toMatchObject({
      provider: 'LOCAL_AUTO',
      approvalStatus: 'APPLIED',
      spNo: '',
      spStatus: '',
    })

    const detail = await h.call('GET', `/admin/supplier/items/${draft.supplierId}`, { admin })
    expect(detail.body.data.status).toBe('ACTIVE')
    expect(detail.body.data.supplierNo).toMatch(/^SP\d{8}\d+$/)
    const accounts = await h.call('GET', `/admin/supplier/items/${draft.supplierId}/account-info`, {
      admin,
    })
    expect(accounts.body.data.bankAccounts).toHaveLength(1)
    expect(accounts.body.data.bankAccounts[0]).toMatchObject({
      status: 'ACTIVE',
      isDefault: 'NO',
      accountNoMask: '**** **** 0123',
    })
    expect(JSON.stringify(accounts.body)).not.toContain(ACCOUNT_NO)
    // The submit repeated the draft's accounts unchanged: they keep their ids.
    expect(accounts.body.data.bankAccounts[0].accountId).toBe(draft.initialAccounts[0].accountId)

    const records = await h.call(
      'GET',
      `/admin/supplier/approval-records?supplierId=${draft.supplierId}`,
      { admin },
    )
    expect(records.body.data.total).toBeGreaterThan(0)
  })
})
