import { describe, expect, it } from 'vitest'
import { maskAccountNo } from '../src/crypto/sensitive'
import { useHarness } from './harness'
import { insertAccount, randomAccountNo } from './fixtures'
import { ACCOUNT_ADMIN, accountBody, registeredSupplier } from './account-data'
import { unchanged } from './unchanged'
import { STORAGE } from './supplier-data'

const h = useHarness()

const VIEW_ALL = ['supplier:view', 'supplier:account:proof:read']

/** A registered supplier with one ACTIVE account created through the API. */
async function withAccount(overrides: Record<string, unknown> = {}, status?: 'SUSPENDED') {
  const s = await registeredSupplier(h, status ? { status } : {})
  const body = accountBody(overrides)
  const res = await h.call('POST', `/admin/supplier/items/${s.supplierId}/accounts/batch`, {
    admin: await h.admin(ACCOUNT_ADMIN),
    body: { accounts: [body] },
  })
  expect(res.body.code).toBe(200)
  const accountId = res.body.data[0].accountId as string
  return { ...s, accountId, body, account: await detail(s.supplierId, accountId) }
}

async function detail(supplierId: string, accountId: string) {
  const res = await h.call('GET', `/admin/supplier/items/${supplierId}/accounts/${accountId}`, {
    admin: await h.admin(VIEW_ALL),
  })
  return res.body.data as Record<string, any>
}

const path = (supplierId: string, accountId: string) =>
  `/admin/supplier/items/${supplierId}/accounts/${accountId}/change`

async function change(
  supplierId: string,
  accountId: string,
  body: Record<string, unknown>,
  admin?: string,
) {
  return h.call('POST', path(supplierId, accountId), {
    admin: admin ?? (await h.admin(ACCOUNT_ADMIN)),
    body: { changeReason: '开户行变更', ...body },
  })
}

