import { z } from 'zod'
import {
  enabledSupplierType,
  liveRulesOfType,
  softDeleteRulesExcept,
  upsertRules,
  type QualificationRuleInput,
} from '../../sql/qualification-rule'
import { fail } from '../errors'
import type { Deps } from '../http/types'
import type { WriteContext } from './context'
import { guardDuplicateSubmit } from './write-guard'

/*
 * Qualification rules of a supplier type: which qualification types a supplier of that type
 * must (or may) hold and how many days ahead an expiry is announced. Rules are not per supplier,
 * so they are not change-logged (change_log.supplier_id is NOT NULL); a replacement is logged as
 * one info line instead.
 */

export const MAX_RULES = 100

export const QualificationRuleVO = z.object({
  ruleId: z.string(),
  typeCode: z.string(),
  qualType: z.string(),
  isRequired: z.boolean(),
  warningDays: z.int(),
  sortOrder: z.int(),
  updateTime: z.string(),
})
export type QualificationRuleVO = z.output<typeof QualificationRuleVO>

const toVO = (rows: unknown[]) => rows.map((r) => QualificationRuleVO.parse(r))

/** The live rules of an enabled supplier type; 395010 when the type is unknown or disabled. */
export async function listQualificationRules(
  { sql }: Pick<Deps, 'sql'>,
  typeCode: string,
): Promise<QualificationRuleVO[]> {
  if (!(await enabledSupplierType(sql, typeCode))) return fail('SUPPLIER_TYPE_INVALID')
  return toVO(await liveRulesOfType(sql, typeCode))
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
    if (!(await enabledSupplierType(tx, typeCode, true))) return fail('SUPPLIER_TYPE_INVALID')
    await softDeleteRulesExcept(
      tx,
      typeCode,
      rules.map((r) => r.qualType),
    )
    await upsertRules(tx, typeCode, rules)
    return toVO(await liveRulesOfType(tx, typeCode))
  })
  deps.logger.info(
    { typeCode, adminId: ctx.adminId, count: result.length, requestId: ctx.requestId },
    'qualification rules replaced',
  )
  return result
}
