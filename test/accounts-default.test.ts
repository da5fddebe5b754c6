import { describe, expect, inject, it } from 'vitest'
import { useHarness } from './harness'
import { ACCOUNT_ADMIN, registeredSupplier } from './account-data'
import { unchanged } from './unchanged'

const h = useHarness()

const version = async (accountId: string) => {
  const [row] = await h.sql`
    SELECT to_char(update_time, 'YYYY-MM-DD HH24:MI:SS') AS v FROM supplier_bank_account WHERE account_id = ${accountId}`
  return row.v as string
}

async function setDefault(
  supplierId: string,
  accountId: string,
  expectedUpdateTime?: string,
  admin?: string,
) {
  return h.call('PUT', `/admin/supplier/items/${supplierId}/accounts/${accountId}/default`, {
    admin: admin ?? (await h.admin(ACCOUNT_ADMIN)),
    body: { expectedUpdateTime: expectedUpdateTime ?? (await version(accountId)) },
  })
}

const defaults = async (supplierId: string) =>
  (
    await h.sql`
      SELECT account_id::text AS id FROM supplier_bank_account
      WHERE supplier_id = ${supplierId} AND deleted_at IS NULL AND is_default = 'YES'`
  ).map((r) => r.id as string)

describe('SUP-ADM-041 default switch', () => {
  it('makes an ACTIVE account the default; the previous default becomes NO, in one change', async () => {
    const s = await registeredSupplier(h, {
      accounts: [{ isDefault: 'YES' }, {}, {}],
    })
    const [first, second] = s.accountIds
    const res = await setDefault(s.supplierId, second)
    expect(res.body).toMatchObject({ code: 200, success: true })
    expect(res.body.data).toMatchObject({ accountId: second, isDefault: 'YES', status: 'ACTIVE' })
    expect(res.body.data).not.toHaveProperty('proofFileUrls')
    expect(await defaults(s.supplierId)).toEqual([second])

    const list = await h.call('GET', `/admin/supplier/items/${s.supplierId}/accounts`, {
      admin: await h.admin(['supplier:view']),
    })
    expect(list.body.data[0]).toMatchObject({ accountId: second, isDefault: 'YES' })
    expect(list.body.data.filter((a: any) => a.isDefault === 'YES')).toHaveLength(1)

    const rows = await h.sql`
      SELECT target_id::text AS id, field_name, old_value_masked AS old, new_value_masked AS new
      FROM change_log WHERE supplier_id = ${s.supplierId} AND operation_type = 'ACCOUNT_DEFAULT'
      ORDER BY change_log_id`
    expect(rows.map((r) => ({ ...r }))).toEqual([
      { id: first, field_name: 'isDefault', old: 'YES', new: 'NO' },
      { id: second, field_name: 'isDefault', old: 'NO', new: 'YES' },
    ])
    const [event] = await h.sql`
      SELECT payload FROM domain_event WHERE event_type = 'BankAccountDefaultChanged' AND aggregate_id = ${second}`
    expect(event.payload).toMatchObject({ accountId: second, previousAccountId: first })
  })

  it('the first default of a supplier without one', async () => {
    const s = await registeredSupplier(h, { accounts: [{}] })
    const res = await setDefault(s.supplierId, s.accountIds[0])
    expect(res.body.data.isDefault).toBe('YES')
    expect(await defaults(s.supplierId)).toEqual([s.accountIds[0]])
  })

  it('refuses a non-ACTIVE account (395021), the current default (395012), a stale version (395003)', async () => {
    const s = await registeredSupplier(h, {
      accounts: [{ isDefault: 'YES' }, { status: 'PENDING' }, { status: 'APPLY_FAILED' }, {}],
    })
    for (const id of [s.accountIds[1], s.accountIds[2]]) {
      expect((await unchanged(h, () => setDefault(s.supplierId, id))).body.code).toBe(395021)
    }
    expect((await unchanged(h, () => setDefault(s.supplierId, s.accountIds[0]))).body.code).toBe(
      395012,
    )
    const stale = await unchanged(h, () =>
      setDefault(s.supplierId, s.accountIds[3], '2020-01-01 00:00:00'),
    )
    expect(stale.body.code).toBe(395003)
    expect(await defaults(s.supplierId)).toEqual([s.accountIds[0]])
  })

  it('refuses accounts of another supplier or deleted ones (395020), and blocked statuses (395021)', async () => {
    const s = await registeredSupplier(h, { accounts: [{}, { deletedAt: 'now' }] })
    const other = await registeredSupplier(h, { accounts: [{}] })
    for (const id of [other.accountIds[0], s.accountIds[1]]) {
      expect((await unchanged(h, () => setDefault(s.supplierId, id))).body.code).toBe(395020)
    }
    for (const status of ['BLACKLIST', 'ARCHIVED'] as const) {
      const blocked = await registeredSupplier(h, { status, accounts: [{}] })
      expect(
        (await unchanged(h, () => setDefault(blocked.supplierId, blocked.accountIds[0]))).body.code,
      ).toBe(395021)
    }
    const frozen = await registeredSupplier(h, { status: 'FROZEN', accounts: [{}] })
    expect((await setDefault(frozen.supplierId, frozen.accountIds[0])).body.code).toBe(200)
  })

  it('needs supplier:account:manage; supplier:status:manage grants nothing', async () => {
    const s = await registeredSupplier(h, { accounts: [{}] })
    for (const perms of [['supplier:status:manage'], ['supplier:view', 'supplier:update']]) {
      const admin = await h.admin(perms)
      const res = await unchanged(h, () =>
        setDefault(s.supplierId, s.accountIds[0], undefined, admin),
      )
      expect(res.body.code).toBe(395002)
    }
  })

  it('the partial unique index refuses a second default even behind the service’s back', async () => {
    const s = await registeredSupplier(h, { accounts: [{ isDefault: 'YES' }, {}] })
    await expect(
      h.sql`UPDATE supplier_bank_account SET is_default = 'YES' WHERE account_id = ${s.accountIds[1]}`,
    ).rejects.toMatchObject({ constraint_name: 'supplier_bank_account_one_default' })
  })
})

