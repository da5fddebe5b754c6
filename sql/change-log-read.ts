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
 * They are whole seconds of the service's zone, compared with the second a row is shown at (the
 * order key, so a range is a range of the order indexes) as UTC wall time: from the second `from`
 * on, to the second `to` included, as the times shown to the client read.
 */
const utcWallTime = (sql: Sql, f: ChangeLogFilter, bound: string) =>
  sql`((${bound}::text::timestamp AT TIME ZONE ${f.timezone}::text) AT TIME ZONE 'UTC')`

const secondOfRow = (sql: Sql) => secondOf(sql, sql`c.create_time`)

/** The time range's conditions on `c`. */
const timeWhere = (sql: Sql, f: ChangeLogFilter) => {
  const second = secondOfRow(sql)
  return sql`
    ${f.createTimeFrom === undefined ? sql`` : sql`AND ${second} >= ${utcWallTime(sql, f, f.createTimeFrom)}`}
    ${f.createTimeTo === undefined ? sql`` : sql`AND ${second} <= ${utcWallTime(sql, f, f.createTimeTo)}`}
  `
}

const where = (sql: Sql, f: ChangeLogFilter) => {
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
    ${timeWhere(sql, f)}
  `
}

/** How many of the categories (operationType, targetType, fieldName, status) `f` filters on. */
const categoryCount = (f: ChangeLogFilter) =>
  [f.operationType, f.targetType, f.fieldName, f.status].filter((v) => v !== undefined).length

const hasTimeRange = (f: ChangeLogFilter) =>
  f.createTimeFrom !== undefined || f.createTimeTo !== undefined

/**
 * change_log_count's rows (`alias`) of the categories `f` filters on. Their status is '' for a
 * row without one, which no filter selects.
 */
const categoryWhere = (sql: Sql, alias: string, f: ChangeLogFilter) => {
  const eq = (
    column: 'operation_type' | 'target_type' | 'field_name',
    value: string | undefined,
  ) => (value === undefined ? sql`` : sql`AND ${sql(alias)}.${sql(column)} = ${value}`)
  return sql`
    ${eq('operation_type', f.operationType)} ${eq('target_type', f.targetType)}
    ${eq('field_name', f.fieldName)}
    ${f.status === undefined ? sql`` : sql`AND ${sql(alias)}.status = ${f.status} AND ${sql(alias)}.status <> ''`}
  `
}

/**
 * The category keys the filter matches (operation, field, target, status; '' for none), read
 * from change_log_count: every key the log holds has a row there.
 */
const keysOf = (sql: Sql, f: ChangeLogFilter) => sql`
  SELECT DISTINCT k.operation_type, k.field_name, k.target_type, k.status
  FROM change_log_count k WHERE true ${categoryWhere(sql, 'k', f)}
`

/**
 * The rows of key `k` (and of the supplier `ofSupplier` names, if any): a range of change_log_key,
 * or of change_log_supplier_key, in the list's order.
 */
const ofKey = (sql: Sql, ofSupplier: Query) => sql`
  c.supplier_id IS NOT NULL ${ofSupplier}
  AND c.operation_type = k.operation_type AND c.field_name = k.field_name
  AND c.target_type = k.target_type AND coalesce(c.status, '') = k.status
`

const supplierOf = (sql: Sql, f: ChangeLogFilter) =>
  f.supplierId === undefined ? sql`` : sql`AND c.supplier_id = ${f.supplierId}`

/**
 * Whether the page and total are read key by key: two categories or more (one category has its
 * own index in the list's order), or a category within a supplier. An approval has few rows,
 * read from its index.
 */
const byKeys = (f: ChangeLogFilter) =>
  f.approvalLogId === undefined &&
  (categoryCount(f) >= 2 || (categoryCount(f) === 1 && f.supplierId !== undefined))

/** A change-log row: the approval record without the opinion, which only the domain decrypts. */
const ChangeLogRow = SupplierApprovalRecordVO.omit({ opinion: true })

/** The ids of the page, in the list's order. */
const pageIds = (sql: Sql, f: ChangeLogFilter) => {
  const second = secondOfRow(sql)
  if (!byKeys(f)) {
    return sql`
      SELECT c.change_log_id FROM change_log c
      ${where(sql, f)}
      ORDER BY ${second} DESC, c.change_log_id DESC
      LIMIT ${f.limit} OFFSET ${f.offset}
    `
  }
  // The first offset + limit rows of each key, merged: a page costs its depth times the keys,
  // whatever the keys' sizes.
  return sql`
    SELECT p.change_log_id FROM (${keysOf(sql, f)}) k
    CROSS JOIN LATERAL (
      SELECT c.change_log_id, ${second} AS second FROM change_log c
      WHERE ${ofKey(sql, supplierOf(sql, f))} ${timeWhere(sql, f)}
      ORDER BY ${second} DESC, c.change_log_id DESC
      LIMIT ${f.offset + f.limit}
    ) p
    ORDER BY p.second DESC, p.change_log_id DESC
    LIMIT ${f.limit} OFFSET ${f.offset}
  `
}

/**
 * One page of change-log rows, newest first: by the second a row is shown at, then by id
 * (SUP-ADM-012: createTime DESC, changeLogId DESC). The page's ids come from the order indexes
 * first (pageIds), and only those rows are read and joined to their approval, so a deep page
 * costs the index entries it skips. Only whether the linked approval has an opinion is read here,
 * never the ciphertext.
 */
export function changeLogPage(sql: Sql, f: ChangeLogFilter) {
  const order = sql`ORDER BY ${secondOfRow(sql)} DESC, c.change_log_id DESC`
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
      FROM (${pageIds(sql, f)}) page
      JOIN change_log c ON c.change_log_id = page.change_log_id
      LEFT JOIN approval_log a ON a.approval_log_id = c.approval_log_id
      ${order}
    `,
    ChangeLogRow,
  )
}

