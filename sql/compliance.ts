import { z } from 'zod'
import { many, one, type Query, type Sql } from './db'
import { ExpiringQualificationVO, TypeComplianceVO } from '../src/schemas/compliance'

/*
 * Qualification compliance of suppliers: for each live type, whether the qualifications its live
 * required rules name are held and valid. One SQL fragment computes it; the detail read embeds it
 * and the lifecycle guards (resume, unfreeze) read it, so the screen and the guard cannot differ.
 * "Today" is current_date in the session time zone, which is the service's (sql/db.ts connect).
 * The states are indexed by severity from an ARRAY literal in the order of COMPLIANCE_STATES
 * (src/vocabulary.ts); test/vocabulary.test.ts keeps the two equal.
 */

/** Rows (qual_type, state, severity, expiry_date, days_left, warning_days, sort_order, rule_id). */
const requiredStates = (sql: Sql, supplierId: Query, typeCode: Query) => sql`
  SELECT r.qual_type, r.warning_days, r.sort_order, r.rule_id, st.severity,
         (ARRAY['MISSING', 'EXPIRED', 'EXPIRING', 'OK'])[st.severity] AS state,
         CASE WHEN b.perpetual THEN NULL ELSE to_char(b.latest, 'YYYY-MM-DD') END AS expiry_date,
         CASE WHEN b.perpetual THEN NULL ELSE b.latest - current_date END AS days_left
  FROM qualification_rule r
  CROSS JOIN LATERAL (
    SELECT bool_or(true) AS held, bool_or(q.expiry_date IS NULL) AS perpetual, max(q.expiry_date) AS latest
    FROM supplier_qualification q
    WHERE q.supplier_id = ${supplierId} AND q.qual_type = r.qual_type AND q.deleted_at IS NULL
  ) b
  CROSS JOIN LATERAL (
    SELECT CASE WHEN b.held IS NULL THEN 1
                WHEN b.perpetual THEN 4
                WHEN b.latest < current_date THEN 2
                WHEN b.latest <= current_date + r.warning_days THEN 3
                ELSE 4 END AS severity
  ) st
  WHERE r.type_code = ${typeCode} AND r.is_required AND r.deleted_at IS NULL
`

/**
 * JSON array, one element per live type of the supplier whose id is `supplierId` (an SQL
 * expression), primary type first: its live required rules, each with the best live
 * qualification of that type (no expiry beats any date, else the latest date), and the type's
 * state, the worst of theirs (OK when the type requires nothing). The severities 1..4 are the
 * positions in COMPLIANCE_STATES.
 */
export const complianceOf = (sql: Sql, supplierId: Query) => sql`
  COALESCE((
    SELECT json_agg(json_build_object(
             'typeCode', t.type_code,
             'state', COALESCE(x.state, 'OK'),
             'requiredQualifications', COALESCE(x.items, '[]'::json))
           ORDER BY t.is_primary DESC, t.type_code)
    FROM supplier_type t
    CROSS JOIN LATERAL (
      SELECT (ARRAY['MISSING', 'EXPIRED', 'EXPIRING', 'OK'])[min(rq.severity)] AS state,
             json_agg(json_build_object(
               'qualType', rq.qual_type, 'state', rq.state, 'expiryDate', rq.expiry_date,
               'daysLeft', rq.days_left, 'warningDays', rq.warning_days)
             ORDER BY rq.sort_order, rq.rule_id) AS items
      FROM (${requiredStates(sql, sql`t.supplier_id`, sql`t.type_code`)}) rq
    ) x
    WHERE t.supplier_id = ${supplierId} AND t.deleted_at IS NULL
  ), '[]'::json)
`

const Compliance = z.object({ compliance: z.array(TypeComplianceVO) })

