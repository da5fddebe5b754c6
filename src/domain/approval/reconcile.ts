import { findApproval, stuckApprovals, type ApprovalRow } from '../../../sql/approval'
import { releaseLease, takeLease } from '../../../sql/lease'
import { fail } from '../../errors'
import type { ApprovalResult } from '../../ports/approval-provider'
import type { Deps } from '../deps'
import type { RequestDeadline } from '../deadline'
import { applyApprovalResult } from './applier'

/**
 * Reconciles one approval: an undecided one is put to its provider again (LOCAL_AUTO answers
 * locally; an external provider is asked for its decision, never sent a second request), a
 * decided one is handed to the applier, which changes nothing if it is already applied.
 */
export async function reconcileApproval(
  deps: Deps,
  approvalLogId: string,
  requestId: string,
  deadline?: RequestDeadline,
): Promise<ApprovalRow> {
  const approval = await findApproval(deps.sql, approvalLogId)
  if (!approval) fail('APPROVAL_NOT_FOUND')
  let result: ApprovalResult = { approvalLogId, decision: 'APPROVED', schemaVersion: 1 }
  if (approval.status === 'SUBMITTED') {
    try {
      result = await deps.approvalProvider.submit(approval)
    } catch (err) {
      deps.logger.warn(
        { approvalLogId, err: (err as Error).message },
        'reconciliation: provider failed',
      )
      fail('DEPENDENCY_UNAVAILABLE', 'the approval provider did not answer; try again later')
    }
  }
  return applyApprovalResult(
    deps,
    { adminId: approval.applicantAdminId, requestId, deadline },
    result,
  )
}

/** The lease (sql/lease.ts) that lets one replica at a time sweep. */
const SWEEP_JOB = 'approval-sweep'
/**
 * Longer than a sweep of one batch takes, so that a live holder never loses it; a holder that
 * died mid-sweep holds up the others this long at most.
 */
const SWEEP_LEASE_SECONDS = 300

export interface SweepOutcome {
  /** False when another replica held the sweep lease. */
  ran: boolean
  examined: number
  applied: number
  notApplied: number
}

/**
 * The service's own reconciliation of approvals stuck SUBMITTED or APPROVED for longer than
 * `olderThanSeconds` (a crash or a lost connection between a command's two transactions).
 * One replica at a time: a lease row rather than a session advisory lock, which a transaction
 * pooler would leak (see the migration that made job_lease).
 */
export async function sweepStuckApprovals(
  deps: Deps,
  opts: { olderThanSeconds: number; batch?: number },
): Promise<SweepOutcome> {
  const outcome: SweepOutcome = { ran: false, examined: 0, applied: 0, notApplied: 0 }
  const sweep = async () => {
    outcome.ran = true
    const stuck = await stuckApprovals(deps.sql, opts.olderThanSeconds, opts.batch ?? 100)
    for (const { approvalLogId } of stuck) {
      outcome.examined++
      try {
        const after = await reconcileApproval(deps, approvalLogId, `sweep-${crypto.randomUUID()}`)
        if (after.status === 'APPLIED') outcome.applied++
        else outcome.notApplied++
      } catch (err) {
        outcome.notApplied++
        deps.logger.warn({ approvalLogId, err: (err as Error).message }, 'sweep: not reconciled')
      }
    }
  }
  await underSweepLease(deps, sweep)
  if (outcome.examined) deps.logger.info(outcome, 'stuck approvals reconciled')
  return outcome
}

async function underSweepLease(deps: Deps, sweep: () => Promise<void>) {
  const holder = crypto.randomUUID()
  if (!(await takeLease(deps.sql, SWEEP_JOB, holder, SWEEP_LEASE_SECONDS))) return
  try {
    await sweep()
  } finally {
    await releaseLease(deps.sql, SWEEP_JOB, holder)
  }
}

/**
 * Runs the sweep at start-up and then every `intervalSeconds` (0: start-up only) until the
 * returned stop function is called; a failed round is logged and the next one runs anyway.
 */
export function startApprovalSweeper(deps: Deps) {
  const { approvalReconcileAfterSeconds: olderThanSeconds, approvalReconcileIntervalSeconds } =
    deps.config
  let running: Promise<unknown> = Promise.resolve()
  const round = () => {
    running = sweepStuckApprovals(deps, { olderThanSeconds }).catch((err) =>
      deps.logger.warn({ err: (err as Error).message }, 'approval sweep failed'),
    )
  }
  round()
  const timer =
    approvalReconcileIntervalSeconds > 0
      ? setInterval(round, approvalReconcileIntervalSeconds * 1000)
      : undefined
  timer?.unref()
  return async () => {
    clearInterval(timer)
    await running
  }
}