describe('SUP-ADM-036 change: happy path', () => {
  it('applies an approved candidate: new number and terms, masked everywhere, version moved', async () => {
    const t = await withAccount()
    const next = randomAccountNo()
    const res = await change(t.supplierId, t.accountId, {
      accountNo: next,
      bankName: '中国建设银行杭州分行',
      settleMode: 'WEEKLY',
      accountPeriod: null,
      proofFileUrls: [`${STORAGE}proof/new.png`],
      expectedUpdateTime: t.account.updateTime,
    })
    expect(res.body).toMatchObject({ code: 200, success: true })
    expect(res.body.data).toEqual({
      approvalLogId: expect.stringMatching(/^\d+$/),
      requestNo: expect.any(String),
      provider: 'LOCAL_AUTO',
      approvalStatus: 'APPLIED',
      businessApplied: true,
      spNo: '',
      spStatus: '',
      syncStatus: expect.any(String),
      submittedAt: expect.any(String),
      finishedAt: expect.any(String),
    })
    const after = await detail(t.supplierId, t.accountId)
    expect(after).toMatchObject({
      accountNoMask: maskAccountNo(next),
      bankName: '中国建设银行杭州分行',
      bankBranch: t.body.bankBranch,
      settleMode: 'WEEKLY',
      accountPeriod: null,
      invoiceType: 'SPECIAL',
      taxRate: 6,
      proofFileUrls: [`${STORAGE}proof/new.png`],
      accountType: 'CORPORATE',
      status: 'ACTIVE',
    })
    expect(after.updateTime > t.account.updateTime).toBe(true)

    const rows = await h.sql`
      SELECT field_name, old_value_masked, new_value_masked, status, change_reason
      FROM change_log WHERE approval_log_id = ${res.body.data.approvalLogId} ORDER BY change_log_id`
    expect(rows.map((r) => ({ ...r }))).toEqual([
      {
        field_name: 'candidate',
        old_value_masked: null,
        new_value_masked: 'bankName, accountNo, proofFileUrls, settleMode, accountPeriod',
        status: 'SUBMITTED',
        change_reason: '开户行变更',
      },
      ...[
        ['bankName', t.body.bankName, '中国建设银行杭州分行'],
        ['accountNo', maskAccountNo(t.body.accountNo), maskAccountNo(next)],
        ['proofFileUrls', '1 file', '1 file'],
        ['settleMode', 'MONTHLY', 'WEEKLY'],
        ['accountPeriod', '30', null],
      ].map(([field_name, old_value_masked, new_value_masked]) => ({
        field_name,
        old_value_masked,
        new_value_masked,
        status: 'APPLIED',
        change_reason: '开户行变更',
      })),
    ])
    const events = await h.sql`
      SELECT event_type, payload FROM domain_event
      WHERE aggregate_type = 'ACCOUNT' AND aggregate_id = ${t.accountId} ORDER BY event_id`
    expect(events.map((e) => e.event_type)).toEqual([
      'BankAccountCreateSubmitted',
      'BankAccountActivated',
      'BankAccountChangeSubmitted',
      'BankAccountChanged',
    ])
    expect(events[3].payload).toMatchObject({
      accountId: t.accountId,
      accountNoMask: maskAccountNo(next),
      // What changed, old and new, exactly as the change log masks it.
      changes: rows.slice(1).map((r) => ({
        targetType: 'ACCOUNT',
        targetId: t.accountId,
        field: r.field_name,
        old: r.old_value_masked,
        new: r.new_value_masked,
      })),
    })
    for (const text of [JSON.stringify(res.body), JSON.stringify(events), JSON.stringify(rows)]) {
      expect(text).not.toContain(next)
      expect(text).not.toContain(t.body.accountNo)
      expect(text).not.toContain('proof/new.png')
    }
    // The approval holds the candidate encrypted: no value of it in clear.
    const [approval] = await h.sql`
      SELECT candidate_snapshot FROM approval_log WHERE approval_log_id = ${res.body.data.approvalLogId}`
    const snapshot = JSON.stringify(approval.candidate_snapshot)
    for (const value of [next, '中国建设银行杭州分行', 'proof/new.png', 'WEEKLY']) {
      expect(snapshot).not.toContain(value)
    }
    expect(approval.candidate_snapshot).toMatchObject({
      schemaVersion: 1,
      accountId: t.accountId,
      accountNoMask: maskAccountNo(next),
      candidateEnc: expect.stringMatching(/^v1\./),
    })
  })

  it('a SUSPENDED supplier may change an account (remediation)', async () => {
    const t = await withAccount({}, 'SUSPENDED')
    const res = await change(t.supplierId, t.accountId, {
      bankBranch: '滨江支行',
      expectedUpdateTime: t.account.updateTime,
    })
    expect(res.body.data.approvalStatus).toBe('APPLIED')
    expect((await detail(t.supplierId, t.accountId)).bankBranch).toBe('滨江支行')
  })

  it('null clears an optional field; taxRate and invoiceType move together', async () => {
    const t = await withAccount()
    const res = await change(t.supplierId, t.accountId, {
      bankBranch: null,
      invoiceType: 'NONE',
      taxRate: null,
      expectedUpdateTime: t.account.updateTime,
    })
    expect(res.body.data.approvalStatus).toBe('APPLIED')
    expect(await detail(t.supplierId, t.accountId)).toMatchObject({
      bankBranch: null,
      invoiceType: 'NONE',
      taxRate: null,
    })
  })
})

