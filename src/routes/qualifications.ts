import { Hono } from 'hono'
import { z } from 'zod'
import { listExpiringQualifications } from '../domain/supplier/compliance'
import { authorize } from '../http/auth'
import { ok, pageSchema, resultSchema } from '../http/envelope'
import type { AppEnv } from '../http/types'
import type { Deps } from '../domain/deps'
import { pageQuery, queryInteger, validate } from '../http/validate'
import { ExpiringQualificationVO } from '../schemas/compliance'

/** Query of the expiry list; blank values mean "no filter". */
export const ExpiringQuery = z.strictObject({
  ...pageQuery,
  withinDays: queryInteger(0, 3650)
    .optional()
    .describe("days from today; default: each qualification's rule warningDays"),
  typeCode: z
    .string()
    .trim()
    .max(64)
    .optional()
    .transform((v) => v || undefined)
    .describe('only qualifications a live rule of this supplier type names'),
})

/** Qualification expiry: what will lapse, soonest first. */
export const qualificationRoutes = (deps: Deps) => {
  const app = new Hono<AppEnv>()

  app.get(
    '/qualifications/expiring',
    authorize(deps.permissions, deps.logger, {
      operationId: 'listExpiringQualifications',
      summary:
        'Valid qualifications of live, non-archived suppliers expiring within withinDays (default: their rule warningDays), soonest first',
      tags: ['qualification'],
      permissions: ['supplier:view'],
      response: resultSchema(pageSchema(ExpiringQualificationVO)),
      errors: [],
    }),
    validate('query', ExpiringQuery),
    async (c) => ok(c, await listExpiringQualifications(deps, c.req.valid('query'))),
  )

  return app
}