/**
 * A time range's total without a pass over its rows: its whole UTC months and days are summed
 * from change_log_day_count, and only the rows of the partial days at its two ends are counted
 * from an index (change_log_key per key when the filter has categories, else change_log_order).
 * In UTC wall time, `lo` is the range's first second and `hi` the second after its last (infinite
 * where open), `a` the first midnight from `lo` on and `b` the last midnight up to `hi`. When
 * a < b, the days [a, b) are kept (those of [m1, m2) as whole months) and [lo, a) and [b, hi) are
 * counted; otherwise the range lies within two days and [lo, hi) is counted.
 */
const keptRangeTotal = (sql: Sql, f: ChangeLogFilter) => {
  const second = secondOfRow(sql)
  const lo =
    f.createTimeFrom === undefined
      ? sql`'-infinity'::timestamp`
      : utcWallTime(sql, f, f.createTimeFrom)
  const hi =
    f.createTimeTo === undefined
      ? sql`'infinity'::timestamp`
      : sql`${utcWallTime(sql, f, f.createTimeTo)} + interval '1 second'`
  const byKey = categoryCount(f) > 0
  // The kept rows of the filter's keys, or all of them.
  const ofKeys = byKey
    ? sql`AND (d.operation_type, d.field_name, d.target_type, d.status) IN (SELECT * FROM k)`
    : sql``
  // The rows of the partial days [lo, left_end) and [right_start, hi): key by key when the filter
  // has categories (change_log_key), else from change_log_order.
  const partial = byKey
    ? sql`
      (SELECT coalesce(sum(x.n), 0) FROM t, k, LATERAL (
         SELECT count(*) AS n FROM change_log c
         WHERE ${ofKey(sql, sql``)} AND ${second} >= t.lo AND ${second} < t.left_end) x)
      + (SELECT coalesce(sum(x.n), 0) FROM t, k, LATERAL (
         SELECT count(*) AS n FROM change_log c
         WHERE ${ofKey(sql, sql``)} AND ${second} >= t.right_start AND ${second} < t.hi) x)
    `
    : sql`
      (SELECT count(*) FROM t, change_log c
       WHERE c.supplier_id IS NOT NULL AND ${second} >= t.lo AND ${second} < t.left_end)
      + (SELECT count(*) FROM t, change_log c
         WHERE c.supplier_id IS NOT NULL AND ${second} >= t.right_start AND ${second} < t.hi)
    `
  return sql`
    WITH k AS (${keysOf(sql, f)}),
    t AS MATERIALIZED (
      SELECT r.lo, r.hi, w.a::date AS a, w.b::date AS b,
             CASE WHEN w.a < w.b THEN w.a ELSE r.hi END AS left_end,
             CASE WHEN w.a < w.b THEN w.b ELSE r.hi END AS right_start,
             (CASE WHEN m.ma < m.mb THEN m.ma ELSE w.b END)::date AS m1,
             (CASE WHEN m.ma < m.mb THEN m.mb ELSE w.b END)::date AS m2
      FROM (SELECT ${lo} AS lo, ${hi} AS hi) r
      CROSS JOIN LATERAL (
        SELECT CASE WHEN date_trunc('day', r.lo) = r.lo THEN r.lo
                    ELSE date_trunc('day', r.lo) + interval '1 day' END AS a,
               date_trunc('day', r.hi) AS b) w
      CROSS JOIN LATERAL (
        SELECT CASE WHEN date_trunc('month', w.a) = w.a THEN w.a
                    ELSE date_trunc('month', w.a) + interval '1 month' END AS ma,
               date_trunc('month', w.b) AS mb) m
    )
    SELECT (
      (SELECT coalesce(sum(d.n), 0) FROM t, change_log_day_count d
       WHERE d.span = 'month' AND d.from_day >= t.m1 AND d.from_day < t.m2 ${ofKeys})
      + (SELECT coalesce(sum(d.n), 0) FROM t, change_log_day_count d
         WHERE d.span = 'day' AND d.from_day >= t.a AND d.from_day < t.m1 ${ofKeys})
      + (SELECT coalesce(sum(d.n), 0) FROM t, change_log_day_count d
         WHERE d.span = 'day' AND d.from_day >= t.m2 AND d.from_day < t.b ${ofKeys})
      + ${partial}
    )::int AS total
  `
}

