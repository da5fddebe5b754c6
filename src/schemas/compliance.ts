import { z } from 'zod'
import { COMPLIANCE_STATES } from '../vocabulary'

/*
 * Qualification compliance as the responses show it: per live type of a supplier (the detail's
 * `compliance`, computed by sql/compliance.ts, which the lifecycle guards read too), and the
 * qualifications about to expire (SUP-ADM-047).
 */

export const RequiredQualificationVO = z.object({
  qualType: z.string(),
  state: z.enum(COMPLIANCE_STATES),
  expiryDate: z
    .string()
    .nullable()
    .describe('latest expiry of the live qualifications of this type; null: none, or no expiry'),
  daysLeft: z.int().nullable().describe('expiryDate minus today; negative once expired'),
  warningDays: z.int(),
})

export const TypeComplianceVO = z.object({
  typeCode: z.string(),
  state: z
    .enum(COMPLIANCE_STATES)
    .describe(
      'worst state of the required qualifications: MISSING, EXPIRED, EXPIRING (within the rule warningDays) or OK',
    ),
  requiredQualifications: z.array(RequiredQualificationVO),
})
export type TypeComplianceVO = z.output<typeof TypeComplianceVO>

/** A valid qualification of a live supplier that lapses within the window. */
export const ExpiringQualificationVO = z.object({
  qualificationId: z.string(),
  supplierId: z.string(),
  supplierNo: z.string().nullable(),
  fullName: z.string(),
  supplierStatus: z.string(),
  qualType: z.string(),
  certNoMask: z.string().nullable(),
  expiryDate: z.string(),
  daysLeft: z.int().describe('0 = expires today'),
  typeCodes: z
    .array(z.string())
    .describe("the supplier's live types whose live rules name this qualification type"),
  warningDays: z
    .int()
    .nullable()
    .describe('the largest warningDays among those rules; null when no rule names it'),
})
export type ExpiringQualificationVO = z.output<typeof ExpiringQualificationVO>
