import { Hono } from 'hono'
import { z } from 'zod'
import {
  listQualificationRules,
  replaceQualificationRules,
} from '../domain/supplier/qualification-rules'
import { authorize } from '../http/auth'
import { answerWrite } from '../http/write'
import { ok, resultSchema } from '../http/envelope'
import type { AppEnv } from '../http/types'
import type { Deps } from '../domain/deps'
import { commandAccess } from '../domain/lifecycle/actions'
import { KiB } from '../http/body-shape'
import { NoQuery, validate } from '../http/validate'
import {
  QualificationRuleReplaceRequest,
  QualificationRuleVO,
  TypeCodeParam,
} from '../schemas/qualification-rule'

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
      ...commandAccess('replaceQualificationRules'),
      summary: 'Replace the qualification rules of an enabled supplier type (one transaction)',
      response,
    }),
    validate('param', TypeCodeParam),
    // 100 rules of a qualType of 64 characters (384 bytes escaped) and three small values.
    validate('json', QualificationRuleReplaceRequest, { body: 64 * KiB }),
    async (c) => {
      const { typeCode } = c.req.valid('param')
      const { rules } = c.req.valid('json')
      return answerWrite(c, deps, { target: typeCode, body: { rules } }, (ctx) =>
        replaceQualificationRules(deps, ctx, typeCode, rules),
      )
    },
  )

  return app
}
