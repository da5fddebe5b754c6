import { Hono, type Context } from 'hono'
import { z } from 'zod'
import { getResourceInfoPage } from '../domain/resource/info-page'
import { readOnly } from '../domain/read-routing'
import { reassignRelation, unbindRelation } from '../domain/resource/relation-writes'
import { getCurrentRelation } from '../domain/resource/relations'
import { authorize } from '../http/auth'
import { commandAccess } from '../domain/lifecycle/actions'
import { ok, pageSchema, resultSchema, type DeclaredData } from '../http/envelope'
import type { AppEnv } from '../http/types'
import type { Deps } from '../domain/deps'
import type { WriteContext } from '../domain/context'
import { KiB } from '../http/body-shape'
import { NoQuery, pageQuery, pagingNumber, validate } from '../http/validate'
import { idString } from '../schemas/id'
import { answerWrite } from '../http/write'
import {
  SupplierResourceInfoRespVO,
  SupplierResourceReassignRequest,
  SupplierResourceRelationVO,
  SupplierResourceUnbindRequest,
} from '../schemas/resource'
import { SupplierIdParam } from '../schemas/supplier'

/** Roles that may read the resource-information page, besides its two permissions. */
export const RESOURCE_INFO_ROLES = ['ADMIN', 'FINANCE', 'SUPER_ADMIN'] as const

const pageNumber = pagingNumber()

/**
 * Query of the resource-information page. `pageNo` is the spec's compatible name of `page`;
 * sending both with different values is ambiguous, so it is refused. The module code is checked
 * by the domain (an unknown code is 395034, not 400).
 */
export const ResourceInfoQuerySchema = z
  .strictObject({
    page: pageNumber.optional().describe('default 1'),
    pageNo: pageNumber.optional().describe('compatible name of page'),
    pageSize: pageQuery.pageSize,
    resourceModule: z.string().optional().describe('one of the ten module codes; empty means all'),
  })
  .refine((q) => q.page === undefined || q.pageNo === undefined || q.page === q.pageNo, {
    path: ['pageNo'],
    message: 'differs from page',
  })
  .transform(({ page, pageNo, pageSize, resourceModule }) => ({
    page: page ?? pageNo ?? 1,
    pageSize,
    resourceModule: resourceModule || undefined,
  }))

export const ResourceRelationParam = z.strictObject({
  resourceModule: z.string().max(64),
  resourceId: idString,
})

/** The read-only resource-information page (served by the Node app and the edge alike). */
export const resourceInfoRoutes = (deps: Deps) => {
  const app = new Hono<AppEnv>()
  app.get(
    '/items/:supplierId/resource-info/page',
    authorize(deps.permissions, deps.logger, {
      operationId: 'getSupplierResourceInfoPage',
      summary: 'Resource-information page of a supplier (read-only; vehicles from the fleet)',
      tags: ['resource'],
      permissions: ['supplier:view', 'supplier:resource:view'],
      roles: RESOURCE_INFO_ROLES,
      response: resultSchema(pageSchema(SupplierResourceInfoRespVO)),
      errors: ['SUPPLIER_NOT_FOUND', 'RESOURCE_MODULE_UNSUPPORTED', 'DEPENDENCY_UNAVAILABLE'],
    }),
    validate('param', SupplierIdParam),
    validate('query', ResourceInfoQuerySchema),
    async (c) =>
      ok(
        c,
        await readOnly(deps, c.get('adminId'), (sql) =>
          getResourceInfoPage(
            { ...deps, sql },
            c.req.valid('param').supplierId,
            c.req.valid('query'),
          ),
        ),
      ),
  )
  return app
}

/** The resource side's relation maintenance: SUP-ADM-048 (read), 049 (set or rebind), 050 (unbind). */
export const resourceRelationRoutes = (deps: Deps) => {
  const app = new Hono<AppEnv>()
  /** 049 and 050 write on the resource the path names, which is the write's target too. */
  const relationWrite = <E extends AppEnv, B>(
    c: Context<E>,
    { resourceModule, resourceId }: z.output<typeof ResourceRelationParam>,
    body: B,
    verb: (
      deps: Deps,
      ctx: WriteContext,
      on: { moduleCode: string; resourceId: string; body: B },
    ) => Promise<DeclaredData<E>>,
  ) =>
    answerWrite(c, deps, { target: `${resourceModule}:${resourceId}`, body }, (ctx) =>
      verb(deps, ctx, { moduleCode: resourceModule, resourceId, body }),
    )

  app.get(
    '/resource-relations/:resourceModule/:resourceId',
    authorize(deps.permissions, deps.logger, {
      operationId: 'getResourceRelation',
      summary: 'SUP-ADM-048: the current supplier relation of a resource (null when unbound)',
      tags: ['resource'],
      permissions: ['supplier:view'],
      response: resultSchema(SupplierResourceRelationVO.nullable()),
      errors: ['RESOURCE_MODULE_UNSUPPORTED', 'DEPENDENCY_UNAVAILABLE'],
    }),
    validate('param', ResourceRelationParam),
    validate('query', NoQuery),
    async (c) => {
      const { resourceModule, resourceId } = c.req.valid('param')
      return ok(c, await getCurrentRelation(deps, resourceModule, resourceId))
    },
  )

  app.put(
    '/resource-relations/:resourceModule/:resourceId',
    authorize(deps.permissions, deps.logger, {
      ...commandAccess('setResourceRelation'),
      summary:
        'SUP-ADM-049: bind a resource to a supplier, or rebind it (expectedCurrentSupplierId and expectedRelationUpdateTime)',
      tags: ['resource'],
      response: resultSchema(SupplierResourceRelationVO),
      errors: [
        'RESOURCE_MODULE_UNSUPPORTED',
        'SUPPLIER_NOT_FOUND',
        'SUPPLIER_NOT_ELIGIBLE',
        'RESOURCE_NOT_FOUND',
        'RELATION_CONFLICT',
        'NO_ACTUAL_CHANGE',
        'DEPENDENCY_UNAVAILABLE',
      ],
    }),
    validate('param', ResourceRelationParam),
    // Ids, versions, a type code, a remark and a reason of 500 characters (3 KB each escaped).
    validate('json', SupplierResourceReassignRequest, { body: 16 * KiB }),
    async (c) => relationWrite(c, c.req.valid('param'), c.req.valid('json'), reassignRelation),
  )

  app.post(
    '/resource-relations/:resourceModule/:resourceId/unbind',
    authorize(deps.permissions, deps.logger, {
      ...commandAccess('unbindResourceRelation'),
      summary: 'SUP-ADM-050: remove the supplier relation of a resource (the one the caller saw)',
      tags: ['resource'],
      response: resultSchema(z.null()),
      errors: ['RESOURCE_MODULE_UNSUPPORTED', 'RELATION_NOT_FOUND', 'RELATION_CONFLICT'],
    }),
    validate('param', ResourceRelationParam),
    // Ids, a version and a reason of 500 characters (3 KB escaped).
    validate('json', SupplierResourceUnbindRequest, { body: 16 * KiB }),
    async (c) => relationWrite(c, c.req.valid('param'), c.req.valid('json'), unbindRelation),
  )
  return app
}