describe('SUP-ADM-036 rules (nothing written on failure)', () => {
  const cases: [
    string,
    (t: Awaited<ReturnType<typeof withAccount>>) => Record<string, unknown>,
    number,
    string,
  ][] = [
    ['no candidate field', () => ({}), 400, 'at least one candidate account field'],
    ['accountType', () => ({ accountType: 'PERSONAL' }), 400, 'accountType: cannot change'],
    [
      'changeReason missing',
      () => ({ bankName: 'X', changeReason: undefined }),
      400,
      'changeReason',
    ],
    ['changeReason blank', () => ({ bankName: 'X', changeReason: '  ' }), 400, 'changeReason'],
    [
      'changeReason 501',
      () => ({ bankName: 'X', changeReason: '因'.repeat(501) }),
      400,
      'changeReason',
    ],
    [
      'expectedUpdateTime missing',
      () => ({ bankName: 'X', expectedUpdateTime: undefined }),
      400,
      'expectedUpdateTime',
    ],
    ['bankName 501', () => ({ bankName: '行'.repeat(501) }), 400, 'bankName'],
    ['bankName null', () => ({ bankName: null }), 400, 'bankName'],
    ['accountNo 129 bytes', () => ({ accountNo: '1'.repeat(129) }), 400, 'accountNo'],
    [
      '21 proof files',
      () => ({ proofFileUrls: Array(21).fill(`${STORAGE}p.png`) }),
      400,
      'proofFileUrls',
    ],
    [
      'unknown field',
      () => ({ bankName: 'X', accountNoMask: '****' }),
      400,
      'accountNoMask: unknown field',
    ],
    [
      'client-forbidden field',
      () => ({ bankName: 'X', provider: 'LOCAL_AUTO' }),
      400,
      'provider: client-forbidden field',
    ],
    ['C-03', () => ({ accountNo: '12-34' }), 395015, 'accountNo'],
    ['period on a WEEKLY result', () => ({ settleMode: 'WEEKLY' }), 395017, 'accountPeriod'],
    ['NONE keeping the taxRate', () => ({ invoiceType: 'NONE' }), 395017, 'taxRate'],
    ['SPECIAL with taxRate cleared', () => ({ taxRate: null }), 395017, 'taxRate'],
    [
      'unauthorized proof URL',
      () => ({ proofFileUrls: ['https://evil.example.com/p.png'] }),
      395018,
      'proofFileUrls.0',
    ],
    [
      'same values as now',
      (t) => ({
        bankName: t.body.bankName,
        accountNo: t.body.accountNo.replace(/(\d{4})/g, '$1 '),
      }),
      395012,
      '',
    ],
    [
      'stale version',
      () => ({ bankName: 'X', expectedUpdateTime: '2020-01-01 00:00:00' }),
      395003,
      '',
    ],
  ]
  for (const [name, body, code, message] of cases) {
    it(`${name} → ${code}`, async () => {
      const t = await withAccount()
      const res = await unchanged(h, () =>
        change(t.supplierId, t.accountId, {
          expectedUpdateTime: t.account.updateTime,
          ...body(t),
        }),
      )
      expect(res.body).toMatchObject({ code, success: false, data: null })
      expect(res.body.message).toContain(message)
    })
  }

  it('C-19: the number of another supplier’s valid account, or of another account of this one → 395016', async () => {
    const t = await withAccount()
    const other = await registeredSupplier(h)
    const theirs = randomAccountNo()
    const mine = randomAccountNo()
    await insertAccount(h, other.supplierId, { accountNo: theirs })
    await insertAccount(h, t.supplierId, { accountNo: mine })
    for (const n of [theirs, mine]) {
      const res = await unchanged(h, () =>
        change(t.supplierId, t.accountId, {
          accountNo: n,
          expectedUpdateTime: t.account.updateTime,
        }),
      )
      expect(res.body.code).toBe(395016)
      expect(res.body.message).not.toContain(n)
    }
  })

  it('only an ACTIVE account of this supplier can change (395021 / 395020)', async () => {
    const t = await withAccount()
    const pending = await insertAccount(h, t.supplierId, { status: 'PENDING' })
    const rejected = await insertAccount(h, t.supplierId, { status: 'APPLY_FAILED' })
    for (const id of [pending, rejected]) {
      const [row] = await h.sql`
        SELECT to_char(update_time, 'YYYY-MM-DD HH24:MI:SS') AS v FROM supplier_bank_account WHERE account_id = ${id}`
      const res = await unchanged(h, () =>
        change(t.supplierId, id, { bankName: 'X', expectedUpdateTime: row.v }),
      )
      expect(res.body.code).toBe(395021)
    }
    const other = await withAccount()
    const deleted = await insertAccount(h, t.supplierId, { deletedAt: 'now' })
    for (const id of [other.accountId, deleted, '9007199254740992999']) {
      const res = await unchanged(h, () =>
        change(t.supplierId, id, { bankName: 'X', expectedUpdateTime: t.account.updateTime }),
      )
      expect(res.body.code).toBe(395020)
    }
  })

  it('a BLACKLIST supplier cannot change accounts (395021)', async () => {
    const t = await withAccount()
    await h.sql`UPDATE supplier SET status = 'BLACKLIST' WHERE supplier_id = ${t.supplierId}`
    const res = await unchanged(h, () =>
      change(t.supplierId, t.accountId, {
        bankName: 'X',
        expectedUpdateTime: t.account.updateTime,
      }),
    )
    expect(res.body.code).toBe(395021)
  })

  it('needs supplier:account:manage; supplier:status:manage grants nothing', async () => {
    const t = await withAccount()
    for (const perms of [['supplier:status:manage'], ['supplier:update', 'supplier:view']]) {
      const admin = await h.admin(perms)
      const res = await unchanged(h, () =>
        change(
          t.supplierId,
          t.accountId,
          { bankName: 'X', expectedUpdateTime: t.account.updateTime },
          admin,
        ),
      )
      expect(res.body.code).toBe(395002)
    }
  })
})

