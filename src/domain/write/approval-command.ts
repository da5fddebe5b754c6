import { ApprovalRow, findApproval, insertApproval, type NewApproval } from '../../../sql/approval'
import { insertEvent, type DomainEvent } from '../../../sql/outbox'
import type { Sql } from '../../../sql/db'
import type { ApprovalCommandResult } from '../../schemas/supplier'
import { commandResult, currentCommandResult, decideApproval } from '../approval/submit'
import type { DomainDeps, WriteContext } from '../context'
import { sealApproval, type AuditDeps } from '../audit/trail'
import { logChanges, type FieldChange } from './change-log'
import { runWrite } from './pipeline'
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

/** What an approval command records besides the approval itself. */
export interface ApprovalRecord {
  approval: Omit<NewApproval, 'requestNo' | 'applicantAdminId' | 'submitNoteEnc'> & {
    submitNoteEnc?: string | null
  }
  /** The change-log rows; they carry the approval's id and status, and the reason if any. */
  log: { operationType: ChangeOperationType; changes: FieldChange[]; changeReason?: string }
  /** The pending event; its payload gains the approval's id and the operator. */
  event: Omit<DomainEvent, 'payload'> & { payload: Record<string, unknown> }
}

/** Records the SUBMITTED approval, its change log and its event in the caller's transaction. */
export async function openApproval(
  tx: Sql,
  deps: AuditDeps,
  ctx: Pick<WriteContext, 'adminId' | 'requestId'>,
  { approval: spec, log, event }: ApprovalRecord,
): Promise<ApprovalRow> {
  const written = await insertApproval(tx, {
    ...spec,
    requestNo: `${REQUEST_PREFIX[spec.bizType]}-${spec.targetId}-${crypto.randomUUID()}`,
    applicantAdminId: ctx.adminId,
    submitNoteEnc: spec.submitNoteEnc ?? null,
  })
  await sealApproval(tx, deps, written)
  const approval = ApprovalRow.parse(written)
  await logChanges(tx, deps, ctx, spec.supplierId, log.operationType, log.changes, {
    approvalLogId: approval.approvalLogId,
    status: approval.status,
    ...(log.changeReason === undefined ? {} : { changeReason: log.changeReason }),
  })
  await insertEvent(tx, {
    ...event,
    payload: { ...event.payload, approvalLogId: approval.approvalLogId, operatorId: ctx.adminId },
  })
  return approval
}

/**
 * An approval command through the write pipeline: `run` opens one approval (with
 * `openApproval`); the answer is its ApprovalCommandResultVO, improved after commit by the
 * provider's decision and replayed with the approval's current state.
 */
export function runApprovalCommand<Seen>(
  deps: DomainDeps,
  ctx: WriteContext,
  command: { precheck(sql: Sql): Promise<Seen>; run(tx: Sql, seen: Seen): Promise<ApprovalRow> },
): Promise<ApprovalCommandResult> {
  return runWrite(deps, ctx, {
    precheck: (sql) => command.precheck(sql),
    run: async (tx, seen) => commandResult(await command.run(tx, seen)),
    afterCommit: async (submitted) => {
      const approval = await findApproval(deps.sql, submitted.approvalLogId)
      return approval ? commandResult(await decideApproval(deps, ctx, approval)) : submitted
    },
    replay: (kept) => currentCommandResult(deps, kept),
  })
}
