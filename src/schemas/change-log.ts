import { z } from 'zod'
import { CHANGE_OPERATION_TYPES, CHANGE_TARGET_TYPES } from '../vocabulary'

/** The permission that reveals approval opinions (decrypted and audited per read). */
export const OPINION_PERMISSION = 'supplier:approval:opinion'

/**
 * SUP-ADM-012: one change-log row, read as evidence. Only the fields listed here are sent (zod
 * strips unknown keys, and sql/change-log-read.ts parses its rows with this shape); the domain
 * adds the decrypted opinion for a caller allowed to read it.
 */
export const SupplierApprovalRecordVO = z
  .object({
    changeLogId: z.string(),
    supplierId: z.string(),
    approvalLogId: z.string().nullable(),
    operationType: z.enum(CHANGE_OPERATION_TYPES),
    targetType: z.enum(CHANGE_TARGET_TYPES),
    targetId: z.string().nullable(),
    fieldName: z.string(),
    oldValueMasked: z.string().nullable(),
    newValueMasked: z.string().nullable(),
    changeReason: z.string().nullable(),
    status: z.string().nullable(),
    operatorId: z.string().nullable(),
    createTime: z.string(),
    hasOpinion: z.boolean(),
    opinion: z
      .string()
      .optional()
      .describe(
        `only for callers holding ${OPINION_PERMISSION}, on rows whose approval has an opinion; each read is audited`,
      ),
  })
  .meta({ id: 'SupplierApprovalRecordVO' })
export type SupplierApprovalRecordVO = z.output<typeof SupplierApprovalRecordVO>
