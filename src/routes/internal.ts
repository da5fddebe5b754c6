import { Hono, type MiddlewareHandler } from 'hono'
import { z } from 'zod'
import { applyApprovalResult } from '../domain/approval-applier'
import type { DomainDeps } from '../domain/context'
import { commandResult } from '../domain/registration'
import { AppError, ERRORS, fail } from '../errors'
import { ok, resultSchema } from '../http/envelope'
import { describe } from '../http/openapi'
import type { AppEnv, Deps } from '../http/types'
import { idString, validate } from '../http/validate'
import { findApproval } from '../../sql/approval'
import { ApprovalCommandResult } from '../schemas/supplier'

/** Constant-time comparison of the internal token (no early exit on the first differing byte). */
function sameSecret(a: string, b: string) {
  const x = new TextEncoder().encode(a)
  const y = new TextEncoder().encode(b)
  let diff = x.length ^ y.length
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0)
  return diff === 0
}

/** Internal routes (`/internal/supplier`): X-Internal-Token, no administrator identity. */
export const internalRoutes = (deps: Deps & DomainDeps) => {
  const app = new Hono<AppEnv>()
  const internalToken: MiddlewareHandler<AppEnv> = async (c, next) => {
    const token = c.req.header('x-internal-token')
    if (!token || !sameSecret(token, deps.config.internalToken)) {
      throw new AppError(
        ERRORS.UNAUTHORIZED,
        'not authenticated: X-Internal-Token missing or wrong',
      )
    }
    await next()
  }

  app.post(
    '/approvals/:approvalLogId/apply',
    describe(internalToken, {
      operationId: 'approval-apply-retry',
      summary: 'Re-apply an APPROVED or APPLY_FAILED approval through the common applier',
      tags: ['internal'],
      response: resultSchema(ApprovalCommandResult),
    }),
    validate('param', z.object({ approvalLogId: idString }).strict()),
    async (c) => {
      const { approvalLogId } = c.req.valid('param')
      const approval = await findApproval(deps.sql, approvalLogId)
      if (!approval) fail('APPROVAL_NOT_FOUND')
      if (approval!.status === 'SUBMITTED') {
        fail('OPERATION_NOT_ALLOWED_IN_STATUS', 'the provider has not decided this approval yet')
      }
      const applied = await applyApprovalResult(
        deps,
        { adminId: approval!.applicantAdminId, requestId: c.get('requestId') },
        { approvalLogId, decision: 'APPROVED', schemaVersion: 1 },
      )
      return ok(c, commandResult(applied))
    },
  )
  return app
}
