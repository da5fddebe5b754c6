import { z } from 'zod'
import { formatDateTime, many, none, one, secondOf, type Query, type Sql } from './db'
import { SupplierApprovalRecordVO } from '../src/schemas/change-log'

/*
 * Approval records (SUP-ADM-012): the change log, read as evidence. change_log and approval_log
 * have no deleted_at (evidence is never deleted) and the supplier table is deliberately not
 * joined: the records of a deleted draft stay readable.
 */

export interface ChangeLogFilter {
  supplierId?: string
  approvalLogId?: string
  operationType?: string
  targetType?: string
  fieldName?: string
  status?: string
  /** `yyyy-MM-dd HH:mm:ss` in `timezone`, inclusive. */
  createTimeFrom?: string
  /** `yyyy-MM-dd HH:mm:ss` in `timezone`, inclusive to the whole second. */
  createTimeTo?: string
  limit: number
  offset: number
  /** The service time zone: bounds are read and times rendered in it, whatever the session's. */
  timezone: string
}

/*
 * The bounds are sent as text and cast in SQL: a parameter typed timestamptz would go through
 * postgres.js's serializer (`new Date(x)`), i.e. the Node process's time zone, not the session's.
 */
const where = (sql: Sql, f: ChangeLogFilter) => {
  // The bounds are whole seconds of the service's zone, compared with the second a row is shown
  // at (the order key, so a range is a range of the order index): from the second `from` on, to
  // the second `to` included, as the times shown to the client read.
  const second = secondOf(sql, sql`c.create_time`)
  const utcWallTime = (bound: string) =>
    sql`((${bound}::text::timestamp AT TIME ZONE ${f.timezone}::text) AT TIME ZONE 'UTC')`
  const eq = (column: Query, value: string | undefined) =>
    value === undefined ? sql`` : sql`AND ${column} = ${value}`
  return sql`
    WHERE c.supplier_id IS NOT NULL
    ${eq(sql`c.supplier_id`, f.supplierId)}
    ${eq(sql`c.approval_log_id`, f.approvalLogId)}
    ${eq(sql`c.operation_type`, f.operationType)}
    ${eq(sql`c.target_type`, f.targetType)}
    ${eq(sql`c.field_name`, f.fieldName)}
    ${eq(sql`c.status`, f.status)}
    ${f.createTimeFrom === undefined ? sql`` : sql`AND ${second} >= ${utcWallTime(f.createTimeFrom)}`}
    ${f.createTimeTo === undefined ? sql`` : sql`AND ${second} <= ${utcWallTime(f.createTimeTo)}`}
  `
}

/** Whether `f` filters on nothing: all the change log's supplier rows, whose total is kept. */
const unfiltered = (f: ChangeLogFilter) =>
  [
    f.supplierId,
    f.approvalLogId,
    f.operationType,
    f.targetType,
    f.fieldName,
    f.status,
    f.createTimeFrom,
    f.createTimeTo,
  ].every((v) => v === undefined)

/** Whether `f` filters on categories only: its total is the sum of change_log_count's rows. */
const categoriesOnly = (f: ChangeLogFilter) =>
  [f.supplierId, f.approvalLogId, f.createTimeFrom, f.createTimeTo].every((v) => v === undefined)

/** change_log_count's rows of the categories `f` filters on. */
const countWhere = (sql: Sql, f: ChangeLogFilter) => {
  const eq = (column: string, value: string | undefined) =>
    value === undefined ? sql`` : sql`AND ${sql(column)} = ${value}`
  return sql`
    WHERE true ${eq('operation_type', f.operationType)} ${eq('target_type', f.targetType)}
    ${eq('field_name', f.fieldName)} ${eq('status', f.status)}
  `
}

/** A change-log row: the approval record without the opinion, which only the domain decrypts. */
const ChangeLogRow = SupplierApprovalRecordVO.omit({ opinion: true })

