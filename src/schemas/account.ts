import { z } from 'zod'
import { ACCOUNT_STATUSES, ACCOUNT_TYPES, LIMITS, RISK_FLAG_CODES } from '../vocabulary'
import { idString } from './id'
import { ACCOUNT_TERMS, AccountBank, SettlementTerms } from './account-terms'
import { dateTimeString } from './calendar'
import { ApprovalCommandResult, BankAccountInput } from './supplier'

/** Accounts per SUP-ADM-035 request (the spec's bound). */
export const BATCH_ACCOUNTS = 50

export const AccountParam = z.strictObject({ supplierId: idString, accountId: idString })

/** SUP-ADM-035 SupplierBankAccountBatchCreateRequest: 1..50 items of SupplierBankAccountInput. */
export const SupplierBankAccountBatchCreateRequest = z
  .strictObject({
    accounts: z
      .array(BankAccountInput)
      .min(1, 'at least one account')
      .max(BATCH_ACCOUNTS, `at most ${BATCH_ACCOUNTS} accounts`),
  })
  .meta({ id: 'SupplierBankAccountBatchCreateRequest' })
export type SupplierBankAccountBatchCreateRequest = z.output<
  typeof SupplierBankAccountBatchCreateRequest
>

/**
 * SUP-ADM-036 BankAccountChangeRequest: candidate fields as a patch (null clears an optional
 * one), at least one of them, plus changeReason and the account's expectedUpdateTime.
 * accountType is fixed at creation; sending it is refused by name.
 */
export const BankAccountChangeRequest = z
  .strictObject({
    ...BankAccountInput.omit({ accountType: true }).partial().shape,
    accountType: z
      .never({ error: 'cannot change: an account keeps the type it was created with' })
      .optional(),
    changeReason: z.string().trim().min(1, 'is required').max(LIMITS.changeReason),
    expectedUpdateTime: dateTimeString.describe("the account's updateTime"),
  })
  .refine(
    (b) => ACCOUNT_TERMS.some((term) => b[term] !== undefined),
    'at least one candidate account field is required',
  )
  .meta({ id: 'BankAccountChangeRequest' })
export type BankAccountChangeRequest = z.output<typeof BankAccountChangeRequest>

/** SUP-ADM-041 body: the version of the account that becomes the default. */
export const DefaultAccountRequest = z.strictObject({
  expectedUpdateTime: dateTimeString.describe("the account's updateTime"),
})

// Responses ---------------------------------------------------------------------------------

/**
 * SupplierBankAccountVO, the one view of an account: masked, with the proof files that only a
 * single-account detail carries (the caller decides whether they may be shown). Never
 * plaintext, ciphertext or a candidate. The account list's row is this view without the proof
 * files (sql/account.ts).
 */
export const SupplierBankAccountVO = z
  .object({
    accountId: z.string(),
    accountName: z.string().describe("derived from the supplier's full name"),
    accountType: z.enum(ACCOUNT_TYPES),
    ...AccountBank.shape,
    accountNoMask: z.string().describe('`**** **** 1234`: the last four digits only'),
    ...SettlementTerms.shape,
    status: z.enum(ACCOUNT_STATUSES),
    isDefault: z.enum(['YES', 'NO']),
    riskFlags: z
      .array(z.enum(RISK_FLAG_CODES))
      .describe('named risk flags raised by the values the account holds (beyond the spec)'),
    updateTime: z.string(),
    proofFileUrls: z
      .array(z.string())
      .optional()
      .describe(
        'single-account detail only, for callers holding supplier:view and supplier:account:proof:read',
      ),
  })
  .meta({ id: 'SupplierBankAccountVO' })
export type SupplierBankAccountVO = z.output<typeof SupplierBankAccountVO>

/** SUP-ADM-002 account information: the supplier's live accounts and its version. */
export const SupplierAccountInfoVO = z
  .object({
    supplierId: z.string(),
    bankAccounts: z.array(SupplierBankAccountVO).describe('default account first, then by id'),
    updateTime: z.string().describe('version of the supplier'),
  })
  .meta({ id: 'SupplierAccountInfoVO' })
export type SupplierAccountInfoVO = z.output<typeof SupplierAccountInfoVO>

/** BankAccountSubmitResultVO, one per requested account, in request order. */
export const BankAccountSubmitResultVO = z
  .object({
    accountId: z.string(),
    approvalLogId: z.string(),
    requestNo: z.string(),
    provider: z.literal('LOCAL_AUTO'),
    approvalStatus: ApprovalCommandResult.shape.approvalStatus,
    syncStatus: z.string(),
    accountStatus: z.enum(ACCOUNT_STATUSES),
    isDefault: z.literal('NO'),
    submittedAt: z.string().nullable(),
    finishedAt: z.string().nullable(),
  })
  .meta({ id: 'BankAccountSubmitResultVO' })
export type BankAccountSubmitResultVO = z.output<typeof BankAccountSubmitResultVO>
