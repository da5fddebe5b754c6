import { z } from 'zod'
import { idString } from './id'
import { dateTimeString } from './calendar'
import { LIMITS } from '../vocabulary'

const changeReason = z
  .string()
  .trim()
  .min(1, 'is required')
  .max(LIMITS.changeReason, `at most ${LIMITS.changeReason} characters`)

/** Bound of the relation's remark (the table's check). */
export const RELATION_REMARK_MAX = 500

/**
 * SUP-ADM-049 body. The two expected fields travel together: they are required when the
 * resource already has a supplier (checked against the current relation, 395022 on mismatch).
 */
export const SupplierResourceReassignRequest = z
  .object({
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
  .strict()
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
  .object({
    expectedCurrentSupplierId: idString,
    expectedRelationUpdateTime: dateTimeString,
    changeReason,
  })
  .strict()
  .meta({ id: 'SupplierResourceUnbindRequest' })
export type SupplierResourceUnbindRequest = z.output<typeof SupplierResourceUnbindRequest>
