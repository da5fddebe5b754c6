import { Hono } from 'hono'
import { archiveSupplier } from '../domain/lifecycle/archive'
import { changeSupplierStatus } from '../domain/lifecycle/status-change'
import { authorize } from '../http/auth'
import { commandAccess, lifecycleTransitions } from '../domain/lifecycle/actions'
import { ok, resultSchema } from '../http/envelope'
import type { AppEnv } from '../http/types'
import type { Deps } from '../domain/deps'
import { KiB } from '../http/body-shape'
import { NoQuery, validate } from '../http/validate'
import { answerWrite } from '../http/write'
import {
  ApprovalCommandResult,
  ArchiveResult,
  SupplierIdParam,
  SupplierStatusRequest,
} from '../schemas/supplier'
import { LifecycleTransitionsVO } from '../schemas/lifecycle'

const tags = ['lifecycle']

/**
 * Lifecycle: the transition table (read), the status change through approval and the archive
 * through finance clearance.
 */
export const lifecycleRoutes = (deps: Deps) => {
  const { permissions, logger } = deps
  const app = new Hono<AppEnv>()

  app.get(
    '/lifecycle/transitions',
    authorize(permissions, logger, {
      operationId: 'listLifecycleTransitions',
      summary:
        'The lifecycle transition table: every declared move with its trigger, approval and guard',
      description:
        'Read from the same table the state machine runs on: a move not listed is refused with 395005. For what one caller may do with one supplier now, read `allowedActions` of the supplier detail.',
      tags,
      permissions: ['supplier:view'],
      response: resultSchema(LifecycleTransitionsVO),
      errors: [],
    }),
    validate('query', NoQuery),
    (c) => ok(c, lifecycleTransitions()),
  )

  app.post(
    '/items/:supplierId/status',
    authorize(permissions, logger, {
      ...commandAccess('changeSupplierStatus'),
      summary: 'SUP-ADM-043: change the lifecycle status of a supplier (STATUS_CHANGE approval)',
      tags,
      response: resultSchema(ApprovalCommandResult),
      errors: [
        'SUPPLIER_NOT_FOUND',
        'SUPPLIER_STATUS_TRANSITION_INVALID',
        'VERSION_STALE',
        'CONCURRENT_MODIFICATION',
        'QUALIFICATIONS_MISSING',
      ],
    }),
    validate('param', SupplierIdParam),
    // A status, a version and a reason of 500 characters (3 KB escaped).
    validate('json', SupplierStatusRequest, { body: 16 * KiB }),
    async (c) => {
      const { supplierId } = c.req.valid('param')
      const body = c.req.valid('json')
      return answerWrite(c, deps, { target: supplierId, body }, (ctx) =>
        changeSupplierStatus(deps, ctx, supplierId, body),
      )
    },
  )

  app.post(
    '/items/:supplierId/archive',
    authorize(permissions, logger, {
      ...commandAccess('archiveSupplier'),
      summary:
        'SUP-ADM-010: archive a SUSPENDED or BLACKLIST supplier once finance clearance confirms everything settled (no body)',
      tags,
      response: resultSchema(ArchiveResult),
      errors: [
        'SUPPLIER_NOT_FOUND',
        'SUPPLIER_STATUS_TRANSITION_INVALID',
        'ARCHIVE_CLEARANCE_UNAVAILABLE',
        'ARCHIVE_NOT_CLEARED',
        'DEPENDENCY_UNAVAILABLE',
        'CONCURRENT_MODIFICATION',
      ],
    }),
    validate('param', SupplierIdParam),
    async (c) => {
      const { supplierId } = c.req.valid('param')
      return answerWrite(c, deps, { target: supplierId, body: null }, (ctx) =>
        archiveSupplier(deps, ctx, supplierId),
      )
    },
  )

  return app
}
