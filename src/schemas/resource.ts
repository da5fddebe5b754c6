import { z } from 'zod'
import { idString } from './id'
import { dateTimeString } from './calendar'
import { requiredText } from './text'
import { LIMITS, RESOURCE_MODULES } from '../vocabulary'

const changeReason = requiredText(LIMITS.changeReason)

/** Bound of the relation's remark (the table's check). */
export const RELATION_REMARK_MAX = 500

/**
 * SUP-ADM-049 body. The two expected fields travel together: they are required when the
 * resource already has a supplier (checked against the current relation, 395022 on mismatch).
 */
export const SupplierResourceReassignRequest = z
  .strictObject({
    supplierId: idString,
    requiredTypeCode: z
      .string()
      .regex(/^[A-Z][A-Z0-9_]{0,63}$/, 'must be a supplier_type code')
      .nullish(),
    remark: z
      .string()
      .max(RELATION_REMARK_MAX, `at most ${RELATION_REMARK_MAX} characters`)
      .nullish(),
    expectedCurrentSupplierId: idString.optional(),
    expectedRelationUpdateTime: dateTimeString.optional(),
    changeReason,
  })
  .refine(
    (b) =>
      (b.expectedCurrentSupplierId === undefined) === (b.expectedRelationUpdateTime === undefined),
    {
      path: ['expectedRelationUpdateTime'],
      message: 'expectedCurrentSupplierId and expectedRelationUpdateTime go together',
    },
  )
  .meta({ id: 'SupplierResourceReassignRequest' })
export type SupplierResourceReassignRequest = z.output<typeof SupplierResourceReassignRequest>

/** SUP-ADM-050 body: the relation the resource page saw, and why it is removed. */
export const SupplierResourceUnbindRequest = z
  .strictObject({
    expectedCurrentSupplierId: idString,
    expectedRelationUpdateTime: dateTimeString,
    changeReason,
  })
  .meta({ id: 'SupplierResourceUnbindRequest' })
export type SupplierResourceUnbindRequest = z.output<typeof SupplierResourceUnbindRequest>

// Responses ---------------------------------------------------------------------------------

export const TagVO = z.object({ tagId: z.string(), tagName: z.string(), tagColor: z.string() })
export const SeasonVO = z.object({ seasonCode: z.string(), seasonName: z.string() })

/** One record of the page (SupplierResourceInfoRespVO). */
export const SupplierResourceInfoRespVO = z
  .object({
    relationId: z.string(),
    resourceModule: z.enum(RESOURCE_MODULES),
    moduleName: z.string(),
    resourceId: z.string().describe('kept from the relation even if the resource is missing'),
    resourceName: z.string().nullable(),
    coverUrl: z.string().nullable(),
    city: z.string().nullable(),
    isCharged: z.boolean().nullable(),
    isChargedName: z.string().nullable(),
    settleTypeCode: z.string().nullable(),
    settleTypeName: z.string().nullable(),
    tags: z.array(TagVO),
    seasons: z.array(SeasonVO),
    statusCode: z.string().nullable(),
    statusName: z.string().nullable(),
    enabled: z.boolean().nullable(),
    resourceAvailable: z
      .boolean()
      .describe('false: the relation is kept but the resource is deleted or missing'),
    updateTime: z.string().nullable().describe('update time of the resource itself'),
  })
  .meta({ id: 'SupplierResourceInfoRespVO' })
export type SupplierResourceInfoRespVO = z.output<typeof SupplierResourceInfoRespVO>

/** SUP-ADM-048/049 answer. */
export const SupplierResourceRelationVO = z
  .object({
    relationId: z.string(),
    supplierId: z.string(),
    supplierNo: z.string().nullable(),
    supplierName: z.string(),
    resourceModule: z.enum(RESOURCE_MODULES),
    moduleName: z.string(),
    resourceId: z.string(),
    resourceName: z.string().nullable().describe('null when the resource is deleted or missing'),
    requiredTypeCode: z.string().nullable(),
    requiredTypeName: z.string().nullable(),
    remark: z.string().nullable(),
    available: z
      .boolean()
      .describe('the supplier may still serve this resource: eligible status, required type held'),
    reasons: z
      .array(z.string())
      .describe(
        'why not available: SUPPLIER_STATUS_<status>, REQUIRED_TYPE_NOT_HELD, RESOURCE_UNAVAILABLE',
      ),
    createTime: z.string(),
    updateTime: z.string().describe('the relation version (expectedRelationUpdateTime)'),
  })
  .meta({ id: 'SupplierResourceRelationVO' })
export type SupplierResourceRelationVO = z.output<typeof SupplierResourceRelationVO>