// PGlite serves one session at a time (the harness uses one connection), so requests there
// never overlap inside the database: concurrency is only real on PostgreSQL.
const embedded = inject('database').kind === 'embedded'

describe.skipIf(embedded)('SUP-ADM-041 under concurrency (real PostgreSQL only)', () => {
  it('two concurrent switches to different accounts leave exactly one default', async () => {
    for (let round = 0; round < 10; round++) {
      const s = await registeredSupplier(h, { accounts: [{ isDefault: 'YES' }, {}, {}] })
      const [a1, a2] = [await h.admin(ACCOUNT_ADMIN), await h.admin(ACCOUNT_ADMIN)]
      const [v1, v2] = [await version(s.accountIds[1]), await version(s.accountIds[2])]
      const results = await Promise.all([
        setDefault(s.supplierId, s.accountIds[1], v1, a1),
        setDefault(s.supplierId, s.accountIds[2], v2, a2),
      ])
      for (const r of results) expect([200, 395014]).toContain(r.body.code)
      const now = await defaults(s.supplierId)
      expect(now).toHaveLength(1)
      // The default is the account of the switch that committed last.
      const winners = results.flatMap((r, i) => (r.body.code === 200 ? [s.accountIds[i + 1]] : []))
      expect(winners).toContain(now[0])
    }
  })

  it('twenty concurrent switches across one supplier’s accounts leave exactly one default', async () => {
    const s = await registeredSupplier(h, { accounts: Array.from({ length: 20 }, () => ({})) })
    const admins = await Promise.all(s.accountIds.map(() => h.admin(ACCOUNT_ADMIN)))
    const versions = await Promise.all(s.accountIds.map(version))
    const results = await Promise.all(
      s.accountIds.map((id, i) => setDefault(s.supplierId, id, versions[i], admins[i])),
    )
    for (const r of results) expect([200, 395014]).toContain(r.body.code)
    expect(await defaults(s.supplierId)).toHaveLength(1)
  })
})
