import { z } from 'zod'
import { many, maybeOne, one, type Query, type Sql, DATE_TIME } from './db'
import { ApprovalToSeal, approvalWriteToSeal } from './audit-trail'
import {
  APPROVAL_INITIAL,
  APPROVAL_STATUSES,
  APPROVAL_BIZ_TYPES,
  approvalSources,
  approvalTarget,
  DECISION_TRIGGER,
} from '../src/vocabulary'

export const ApprovalRow = z.object({
  approvalLogId: z.string(),
  requestNo: z.string(),
  provider: z.literal('LOCAL_AUTO'),
  bizType: z.enum(APPROVAL_BIZ_TYPES),
  subType: z.string().nullable(),
  supplierId: z.string(),
  targetType: z.string(),
  targetId: z.string(),
  applicantAdminId: z.string(),
  candidateSnapshot: z.unknown(),
  schemaVersion: z.number().int(),
  status: z.enum(APPROVAL_STATUSES),
  syncStatus: z.string(),
  spNo: z.string().nullable(),
  spStatus: z.string().nullable(),
  submittedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
})
export type ApprovalRow = z.output<typeof ApprovalRow>

const approvalColumns = (sql: Sql) => sql`
  a.approval_log_id::text AS "approvalLogId", a.request_no AS "requestNo", a.provider, a.biz_type AS "bizType",
  a.sub_type AS "subType", a.supplier_id::text AS "supplierId", a.target_type AS "targetType",
  a.target_id::text AS "targetId", a.applicant_admin_id::text AS "applicantAdminId",
  a.candidate_snapshot AS "candidateSnapshot", a.schema_version AS "schemaVersion", a.status,
  a.sync_status AS "syncStatus", a.sp_no AS "spNo", a.sp_status AS "spStatus",
  to_char(a.submitted_at, ${DATE_TIME}) AS "submittedAt", to_char(a.finished_at, ${DATE_TIME}) AS "finishedAt"
`

export interface NewApproval {
  requestNo: string
  bizType: ApprovalRow['bizType']
  subType?: string | null
  supplierId: string
  targetType: 'SUPPLIER' | 'ACCOUNT'
  targetId: string
  applicantAdminId: string
  candidateSnapshot: Record<string, unknown>
  levels: number
  /** The applicant's note, encrypted (an opinion is the approver's, never made up locally). */
  submitNoteEnc: string | null
  /**
   * A registration: the supplier's submitted_snapshot (the identifying data as submitted, which
   * VETTING edits never touch) is this candidate snapshot, written by the same statement.
   */
  freezesSubmission?: boolean
}

/** An approval as written, with what its seal needs (the writer seals it before commit). */
export const WrittenApproval = ApprovalRow.extend(ApprovalToSeal.shape)
export type WrittenApproval = z.output<typeof WrittenApproval>

/**
 * Every approval write locks its supplier's audit chain head in the same statement and returns
 * the row as its hash covers it: the caller seals it (`sealApproval`) in the same transaction.
 */
export function insertApproval(sql: Sql, a: NewApproval) {
  return one(
    sql`
      WITH a AS (
      INSERT INTO approval_log (
        request_no, provider, biz_type, sub_type, supplier_id, target_type, target_id, applicant_admin_id,
        candidate_snapshot, levels, status, sync_status, submit_note_enc
      ) VALUES (
        ${a.requestNo}, 'LOCAL_AUTO', ${a.bizType}, ${a.subType ?? null}, ${a.supplierId}, ${a.targetType},
        ${a.targetId}, ${a.applicantAdminId}, ${sql.json(a.candidateSnapshot as never)}, ${a.levels}, ${APPROVAL_INITIAL},
        'NOT_REQUIRED', ${a.submitNoteEnc}
      )
        RETURNING *
      ) ${
        a.freezesSubmission
          ? sql`
      , frozen AS (
        UPDATE supplier s SET submitted_snapshot = a.candidate_snapshot
        FROM a WHERE s.supplier_id = a.supplier_id AND s.deleted_at IS NULL
      )`
          : sql``
      }
      ${approvalWriteToSeal(sql, approvalColumns(sql), null)}
    `,
    WrittenApproval,
  )
}

/**
 * An UPDATE of approval_log (`WITH a AS (UPDATE … RETURNING *)`) followed by
 * `approvalWriteToSeal`: the row with the head lock and what its seal needs; null: no row matched.
 */
const written = (statement: Query) => maybeOne(statement, WrittenApproval)

