import { z } from 'zod'
import { idString } from './id'
import {
  ACCOUNT_STATUSES,
  ACCOUNT_TYPES,
  APPROVAL_STATUSES,
  LIMITS,
  SUPPLIER_STATUSES,
} from '../vocabulary'
import { SettlementTerms } from './account-terms'
import { SUBJECT_FIELDS, SubjectRequest, SubjectView } from './supplier-subject'
import { bytes, phone, requiredName, requiredText, text } from './text'
import { dateString, dateTimeString } from './calendar'
import { TypeComplianceVO } from './compliance'
import { AllowedActions } from './lifecycle'

const typeCode = z
  .string()
  .regex(/^[A-Z][A-Z0-9_]{0,63}$/, 'must be a supplier_type code')
  .meta({ examples: ['OTHER'] })

export const TypeInput = z
  .strictObject({ typeCode, isPrimary: z.boolean().optional() })
  .meta({ id: 'SupplierTypeInput' })

const typeList = z
  .array(TypeInput)
  .min(1, 'at least one type')
  .max(LIMITS.types, `at most ${LIMITS.types} types`)
  .refine(
    (types) => new Set(types.map((t) => t.typeCode)).size === types.length,
    'duplicate typeCode',
  )
  .refine(
    (types) => types.filter((t) => t.isPrimary === true).length <= 1,
    'at most one type may have isPrimary true',
  )

const contactFields = {
  contactName: requiredName(LIMITS.contactName),
  contactPhone: phone(1, LIMITS.contactPhone),
  contactRole: text(LIMITS.contactRole).nullish(),
  remark: text(LIMITS.contactRemark).nullish(),
}

export const ContactInput = z
  .strictObject({ contactId: idString.optional(), ...contactFields })
  .meta({ id: 'SupplierContactInput' })

const qualificationFields = {
  qualType: z.string().trim().min(1, 'is required').max(LIMITS.qualType),
  certNo: text(LIMITS.certNo).nullish(),
  imageUrl: bytes(0, LIMITS.qualImageUrlBytes).nullish(),
  expiryDate: dateString.nullish(),
}

export const QualificationInput = z
  .strictObject({ qualificationId: idString.optional(), ...qualificationFields })
  .meta({ id: 'SupplierQualificationInput' })

const settlement = SettlementTerms.shape

/** SupplierBankAccountInput: an account's terms as a client sends them, within the spec's bounds. */
export const BankAccountInput = z
  .strictObject({
    accountType: z.enum(ACCOUNT_TYPES),
    bankName: requiredName(LIMITS.bankName),
    bankBranch: text(LIMITS.bankBranch).nullish(),
    accountNo: bytes(1, LIMITS.accountNoBytes),
    proofFileUrls: z
      .array(z.string().min(1).max(LIMITS.proofFileUrl))
      .max(LIMITS.proofFileUrls, `at most ${LIMITS.proofFileUrls} items`)
      .optional(),
    // The settlement terms, absent or null when not agreed; the period and the rate bounded.
    ...SettlementTerms.partial().shape,
    accountPeriod: settlement.accountPeriod.unwrap().min(1).max(365).nullish(),
    taxRate: settlement.taxRate
      .unwrap()
      .min(0)
      .max(100)
      .refine((v) => Math.abs(v * 100 - Math.round(v * 100)) < 1e-9, 'at most two decimals')
      .nullish(),
  })
  .meta({ id: 'SupplierBankAccountInput' })

const initialAccounts = z
  .array(BankAccountInput)
  .max(LIMITS.initialAccounts, `at most ${LIMITS.initialAccounts} initial accounts`)

const collection = <T extends z.ZodType>(item: T) =>
  z.array(item).max(LIMITS.collectionItems, `at most ${LIMITS.collectionItems} items`)

