import { expect } from 'vitest'
import type { ApprovalRow } from '../sql/approval'
import { localAutoProvider, type ApprovalProvider } from '../src/ports/approval-provider'
import { accountBody, registeredSupplier } from './account-data'
import { ITEMS, newDraft, ok, submit, submitBodyFrom } from './client'
import { insertAccount, insertSupplier, tag } from './fixtures'
import type { Harness } from './harness'

/*
 * Approvals whose application failed (APPLY_FAILED), made through the API: LOCAL_AUTO approves,
 * but first the world changes behind the service's back so that the applier's re-check refuses.
 * One of each business type, for the routes that act on such an approval (withdraw, the
 * internal re-apply).
 */

export type BizType = ApprovalRow['bizType']

/** What to change before the next decision; used once. */
let spoil: ((approval: ApprovalRow) => Promise<void>) | undefined

/** LOCAL_AUTO, except that the approval `failedApproval` asks for is spoiled before approval. */
export const spoilingProvider = (): ApprovalProvider => ({
  ...localAutoProvider,
  submit: async (approval) => {
    const before = spoil
    spoil = undefined
    await before?.(approval)
    return localAutoProvider.submit(approval)
  },
})

const VERSION = '2026-01-01 10:00:00'

/**
 * An APPLY_FAILED approval of `bizType` (the harness must use `spoilingProvider`), opened by an
 * administrator holding every permission; its supplier, and the command's answer.
 */
export async function failedApproval(h: Harness, bizType: BizType) {
  const admin = await h.admin()
  let supplierId: string
  let res: { status: number; body: any }
  switch (bizType) {
    case 'PROFILE_CREATE': {
      // The supplier renamed between submission and decision: the registration cannot apply.
      const draft = await newDraft(h, admin)
      supplierId = draft.supplierId
      spoil = async () => {
        await h.sql`UPDATE supplier SET full_name = full_name || ' renamed' WHERE supplier_id = ${supplierId}`
      }
      res = await submit(h, supplierId, submitBodyFrom(draft.body, draft.version), { admin })
      break
    }
    case 'STATUS_CHANGE': {
      // A write between command and decision: the move's compare-and-set misses.
      supplierId = (
        await insertSupplier(h, {
          status: 'ACTIVE',
          supplierNo: `SPW${tag()}`,
          updateTime: VERSION,
        })
      ).supplierId
      spoil = async () => {
        await h.sql`UPDATE supplier SET update_time = update_time + interval '5 seconds' WHERE supplier_id = ${supplierId}`
      }
      res = await h.call('POST', `${ITEMS}/${supplierId}/status`, {
        admin,
        body: { targetStatus: 'SUSPENDED', changeReason: '整改', expectedUpdateTime: VERSION },
      })
      break
    }
    case 'ACCOUNT_CREATE': {
      // The number became another supplier's valid account meanwhile (C-19 at apply time).
      supplierId = (await registeredSupplier(h)).supplierId
      const body = accountBody()
      spoil = async () => {
        const other = await registeredSupplier(h)
        await insertAccount(h, other.supplierId, { accountNo: body.accountNo, status: 'ACTIVE' })
      }
      res = await h.call('POST', `${ITEMS}/${supplierId}/accounts/batch`, {
        admin,
        body: { accounts: [body] },
      })
      break
    }
    case 'ACCOUNT_CHANGE': {
      // The account written again after the change was submitted.
      const s = await registeredSupplier(h, { accounts: [{}] })
      supplierId = s.supplierId
      const accountId = s.accountIds[0]
      const [row] = await h.sql`
        SELECT to_char(update_time, 'YYYY-MM-DD HH24:MI:SS') AS v FROM supplier_bank_account
        WHERE account_id = ${accountId}`
      spoil = async () => {
        await h.sql`UPDATE supplier_bank_account SET update_time = update_time + interval '5 seconds' WHERE account_id = ${accountId}`
      }
      res = await h.call('POST', `${ITEMS}/${supplierId}/accounts/${accountId}/change`, {
        admin,
        body: {
          bankName: '中国建设银行杭州分行',
          changeReason: '开户行变更',
          expectedUpdateTime: row.v,
        },
      })
      break
    }
  }
  spoil = undefined
  const data = ok(res)
  const answer = Array.isArray(data) ? data[0] : data
  expect(answer.approvalStatus, JSON.stringify(res.body)).toBe('APPLY_FAILED')
  return { approvalLogId: answer.approvalLogId as string, supplierId }
}
