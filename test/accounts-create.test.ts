import { describe, expect, it } from 'vitest'
import type { ApprovalProvider } from '../src/ports/approval-provider'
import { maskAccountNo } from '../src/crypto/sensitive'
import { normalizeAccountNo } from '../src/identity'
import { useHarness, type Harness } from './harness'
import { insertAccount, randomAccountNo } from './fixtures'
import { ACCOUNT_ADMIN, accountBody, registeredSupplier } from './account-data'
import { unchanged } from './unchanged'
import { STORAGE } from './supplier-data'

/** What the approval provider does next: approve (LOCAL_AUTO), reject, or plant a conflict first. */
let mode: { kind: 'approve' } | { kind: 'reject' } | { kind: 'conflict'; accountNo: string } = {
  kind: 'approve',
}

const h: Harness = useHarness({
  approvalProvider: (hh): ApprovalProvider => ({
    name: 'LOCAL_AUTO',
    submit: async (approval) => {
      if (mode.kind === 'conflict') {
        // Another supplier's account with the same number becomes valid between submit and apply.
        const other = await registeredSupplier(hh)
        await insertAccount(hh, other.supplierId, { accountNo: mode.accountNo, status: 'ACTIVE' })
      }
      return {
        approvalLogId: approval.approvalLogId,
        decision: mode.kind === 'reject' ? 'REJECTED' : 'APPROVED',
        schemaVersion: 1,
      }
    },
  }),
})

const batch = (supplierId: string) => `/admin/supplier/items/${supplierId}/accounts/batch`

async function create(supplierId: string, accounts: unknown[], admin?: string) {
  return h.call('POST', batch(supplierId), {
    admin: admin ?? (await h.admin(ACCOUNT_ADMIN)),
    body: { accounts },
  })
}

async function list(supplierId: string) {
  const res = await h.call('GET', `/admin/supplier/items/${supplierId}/accounts`, {
    admin: await h.admin(['supplier:view']),
  })
  return res.body.data as Record<string, any>[]
}

describe('SUP-ADM-035 batch create: happy path', () => {
  it('gives each account its own id and ACCOUNT_CREATE approval, ACTIVE, in request order', async () => {
    mode = { kind: 'approve' }
    const s = await registeredSupplier(h)
    const bodies = [
      accountBody(),
      accountBody({ accountType: 'CORPORATE', settleMode: 'WEEKLY', accountPeriod: null }),
      accountBody({ invoiceType: 'NONE', taxRate: null, bankBranch: null, proofFileUrls: [] }),
    ]
    const res = await create(s.supplierId, bodies)
    expect(res.body).toMatchObject({ code: 200, success: true })
    const results = res.body.data
    expect(results).toHaveLength(3)
    for (const r of results) {
      expect(r).toEqual({
        accountId: expect.stringMatching(/^\d+$/),
        approvalLogId: expect.stringMatching(/^\d+$/),
        requestNo: expect.any(String),
        provider: 'LOCAL_AUTO',
        approvalStatus: 'APPLIED',
        syncStatus: expect.any(String),
        accountStatus: 'ACTIVE',
        isDefault: 'NO',
        submittedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
        finishedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      })
      expect(BigInt(r.accountId)).toBeGreaterThan(2n ** 53n)
    }
    expect(new Set(results.map((r: any) => r.accountId)).size).toBe(3)
    expect(new Set(results.map((r: any) => r.requestNo)).size).toBe(3)

    // Request order: the n-th result is the n-th item (its mask says so).
    const accounts = await list(s.supplierId)
    const byId = new Map(accounts.map((a) => [a.accountId, a]))
    results.forEach((r: any, i: number) => {
      expect(byId.get(r.accountId)).toMatchObject({
        accountNoMask: maskAccountNo(bodies[i].accountNo),
        status: 'ACTIVE',
        isDefault: 'NO',
        accountName: expect.stringContaining('杭州湖畔旅游服务有限公司'),
      })
    })
    expect(byId.get(results[2].accountId)).toMatchObject({
      invoiceType: 'NONE',
      taxRate: null,
      bankBranch: null,
    })

    const approvals = await h.sql`
      SELECT biz_type, target_type, target_id::text, status, levels, provider, sp_no, template_id
      FROM approval_log WHERE supplier_id = ${s.supplierId} ORDER BY approval_log_id`
    expect(approvals.map((a) => ({ ...a }))).toEqual(
      results.map((r: any) => ({
        biz_type: 'ACCOUNT_CREATE',
        target_type: 'ACCOUNT',
        target_id: r.accountId,
        status: 'APPLIED',
        levels: 1,
        provider: 'LOCAL_AUTO',
        sp_no: null,
        template_id: null,
      })),
    )
  })

  it('takes fifty accounts in one batch', async () => {
    mode = { kind: 'approve' }
    const s = await registeredSupplier(h)
    const bodies = Array.from({ length: 50 }, () => accountBody())
    const res = await create(s.supplierId, bodies)
    expect(res.body.code).toBe(200)
    expect(res.body.data).toHaveLength(50)
    expect(res.body.data.every((r: any) => r.accountStatus === 'ACTIVE')).toBe(true)
    const accounts = await list(s.supplierId)
    expect(accounts).toHaveLength(50)
    expect(accounts.map((a) => a.accountId)).toEqual(res.body.data.map((r: any) => r.accountId))
  })

  it('normalizes full-width digits, spaces and hyphens before C-03, C-19 and the mask', async () => {
    mode = { kind: 'approve' }
    const s = await registeredSupplier(h)
    const digits = randomAccountNo()
    const typed = digits
      .replace(/(\d{4})/g, '$1 ')
      .replace(/\d/g, (d) => String.fromCharCode(0xff10 + Number(d)))
    const res = await create(s.supplierId, [accountBody({ accountNo: `  ${typed}` })])
    expect(res.body.code).toBe(200)
    const [a] = await list(s.supplierId)
    expect(a.accountNoMask).toBe(`**** **** ${digits.slice(-4)}`)
    // The same digits typed with hyphens are the same account (C-19 within the supplier).
    const again = await create(s.supplierId, [
      accountBody({ accountNo: digits.replace(/(\d{4})/g, '$1-') }),
    ])
    expect(again.body.code).toBe(395016)
    const [row] =
      await h.sql`SELECT account_no_bidx FROM supplier_bank_account WHERE account_id = ${a.accountId}`
    expect(row.account_no_bidx).toBe(
      await h.cipher.blindIndex(normalizeAccountNo(digits), 'accountNo'),
    )
  })
})

