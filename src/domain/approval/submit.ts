import { findApproval, type ApprovalRow } from '../../../sql/approval'
import type { ApprovalCommandResult } from '../../schemas/supplier'
import type { DomainDeps } from '../context'
import { applyApprovalResult } from './applier'
import type { ApplierCtx } from './handler'

/**
 * Step 6 of an approval command, after its first transaction committed the SUBMITTED approval:
 * ask the provider, hand its standardized answer to the common applier, and report the state
 * the approval is recorded in. Never throws: a provider or applier fault leaves the approval
 * SUBMITTED or APPROVED for the reconciliation sweep, and that recorded state is the answer.
 */
export async function decideApproval(
  deps: DomainDeps,
  ctx: ApplierCtx,
  approval: ApprovalRow,
): Promise<ApprovalRow> {
  try {
    const result = await deps.approvalProvider.submit(approval)
    return await applyApprovalResult(deps, ctx, result)
  } catch (err) {
    deps.logger.error(
      { approvalLogId: approval.approvalLogId, err: (err as Error).message },
      'approval not decided or not applied yet: left to reconciliation',
    )
    return (await findApproval(deps.sql, approval.approvalLogId).catch(() => null)) ?? approval
  }
}

/** The ApprovalCommandResultVO of an approval as recorded; LOCAL_AUTO has no spNo or spStatus. */
export function commandResult(a: ApprovalRow): ApprovalCommandResult {
  return {
    approvalLogId: a.approvalLogId,
    requestNo: a.requestNo,
    provider: a.provider,
    approvalStatus: a.status,
    businessApplied: a.status === 'APPLIED',
    spNo: a.spNo ?? '',
    spStatus: a.spStatus ?? '',
    syncStatus: a.syncStatus,
    submittedAt: a.submittedAt,
    finishedAt: a.finishedAt,
  }
}

/** A kept answer replayed with the approval's current state (it may have been applied since). */
export async function currentCommandResult(
  deps: Pick<DomainDeps, 'sql'>,
  kept: ApprovalCommandResult,
): Promise<ApprovalCommandResult> {
  const now = await findApproval(deps.sql, kept.approvalLogId)
  return now ? commandResult(now) : kept
}