/** What a draft and a submit carry alike: the subject, its types and collections, a confirmation. */
const form = {
  ...SubjectRequest.shape,
  types: typeList,
  contacts: collection(ContactInput).optional(),
  qualifications: collection(QualificationInput).optional(),
  initialAccounts: initialAccounts.optional(),
  duplicateConfirmToken: z.string().min(1).max(512).optional(),
}

/** SUP-ADM-003 SupplierDraftUpsertRequest. */
export const SupplierDraftRequest = z.strictObject(form).meta({ id: 'SupplierDraftUpsertRequest' })
export type SupplierDraftRequest = z.output<typeof SupplierDraftRequest>

const PAIRED =
  'an existing item carries both its id and expectedUpdateTime; a new item carries neither'
const paired = (idKey: string) => (item: Record<string, unknown>) =>
  (item[idKey] === undefined) === (item.expectedUpdateTime === undefined)
const version = { expectedUpdateTime: dateTimeString.optional() }

export const ContactMergeInput = z
  .strictObject({ contactId: idString.optional(), ...version, ...contactFields })
  .refine(paired('contactId'), PAIRED)
  .meta({ id: 'SupplierContactMergeInput' })
export const QualificationMergeInput = z
  .strictObject({ qualificationId: idString.optional(), ...version, ...qualificationFields })
  .refine(paired('qualificationId'), PAIRED)
  .meta({ id: 'SupplierQualificationMergeInput' })
/** The spec has not defined contract and evaluation fields yet: only the merge shape. */
export const ContractMergeInput = z
  .strictObject({ contractId: idString.optional(), ...version })
  .refine(paired('contractId'), PAIRED)
  .meta({ id: 'SupplierContractMergeInput' })
export const EvaluationMergeInput = z
  .strictObject({ evaluationId: idString.optional(), ...version })
  .refine(paired('evaluationId'), PAIRED)
  .meta({ id: 'SupplierEvaluationMergeInput' })

/** SUP-ADM-004 SupplierUpdateRequest; a DRAFT also accepts initialAccounts (a full replacement). */
export const SupplierUpdateRequest = z
  .strictObject({
    ...SubjectRequest.partial().shape,
    types: typeList.optional(),
    contacts: collection(ContactMergeInput).optional(),
    qualifications: collection(QualificationMergeInput).optional(),
    contracts: collection(ContractMergeInput).optional(),
    evaluations: collection(EvaluationMergeInput).optional(),
    initialAccounts: initialAccounts.optional(),
    duplicateConfirmToken: z.string().min(1).max(512).optional(),
    // Required in every status, a DRAFT included: the route takes one request type, whose
    // changeReason the spec marks required, and the draft's edits are approval evidence too.
    changeReason: requiredText(LIMITS.changeReason, {
      error: (issue) => (issue.input === undefined ? 'is required' : undefined),
    }),
    expectedUpdateTime: dateTimeString,
  })
  .meta({ id: 'SupplierUpdateRequest' })
export type SupplierUpdateRequest = z.output<typeof SupplierUpdateRequest>

/** SUP-ADM-007 SupplierSubmitRequest: the final form plus submitNote and the version. */
export const SupplierSubmitRequest = z
  .strictObject({
    ...form,
    // Required at submit by C-06, which answers its own code (395007), not a 400: absent means
    // none (the submit carries the final form), and the registration check refuses it.
    licenseImageUrl: SUBJECT_FIELDS.licenseImageUrl.input
      .nullable()
      .default(null)
      .describe('required by C-06: absent, null or empty answers 395007'),
    submitNote: text(LIMITS.submitNote).optional(),
    expectedUpdateTime: dateTimeString,
  })
  .meta({ id: 'SupplierSubmitRequest' })
export type SupplierSubmitRequest = z.output<typeof SupplierSubmitRequest>

/** ContactReplaceRequest. */
export const ContactReplaceRequest = z
  .strictObject({
    contacts: collection(ContactMergeInput),
    changeReason: text(LIMITS.changeReason).optional(),
    expectedUpdateTime: dateTimeString,
  })
  .meta({ id: 'ContactReplaceRequest' })

