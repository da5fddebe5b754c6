import { describe, expect, it } from 'vitest'
import { ALL_PERMISSIONS, useHarness } from './harness'
import { insertAccount, insertSupplier, randomAccountNo } from './fixtures'
import { STORAGE } from './supplier-data'

const h = useHarness()

const VIEW = ['supplier:view']
const VIEW_AND_PROOF = ['supplier:view', 'supplier:account:proof:read']
const PROOF = [`${STORAGE}proof/card-front.png`, `${STORAGE}proof/card-back.png`]

/** An ACTIVE supplier with a default account, a plain one with proof files and a deleted one. */
async function supplierWithAccounts() {
  const numbers = [randomAccountNo(), randomAccountNo(), randomAccountNo()]
  const s = await insertSupplier(h, {
    fullName: '杭州西湖旅游服务有限公司',
    status: 'ACTIVE',
    supplierNo: `SP${Date.now()}${Math.floor(Math.random() * 1e6)}`,
    accounts: [
      {
        accountNo: numbers[0],
        proofFileUrls: PROOF,
        settleMode: 'MONTHLY',
        accountPeriod: 30,
        invoiceType: 'SPECIAL',
        taxRate: 6,
      },
      { accountNo: numbers[1], isDefault: 'YES', accountType: 'PERSONAL', bankBranch: '西湖支行' },
      { accountNo: numbers[2], deletedAt: 'now' },
    ],
  })
  return { ...s, numbers }
}

const base = (supplierId: string) => `/admin/supplier/items/${supplierId}/accounts`

describe('SUP-ADM-034 list', () => {
  it('lists live accounts masked, the default first, with the supplier full name as accountName', async () => {
    const s = await supplierWithAccounts()
    const admin = await h.admin(VIEW_AND_PROOF)
    const res = await h.call('GET', base(s.supplierId), { admin })
    expect(res.body).toMatchObject({ code: 200, success: true })
    const list = res.body.data
    expect(list.map((a: { accountId: string }) => a.accountId)).toEqual([
      s.accountIds[1],
      s.accountIds[0],
    ])
    expect(list[0]).toEqual({
      accountId: s.accountIds[1],
      accountName: '杭州西湖旅游服务有限公司',
      accountType: 'PERSONAL',
      bankName: '中国工商银行',
      bankBranch: '西湖支行',
      accountNoMask: `**** **** ${s.numbers[1].slice(-4)}`,
      settleMode: null,
      accountPeriod: null,
      invoiceType: null,
      taxRate: null,
      status: 'ACTIVE',
      isDefault: 'YES',
      riskFlags: [],
      updateTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
    })
    expect(list[1]).toMatchObject({
      settleMode: 'MONTHLY',
      accountPeriod: 30,
      invoiceType: 'SPECIAL',
      taxRate: 6,
      isDefault: 'NO',
    })
    for (const a of list) {
      expect(typeof a.accountId).toBe('string')
      expect(BigInt(a.accountId)).toBeGreaterThan(2n ** 53n)
      // Never in a list, whatever the caller holds.
      expect(a).not.toHaveProperty('proofFileUrls')
    }
    const text = JSON.stringify(res.body)
    for (const n of s.numbers) expect(text).not.toContain(n)
    expect(text).not.toMatch(/_enc|_bidx|v1\./)
  })

  it('answers an empty list for a supplier without accounts', async () => {
    const s = await insertSupplier(h)
    const res = await h.call('GET', base(s.supplierId), { admin: await h.admin(VIEW) })
    expect(res.body).toMatchObject({ code: 200, data: [] })
  })

  it('answers 395001 for a missing or soft-deleted supplier', async () => {
    const admin = await h.admin(VIEW)
    const deleted = await insertSupplier(h, { deletedAt: 'now' })
    await insertAccount(h, deleted.supplierId, { status: 'DRAFT', deletedAt: 'now' })
    for (const id of ['9007199254740992123', deleted.supplierId]) {
      const res = await h.call('GET', base(id), { admin })
      expect(res.body).toMatchObject({ code: 395001, success: false, data: null })
    }
  })

  it('requires supplier:view; the account and status permissions grant nothing here', async () => {
    const s = await supplierWithAccounts()
    for (const perms of [
      [],
      ['supplier:list'],
      ['supplier:account:manage'],
      ['supplier:status:manage'],
      ['supplier:account:proof:read'],
    ]) {
      const res = await h.call('GET', base(s.supplierId), { admin: await h.admin(perms) })
      expect(res.body.code).toBe(395002)
    }
  })

  it('refuses a malformed supplier id and query parameters that could carry a number', async () => {
    const admin = await h.admin(VIEW)
    expect((await h.call('GET', base('12abc'), { admin })).body.code).toBe(400)
    expect((await h.call('GET', base('0'), { admin })).body.code).toBe(400)
    const s = await supplierWithAccounts()
    const number = randomAccountNo()
    for (const path of [
      `${base(s.supplierId)}?accountNo=${number}`,
      `${base(s.supplierId)}/${s.accountIds[0]}?accountNo=${number}`,
    ]) {
      const res = await h.call('GET', path, { admin })
      expect(res.body).toMatchObject({ code: 400, success: false })
      expect(res.body.message).toContain('accountNo: unknown field')
    }
  })
})

