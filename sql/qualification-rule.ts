import { z } from 'zod'
import { many, maybeOne, none, type Sql, DATE_TIME } from './db'
import { QualificationRuleVO } from '../src/schemas/qualification-rule'

/*
 * Qualification rules per supplier type (table qualification_rule). A rule is live while
 * deleted_at IS NULL; replaced rules are soft-deleted and stay in the table.
 */

/** Live rules of one type, by sortOrder then ruleId. */
export function liveRulesOfType(sql: Sql, typeCode: string) {
  return many(
    sql`
      SELECT r.rule_id::text AS "ruleId", r.type_code AS "typeCode", r.qual_type AS "qualType",
             r.is_required AS "isRequired", r.warning_days AS "warningDays",
             r.sort_order AS "sortOrder",
             to_char(r.update_time, ${DATE_TIME}) AS "updateTime"
      FROM qualification_rule r
      WHERE r.type_code = ${typeCode} AND r.deleted_at IS NULL
      ORDER BY r.sort_order, r.rule_id
    `,
    QualificationRuleVO,
  )
}

export interface QualificationRuleInput {
  qualType: string
  isRequired: boolean
  warningDays: number
  sortOrder: number
}

/** Soft-deletes the live rules of `typeCode` whose qual_type is not kept; returns the count. */
export function softDeleteRulesExcept(
  sql: Sql,
  typeCode: string,
  keptQualTypes: readonly string[],
) {
  return none(
    sql`
      UPDATE qualification_rule r
      SET deleted_at = now(), update_time = next_version(r.update_time)
      WHERE r.type_code = ${typeCode} AND r.deleted_at IS NULL
        AND NOT (r.qual_type = ANY (${sql.array(keptQualTypes as string[], 25)}::text[]))
    `,
  )
}

/**
 * Inserts the new rules and updates the live ones of the same (typeCode, qualType). Only rows
 * whose values actually change get a new version (`next_version(update_time)`). One statement.
 */
export function upsertRules(sql: Sql, typeCode: string, rules: readonly QualificationRuleInput[]) {
  if (rules.length === 0) return Promise.resolve(0)
  const payload = sql.json(
    rules.map((r) => ({
      qual_type: r.qualType,
      is_required: r.isRequired,
      warning_days: r.warningDays,
      sort_order: r.sortOrder,
    })),
  )
  return none(
    sql`
      INSERT INTO qualification_rule (type_code, qual_type, is_required, warning_days, sort_order)
      SELECT ${typeCode}, x.qual_type, x.is_required, x.warning_days, x.sort_order
      FROM jsonb_to_recordset(${payload})
           AS x(qual_type text, is_required boolean, warning_days integer, sort_order integer)
      ON CONFLICT (type_code, qual_type) WHERE deleted_at IS NULL DO UPDATE
      SET is_required = EXCLUDED.is_required,
          warning_days = EXCLUDED.warning_days,
          sort_order = EXCLUDED.sort_order,
          update_time = next_version(qualification_rule.update_time)
      WHERE (qualification_rule.is_required, qualification_rule.warning_days, qualification_rule.sort_order)
            IS DISTINCT FROM (EXCLUDED.is_required, EXCLUDED.warning_days, EXCLUDED.sort_order)
    `,
  )
}

const TypeItem = z.object({ dictDataId: z.string() })

/**
 * The enabled `supplier_type` dictionary item of `typeCode`, locked: concurrent replacements of
 * one type's rules serialize, and the type stays enabled until commit. Null when unknown or off.
 */
export function lockEnabledSupplierType(sql: Sql, typeCode: string) {
  return maybeOne(
    sql`
      SELECT d.dict_data_id::text AS "dictDataId" FROM dict_data d
      JOIN dict_type t ON t.dict_type = d.dict_type AND t.deleted_at IS NULL AND t.status = 'ACTIVE'
      WHERE d.dict_type = 'supplier_type' AND d.dict_value = ${typeCode} AND d.status = 'ACTIVE'
        AND d.deleted_at IS NULL
      FOR UPDATE OF d
    `,
    TypeItem,
  )
}