export function lockApproval(sql: Sql, approvalLogId: string) {
  return maybeOne(
    sql`SELECT ${approvalColumns(sql)} FROM approval_log a WHERE a.approval_log_id = ${approvalLogId} FOR UPDATE`,
    ApprovalRow,
  )
}

/** Records the provider's standardized decision (APPROVED or REJECTED) on a SUBMITTED approval. */
export function recordDecision(sql: Sql, approvalLogId: string, decision: 'APPROVED' | 'REJECTED') {
  const trigger = DECISION_TRIGGER[decision]
  return written(sql`
    WITH a AS (
      UPDATE approval_log SET status = ${approvalTarget(trigger)}, finished_at = now(), update_time = next_version(update_time)
      WHERE approval_log_id = ${approvalLogId} AND status IN ${sql(approvalSources(trigger))}
      RETURNING *
    )
    ${approvalWriteToSeal(sql, approvalColumns(sql), approvalLogId)}
  `)
}

export function markApplied(sql: Sql, approvalLogId: string) {
  return written(sql`
    WITH a AS (
      UPDATE approval_log
      SET status = ${approvalTarget('APPLY')}, applied_at = now(), apply_attempts = apply_attempts + 1,
          failure_code = NULL, failure_reason = NULL, update_time = next_version(update_time)
      WHERE approval_log_id = ${approvalLogId} AND status IN ${sql(approvalSources('APPLY'))}
      RETURNING *
    )
    ${approvalWriteToSeal(sql, approvalColumns(sql), approvalLogId)}
  `)
}

export function markApplyFailed(
  sql: Sql,
  approvalLogId: string,
  failureCode: number,
  reason: string,
) {
  return written(sql`
    WITH a AS (
      UPDATE approval_log
      SET status = ${approvalTarget('APPLY_FAIL')}, apply_attempts = apply_attempts + 1,
          failure_code = ${failureCode}, failure_reason = ${reason}, update_time = next_version(update_time)
      WHERE approval_log_id = ${approvalLogId} AND status IN ${sql(approvalSources('APPLY_FAIL'))}
      RETURNING *
    )
    ${approvalWriteToSeal(sql, approvalColumns(sql), approvalLogId)}
  `)
}

/** The way out of an APPLY_FAILED approval that can never be applied; the record stays. */
export function markWithdrawn(sql: Sql, approvalLogId: string) {
  return written(sql`
    WITH a AS (
      UPDATE approval_log
      SET status = ${approvalTarget('WITHDRAW')}, withdrawn_at = now(), update_time = next_version(update_time)
      WHERE approval_log_id = ${approvalLogId} AND status IN ${sql(approvalSources('WITHDRAW'))}
      RETURNING *
    )
    ${approvalWriteToSeal(sql, approvalColumns(sql), approvalLogId)}
  `)
}

const Stuck = z.object({ approvalLogId: z.string() })

/**
 * Approvals left undecided or unapplied (SUBMITTED or APPROVED) for longer than
 * `olderThanSeconds`: a crash or a lost connection between a submit's two transactions.
 */
export function stuckApprovals(sql: Sql, olderThanSeconds: number, limit: number) {
  return many(
    sql`
      SELECT a.approval_log_id::text AS "approvalLogId"
      FROM approval_log a
      -- Spelled out (not a parameter) so that the partial index approval_log_pending, whose
      -- predicate is this list, serves it; the statuses table's APPROVAL_IN_FLIGHT is the same.
      WHERE a.status IN ('SUBMITTED', 'APPROVED')
        AND a.submitted_at < now() - make_interval(secs => ${olderThanSeconds})
      ORDER BY a.submitted_at
      LIMIT ${limit}
    `,
    Stuck,
  )
}

export function findApproval(sql: Sql, approvalLogId: string) {
  return maybeOne(
    sql`SELECT ${approvalColumns(sql)} FROM approval_log a WHERE a.approval_log_id = ${approvalLogId}`,
    ApprovalRow,
  )
}

const Latest = z.object({ latest: z.boolean() })

/** Whether no newer approval of the same business type exists for this supplier. */
export async function isLatestApproval(
  sql: Sql,
  a: Pick<ApprovalRow, 'approvalLogId' | 'supplierId' | 'bizType'>,
) {
  const row = await one(
    sql`
      SELECT NOT EXISTS (
        SELECT 1 FROM approval_log n
        WHERE n.supplier_id = ${a.supplierId} AND n.biz_type = ${a.bizType} AND n.approval_log_id > ${a.approvalLogId}
      ) AS latest
    `,
    Latest,
  )
  return row.latest
}
