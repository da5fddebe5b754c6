import { Hono, type MiddlewareHandler } from 'hono'
import { z } from 'zod'
import { applyApprovalResult } from '../domain/approval/applier'
import type { DomainDeps } from '../domain/context'
import { commandResult } from '../domain/supplier/registration'
import { constantTimeEqual } from '../crypto/sensitive'
import { AppError, ERRORS, fail } from '../errors'
import { ok, resultSchema } from '../http/envelope'
import { describe } from '../http/openapi'
import type { AppEnv, Deps } from '../http/types'
import { idString, validate } from '../http/validate'
import { findApproval } from '../../sql/approval'
import { ApprovalCommandResult } from '../schemas/supplier'
import type { ApprovalResult } from '../ports/approval-provider'

/** Internal routes (`/internal/supplier`): X-Internal-Token, no administrator identity. */
export const internalRoutes = (deps: Deps & DomainDeps) => {
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
    describe(internalToken, {
      operationId: 'reconcileApproval',
      errors: ['APPROVAL_NOT_FOUND', 'APPROVAL_SCHEMA_UNSUPPORTED', 'DEPENDENCY_UNAVAILABLE'],
      summary:
        'Reconcile an approval: ask the provider if undecided, then (re-)apply it through the common applier',
      tags: ['internal'],
      response: resultSchema(ApprovalCommandResult),
    }),
    validate('param', z.object({ approvalLogId: idString }).strict()),
    async (c) => {
      const { approvalLogId } = c.req.valid('param')
      const approval = await findApproval(deps.sql, approvalLogId)
      if (!approval) fail('APPROVAL_NOT_FOUND')
      // An undecided approval is reconciled by asking its provider (LOCAL_AUTO answers locally);
      // a decided one is handed to the applier again.
      let result: ApprovalResult = { approvalLogId, decision: 'APPROVED', schemaVersion: 1 }
      if (approval!.status === 'SUBMITTED') {
        try {
          result = await deps.approvalProvider.submit(approval!)
        } catch (err) {
          deps.logger.warn(
            { approvalLogId, err: (err as Error).message },
            'reconciliation: provider failed',
          )
          fail('DEPENDENCY_UNAVAILABLE', 'the approval provider did not answer; try again later')
        }
      }
      const applied = await applyApprovalResult(
        deps,
        { adminId: approval!.applicantAdminId, requestId: c.get('requestId') },
        result,
      )
      return ok(c, commandResult(applied))
    },
  )
  return app
}
