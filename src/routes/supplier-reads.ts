import { Hono } from 'hono'
import { z } from 'zod'
import {
  getSupplierAccountInfo,
  getSupplierBasicInfo,
  listApprovalRecords,
  listSuppliers,
  lookupSupplierByTaxNo,
} from '../domain/supplier/reads'
import { KiB } from '../http/body-shape'
import { COMMAND_PERMISSIONS } from '../domain/lifecycle/actions'
import { readOnly } from '../domain/read-routing'
import { authorize } from '../http/auth'
import { ok, pageSchema, resultSchema } from '../http/envelope'
import type { AppEnv } from '../http/types'
import type { Deps } from '../domain/deps'
import { NoQuery, pageQuery, validate } from '../http/validate'
import { idString } from '../schemas/id'
import { dateTimeString } from '../schemas/calendar'
import { SupplierAccountInfoVO } from '../schemas/account'
import { OPINION_PERMISSION, SupplierApprovalRecordVO } from '../schemas/change-log'
import {
  SupplierBasicInfoVO,
  SupplierIdParam,
  SupplierListItemVO,
  SupplierTaxNoLookupRequest,
  SupplierTaxNoLookupVO,
} from '../schemas/supplier'
import {
  CHANGE_OPERATION_TYPES,
  CHANGE_TARGET_TYPES,
  SUPPLIER_SORT_KEYS,
  SUPPLIER_STATUSES,
} from '../vocabulary'

/** An optional text filter; blank (after trimming) means "no filter". */
const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max, `at most ${max} characters`)
    .optional()
    .transform((v) => v || undefined)

/** An optional code filter from a fixed list; an empty value means "no filter". */
const optionalCode = <const T extends readonly [string, ...string[]]>(codes: T) =>
  z
    .union([z.enum(codes), z.literal('')])
    .optional()
    .transform((v) => v || undefined)

/** SUP-ADM-001 query. Unknown parameters are refused, so no sensitive value rides in the URL. */
export const SupplierListQuerySchema = z.strictObject({
  ...pageQuery,
  keyword: optionalText(100).describe(
    "finds a supplier by any spelling containing it, compared folded (simplified Chinese, half-width, lower case; spaces, punctuation and invisible characters ignored): the full or short name, the trade name in toneless pinyin (湖畔 → hupan) or its initials (hp), a Latin name's words run together, the supplierNo. Any length, one Han character included. Order: names equal to the keyword first, then names containing it, then the other spellings; within each, sortBy/sortDirection (createTime DESC, supplierId DESC by default). When no spelling contains it, full or short names trigram-similar to it (a typo: similarity ≥ KEYWORD_SIMILARITY_THRESHOLD, 0.5 by default). A keyword of punctuation only matches none",
  ),
  status: optionalCode(SUPPLIER_STATUSES),
  typeCode: optionalText(64).describe('suppliers having this live type'),
  sortBy: z.enum(SUPPLIER_SORT_KEYS).optional().describe('default createTime'),
  sortDirection: z.enum(['ASC', 'DESC']).default('DESC'),
})

/** SUP-ADM-012 query: filters of the change log; the time range is inclusive. */
export const ApprovalRecordQuerySchema = z
  .strictObject({
    ...pageQuery,
    supplierId: idString.optional(),
    approvalLogId: idString.optional(),
    operationType: optionalCode(CHANGE_OPERATION_TYPES),
    targetType: optionalCode(CHANGE_TARGET_TYPES),
    fieldName: optionalText(64),
    status: optionalText(32),
    createTimeFrom: dateTimeString.optional().describe('inclusive, yyyy-MM-dd HH:mm:ss'),
    createTimeTo: dateTimeString.optional().describe('inclusive, yyyy-MM-dd HH:mm:ss'),
  })
  .refine(
    // Same fixed-width format on both sides: text order is time order.
    (q) => !q.createTimeFrom || !q.createTimeTo || q.createTimeFrom <= q.createTimeTo,
    { path: ['createTimeTo'], message: 'must not be earlier than createTimeFrom' },
  )

