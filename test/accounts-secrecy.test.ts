import { describe, expect, it } from 'vitest'
import { ALL_PERMISSIONS, useHarness } from './harness'
import { randomAccountNo } from './fixtures'
import { accountBody, everyRowAsText, registeredSupplier, spellings } from './account-data'

const h = useHarness()

describe('account numbers never leave in plaintext', () => {
  it('no response, log line or row of any table (change log, events, approvals, idempotency) holds one', async () => {
    const admin = await h.admin(ALL_PERMISSIONS)
    const s = await registeredSupplier(h)
    const other = await registeredSupplier(h)
    const numbers = Array.from({ length: 5 }, () => randomAccountNo())
    const responses: unknown[] = []
    const call = async (
      method: string,
      path: string,
      body?: unknown,
      headers?: Record<string, string>,
    ) => {
      const res = await h.call(method, path, { admin, body, headers })
      responses.push(res.body)
      return res.body
    }
    const base = `/admin/supplier/items/${s.supplierId}`

    // Created in three spellings, one with an Idempotency-Key (its stored reply is scanned too).
    const items = {
      accounts: [
        accountBody({ accountNo: spellings(numbers[0])[1] }),
        accountBody({ accountNo: spellings(numbers[1])[2], accountType: 'PERSONAL' }),
      ],
    }
    const key = { 'idempotency-key': 'secrecy-create-1' }
    const created = await call('POST', `${base}/accounts/batch`, items, key)
    expect(created.code).toBe(200)
    const [first, second] = created.data.map((r: any) => r.accountId)
    // Replayed from the idempotency record.
    expect(await call('POST', `${base}/accounts/batch`, items, key)).toEqual(created)
    await call('POST', `/admin/supplier/items/${other.supplierId}/accounts/batch`, {
      accounts: [accountBody({ accountNo: numbers[2] })],
    })

    // Refused requests carrying numbers: a duplicate (C-19), a malformed one (C-03).
    expect(
      (
        await call('POST', `${base}/accounts/batch`, {
          accounts: [accountBody({ accountNo: numbers[2] })],
        })
      ).code,
    ).toBe(395016)
    expect(
      (
        await call('POST', `${base}/accounts/batch`, {
          accounts: [accountBody({ accountNo: `${numbers[3]}X` })],
        })
      ).code,
    ).toBe(395015)

    // Change the number, then the default.
    let detail = await call('GET', `${base}/accounts/${first}`)
    expect(
      (
        await call('POST', `${base}/accounts/${first}/change`, {
          accountNo: numbers[3],
          changeReason: 'new card',
          expectedUpdateTime: detail.data.updateTime,
        })
      ).data.approvalStatus,
    ).toBe('APPLIED')
    detail = await call('GET', `${base}/accounts/${first}`)
    // A refused change with a stale version still carries a number in its body.
    expect(
      (
        await call('POST', `${base}/accounts/${first}/change`, {
          accountNo: numbers[4],
          changeReason: 'again',
          expectedUpdateTime: '2020-01-01 00:00:00',
        })
      ).code,
    ).toBe(395003)
    expect(
      (
        await call('PUT', `${base}/accounts/${first}/default`, {
          expectedUpdateTime: detail.data.updateTime,
        })
      ).code,
    ).toBe(200)

    // Every read that shows accounts.
    await call('GET', `${base}/accounts`)
    await call('GET', `${base}/accounts/${second}`)
    await call('GET', `${base}/account-info`)
    await call('GET', base)
    await call('GET', `/admin/supplier/items?keyword=${encodeURIComponent(s.supplierId)}`)
    await call('GET', `/admin/supplier/approval-records?supplierId=${s.supplierId}&pageSize=100`)

    const haystacks = {
      responses: JSON.stringify(responses),
      logs: h.logs.join('\n'),
      database: (await everyRowAsText(h)).join('\n'),
    }
    for (const digits of numbers) {
      for (const [where, text] of Object.entries(haystacks)) {
        // The whole number in any spelling, and any run of its last ten digits (masks show four).
        for (const needle of [...spellings(digits), digits.slice(-10), digits.slice(0, 10)]) {
          expect(text.includes(needle), `${where} holds ${needle}`).toBe(false)
        }
      }
    }
    // The scan saw what it should: the masks are there.
    expect(haystacks.responses).toContain(`**** **** ${numbers[3].slice(-4)}`)
    expect(haystacks.database).toContain('BankAccountChanged')
  })
})
