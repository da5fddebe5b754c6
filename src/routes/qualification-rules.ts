import { Hono } from 'hono'
import { z } from 'zod'
import {
  listQualificationRules,
  MAX_RULES,
  QualificationRuleVO,
  replaceQualificationRules,
} from '../domain/supplier/qualification-rules'
import { authorize } from '../http/auth'
import { answerWrite } from '../http/write'
import { ok, resultSchema } from '../http/envelope'
import type { AppEnv } from '../http/types'
import type { Deps } from '../domain/deps'
import { NoQuery, validate } from '../http/validate'

const INT4_MAX = 2_147_483_647

/** Any text: whether it names an enabled supplier type is a business check (395010). */
const TypeCodeParam = z.object({ typeCode: z.string().min(1).max(64) })

const QualificationRuleInput = z
  .object({
    qualType: z.string().trim().min(1, 'is required').max(64, 'at most 64 characters'),
    isRequired: z.boolean(),
    warningDays: z.int().min(0).max(INT4_MAX),
    sortOrder: z.int().min(0).max(INT4_MAX),
  })
  .strict()
  .meta({ id: 'QualificationRuleInput' })

/** QualificationRuleReplaceRequest: the complete live rule set of the type in the path. */
export const QualificationRuleReplaceRequest = z
  .object({
    rules: z.array(QualificationRuleInput).max(MAX_RULES, `at most ${MAX_RULES} rules`),
  })
  .strict()
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

/** GET and PUT of the qualification rules of one supplier type. */
export const qualificationRuleRoutes = (deps: Deps) => {
  const app = new Hono<AppEnv>()
  const access = {
    tags: ['qualification rule'],
    permissions: ['supplier:type:manage'],
    errors: ['SUPPLIER_TYPE_INVALID'] as const,
  }
  const response = resultSchema(z.array(QualificationRuleVO))

  app.get(
    '/types/:typeCode/qualification-rules',
    authorize(deps.permissions, deps.logger, {
      ...access,
      operationId: 'listQualificationRules',
      summary: 'Live qualification rules of an enabled supplier type, by sortOrder then ruleId',
      response,
    }),
    validate('param', TypeCodeParam),
    validate('query', NoQuery),
    async (c) => ok(c, await listQualificationRules(deps, c.req.valid('param').typeCode)),
  )

  app.put(
    '/types/:typeCode/qualification-rules',
    authorize(deps.permissions, deps.logger, {
      ...access,
      operationId: 'replaceQualificationRules',
      summary: 'Replace the qualification rules of an enabled supplier type (one transaction)',
      response,
    }),
    validate('param', TypeCodeParam),
    validate('json', QualificationRuleReplaceRequest),
    async (c) => {
      const { typeCode } = c.req.valid('param')
      const { rules } = c.req.valid('json')
      return answerWrite(
        c,
        deps,
        { operation: 'qualification-rules-replace', target: typeCode, body: { rules } },
        (ctx) => replaceQualificationRules(deps, ctx, typeCode, rules),
      )
    },
  )

  return app
}
