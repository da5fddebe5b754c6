import { z } from 'zod'
import { MAX_RULES } from '../vocabulary'

const INT4_MAX = 2_147_483_647

/** Any text: whether it names an enabled supplier type is a business check (395010). */
export const TypeCodeParam = z.object({ typeCode: z.string().min(1).max(64) })

const QualificationRuleInput = z
  .strictObject({
    qualType: z.string().trim().min(1, 'is required').max(64, 'at most 64 characters'),
    isRequired: z.boolean(),
    warningDays: z.int().min(0).max(INT4_MAX),
    sortOrder: z.int().min(0).max(INT4_MAX),
  })
  .meta({ id: 'QualificationRuleInput' })

/** QualificationRuleReplaceRequest: the complete live rule set of the type in the path. */
export const QualificationRuleReplaceRequest = z
  .strictObject({
    rules: z.array(QualificationRuleInput).max(MAX_RULES, `at most ${MAX_RULES} rules`),
  })
  .superRefine(({ rules }, ctx) => {
    const seen = new Set<string>()
    rules.forEach(({ qualType }, i) => {
      if (seen.has(qualType)) {
        ctx.addIssue({
          code: 'custom',
          path: ['rules', i, 'qualType'],
          message: `duplicate qualType "${qualType}"`,
        })
      }
      seen.add(qualType)
    })
  })
  .meta({ id: 'QualificationRuleReplaceRequest' })

// Responses ---------------------------------------------------------------------------------

/** A live rule of a supplier type. */
export const QualificationRuleVO = z
  .object({
    ruleId: z.string(),
    typeCode: z.string(),
    qualType: z.string(),
    isRequired: z.boolean(),
    warningDays: z.number().int(),
    sortOrder: z.number().int(),
    updateTime: z.string(),
  })
  .meta({ id: 'QualificationRuleVO' })
export type QualificationRuleVO = z.output<typeof QualificationRuleVO>