describe('SUP-ADM-035 rules and bounds (nothing written on failure)', () => {
  const STORAGE_URL = `${STORAGE}p.png`

  const cases: [string, () => unknown[], number, string?][] = [
    ['no account', () => [], 400, 'accounts: at least one account'],
    ['51 accounts', () => Array.from({ length: 51 }, () => accountBody()), 400, 'at most 50'],
    [
      'accountType missing',
      () => [accountBody({ accountType: undefined })],
      400,
      'accounts.0.accountType',
    ],
    [
      'accountType unknown',
      () => [accountBody({ accountType: 'SAVINGS' })],
      400,
      'accounts.0.accountType',
    ],
    ['bankName empty', () => [accountBody({ bankName: '   ' })], 400, 'accounts.0.bankName'],
    [
      'bankName 501',
      () => [accountBody({ bankName: '行'.repeat(501) })],
      400,
      'accounts.0.bankName',
    ],
    [
      'bankBranch 501',
      () => [accountBody({ bankBranch: '支'.repeat(501) })],
      400,
      'accounts.0.bankBranch',
    ],
    ['accountNo empty', () => [accountBody({ accountNo: '' })], 400, 'accounts.0.accountNo'],
    [
      'accountNo 129 bytes',
      () => [accountBody({ accountNo: '1'.repeat(129) })],
      400,
      'accounts.0.accountNo',
    ],
    [
      'accountNo 43 CJK = 129 bytes',
      () => [accountBody({ accountNo: '账'.repeat(43) })],
      400,
      'accounts.0.accountNo',
    ],
    [
      '21 proof files',
      () => [accountBody({ proofFileUrls: Array(21).fill(STORAGE_URL) })],
      400,
      'accounts.0.proofFileUrls',
    ],
    [
      'proof URL 1001 characters',
      () => [accountBody({ proofFileUrls: [STORAGE + 'x'.repeat(1001 - STORAGE.length)] })],
      400,
      'accounts.0.proofFileUrls.0',
    ],
    [
      'proof URL empty',
      () => [accountBody({ proofFileUrls: [''] })],
      400,
      'accounts.0.proofFileUrls.0',
    ],
    ['accountPeriod 0', () => [accountBody({ accountPeriod: 0 })], 400, 'accounts.0.accountPeriod'],
    [
      'accountPeriod 366',
      () => [accountBody({ accountPeriod: 366 })],
      400,
      'accounts.0.accountPeriod',
    ],
    ['taxRate 100.001', () => [accountBody({ taxRate: 100.001 })], 400, 'accounts.0.taxRate'],
    ['taxRate three decimals', () => [accountBody({ taxRate: 6.125 })], 400, 'accounts.0.taxRate'],
    [
      'settleMode unknown',
      () => [accountBody({ settleMode: 'DAILY' })],
      400,
      'accounts.0.settleMode',
    ],
    [
      'unknown field',
      () => [accountBody({ accountName: 'someone' })],
      400,
      'accounts.0.accountName: unknown field',
    ],
    [
      'confirmAccountNo',
      () => [accountBody({ confirmAccountNo: '6222' })],
      400,
      'confirmAccountNo: unknown field',
    ],
    [
      'accountNoMask',
      () => [accountBody({ accountNoMask: '****' })],
      400,
      'accountNoMask: unknown field',
    ],
    ['isPersonal', () => [accountBody({ isPersonal: true })], 400, 'isPersonal: unknown field'],
    ['isDefault', () => [accountBody({ isDefault: 'YES' })], 400, 'isDefault: unknown field'],
    [
      'C-03 letters',
      () => [accountBody({ accountNo: '6222ABCD12345678' })],
      395015,
      'accounts.0.accountNo',
    ],
    [
      'C-03 five digits',
      () => [accountBody({ accountNo: '12345' })],
      395015,
      'accounts.0.accountNo',
    ],
    [
      'C-03 33 digits',
      () => [accountBody({ accountNo: '1'.repeat(33) })],
      395015,
      'accounts.0.accountNo',
    ],
    [
      'period without MONTHLY',
      () => [accountBody({ settleMode: 'WEEKLY', accountPeriod: 7 })],
      395017,
      'accounts.0.accountPeriod',
    ],
    [
      'period without settleMode',
      () => [accountBody({ settleMode: null, accountPeriod: 7 })],
      395017,
      'accounts.0.accountPeriod',
    ],
    [
      'SPECIAL without taxRate',
      () => [accountBody({ invoiceType: 'SPECIAL', taxRate: null })],
      395017,
      'accounts.0.taxRate',
    ],
    [
      'NORMAL without taxRate',
      () => [accountBody({ invoiceType: 'NORMAL', taxRate: undefined })],
      395017,
      'accounts.0.taxRate',
    ],
    [
      'NONE with taxRate',
      () => [accountBody({ invoiceType: 'NONE', taxRate: 0 })],
      395017,
      'accounts.0.taxRate',
    ],
    [
      'proof on another host',
      () => [accountBody({ proofFileUrls: ['https://evil.example.com/supplier/p.png'] })],
      395018,
      'accounts.0.proofFileUrls.0',
    ],
    [
      'proof climbing out of the prefix',
      () => [accountBody({ proofFileUrls: [`${STORAGE}../private/p.png`] })],
      395018,
      'accounts.0.proofFileUrls.0',
    ],
    [
      'proof not http',
      () => [accountBody({ proofFileUrls: ['javascript:alert(1)'] })],
      395018,
      'accounts.0.proofFileUrls.0',
    ],
  ]

  for (const [name, items, code, message] of cases) {
    it(`${name} → ${code}`, async () => {
      mode = { kind: 'approve' }
      const s = await registeredSupplier(h)
      const admin = await h.admin(ACCOUNT_ADMIN)
      const body = items()
      const res = await unchanged(h, () => create(s.supplierId, body, admin))
      expect(res.body).toMatchObject({ code, success: false, data: null })
      if (message) expect(res.body.message).toContain(message)
    })
  }

  it('accepts every bound at its maximum', async () => {
    mode = { kind: 'approve' }
    const s = await registeredSupplier(h)
    const res = await create(s.supplierId, [
      accountBody({
        bankName: '行'.repeat(500),
        bankBranch: '支'.repeat(500),
        accountNo: '1'.repeat(32),
        proofFileUrls: Array.from({ length: 20 }, (_, i) => `${STORAGE}${i}`.padEnd(1000, 'x')),
        accountPeriod: 365,
        taxRate: 100,
      }),
      accountBody({
        settleMode: null,
        accountPeriod: null,
        invoiceType: null,
        taxRate: null,
        proofFileUrls: undefined,
        bankBranch: undefined,
      }),
      accountBody({ taxRate: 0, invoiceType: 'NORMAL' }),
    ])
    expect(res.body).toMatchObject({ code: 200, success: true })
    const [detail] = await Promise.all([
      h.call(
        'GET',
        `/admin/supplier/items/${s.supplierId}/accounts/${res.body.data[0].accountId}`,
        {
          admin: await h.admin(['supplier:view', 'supplier:account:proof:read']),
        },
      ),
    ])
    expect(detail.body.data.proofFileUrls).toHaveLength(20)
    expect(detail.body.data.bankName).toHaveLength(500)
  })

  it('a batch with one bad item among good ones writes nothing (the bad one is named)', async () => {
    mode = { kind: 'approve' }
    const s = await registeredSupplier(h)
    const items = Array.from({ length: 10 }, () => accountBody())
    items[7] = accountBody({ invoiceType: 'NONE', taxRate: 3 })
    const res = await unchanged(h, () => create(s.supplierId, items))
    expect(res.body).toMatchObject({ code: 395017, success: false })
    expect(res.body.message).toContain('accounts.7.taxRate')
    expect(await list(s.supplierId)).toEqual([])
  })

  it('C-19: a number repeated in the batch, held by this supplier, or valid at another supplier → 395016', async () => {
    mode = { kind: 'approve' }
    const s = await registeredSupplier(h)
    const other = await registeredSupplier(h)
    const mine = randomAccountNo()
    const theirs = randomAccountNo()
    await insertAccount(h, s.supplierId, { accountNo: mine, status: 'ACTIVE' })
    await insertAccount(h, other.supplierId, { accountNo: theirs, status: 'ACTIVE' })
    const twice = randomAccountNo()
    for (const [items, at] of [
      [
        [
          accountBody({ accountNo: twice }),
          accountBody({ accountNo: twice.replace(/(\d{4})/g, '$1 ') }),
        ],
        'accounts.1.accountNo',
      ],
      [[accountBody(), accountBody({ accountNo: mine })], 'accounts.1.accountNo'],
      [[accountBody({ accountNo: theirs })], 'accounts.0.accountNo'],
    ] as const) {
      const res = await unchanged(h, () => create(s.supplierId, [...items]))
      expect(res.body.code).toBe(395016)
      expect(res.body.message).toContain(at)
      for (const n of [mine, theirs, twice]) expect(res.body.message).not.toContain(n)
    }
    // A deleted or rejected account frees its number.
    const freed = randomAccountNo()
    await insertAccount(h, other.supplierId, {
      accountNo: freed,
      status: 'ACTIVE',
      deletedAt: 'now',
    })
    expect((await create(s.supplierId, [accountBody({ accountNo: freed })])).body.code).toBe(200)
  })
})