describe('SUP-ADM-036 concurrency', () => {
  it('a change sent with a version another change already moved → 395003, nothing changed', async () => {
    const t = await withAccount()
    const first = await change(t.supplierId, t.accountId, {
      bankName: '第一次',
      expectedUpdateTime: t.account.updateTime,
    })
    expect(first.body.data.approvalStatus).toBe('APPLIED')
    const res = await unchanged(h, () =>
      change(t.supplierId, t.accountId, {
        bankName: '第二次',
        expectedUpdateTime: t.account.updateTime,
      }),
    )
    expect(res.body.code).toBe(395003)
    expect((await detail(t.supplierId, t.accountId)).bankName).toBe('第一次')
  })

  it('two changes sent at once with the same version: one applies, the other gets 395014/395003 and changes nothing', async () => {
    const t = await withAccount()
    const numbers = [randomAccountNo(), randomAccountNo()]
    const [a1, a2] = [await h.admin(ACCOUNT_ADMIN), await h.admin(ACCOUNT_ADMIN)]
    const results = await Promise.all(
      numbers.map((n, i) =>
        change(
          t.supplierId,
          t.accountId,
          { accountNo: n, expectedUpdateTime: t.account.updateTime },
          [a1, a2][i],
        ),
      ),
    )
    const codes = results.map((r) => r.body.code)
    expect(codes.filter((c) => c === 200)).toHaveLength(1)
    const loser = results.find((r) => r.body.code !== 200)!
    expect([395014, 395003]).toContain(loser.body.code)
    const winner = numbers[codes.indexOf(200)]
    expect((await detail(t.supplierId, t.accountId)).accountNoMask).toBe(maskAccountNo(winner))
    const approvals = await h.sql`
      SELECT count(*)::int AS n FROM approval_log WHERE target_id = ${t.accountId} AND biz_type = 'ACCOUNT_CHANGE'`
    expect(approvals[0].n).toBe(1)
    const logs = await h.sql`
      SELECT count(*)::int AS n FROM change_log WHERE target_id = ${t.accountId} AND operation_type = 'ACCOUNT_CHANGE'`
    expect(logs[0].n).toBe(2) // the winner's candidate row and its one applied field
    expect(JSON.stringify(results)).not.toContain(numbers[0])
    expect(JSON.stringify(results)).not.toContain(numbers[1])
  })

  it('state before and after a refused change is identical, including the account version', async () => {
    const t = await withAccount()
    await unchanged(h, () =>
      change(t.supplierId, t.accountId, {
        accountNo: 'abc',
        expectedUpdateTime: t.account.updateTime,
      }),
    )
  })
})

describe('the fraud signal on change', () => {
  it('a new number held by another supplier’s pending registration raises the flag on the account', async () => {
    const t = await withAccount()
    const vetting = await registeredSupplier(h, { status: 'VETTING' })
    const n = randomAccountNo()
    await insertAccount(h, vetting.supplierId, { accountNo: n, status: 'PENDING' })
    const res = await change(t.supplierId, t.accountId, {
      accountNo: n,
      expectedUpdateTime: t.account.updateTime,
    })
    expect(res.body.data.approvalStatus).toBe('APPLIED')
    expect((await detail(t.supplierId, t.accountId)).riskFlags).toEqual([
      'ACCOUNT_NO_HELD_ELSEWHERE',
    ])
    const [a] = await h.sql`
      SELECT risk_flags FROM approval_log WHERE approval_log_id = ${res.body.data.approvalLogId}`
    expect(a.risk_flags).toEqual([
      { code: 'ACCOUNT_NO_HELD_ELSEWHERE', supplierIds: [vetting.supplierId] },
    ])
    // Changing to a clean number clears it.
    const now = await detail(t.supplierId, t.accountId)
    await change(t.supplierId, t.accountId, {
      accountNo: randomAccountNo(),
      expectedUpdateTime: now.updateTime,
    })
    expect((await detail(t.supplierId, t.accountId)).riskFlags).toEqual([])
  })
})
