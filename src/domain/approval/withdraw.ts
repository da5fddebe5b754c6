import { findApproval } from '../../../sql/approval'
import { fail } from '../../errors'
import type { ApprovalCommandResult } from '../../schemas/supplier'
import type { Deps } from '../deps'
import type { WriteContext } from '../context'
import { runWrite } from '../write/pipeline'
import { commandResult, withdrawApproval } from './applier'
import type { ApprovalHandlers } from './handler'
import { approvalSources } from '../../vocabulary'

/** The statuses the approval table lets an administrator withdraw from. */
const WITHDRAWABLE = approvalSources('WITHDRAW')

/**
 * Every permission withdrawing some approval type needs besides the route's own: the route asks
 * for them with its own (`Access.advise`), and the verb requires those of the approval's type.
 */
export const withdrawPermissions = (handlers: ApprovalHandlers): string[] => [
  ...new Set(Object.values(handlers).flatMap((handler) => handler?.permissions ?? [])),
]

/**
 * The administrator's way out of an approval whose application failed and can never pass (the
 * tax number was taken meanwhile, say): the approval is WITHDRAWN, its evidence kept, and its
 * business type undoes the pending change (a registration goes back to DRAFT). Undoing it is
 * the opening command's business, so the caller must hold that command's permissions too
 * (`held`: which of `withdrawPermissions` they hold); without them, 395002 and nothing written.
 */
export function withdrawFailedApproval(
  deps: Deps,
  ctx: WriteContext,
  approvalLogId: string,
  held: readonly string[],
): Promise<ApprovalCommandResult> {
  return runWrite(deps, ctx, {
    async precheck(sql) {
      const approval = await findApproval(sql, approvalLogId)
      if (!approval) fail('APPROVAL_NOT_FOUND')
      const needed = deps.approvalHandlers[approval.bizType]?.permissions ?? []
      const missing = needed.filter((code) => !held.includes(code))
      if (missing.length) {
        fail(
          'PERMISSION_DENIED',
          `permission denied: withdrawing a ${approval.bizType} approval requires ${missing.join(' and ')}`,
        )
      }
      if (!WITHDRAWABLE.includes(approval.status)) {
        fail(
          'OPERATION_NOT_ALLOWED_IN_STATUS',
          `only an ${WITHDRAWABLE.join(' or ')} approval can be withdrawn; this one is ${approval.status}`,
        )
      }
    },
    run: async (tx) => commandResult(await withdrawApproval(tx, deps, ctx, approvalLogId)),
  })
}