describe('SUP-ADM-035 supplier status and permissions', () => {
  for (const status of ['ACTIVE', 'SUSPENDED', 'FROZEN'] as const) {
    it(`a ${status} supplier may add accounts`, async () => {
      mode = { kind: 'approve' }
      const s = await registeredSupplier(h, { status })
      const res = await create(s.supplierId, [accountBody()])
      expect(res.body.data[0]).toMatchObject({ approvalStatus: 'APPLIED', accountStatus: 'ACTIVE' })
    })
  }

  for (const status of ['DRAFT', 'VETTING', 'BLACKLIST', 'ARCHIVED'] as const) {
    it(`a ${status} supplier may not (395021, nothing written)`, async () => {
      const s = await registeredSupplier(h, { status })
      const res = await unchanged(h, () => create(s.supplierId, [accountBody()]))
      expect(res.body).toMatchObject({ code: 395021, success: false })
    })
  }

  it('a missing or deleted supplier → 395001', async () => {
    const deleted = await registeredSupplier(h, { status: 'DRAFT', deletedAt: 'now' })
    for (const id of ['9007199254740992123', deleted.supplierId]) {
      const res = await unchanged(h, () => create(id, [accountBody()]))
      expect(res.body.code).toBe(395001)
    }
  })

  it('needs supplier:account:manage; supplier:status:manage and the others grant nothing', async () => {
    const s = await registeredSupplier(h)
    for (const perms of [
      [],
      ['supplier:status:manage'],
      ['supplier:update', 'supplier:create', 'supplier:approval:submit', 'supplier:view'],
    ]) {
      const admin = await h.admin(perms)
      const res = await unchanged(h, () => create(s.supplierId, [accountBody()], admin))
      expect(res.body.code).toBe(395002)
    }
    // supplier:account:manage alone is enough to write.
    const res = await create(
      s.supplierId,
      [accountBody()],
      await h.admin(['supplier:account:manage']),
    )
    expect(res.body.code).toBe(200)
  })

  it('the same body sent twice at once is written once (duplicate-submit guard or C-19)', async () => {
    mode = { kind: 'approve' }
    const s = await registeredSupplier(h)
    const admin = await h.admin(ACCOUNT_ADMIN)
    const items = [accountBody(), accountBody()]
    const results = await Promise.all([
      create(s.supplierId, items, admin),
      create(s.supplierId, items, admin),
    ])
    const codes = results.map((r) => r.body.code).sort()
    expect(codes[0]).toBe(200)
    expect([395013, 395016]).toContain(codes[1])
    expect(await list(s.supplierId)).toHaveLength(2)
  })
})

