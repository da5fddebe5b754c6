import {
  ApprovalRow,
  findApproval,
  lockApproval,
  markApplied,
  markApplyFailed,
  markWithdrawn,
  recordDecision,
} from '../../../sql/approval'
import type { Sql } from '../../../sql/db'
import { lockSupplierOfApproval } from '../../../sql/supplier'
import { AppError, ERRORS, fail } from '../../errors'
import type { ApprovalResult } from '../../ports/approval-provider'
import type { ApprovalCommandResult } from '../../schemas/supplier'
import { sealApproval } from '../audit/trail'
import type { Deps } from '../deps'
import { mapConstraintViolation } from '../write/constraints'
import { allSettled, ContentionError, transaction } from '../write/transaction'
import { notAppliedReason, type ApplierCtx, type ApprovalHandler } from './handler'
import { APPROVAL_APPLICABLE, approvalSources, approvalTarget } from '../../vocabulary'

/** The approval row, locked for this transaction; 395029 when there is none. */
const locked = async (tx: Sql, approvalLogId: string) =>
  (await lockApproval(tx, approvalLogId)) ?? fail('APPROVAL_NOT_FOUND')

/** The approval as this transaction now sees it. */
const current = async (tx: Sql, approvalLogId: string) =>
  (await findApproval(tx, approvalLogId)) ?? fail('APPROVAL_NOT_FOUND')

/** The handler of an approval's business type and its parsed snapshot. */
function handle(deps: Deps, approval: ApprovalRow) {
  const handler = deps.approvalHandlers[approval.bizType] as ApprovalHandler<unknown> | undefined
  if (!handler) fail('APPROVAL_APPLY_FAILED', `no handler applies ${approval.bizType} approvals`)
  if (approval.schemaVersion !== 1) {
    fail(
      'APPROVAL_SCHEMA_UNSUPPORTED',
      `approval snapshot schemaVersion ${approval.schemaVersion} is not supported`,
    )
  }
  const snapshot = handler.snapshot.safeParse(approval.candidateSnapshot)
  if (!snapshot.success) fail('APPROVAL_SCHEMA_UNSUPPORTED', 'the approval snapshot cannot be read')
  return { handler: handler, snapshot: snapshot.data }
}

/**
 * The common result applier: the only code that applies an approved change. It takes a
 * standardized result (whatever provider produced it), locks the approval, and hands the work
 * to the handler of its business type in one transaction. Applying an APPLIED approval again
 * changes nothing. A business re-check failure marks the approval APPLY_FAILED (retryable) in
 * a transaction of its own; anything else (a lost connection) leaves it for reconciliation.
 */
export async function applyApprovalResult(
  deps: Deps,
  ctx: ApplierCtx,
  result: ApprovalResult,
): Promise<ApprovalRow> {
  if (result.schemaVersion !== 1) {
    fail(
      'APPROVAL_SCHEMA_UNSUPPORTED',
      `approval snapshot schemaVersion ${result.schemaVersion} is not supported`,
    )
  }
  // The decision and its application share one transaction: one lock, one commit. Should that
  // transaction not commit, the decision is then recorded in a transaction of its own before the
  // failure is handled, so a failure while applying never loses it (the approval then stays
  // APPROVED, and retryable). Both writes are conditional on the approval's status, so a
  // decision that did commit is never recorded twice.
  let outcome: ApprovalRow
  try {
    outcome = await transaction(deps, ctx, async (tx) => {
      const approval = await decided(tx, deps, result)
      if (approval.status === approvalTarget('DECIDE_REJECTED')) {
        const { handler, snapshot } = handle(deps, approval)
        await handler.notApplied(tx, deps, ctx, {
          approval,
          snapshot,
          outcome: notAppliedReason('REJECTED'),
        })
      } else if (APPROVAL_APPLICABLE.includes(approval.status)) {
        const { handler, snapshot } = handle(deps, approval)
        await handler.apply(tx, deps, ctx, { approval, snapshot })
        // The row as the update returned it is the approval as this transaction leaves it.
        const applied = await sealApproval(tx, deps, await markApplied(tx, approval.approvalLogId))
        if (applied) return ApprovalRow.parse(applied)
      }
      return current(tx, approval.approvalLogId)
    })
  } catch (thrown) {
    const err = mapConstraintViolation(thrown)
    // Only a business re-check failure marks the approval; an apply that may have committed
    // (outcome unknown), could not run, or kept meeting lock conflicts is left as it is, for a
    // retry or the sweep.
    if (
      !(err instanceof AppError) ||
      err instanceof ContentionError ||
      err.entry === ERRORS.WRITE_OUTCOME_UNKNOWN
    ) {
      await keepDecision(deps, ctx, result)
      throw err
    }
    deps.logger.warn(
      { approvalLogId: result.approvalLogId, code: err.code, reason: err.message },
      'approval not applied',
    )
    outcome = await transaction(deps, ctx, async (tx) => {
      const approval = await decided(tx, deps, result)
      await sealApproval(
        tx,
        deps,
        await markApplyFailed(tx, approval.approvalLogId, err.code, err.message),
      )
      await failed(tx, deps, ctx, { approval, err })
      return current(tx, approval.approvalLogId)
    })
  }
  deps.observer?.approvalOutcome(outcome.bizType, outcome.status)
  return outcome
}

