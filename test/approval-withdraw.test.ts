import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ERRORS } from '../src/errors'
import { failedApproval, spoilingProvider, type BizType } from './failed-approvals'
import { useHarness } from './harness'
import { unchanged } from './unchanged'

/*
 * Withdrawing an APPLY_FAILED approval undoes the pending change of the command that opened it
 * (an account REJECTED, a registration back to DRAFT), so it needs that command's permission as
 * well as the route's own supplier:approval:submit: a caller holding only the latter cannot
 * withdraw an account or status approval.
 */

const h = useHarness({ approvalProvider: spoilingProvider })

const withdraw = (approvalLogId: string, admin: string) =>
  h.call('POST', `/admin/supplier/approvals/${approvalLogId}/withdraw`, { admin })

const approvalStatus = async (approvalLogId: string) =>
  (await h.sql`SELECT status FROM approval_log WHERE approval_log_id = ${approvalLogId}`)[0].status

const SUBMIT = 'supplier:approval:submit'

/** The permission of the command that opens each type, besides the route's own. */
const OPENED_WITH: Record<BizType, string | null> = {
  STATUS_CHANGE: 'supplier:status:manage',
  ACCOUNT_CREATE: 'supplier:account:manage',
  ACCOUNT_CHANGE: 'supplier:account:manage',
  // The registration's own command is the submit.
  PROFILE_CREATE: null,
}

describe('withdrawing an APPLY_FAILED approval needs the permission of the command that opened it', () => {
  for (const [bizType, permission] of Object.entries(OPENED_WITH) as [BizType, string | null][]) {
    if (!permission) continue
    it(`${bizType}: ${SUBMIT} alone, or ${permission} alone, is 395002 with nothing written; both withdraw it`, async () => {
      const { approvalLogId } = await failedApproval(h, bizType)
      const submitter = await h.admin([SUBMIT])
      const opener = await h.admin([permission])
      const both = await h.admin([SUBMIT, permission])
      await unchanged(
        h,
        async () => {
          const alone = await withdraw(approvalLogId, submitter)
          expect(alone.body).toMatchObject({
            code: ERRORS.PERMISSION_DENIED.code,
            success: false,
            data: null,
          })
          expect(alone.body.message).toContain(permission)
          const without = await withdraw(approvalLogId, opener)
          expect(without.body).toMatchObject({ code: ERRORS.PERMISSION_DENIED.code, data: null })
          expect(without.body.message).toContain(SUBMIT)
        },
        { grants: true },
      )
      expect(await approvalStatus(approvalLogId)).toBe('APPLY_FAILED')
      const res = await withdraw(approvalLogId, both)
      expect(res.body, JSON.stringify(res.body)).toMatchObject({
        code: 200,
        data: { approvalStatus: 'WITHDRAWN' },
      })
      expect(await approvalStatus(approvalLogId)).toBe('WITHDRAWN')
    })
  }

  it(`PROFILE_CREATE: ${SUBMIT} alone withdraws it (the registration's own command)`, async () => {
    const { approvalLogId, supplierId } = await failedApproval(h, 'PROFILE_CREATE')
    const res = await withdraw(approvalLogId, await h.admin([SUBMIT]))
    expect(res.body, JSON.stringify(res.body)).toMatchObject({
      code: 200,
      data: { approvalStatus: 'WITHDRAWN' },
    })
    const [row] = await h.sql`SELECT status FROM supplier WHERE supplier_id = ${supplierId}`
    expect(row.status).toBe('DRAFT')
  })

  it('docs/api.md states the rule: a failed registration is withdrawn with supplier:approval:submit alone', () => {
    const api = readFileSync(new URL('../docs/api.md', import.meta.url), 'utf8')
    const rule = /\*\*Who may withdraw\*\*:([\s\S]*?)(?=\n- \*\*|\n\n)/.exec(api)?.[1]
    expect(rule, 'docs/api.md has no "Who may withdraw" rule').toBeDefined()
    const text = rule!.replace(/\s+/g, ' ')
    expect(text).toContain(`\`${SUBMIT}\`: that permission alone withdraws a failed registration`)
    for (const [bizType, permission] of Object.entries(OPENED_WITH)) {
      expect(text).toContain(`\`${bizType}\``)
      if (permission) expect(text).toContain(`\`${permission}\``)
    }
  })

  it('the reference says which permission each type needs', async () => {
    const doc = await (await h.app.request('/openapi.json')).json()
    const op = doc.paths['/admin/supplier/approvals/{approvalLogId}/withdraw'].post
    expect(op['x-permissions']).toEqual([SUBMIT])
    for (const [bizType, permission] of Object.entries(OPENED_WITH)) {
      expect(op.description).toContain(`${bizType}: \`${permission ?? SUBMIT}\``)
    }
  })
})