describe('SUP-ADM-035 through the approval applier', () => {
  it('a rejected creation leaves a REJECTED account that holds nothing', async () => {
    mode = { kind: 'reject' }
    const s = await registeredSupplier(h)
    const n = randomAccountNo()
    const res = await create(s.supplierId, [accountBody({ accountNo: n })])
    mode = { kind: 'approve' }
    expect(res.body.data[0]).toMatchObject({
      approvalStatus: 'REJECTED',
      accountStatus: 'REJECTED',
    })
    const [a] = await list(s.supplierId)
    expect(a).toMatchObject({ status: 'REJECTED', isDefault: 'NO' })
    // The number is free again.
    expect((await create(s.supplierId, [accountBody({ accountNo: n })])).body.code).toBe(200)
  })

  it('the applier re-checks C-19: a number that became valid elsewhere meanwhile → APPLY_FAILED', async () => {
    const s = await registeredSupplier(h)
    const n = randomAccountNo()
    mode = { kind: 'conflict', accountNo: n }
    const res = await create(s.supplierId, [accountBody({ accountNo: n })])
    mode = { kind: 'approve' }
    expect(res.body).toMatchObject({ code: 200, success: true })
    expect(res.body.data[0]).toMatchObject({
      approvalStatus: 'APPLY_FAILED',
      accountStatus: 'APPLY_FAILED',
    })
    const [approval] = await h.sql`
      SELECT status, failure_code FROM approval_log WHERE approval_log_id = ${res.body.data[0].approvalLogId}`
    expect(approval).toMatchObject({ status: 'APPLY_FAILED', failure_code: 395016 })
    const events = await h.sql`
      SELECT event_type FROM domain_event WHERE aggregate_type = 'ACCOUNT'
        AND aggregate_id = ${res.body.data[0].accountId} ORDER BY event_id`
    expect(events.map((e) => e.event_type)).toEqual([
      'BankAccountCreateSubmitted',
      'BankAccountApplyFailed',
    ])
  })
})