/**
 * The approval, locked for this transaction, with the provider's decision recorded (sealed) if
 * it was still undecided. The decision's UPDATE, conditional on the status, is also the lock
 * when it matches; otherwise (decided already) the row is locked and read as it is.
 */
async function decided(tx: Sql, deps: Deps, result: ApprovalResult): Promise<ApprovalRow> {
  // The supplier's aggregate lock comes first, as in every command of that supplier; the two
  // statements go out together and run in the order sent.
  const [, decision] = await allSettled([
    lockSupplierOfApproval(tx, result.approvalLogId),
    recordDecision(tx, result.approvalLogId, result.decision),
  ] as const)
  const recorded = await sealApproval(tx, deps, decision)
  return recorded ? ApprovalRow.parse(recorded) : locked(tx, result.approvalLogId)
}

/**
 * The transaction that would have recorded the decision with its application did not commit:
 * the decision, evidence of its own, is recorded alone. If even that cannot be written (the
 * database is gone), the approval stays undecided and reconciliation puts it to the provider
 * again; the applier's own failure is what the caller hears either way.
 */
async function keepDecision(deps: Deps, ctx: ApplierCtx, result: ApprovalResult) {
  try {
    await transaction(deps, ctx, async (tx) => {
      await decided(tx, deps, result)
    })
  } catch (err) {
    deps.logger.warn(
      { approvalLogId: result.approvalLogId, err: (err as Error).message },
      'approval decision not recorded: left to reconciliation',
    )
  }
}

async function failed(
  tx: Sql,
  deps: Deps,
  ctx: ApplierCtx,
  { approval, err }: { approval: ApprovalRow; err: AppError },
) {
  const handler = deps.approvalHandlers[approval.bizType] as ApprovalHandler<unknown> | undefined
  const snapshot = handler?.snapshot.safeParse(approval.candidateSnapshot)
  // An unreadable snapshot or an unknown type has nothing of its own to undo.
  if (handler && snapshot?.success) {
    await handler.notApplied(tx, deps, ctx, {
      approval,
      snapshot: snapshot.data,
      outcome: notAppliedReason('APPLY_FAILED', err),
    })
  }
}

/**
 * The way out of an APPLY_FAILED approval that can never be applied (its re-check cannot pass
 * any more): the approval becomes WITHDRAWN, keeping its decision, failure and snapshot as
 * evidence, and its handler undoes the pending business change. Runs inside the caller's
 * transaction (a write of the pipeline).
 */
export async function withdrawApproval(
  tx: Sql,
  deps: Deps,
  ctx: ApplierCtx,
  approvalLogId: string,
): Promise<ApprovalRow> {
  await lockSupplierOfApproval(tx, approvalLogId)
  const approval = await locked(tx, approvalLogId)
  const withdrawable = approvalSources('WITHDRAW')
  if (!withdrawable.includes(approval.status)) {
    fail(
      'OPERATION_NOT_ALLOWED_IN_STATUS',
      `only an ${withdrawable.join(' or ')} approval can be withdrawn; this one is ${approval.status}`,
    )
  }
  const { handler, snapshot } = handle(deps, approval)
  await handler.notApplied(tx, deps, ctx, {
    approval,
    snapshot,
    outcome: notAppliedReason('WITHDRAWN'),
  })
  await sealApproval(tx, deps, await markWithdrawn(tx, approval.approvalLogId))
  return current(tx, approval.approvalLogId)
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