export const SupplierIdParam = z.strictObject({ supplierId: idString })

/** SUP-ADM-043 SupplierStatusRequest: the server narrows the legal targets by current status. */
export const SupplierStatusRequest = z
  .strictObject({
    targetStatus: z.enum(SUPPLIER_STATUSES),
    changeReason: requiredText(LIMITS.changeReason),
    expectedUpdateTime: dateTimeString,
  })
  .meta({ id: 'SupplierStatusRequest' })
export type SupplierStatusRequest = z.output<typeof SupplierStatusRequest>

// Responses ---------------------------------------------------------------------------------

/** Where a supplier stands in its onboarding: DRAFT, VETTING, then every later status. */
export const ONBOARDING_STAGES = ['PROFILE_DRAFT', 'REGISTRATION_VETTING', 'ONBOARDED'] as const
export type OnboardingStage = (typeof ONBOARDING_STAGES)[number]

export const SupplierWriteResult = z
  .object({
    supplierId: z.string(),
    supplierNo: z.string().nullable(),
    status: z.enum(SUPPLIER_STATUSES),
    onboardingStage: z.enum(ONBOARDING_STAGES),
    initialAccounts: z.array(
      z.object({
        accountId: z.string(),
        accountNoMask: z.string(),
        status: z.enum(ACCOUNT_STATUSES),
      }),
    ),
    updateTime: z.string(),
  })
  .meta({ id: 'SupplierWriteResultVO' })
export type SupplierWriteResult = z.output<typeof SupplierWriteResult>

export const ApprovalCommandResult = z
  .object({
    approvalLogId: z.string(),
    requestNo: z.string(),
    provider: z.literal('LOCAL_AUTO'),
    approvalStatus: z.enum(APPROVAL_STATUSES),
    /**
     * Whether the approved change is in effect. False while the approval is SUBMITTED or APPROVED
     * but not yet applied (the service reconciles it), and after a rejection or a failure.
     */
    businessApplied: z.boolean(),
    spNo: z.string(),
    spStatus: z.string(),
    syncStatus: z.string(),
    submittedAt: z.string().nullable(),
    finishedAt: z.string().nullable(),
  })
  .meta({ id: 'ApprovalCommandResultVO' })
export type ApprovalCommandResult = z.output<typeof ApprovalCommandResult>

/** SUP-ADM-010 ArchiveResultVO: the clearance evidence the archive was made on. */
export const ArchiveResult = z
  .object({
    supplierId: z.string(),
    status: z.literal('ARCHIVED'),
    clearanceRequestId: z.string().describe('finance clearance request id'),
    checkedAt: z
      .string()
      .describe('when finance checked, yyyy-MM-dd HH:mm:ss as finance stated it'),
    ledgerRevision: z.string().describe('the finance ledger revision the clearance was made on'),
    updateTime: z.string(),
  })
  .meta({ id: 'ArchiveResultVO' })
export type ArchiveResult = z.output<typeof ArchiveResult>

/**
 * The public subject fields of a supplier, as the detail shows them (./supplier-subject.ts) with
 * its ids, status and version; the row a write works on carries them too (sql/supplier.ts
 * SupplierRow).
 */
export const SupplierSubjectFields = {
  supplierId: z.string(),
  supplierNo: z.string().nullable(),
  ...SubjectView.shape,
  status: z.enum(SUPPLIER_STATUSES),
  updateTime: z.string(),
}

export const SupplierTypeVO = z
  .object({
    typeCode: z.string(),
    typeName: z.string().nullable().describe('dictionary label snapshot; null if not enabled'),
    isPrimary: z.boolean(),
  })
  .meta({ id: 'SupplierTypeVO' })

