import { ApprovalRow, findApproval, insertApproval, type NewApproval } from '../../../sql/approval'
import type { DomainEvent } from '../../../sql/outbox'
import type { OpeningEvent } from '../../schemas/events'
import type { Sql } from '../../../sql/db'
import type { ApprovalCommandResult } from '../../schemas/supplier'
import { applyApprovalResult, commandResult } from './applier'
import type { ApprovalHandler } from './handler'
import type { Deps } from '../deps'
import type { WriteContext } from '../context'
import { sealApprovalAndLog } from '../audit/trail'
import type { FieldChange } from '../write/change-log'
import { runWrite } from '../write/pipeline'
import type { ChangeOperationType } from '../../vocabulary'

/*
 * The tail every approval command shares: record the approval (SUBMITTED), its change-log rows
 * and its pending event in the command's transaction; after commit, ask the provider and hand its
 * answer to the common applier; on a repeated Idempotency-Key, report the approval as it is now.
 * A command supplies its rules and what to record; the order and the wording are said here once.
 */

/** The prefix of an approval's request number, per business type. */
const REQUEST_PREFIX: Record<ApprovalRow['bizType'], string> = {
  PROFILE_CREATE: 'REG',
  STATUS_CHANGE: 'STS',
  ACCOUNT_CREATE: 'ACC',
  ACCOUNT_CHANGE: 'ACH',
}

/** What an approval command records: the approval, its change log and its event. */
export interface ApprovalRecord<S> {
  /**
   * The handler that applies this approval once decided (its business type is recorded, and the
   * snapshot must be of the type it reads): "go to definition" on it shows what approving does.
   */
  handler: ApprovalHandler<S>
  approval: Omit<
    NewApproval,
    'bizType' | 'requestNo' | 'applicantAdminId' | 'submitNoteEnc' | 'candidateSnapshot'
  > & {
    candidateSnapshot: S
    submitNoteEnc?: string | null
  }
  /** The change-log rows; they carry the approval's id and status, and the reason if any. */
  log: { operationType: ChangeOperationType; changes: FieldChange[]; changeReason?: string }
  /** The pending event; its payload gains the approval's id and the operator. */
  event: OpeningEvent
}

/** Records the SUBMITTED approval, its change log and its event in the caller's transaction. */
export async function openApproval<S>(
  tx: Sql,
  deps: Deps,
  ctx: Pick<WriteContext, 'adminId' | 'requestId'>,
  { handler, approval: spec, log, event }: ApprovalRecord<S>,
): Promise<ApprovalRow> {
  const { bizType } = handler
  const written = await insertApproval(tx, {
    ...spec,
    bizType,
    candidateSnapshot: spec.candidateSnapshot as Record<string, unknown>,
    requestNo: `${REQUEST_PREFIX[bizType]}-${spec.targetId}-${crypto.randomUUID()}`,
    applicantAdminId: ctx.adminId,
    submitNoteEnc: spec.submitNoteEnc ?? null,
  })
  const approval = ApprovalRow.parse(written)
  // The approval's seal and its change log share the chain head its INSERT locked.
  await sealApprovalAndLog(tx, deps, written, {
    ctx,
    log: {
      supplierId: spec.supplierId,
      operationType: log.operationType,
      changes: log.changes,
      approvalLogId: approval.approvalLogId,
      status: approval.status,
      ...(log.changeReason === undefined ? {} : { changeReason: log.changeReason }),
    },
    // The spread loses the type-to-payload link tsc checked at the caller; the outbox re-checks it.
    events: [
      {
        ...event,
        payload: {
          ...event.payload,
          approvalLogId: approval.approvalLogId,
          operatorId: ctx.adminId,
        },
      } as DomainEvent,
    ],
  })
  return approval
}

/**
 * An approval command through the write pipeline: `run` opens one approval (with
 * `openApproval`); the answer is its ApprovalCommandResultVO. After commit the provider is asked
 * about the approval as the transaction wrote it (its seal, written after, is no part of it) and
 * the common applier applies its answer; the answer then reports the state the approval is
 * recorded in. That step never throws: a provider or applier fault leaves the approval SUBMITTED
 * or APPROVED for the reconciliation sweep, and that recorded state is the answer. A replay
 * reports the approval as it is now.
 */
export function runApprovalCommand<Seen>(
  deps: Deps,
  ctx: WriteContext,
  command: { precheck(sql: Sql): Promise<Seen>; run(tx: Sql, seen: Seen): Promise<ApprovalRow> },
): Promise<ApprovalCommandResult> {
  return runWrite(deps, ctx, {
    precheck: command.precheck,
    run: command.run,
    answer: commandResult,
    afterCommit: async (_answer, approval) => {
      try {
        const result = await deps.approvalProvider.submit(approval)
        return commandResult(await applyApprovalResult(deps, ctx, result))
      } catch (err) {
        return commandResult(await leftUndecided(deps, approval, err))
      }
    },
    replay: (kept) => currentCommandResult(deps, kept),
  })
}

/**
 * An approval the provider did not decide, or the applier did not apply, after its command
 * committed: logged, and reported as recorded, for the reconciliation sweep.
 */
export async function leftUndecided(
  deps: Deps,
  approval: ApprovalRow,
  err: unknown,
): Promise<ApprovalRow> {
  deps.logger.error(
    { approvalLogId: approval.approvalLogId, err: (err as Error).message },
    'approval not decided or not applied yet: left to reconciliation',
  )
  return (await findApproval(deps.sql, approval.approvalLogId).catch(() => null)) ?? approval
}

/** A kept answer replayed with the approval's current state (it may have been applied since). */
async function currentCommandResult(
  deps: Deps,
  kept: ApprovalCommandResult,
): Promise<ApprovalCommandResult> {
  const now = await findApproval(deps.sql, kept.approvalLogId)
  return now ? commandResult(now) : kept
}