/**
 * One page of change-log rows, newest first: by the second a row is shown at, then by id
 * (SUP-ADM-012: createTime DESC, changeLogId DESC). The page's ids come from the order index
 * first, and only those rows are read and joined to their approval, so a deep page costs the
 * index entries it skips. Only whether the linked approval has an opinion is read here, never
 * the ciphertext.
 */
export function changeLogPage(sql: Sql, f: ChangeLogFilter) {
  const order = sql`ORDER BY ${secondOf(sql, sql`c.create_time`)} DESC, c.change_log_id DESC`
  return many(
    sql`
      SELECT c.change_log_id::text AS "changeLogId", c.supplier_id::text AS "supplierId",
             c.approval_log_id::text AS "approvalLogId", c.operation_type AS "operationType",
             c.target_type AS "targetType", c.target_id::text AS "targetId",
             c.field_name AS "fieldName", c.old_value_masked AS "oldValueMasked",
             c.new_value_masked AS "newValueMasked", c.change_reason AS "changeReason",
             c.status, c.operator_id::text AS "operatorId",
             ${formatDateTime(sql, sql`c.create_time`, f.timezone)} AS "createTime",
             (a.opinion_enc IS NOT NULL) AS "hasOpinion"
      FROM (
        SELECT c.change_log_id FROM change_log c
        ${where(sql, f)}
        ${order}
        LIMIT ${f.limit} OFFSET ${f.offset}
      ) page
      JOIN change_log c ON c.change_log_id = page.change_log_id
      LEFT JOIN approval_log a ON a.approval_log_id = c.approval_log_id
      ${order}
    `,
    ChangeLogRow,
  )
}

const Total = z.object({ total: z.number().int() })

/**
 * How many change-log rows match the filter. Unfiltered, the total is read from list_count, and
 * filtered on categories only (operationType, targetType, fieldName, status) from
 * change_log_count: both kept by triggers in the inserting transaction (the log is append-only).
 * A filter with a supplier, an approval or a time range has its rows counted from its index.
 */
export async function countChangeLogs(sql: Sql, f: ChangeLogFilter): Promise<number> {
  const row = await one(
    unfiltered(f)
      ? sql`SELECT COALESCE(sum(l.n), 0)::int AS total FROM list_count l WHERE l.list = 'change_log'`
      : categoriesOnly(f)
        ? sql`SELECT COALESCE(sum(k.n), 0)::int AS total FROM change_log_count k ${countWhere(sql, f)}`
        : sql`SELECT count(*)::int AS total FROM change_log c ${where(sql, f)}`,
    Total,
  )
  return row.total
}

export const OpinionCiphertextRow = z.object({
  approvalLogId: z.string(),
  opinionEnc: z.string(),
})

/**
 * Opinion ciphertexts of the given approvals (those that have one). Only for a caller holding
 * `supplier:approval:opinion`, whose every decryption is then audited.
 */
export async function approvalOpinionCiphertexts(sql: Sql, approvalLogIds: readonly string[]) {
  if (approvalLogIds.length === 0) return []
  return many(
    sql`
      SELECT a.approval_log_id::text AS "approvalLogId", a.opinion_enc AS "opinionEnc"
      FROM approval_log a
      WHERE a.approval_log_id IN ${sql(approvalLogIds as string[])} AND a.opinion_enc IS NOT NULL
      ORDER BY a.approval_log_id
    `,
    OpinionCiphertextRow,
  )
}

export interface SensitiveRead {
  adminId: string
  subject: string
  subjectId: string
  fieldName: string
  requestId: string | null
}

/** Appends one sensitive_read_audit row per decrypted value; returns how many were written. */
export function recordSensitiveReads(sql: Sql, reads: readonly SensitiveRead[]) {
  if (reads.length === 0) return Promise.resolve(0)
  const rows = reads.map((r) => ({
    admin_id: r.adminId,
    subject: r.subject,
    subject_id: r.subjectId,
    field_name: r.fieldName,
    request_id: r.requestId,
  }))
  return none(
    sql`
      INSERT INTO sensitive_read_audit
      ${sql(rows, 'admin_id', 'subject', 'subject_id', 'field_name', 'request_id')}
    `,
  )
}