/** Supplier reads: list, basic information, account information, approval records. */
export const supplierReadRoutes = (deps: Deps) => {
  const app = new Hono<AppEnv>()

  app.get(
    '/items',
    authorize(deps.permissions, deps.logger, {
      operationId: 'listSuppliers',
      summary: 'SUP-ADM-001: page of suppliers (masked)',
      description:
        'With `keyword`, the suppliers one of whose spellings contains it (see the parameter), ranked: a name equal to the keyword, then a name containing it, then another spelling (pinyin, initials, supplier number); each rank in the order asked for. `total` is exact.',
      errors: [],
      tags: ['supplier'],
      permissions: ['supplier:list'],
      response: resultSchema(pageSchema(SupplierListItemVO)),
    }),
    validate('query', SupplierListQuerySchema),
    async (c) =>
      ok(
        c,
        await readOnly(deps, c.get('adminId'), (sql) =>
          listSuppliers({ ...deps, sql }, c.req.valid('query')),
        ),
      ),
  )

  app.get(
    '/items/:supplierId',
    authorize(deps.permissions, deps.logger, {
      operationId: 'getSupplierDetail',
      summary:
        'SUP-ADM-002: basic information of a supplier (masked), with what the caller may do with it now',
      errors: ['SUPPLIER_NOT_FOUND'],
      tags: ['supplier'],
      permissions: ['supplier:view'],
      // Looked up with supplier:view in the same statement, for allowedActions only.
      advise: COMMAND_PERMISSIONS,
      response: resultSchema(SupplierBasicInfoVO),
    }),
    validate('param', SupplierIdParam),
    validate('query', NoQuery),
    async (c) =>
      ok(
        c,
        await readOnly(deps, c.get('adminId'), (sql) =>
          getSupplierBasicInfo(
            { ...deps, sql },
            c.req.valid('param').supplierId,
            c.get('heldCodes'),
          ),
        ),
      ),
  )

  app.get(
    '/items/:supplierId/account-info',
    authorize(deps.permissions, deps.logger, {
      operationId: 'getSupplierAccountInfo',
      summary: 'SUP-ADM-002: account information of a supplier (masked bank accounts)',
      errors: ['SUPPLIER_NOT_FOUND'],
      tags: ['supplier'],
      permissions: ['supplier:view'],
      response: resultSchema(SupplierAccountInfoVO),
    }),
    validate('param', SupplierIdParam),
    validate('query', NoQuery),
    async (c) =>
      ok(
        c,
        await readOnly(deps, c.get('adminId'), (sql) =>
          getSupplierAccountInfo({ ...deps, sql }, c.req.valid('param').supplierId),
        ),
      ),
  )

  app.get(
    '/approval-records',
    authorize(deps.permissions, deps.logger, {
      operationId: 'listApprovalRecords',
      summary: `SUP-ADM-012: approval records (change log); opinions only with ${OPINION_PERMISSION}, audited`,
      errors: [],
      tags: ['supplier'],
      permissions: ['supplier:view'],
      response: resultSchema(pageSchema(SupplierApprovalRecordVO)),
    }),
    validate('query', ApprovalRecordQuerySchema),
    async (c) =>
      ok(
        c,
        await listApprovalRecords(deps, c.req.valid('query'), {
          adminId: c.get('adminId'),
          requestId: c.get('requestId') ?? null,
        }),
      ),
  )

  return app
}

/**
 * The tax-number lookup: a read carried in a body (a tax number may not travel in a URL) that
 * writes its audit row, so it is served by the Node service only, not the read-only edge.
 */
export const taxNumberLookupRoutes = (deps: Deps) => {
  const app = new Hono<AppEnv>()
  app.post(
    '/tax-number-lookup',
    authorize(deps.permissions, deps.logger, {
      operationId: 'lookupSupplierByTaxNo',
      summary:
        'Which live supplier holds a tax number (an addition to the spec): the number in the body, compared through the C-02 blind index; the supplier answered masked, the read audited',
      description:
        'A read, though a POST: a tax number may not travel in a URL. Nothing is written but one sensitive_read_audit row when a supplier is found (field `taxNo`), in the transaction that reads it; the number is never echoed or logged. `supplier` is null when no live supplier holds it.',
      errors: [],
      tags: ['supplier'],
      permissions: ['supplier:view'],
      response: resultSchema(SupplierTaxNoLookupVO),
    }),
    validate('json', SupplierTaxNoLookupRequest, { body: 4 * KiB }),
    async (c) =>
      ok(
        c,
        await lookupSupplierByTaxNo(deps, c.req.valid('json').taxNo, {
          adminId: c.get('adminId'),
          requestId: c.get('requestId') ?? null,
        }),
      ),
  )

  return app
}
