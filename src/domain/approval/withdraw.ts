import { findApproval } from '../../../sql/approval'
import { fail } from '../../errors'
import type { ApprovalCommandResult } from '../../schemas/supplier'
import type { DomainDeps, WriteContext } from '../context'
import { runWrite } from '../write/pipeline'
import { withdrawApproval } from './applier'
import { commandResult } from './submit'
import { approvalSources } from '../../vocabulary'

/** The statuses the approval table lets an administrator withdraw from. */
const WITHDRAWABLE = approvalSources('WITHDRAW')

/**
 * The administrator's way out of an approval whose application failed and can never pass (the
 * tax number was taken meanwhile, say): the approval is WITHDRAWN, its evidence kept, and its
 * business type undoes the pending change (a registration goes back to DRAFT).
 */
export function withdrawFailedApproval(
  deps: DomainDeps,
  ctx: WriteContext,
  approvalLogId: string,
): Promise<ApprovalCommandResult> {
  return runWrite(deps, ctx, {
    async precheck(sql) {
      const approval = await findApproval(sql, approvalLogId)
      if (!approval) fail('APPROVAL_NOT_FOUND')
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
