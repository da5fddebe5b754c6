import { z } from 'zod'
import { INVOICE_TYPES, SETTLE_MODES } from '../vocabulary'

/*
 * The terms of a bank account, declared once: what a client sets on an account (at creation, or
 * in a change's candidate), what an approval applies, and what every view of the account answers.
 * The requests add their bounds (./supplier.ts BankAccountInput, ./account.ts), a candidate is
 * these terms made partial (src/domain/account/snapshot.ts), the account's view takes them
 * (./account.ts SupplierBankAccountVO), and sql/account.ts derives its row parsers from them and
 * its columns from their names (`columnOf`, sql/db.ts).
 */

/**
 * The settlement terms, each null until agreed; how they fit together is a rule
 * (`checkSettlementTerms`, src/domain/account/rules.ts).
 */
export const SettlementTerms = z.object({
  settleMode: z.enum(SETTLE_MODES).nullable(),
  accountPeriod: z.int().nullable(),
  invoiceType: z.enum(INVOICE_TYPES).nullable(),
  taxRate: z.number().nullable(),
})
export type SettlementTerms = z.output<typeof SettlementTerms>

/** Where the account is held. */
export const AccountBank = z.object({ bankName: z.string(), bankBranch: z.string().nullable() })

/**
 * Every term a client sets, in the order the change log and the events name them. The number is
 * the normalized one (C-03: 6..32 digits); the database keeps its ciphertext, blind index and mask.
 */
export const AccountTerms = z.object({
  ...AccountBank.shape,
  accountNo: z.string().regex(/^\d{6,32}$/),
  proofFileUrls: z.array(z.string()),
  ...SettlementTerms.shape,
})
export type AccountTerms = z.output<typeof AccountTerms>
export type AccountTerm = keyof AccountTerms

/** The names of the terms, in order. */
export const ACCOUNT_TERMS = AccountTerms.keyof().options