describe('SUP-ADM-035 after a failed application', () => {
  const retry = (approvalLogId: string) =>
    h.call('POST', `/internal/supplier/approvals/${approvalLogId}/apply`, {
      admin: null,
      token: null,
      headers: { 'x-internal-token': h.config.internalToken },
    })

  async function failedCreation() {
    const s = await registeredSupplier(h)
    const n = randomAccountNo()
    mode = { kind: 'conflict', accountNo: n }
    const res = await create(s.supplierId, [accountBody({ accountNo: n })])
    mode = { kind: 'approve' }
    expect(res.body.data[0].accountStatus).toBe('APPLY_FAILED')
    return { ...s, n, result: res.body.data[0] }
  }

  it('a retry once the conflict is gone applies it: APPLY_FAILED → ACTIVE', async () => {
    const f = await failedCreation()
    await h.sql`
      UPDATE supplier_bank_account SET deleted_at = now()
      WHERE account_no_bidx = ${await h.cipher.blindIndex(f.n, 'accountNo')}
        AND supplier_id <> ${f.supplierId} AND deleted_at IS NULL`
    const res = await retry(f.result.approvalLogId)
    expect(res.body.data).toMatchObject({ approvalStatus: 'APPLIED', businessApplied: true })
    const [a] = await list(f.supplierId)
    expect(a).toMatchObject({ accountId: f.result.accountId, status: 'ACTIVE' })
  })

  it('a retry while the conflict stays changes nothing but the attempt count', async () => {
    const f = await failedCreation()
    const res = await retry(f.result.approvalLogId)
    expect(res.body.data).toMatchObject({ approvalStatus: 'APPLY_FAILED' })
    const [a] = await list(f.supplierId)
    expect(a.status).toBe('APPLY_FAILED')
    const rows = await h.sql`
      SELECT count(*)::int AS n FROM domain_event WHERE aggregate_id = ${f.result.accountId}
        AND event_type = 'BankAccountApplyFailed'`
    expect(rows[0].n).toBe(1)
  })

  it('withdrawing it makes the account REJECTED and frees its number', async () => {
    const f = await failedCreation()
    const res = await h.call(
      'POST',
      `/admin/supplier/approvals/${f.result.approvalLogId}/withdraw`,
      {
        // The route's own permission and the opening command's (test/approval-withdraw.test.ts).
        admin: await h.admin(['supplier:approval:submit', 'supplier:account:manage']),
      },
    )
    expect(res.body.data).toMatchObject({ approvalStatus: 'WITHDRAWN' })
    const [a] = await list(f.supplierId)
    expect(a.status).toBe('REJECTED')
    const [log] = await h.sql`
      SELECT old_value_masked, new_value_masked, status FROM change_log
      WHERE approval_log_id = ${f.result.approvalLogId} ORDER BY change_log_id DESC LIMIT 1`
    expect({ ...log }).toEqual({
      old_value_masked: 'APPLY_FAILED',
      new_value_masked: 'REJECTED',
      status: 'WITHDRAWN',
    })
  })
})