const Total = z.object({ total: z.number().int() })

/**
 * How many change-log rows match the filter, exactly. Unfiltered, the total is read from
 * list_count; on categories only (operationType, targetType, fieldName, status), from
 * change_log_count; with a time range too, from change_log_day_count (keptRangeTotal): all kept
 * by triggers in the inserting transaction (the log is append-only). A filter with a supplier or
 * an approval is counted from its index: key by key within the supplier when it has categories.
 */
export async function countChangeLogs(sql: Sql, f: ChangeLogFilter): Promise<number> {
  const ofOne = f.supplierId !== undefined || f.approvalLogId !== undefined
  const row = await one(
    ofOne
      ? byKeys(f)
        ? sql`
            SELECT COALESCE(sum(x.n), 0)::int AS total FROM (${keysOf(sql, f)}) k
            CROSS JOIN LATERAL (
              SELECT count(*) AS n FROM change_log c
              WHERE ${ofKey(sql, supplierOf(sql, f))} ${timeWhere(sql, f)}) x
          `
        : sql`SELECT count(*)::int AS total FROM change_log c ${where(sql, f)}`
      : hasTimeRange(f)
        ? keptRangeTotal(sql, f)
        : categoryCount(f) === 0
          ? sql`SELECT COALESCE(sum(l.n), 0)::int AS total FROM list_count l WHERE l.list = 'change_log'`
          : sql`
              SELECT COALESCE(sum(k.n), 0)::int AS total FROM change_log_count k
              WHERE true ${categoryWhere(sql, 'k', f)}
            `,
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