/** The compliance of one live supplier's types, as the detail read shows it ([] if none). */
export async function supplierCompliance(sql: Sql, supplierId: string) {
  const row = await one(
    sql`SELECT ${complianceOf(sql, sql`${supplierId}::bigint`)} AS compliance`,
    Compliance,
  )
  return row.compliance
}

// Expiring qualifications ---------------------------------------------------------------------

export interface ExpiringFilter {
  /** Explicit window in days; absent: each qualification's own rule warningDays. */
  withinDays?: number
  typeCode?: string
  limit: number
  offset: number
}

/**
 * The rules that govern qualification `q` of supplier `s`: live rules of the supplier's live types
 * (only `typeCode` when filtered) naming its type.
 */
const governing = (sql: Sql, f: ExpiringFilter) => sql`
  LEFT JOIN LATERAL (
    SELECT array_agg(DISTINCT r.type_code ORDER BY r.type_code) AS type_codes,
           max(r.warning_days) AS warning_days
    FROM qualification_rule r
    JOIN supplier_type t ON t.supplier_id = s.supplier_id AND t.type_code = r.type_code
                        AND t.deleted_at IS NULL
    WHERE r.qual_type = q.qual_type AND r.deleted_at IS NULL
      ${f.typeCode ? sql`AND r.type_code = ${f.typeCode}` : sql``}
  ) g ON true
`

/**
 * Valid (not yet expired) qualifications of live, non-archived suppliers expiring within the
 * window. The range on expiry_date is sargable either way, so the partial index
 * supplier_qualification_expiring serves the scan and the order; without an explicit window the
 * largest live warningDays bounds it and each row's own rules decide.
 */
const expiringWhere = (sql: Sql, f: ExpiringFilter) => {
  const window =
    f.withinDays === undefined
      ? sql`AND q.expiry_date <= current_date + (
              SELECT COALESCE(max(r.warning_days), -1) FROM qualification_rule r WHERE r.deleted_at IS NULL)
            AND q.expiry_date <= current_date + g.warning_days`
      : sql`AND q.expiry_date <= current_date + ${f.withinDays}::int`
  // Filtered by type: only qualifications a live rule of that type (held by the supplier) names.
  const typed = f.typeCode ? sql`AND g.type_codes IS NOT NULL` : sql``
  return sql`
    FROM supplier_qualification q
    JOIN supplier s ON s.supplier_id = q.supplier_id AND s.deleted_at IS NULL AND s.status <> 'ARCHIVED'
    ${governing(sql, f)}
    WHERE q.deleted_at IS NULL AND q.expiry_date IS NOT NULL AND q.expiry_date >= current_date
      ${window} ${typed}
  `
}

/** The page query itself (unexecuted), so its plan can be examined. */
export const expiringQualificationQuery = (sql: Sql, f: ExpiringFilter) => sql`
  SELECT q.qualification_id::text AS "qualificationId", s.supplier_id::text AS "supplierId",
         s.supplier_no AS "supplierNo", s.full_name AS "fullName", s.status AS "supplierStatus",
         q.qual_type AS "qualType", q.cert_no_mask AS "certNoMask",
         to_char(q.expiry_date, 'YYYY-MM-DD') AS "expiryDate",
         q.expiry_date - current_date AS "daysLeft",
         COALESCE(g.type_codes, '{}') AS "typeCodes", g.warning_days AS "warningDays"
  ${expiringWhere(sql, f)}
  ORDER BY q.expiry_date, q.qualification_id
  LIMIT ${f.limit} OFFSET ${f.offset}
`

/** One page, soonest expiry first, then by qualification id (stable). */
export function expiringQualificationPage(sql: Sql, f: ExpiringFilter) {
  return many(expiringQualificationQuery(sql, f), ExpiringQualificationVO)
}

const Total = z.object({ total: z.int() })

export async function countExpiringQualifications(sql: Sql, f: ExpiringFilter) {
  const row = await one(sql`SELECT count(*)::int AS total ${expiringWhere(sql, f)}`, Total)
  return row.total
}
