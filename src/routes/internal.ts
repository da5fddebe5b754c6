import { Hono, type MiddlewareHandler } from 'hono'
import { z } from 'zod'
import { reconcileApproval } from '../domain/approval/reconcile'
import { commandResult } from '../domain/approval/applier'
import { constantTimeEqual } from '../crypto/sensitive'
import { AppError, ERRORS } from '../errors'
import { ok, resultSchema } from '../http/envelope'
import { doc } from '../http/openapi'
import type { AppEnv } from '../http/types'
import type { Deps } from '../domain/deps'
import { validate } from '../http/validate'
import { idString } from '../schemas/id'
import { ApprovalCommandResult } from '../schemas/supplier'

/** Internal routes (`/internal/supplier`): X-Internal-Token, no administrator identity. */
export const internalRoutes = (deps: Deps) => {
  const app = new Hono<AppEnv>()
  const internalToken: MiddlewareHandler<AppEnv> = async (c, next) => {
    const token = c.req.header('x-internal-token')
    if (!token || !constantTimeEqual(token, deps.config.internalToken)) {
      throw new AppError(
        ERRORS.UNAUTHORIZED,
        'not authenticated: X-Internal-Token missing or wrong',
      )
    }
    await next()
  }

  app.post(
    '/approvals/:approvalLogId/apply',
    internalToken,
    doc({
      operationId: 'reconcileApproval',
      errors: [
        'APPROVAL_NOT_FOUND',
        'APPROVAL_SCHEMA_UNSUPPORTED',
        'DEPENDENCY_UNAVAILABLE',
        'WRITE_OUTCOME_UNKNOWN',
      ],
      summary:
        'Reconcile an approval: ask the provider if undecided, then (re-)apply it through the common applier',
      tags: ['internal'],
      response: resultSchema(ApprovalCommandResult),
    }),
    validate('param', z.strictObject({ approvalLogId: idString })),
    async (c) => {
      const { approvalLogId } = c.req.valid('param')
      const { requestId, deadline } = c.var
      return ok(c, commandResult(await reconcileApproval(deps, approvalLogId, requestId, deadline)))
    },
  )
  return app
}