describe('the fraud signal on creation', () => {
  it('flags a number another supplier holds in a draft, in the snapshot, the approval and the list', async () => {
    mode = { kind: 'approve' }
    const s = await registeredSupplier(h)
    const draft = await registeredSupplier(h, { status: 'DRAFT' })
    const n = randomAccountNo()
    await insertAccount(h, draft.supplierId, { accountNo: n, status: 'DRAFT' })
    const res = await create(s.supplierId, [accountBody({ accountNo: n }), accountBody()])
    expect(res.body.data.map((r: any) => r.accountStatus)).toEqual(['ACTIVE', 'ACTIVE'])
    const approvals = await h.sql`
      SELECT risk_flags, candidate_snapshot -> 'riskFlags' AS snapshot_flags
      FROM approval_log WHERE supplier_id = ${s.supplierId} ORDER BY approval_log_id`
    const flag = [{ code: 'ACCOUNT_NO_HELD_ELSEWHERE', supplierIds: [draft.supplierId] }]
    expect(approvals.map((a) => ({ ...a }))).toEqual([
      { risk_flags: flag, snapshot_flags: flag },
      { risk_flags: [], snapshot_flags: [] },
    ])
    const accounts = await list(s.supplierId)
    expect(accounts.map((a) => a.riskFlags)).toEqual([['ACCOUNT_NO_HELD_ELSEWHERE'], []])
  })

  it('flags a PERSONAL account of a company (holder ≠ legal representative), not one of a person', async () => {
    mode = { kind: 'approve' }
    const company = await registeredSupplier(h)
    const person = await registeredSupplier(h, { fullName: '赵六', legalRepresentative: '赵六' })
    await create(company.supplierId, [accountBody({ accountType: 'PERSONAL' })])
    await create(person.supplierId, [accountBody({ accountType: 'PERSONAL' })])
    expect((await list(company.supplierId))[0].riskFlags).toEqual(['PERSONAL_HOLDER_MISMATCH'])
    expect((await list(person.supplierId))[0].riskFlags).toEqual([])
    const [row] = await h.sql`
      SELECT risk_flags FROM approval_log WHERE supplier_id = ${company.supplierId}`
    expect(row.risk_flags).toEqual([{ code: 'PERSONAL_HOLDER_MISMATCH' }])
  })
})
