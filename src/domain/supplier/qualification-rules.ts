import {
  liveRulesOfType,
  softDeleteRulesExcept,
  upsertRules,
  type QualificationRuleRow,
  type QualificationRuleInput,
} from '../../../sql/qualification-rule'
import { enabledTypeCodes } from '../../../sql/supplier'
import type { Sql } from '../../../sql/db'
import { fail } from '../../errors'
import type { Deps } from '../../http/types'
import type { WriteContext } from '../context'
import { guardDuplicateSubmit } from '../write/guard'

/*
 * Qualification rules of a supplier type: which qualification types a supplier of that type
 * must (or may) hold and how many days ahead an expiry is announced. Rules are not per supplier,
 * so they are not change-logged (change_log.supplier_id is NOT NULL); a replacement is logged as
 * one info line instead.
 */

export const MAX_RULES = 100

/** The response contract is the row parser itself (zod objects drop unlisted columns). */
export { QualificationRuleRow as QualificationRuleVO } from '../../../sql/qualification-rule'
type QualificationRuleVO = QualificationRuleRow

const enabled = async (sql: Sql, typeCode: string, lock = false) =>
  (await enabledTypeCodes(sql, [typeCode], { lock })).has(typeCode)

/** The live rules of an enabled supplier type; 395010 when the type is unknown or disabled. */
export async function listQualificationRules(
  { sql }: Pick<Deps, 'sql'>,
  typeCode: string,
): Promise<QualificationRuleVO[]> {
  if (!(await enabled(sql, typeCode))) return fail('SUPPLIER_TYPE_INVALID')
  return liveRulesOfType(sql, typeCode)
}

/**
 * Makes the live rule set of `typeCode` equal to `rules` (unique qualTypes, checked by the
 * caller's schema) in one transaction: live rules absent from the list are soft-deleted, rules of
 * the same qualType are updated in place (new version only when a value changes), new ones are
 * inserted. The type's dictionary item is locked first, so concurrent replacements serialize and
 * the type stays enabled until commit. Returns the new live set.
 */
export async function replaceQualificationRules(
  deps: Pick<Deps, 'sql' | 'logger' | 'config'>,
  ctx: WriteContext,
  typeCode: string,
  rules: readonly QualificationRuleInput[],
): Promise<QualificationRuleVO[]> {
  const result = await deps.sql.begin(async (tx) => {
    await guardDuplicateSubmit(tx, deps, ctx)
    if (!(await enabled(tx, typeCode, true))) return fail('SUPPLIER_TYPE_INVALID')
    await softDeleteRulesExcept(
      tx,
      typeCode,
      rules.map((r) => r.qualType),
    )
    await upsertRules(tx, typeCode, rules)
    return liveRulesOfType(tx, typeCode)
  })
  deps.logger.info(
    { typeCode, adminId: ctx.adminId, count: result.length, requestId: ctx.requestId },
    'qualification rules replaced',
  )
  return result
}