/** SUP-ADM-001: one supplier of the list. */
export const SupplierListItemVO = z
  .object({
    supplierId: z.string(),
    supplierNo: z.string().nullable().describe('null until registration is approved'),
    fullName: z.string(),
    shortName: z.string().nullable(),
    types: z.array(SupplierTypeVO),
    status: z.enum(SUPPLIER_STATUSES),
    creditLevel: z.string().nullable(),
    totalScore: z.number().nullable(),
    activeAccountCount: z.int().min(0).describe('live bank accounts with status ACTIVE'),
    createTime: z.string(),
    updateTime: z.string(),
  })
  .meta({ id: 'SupplierListItemVO' })
export type SupplierListItemVO = z.output<typeof SupplierListItemVO>

/**
 * The tax-number lookup (an addition to the spec, docs/api.md): the number travels in the body,
 * never in a URL, and is compared through C-02's blind index.
 */
export const SupplierTaxNoLookupRequest = z
  .strictObject({
    taxNo: z
      .string()
      .max(LIMITS.taxNoBytes * 4)
      .describe(
        'compared as C-02 compares it: half-width, without whitespace, upper case; never echoed',
      ),
  })
  .meta({ id: 'SupplierTaxNoLookupRequest', examples: [{ taxNo: '91330106MA2B3C4D5E' }] })

export const SupplierTaxNoLookupVO = z
  .object({
    supplier: SupplierListItemVO.extend({ taxNoMask: z.string() })
      .nullable()
      .describe('the live supplier holding the number, masked; null when none does'),
  })
  .meta({
    id: 'SupplierTaxNoLookupVO',
    examples: [
      {
        supplier: {
          supplierId: '9007199254740993',
          supplierNo: 'SP20261202100001',
          fullName: '杭州湖畔旅游服务有限公司',
          shortName: '湖畔旅游',
          types: [{ typeCode: 'OTHER', typeName: '其他', isPrimary: true }],
          status: 'ACTIVE',
          creditLevel: null,
          totalScore: null,
          activeAccountCount: 2,
          createTime: '2026-11-21 09:30:00',
          updateTime: '2026-11-21 10:00:00',
          taxNoMask: '9133********4D5E',
        },
      },
    ],
  })
export type SupplierTaxNoLookupVO = z.output<typeof SupplierTaxNoLookupVO>

/** A contact as every response shows it (SupplierContactVO). */
export const ContactView = z
  .object({
    contactId: z.string(),
    contactName: z.string(),
    contactPhoneMask: z.string(),
    contactRole: z.string().nullable(),
    remark: z.string().nullable(),
    status: z.string(),
    updateTime: z.string(),
  })
  .meta({ id: 'SupplierContactVO' })

export const SupplierQualificationVO = z
  .object({
    qualificationId: z.string(),
    qualType: z.string(),
    certNoMask: z.string().nullable(),
    imageUrl: z.string().nullable(),
    expiryDate: z.string().nullable(),
    isRequired: z
      .boolean()
      .describe('derived: a live required rule of one of the supplier types names this qualType'),
    status: z.string(),
    updateTime: z.string(),
  })
  .meta({ id: 'SupplierQualificationVO' })

/** SUP-ADM-002 basic information: what is stored, and what the caller may do with it now. */
export const SupplierBasicInfoVO = z
  .object({
    ...SupplierSubjectFields,
    types: z.array(SupplierTypeVO),
    contacts: z.array(ContactView),
    qualifications: z.array(SupplierQualificationVO),
    compliance: z
      .array(TypeComplianceVO)
      .describe(
        'per live type: state of its required qualifications (the resume and unfreeze guards decide on the same computation)',
      ),
    creditLevel: z.string().nullable(),
    totalScore: z.number().nullable(),
    createTime: z.string(),
    allowedActions: AllowedActions,
  })
  .meta({ id: 'SupplierBasicInfoVO' })
export type SupplierBasicInfoVO = z.output<typeof SupplierBasicInfoVO>
