import { insertEvent } from '../../../sql/outbox'
import {
  liveRulesOfType,
  lockEnabledSupplierType,
  softDeleteRulesExcept,
  upsertRules,
  type QualificationRuleInput,
} from '../../../sql/qualification-rule'
import { enabledTypeCodes } from '../../../sql/supplier'
import type { Sql } from '../../../sql/db'
import { fail } from '../../errors'
import { QualificationRuleVO } from '../../schemas/qualification-rule'
import type { Deps } from '../deps'
import type { WriteContext } from '../context'
import { runWrite } from '../write/pipeline'
import { logChanges } from '../audit/trail'
import type { FieldChange } from '../write/change-log'

/*
 * Qualification rules of a supplier type: which qualification types a supplier of that type
 * must (or may) hold and how many days ahead an expiry is announced.
 */

const enabled = async (sql: Sql, typeCode: string) =>
  (await enabledTypeCodes(sql, [typeCode])).has(typeCode)

/** The live rules of an enabled supplier type; 395010 when the type is unknown or disabled. */
export async function listQualificationRules(
  { sql }: Deps,
  typeCode: string,
): Promise<QualificationRuleVO[]> {
  if (!(await enabled(sql, typeCode))) return fail('SUPPLIER_TYPE_INVALID')
  return liveRulesOfType(sql, typeCode)
}

const RULE_FIELDS = ['isRequired', 'warningDays', 'sortOrder'] as const

/** Field-level changes between two live rule sets of one type, matched by qualType. */
function ruleChanges(before: QualificationRuleVO[], after: QualificationRuleVO[]): FieldChange[] {
  const old = new Map(before.map((r) => [r.qualType, r]))
  const changes: FieldChange[] = []
  const change = (rule: QualificationRuleVO, fieldName: string, from: unknown, to: unknown) =>
    changes.push({
      targetType: 'QUALIFICATION_RULE',
      targetId: rule.ruleId,
      fieldName,
      oldValueMasked: from === null ? null : String(from),
      newValueMasked: to === null ? null : String(to),
    })
  for (const rule of after) {
    const was = old.get(rule.qualType)
    old.delete(rule.qualType)
    if (!was || was.ruleId !== rule.ruleId) {
      change(rule, 'qualType', null, rule.qualType)
      for (const f of RULE_FIELDS) change(rule, f, null, rule[f])
      continue
    }
    for (const f of RULE_FIELDS) if (was[f] !== rule[f]) change(rule, f, was[f], rule[f])
  }
  for (const gone of old.values()) change(gone, 'deleted', 'false', 'true')
  return changes
}

/**
 * Makes the live rule set of `typeCode` equal to `rules` (unique qualTypes, checked by the
 * caller's schema) through the write pipeline: live rules absent from the list are
 * soft-deleted, rules of the same qualType are updated in place (new version only when a value
 * changes), new ones are inserted; every field change is change-logged (a type's rules belong
 * to no supplier, so those rows carry none) with one pending event. The type's dictionary item
 * is locked first. Returns the new live set.
 */
export function replaceQualificationRules(
  deps: Deps,
  ctx: WriteContext,
  typeCode: string,
  rules: readonly QualificationRuleInput[],
): Promise<QualificationRuleVO[]> {
  return runWrite(deps, ctx, {
    async precheck(sql) {
      if (!(await enabled(sql, typeCode))) fail('SUPPLIER_TYPE_INVALID')
    },
    async run(tx) {
      const type = await lockEnabledSupplierType(tx, typeCode)
      if (!type) fail('SUPPLIER_TYPE_INVALID')
      const before = await liveRulesOfType(tx, typeCode)
      await softDeleteRulesExcept(
        tx,
        typeCode,
        rules.map((r) => r.qualType),
      )
      await upsertRules(tx, typeCode, rules)
      const after = await liveRulesOfType(tx, typeCode)
      const changes = ruleChanges(before, after)
      if (changes.length) {
        await logChanges(tx, deps, ctx, {
          supplierId: null,
          operationType: 'QUALIFICATION_RULE_REPLACE',
          changes,
          changeReason: `qualification rules of supplier type ${typeCode}`,
        })
        await insertEvent(tx, {
          aggregateType: 'SUPPLIER_TYPE',
          aggregateId: type.dictDataId,
          eventType: 'QualificationRulesReplaced',
          payload: { typeCode, ruleIds: after.map((r) => r.ruleId), operatorId: ctx.adminId },
        })
      }
      return after
    },
  })
}