describe('SUP-ADM-034 detail', () => {
  it('shows proofFileUrls only to callers holding supplier:view and supplier:account:proof:read', async () => {
    const s = await supplierWithAccounts()
    const path = `${base(s.supplierId)}/${s.accountIds[0]}`

    const both = await h.call('GET', path, { admin: await h.admin(VIEW_AND_PROOF) })
    expect(both.body).toMatchObject({ code: 200, success: true })
    expect(both.body.data.proofFileUrls).toEqual(PROOF)
    expect(both.body.data.accountNoMask).toBe(`**** **** ${s.numbers[0].slice(-4)}`)

    const viewOnly = await h.call('GET', path, { admin: await h.admin(VIEW) })
    expect(viewOnly.body).toMatchObject({ code: 200, success: true })
    expect(viewOnly.body.data).not.toHaveProperty('proofFileUrls')
    const { proofFileUrls: _, ...rest } = both.body.data
    expect(viewOnly.body.data).toEqual(rest)

    const proofOnly = await h.call('GET', path, {
      admin: await h.admin(['supplier:account:proof:read']),
    })
    expect(proofOnly.body.code).toBe(395002)

    const all = await h.call('GET', path, { admin: await h.admin(ALL_PERMISSIONS) })
    expect(all.body.data.proofFileUrls).toEqual(PROOF)
    for (const res of [both, viewOnly, all]) {
      for (const n of s.numbers) expect(JSON.stringify(res.body)).not.toContain(n)
    }
  })

  it('audits each read that reveals proof files, and only those', async () => {
    const s = await supplierWithAccounts()
    const reader = await h.admin(VIEW_AND_PROOF)
    const viewer = await h.admin(VIEW)
    await h.call('GET', `${base(s.supplierId)}/${s.accountIds[0]}`, { admin: reader })
    await h.call('GET', `${base(s.supplierId)}/${s.accountIds[0]}`, { admin: viewer })
    // An account without proof files reveals nothing.
    await h.call('GET', `${base(s.supplierId)}/${s.accountIds[1]}`, { admin: reader })
    const rows = await h.sql`
      SELECT admin_id::text AS admin, subject_id::text AS account, field_name AS field
      FROM sensitive_read_audit WHERE subject = 'supplier_bank_account'
        AND subject_id = ANY(${s.accountIds}::bigint[])
    `
    expect(rows.map((r) => ({ ...r }))).toEqual([
      { admin: reader, account: s.accountIds[0], field: 'proofFileUrls' },
    ])
  })

  it('denies proof files when the permission lookup fails (fail closed)', async () => {
    const s = await supplierWithAccounts()
    const admin = await h.admin(VIEW_AND_PROOF)
    // The proof permission row is soft-deleted: the lookup no longer answers true.
    await h.sql`
      UPDATE admin_permission SET deleted_at = now()
      WHERE admin_id = ${admin} AND permission_code = 'supplier:account:proof:read'
    `
    const res = await h.call('GET', `${base(s.supplierId)}/${s.accountIds[0]}`, { admin })
    expect(res.body.code).toBe(200)
    expect(res.body.data).not.toHaveProperty('proofFileUrls')
  })

  it("answers 395020 for a deleted account, another supplier's account or an unknown id", async () => {
    const s = await supplierWithAccounts()
    const other = await supplierWithAccounts()
    const admin = await h.admin(VIEW_AND_PROOF)
    for (const accountId of [s.accountIds[2], other.accountIds[0], '9007199254740992999']) {
      const res = await h.call('GET', `${base(s.supplierId)}/${accountId}`, { admin })
      expect(res.body).toMatchObject({ code: 395020, success: false, data: null })
    }
  })

  it('answers 395001 when the supplier is missing, before looking at the account', async () => {
    const s = await supplierWithAccounts()
    const res = await h.call('GET', `${base('9007199254740992123')}/${s.accountIds[0]}`, {
      admin: await h.admin(VIEW),
    })
    expect(res.body.code).toBe(395001)
  })
})
