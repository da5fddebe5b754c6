import { describe, expect, it } from 'vitest'
import { numberHolders } from '../sql/account'
import { numbersOf, personalHolderMismatch, screenNumbers } from '../src/domain/account/rules'
import { HOLDS_NUMBER } from '../src/domain/account/statuses'
import { normalizeAccountNo } from '../src/identity'
import { AppError } from '../src/errors'
import { useHarness } from './harness'
import { insertSupplier, randomAccountNo } from './fixtures'

const h = useHarness()

const bidx = (n: string) => h.cipher.blindIndex(normalizeAccountNo(n), 'accountNo')

async function screen(
  supplier: { supplierId: string; fullName: string; legalRepresentative: string | null },
  items: { accountNo: string; accountType?: string; accountId?: string }[],
) {
  const numbers = await Promise.all(
    items.map(async (i, n) => ({
      accountNoBidx: await bidx(i.accountNo),
      accountType: i.accountType ?? 'CORPORATE',
      at: `accounts.${n}`,
      accountId: i.accountId,
    })),
  )
  return screenNumbers(
    await numberHolders(h.sql, numbersOf(numbers), HOLDS_NUMBER),
    supplier,
    numbers,
  )
}

const codeOf = async (p: Promise<unknown>) => {
  try {
    await p
  } catch (err) {
    if (err instanceof AppError) return { code: err.code, message: err.message }
    throw err
  }
  return null
}

const who = (supplierId: string) => ({
  supplierId,
  fullName: '杭州湖畔旅游服务有限公司',
  legalRepresentative: '王五',
})

describe('account number screening (C-19 and the fraud signal) on the database', () => {
  it('refuses a number that is an ACTIVE account of another live supplier (C-19)', async () => {
    const n = randomAccountNo()
    await insertSupplier(h, {
      status: 'ACTIVE',
      supplierNo: `SPA${n}`,
      accounts: [{ accountNo: n }],
    })
    const me = await insertSupplier(h, { status: 'ACTIVE', supplierNo: `SPB${n}` })
    const err = await codeOf(
      screen(who(me.supplierId), [{ accountNo: randomAccountNo() }, { accountNo: n }]),
    )
    expect(err).toEqual({
      code: 395016,
      message: 'accounts.1.accountNo: a valid account of another supplier (C-19)',
    })
    // The message names the position only, never the number.
    expect(err!.message).not.toContain(n)
  })

  it('refuses a number this supplier already holds in a holding status, except the account itself', async () => {
    const n = randomAccountNo()
    const me = await insertSupplier(h, {
      status: 'ACTIVE',
      supplierNo: `SPC${n}`,
      accounts: [{ accountNo: n, status: 'PENDING' }],
    })
    expect((await codeOf(screen(who(me.supplierId), [{ accountNo: n }])))?.code).toBe(395016)
    // A change that keeps its own number is not a repeat.
    expect(
      await screen(who(me.supplierId), [{ accountNo: n, accountId: me.accountIds[0] }]),
    ).toEqual([[]])
  })

  it('flags, without refusing, a number held by another live supplier in a draft or pending state', async () => {
    const n = randomAccountNo()
    const other = await insertSupplier(h, { accounts: [{ accountNo: n, status: 'DRAFT' }] })
    const third = await insertSupplier(h, {
      status: 'VETTING',
      accounts: [{ accountNo: n, status: 'PENDING' }],
    })
    const me = await insertSupplier(h, { status: 'ACTIVE', supplierNo: `SPD${n}` })
    const flags = await screen(who(me.supplierId), [
      { accountNo: n },
      { accountNo: randomAccountNo() },
    ])
    expect(flags).toEqual([
      [
        {
          code: 'ACCOUNT_NO_HELD_ELSEWHERE',
          supplierIds: [other.supplierId, third.supplierId].sort((a, b) =>
            BigInt(a) < BigInt(b) ? -1 : 1,
          ),
        },
      ],
      [],
    ])
    expect(JSON.stringify(flags)).not.toContain(n)
  })

  it('ignores deleted accounts, deleted suppliers and rejected accounts', async () => {
    const n = randomAccountNo()
    await insertSupplier(h, { accounts: [{ accountNo: n, status: 'ACTIVE', deletedAt: 'now' }] })
    await insertSupplier(h, { deletedAt: 'now', accounts: [{ accountNo: n, status: 'DRAFT' }] })
    const rejected = await insertSupplier(h, {
      status: 'ACTIVE',
      supplierNo: `SPE${n}`,
      accounts: [{ accountNo: n, status: 'ACTIVE' }],
    })
    await h.sql`UPDATE supplier_bank_account SET status = 'REJECTED' WHERE account_id = ${rejected.accountIds[0]}`
    const me = await insertSupplier(h, { status: 'ACTIVE', supplierNo: `SPF${n}` })
    expect(await numberHolders(h.sql, [await bidx(n)], HOLDS_NUMBER)).toEqual([])
    expect(await screen(who(me.supplierId), [{ accountNo: n }])).toEqual([[]])
  })

  it('flags a PERSONAL account whose holder (the full name) is not the legal representative', async () => {
    const me = await insertSupplier(h, { status: 'ACTIVE', supplierNo: `SPG${Date.now()}` })
    const company = who(me.supplierId)
    expect(
      await screen(company, [{ accountNo: randomAccountNo(), accountType: 'PERSONAL' }]),
    ).toEqual([[{ code: 'PERSONAL_HOLDER_MISMATCH' }]])
    expect(
      await screen(company, [{ accountNo: randomAccountNo(), accountType: 'CORPORATE' }]),
    ).toEqual([[]])
  })
})

describe('who holds a PERSONAL account', () => {
  it('matches when the supplier is registered under its legal representative (normalized)', () => {
    expect(
      personalHolderMismatch('PERSONAL', { fullName: '王五', legalRepresentative: ' 王五 ' }),
    ).toBe(false)
    expect(
      personalHolderMismatch('PERSONAL', {
        fullName: 'Ｌｉ　Ｍｉｎｇ',
        legalRepresentative: 'li  ming',
      }),
    ).toBe(false)
  })
  it('differs for a company, a missing representative or another person', () => {
    expect(
      personalHolderMismatch('PERSONAL', { fullName: '某某公司', legalRepresentative: '王五' }),
    ).toBe(true)
    expect(
      personalHolderMismatch('PERSONAL', { fullName: '王五', legalRepresentative: null }),
    ).toBe(true)
    expect(
      personalHolderMismatch('PERSONAL', { fullName: '王五', legalRepresentative: '  ' }),
    ).toBe(true)
    expect(
      personalHolderMismatch('CORPORATE', { fullName: '某某公司', legalRepresentative: null }),
    ).toBe(false)
  })
})
