import { z } from 'zod'
import { many, maybeOne, type Sql, DATE_TIME } from './db'
import {
  ACCOUNT_STATUSES,
  RISK_FLAG_CODES,
  type AccountStatus,
  type RiskFlagCode,
} from '../src/vocabulary'

/*
 * The bank-account aggregate after registration (SUP-ADM-034/035/036/041). Reads select masks
 * only: no `account_no_enc` or `account_no_bidx` leaves a read query, and proof file URLs only
 * leave the single-account query. Every table a query touches is filtered on deleted_at.
 */

/** An account's settlement terms as stored, and as every account view answers them. */
export const AccountTermsFields = {
  settleMode: z.string().nullable(),
  accountPeriod: z.int().nullable(),
  invoiceType: z.string().nullable(),
  taxRate: z.number().nullable(),
}

const AccountViewFields = {
  accountId: z.string(),
  accountName: z.string(),
  accountType: z.enum(['CORPORATE', 'PERSONAL']),
  bankName: z.string(),
  bankBranch: z.string().nullable(),
  accountNoMask: z.string(),
  ...AccountTermsFields,
  status: z.enum(ACCOUNT_STATUSES),
  isDefault: z.enum(['YES', 'NO']),
  riskFlags: z.array(z.enum(RISK_FLAG_CODES)),
  updateTime: z.string(),
}

/** An account as the list shows it: masked, no proof files. */
export const AccountListRow = z.object(AccountViewFields)
export type AccountListRow = z.output<typeof AccountListRow>

/** One account with its proof files (the caller decides whether they may be shown). */
export const AccountDetailRow = z.object({
  ...AccountViewFields,
  proofFileUrls: z.array(z.string()),
})
export type AccountDetailRow = z.output<typeof AccountDetailRow>

/** accountName is derived from the supplier's full name (the spec), so it is read from there. */
const viewColumns = (sql: Sql) => sql`
  a.account_id::text AS "accountId", s.full_name AS "accountName", a.account_type AS "accountType",
  a.bank_name AS "bankName", a.bank_branch AS "bankBranch", a.account_no_mask AS "accountNoMask",
  a.settle_mode AS "settleMode", a.account_period AS "accountPeriod", a.invoice_type AS "invoiceType",
  a.tax_rate::float8 AS "taxRate", a.status, a.is_default AS "isDefault", a.risk_flags AS "riskFlags",
  to_char(a.update_time, ${DATE_TIME}) AS "updateTime"
`

/** The live accounts of a live supplier, the default first, then by id. */
export function supplierAccounts(sql: Sql, supplierId: string) {
  return many(
    sql`
      SELECT ${viewColumns(sql)}
      FROM supplier_bank_account a
      JOIN supplier s ON s.supplier_id = a.supplier_id AND s.deleted_at IS NULL
      WHERE a.supplier_id = ${supplierId} AND a.deleted_at IS NULL
      ORDER BY (a.is_default = 'YES') DESC, a.account_id
    `,
    AccountListRow,
  )
}

/** One live account of a live supplier, with its proof files; null when missing or not its own. */
export function supplierAccount(sql: Sql, supplierId: string, accountId: string) {
  return maybeOne(
    sql`
      SELECT ${viewColumns(sql)}, a.proof_file_urls AS "proofFileUrls"
      FROM supplier_bank_account a
      JOIN supplier s ON s.supplier_id = a.supplier_id AND s.deleted_at IS NULL
      WHERE a.supplier_id = ${supplierId} AND a.account_id = ${accountId} AND a.deleted_at IS NULL
    `,
    AccountDetailRow,
  )
}

/** What a write compares and guards on: the terms, the blind index, status, default, version. */
export const AccountWriteRow = z.object({
  accountId: z.string(),
  supplierId: z.string(),
  accountType: z.enum(['CORPORATE', 'PERSONAL']),
  bankName: z.string(),
  bankBranch: z.string().nullable(),
  accountNoBidx: z.string(),
  accountNoMask: z.string(),
  proofFileUrls: z.array(z.string()),
  ...AccountTermsFields,
  status: z.enum(ACCOUNT_STATUSES),
  isDefault: z.enum(['YES', 'NO']),
  riskFlags: z.array(z.enum(RISK_FLAG_CODES)),
  updateTime: z.string(),
})
export type AccountWriteRow = z.output<typeof AccountWriteRow>

const writeColumns = (sql: Sql) => sql`
  a.account_id::text AS "accountId", a.supplier_id::text AS "supplierId", a.account_type AS "accountType",
  a.bank_name AS "bankName", a.bank_branch AS "bankBranch", a.account_no_bidx AS "accountNoBidx",
  a.account_no_mask AS "accountNoMask", a.proof_file_urls AS "proofFileUrls",
  a.settle_mode AS "settleMode", a.account_period AS "accountPeriod", a.invoice_type AS "invoiceType",
  a.tax_rate::float8 AS "taxRate", a.status, a.is_default AS "isDefault", a.risk_flags AS "riskFlags",
  to_char(a.update_time, ${DATE_TIME}) AS "updateTime"
`

/** A live account of this supplier, unlocked (the pre-checks). */
export function findAccount(sql: Sql, supplierId: string, accountId: string) {
  return maybeOne(
    sql`
      SELECT ${writeColumns(sql)} FROM supplier_bank_account a
      WHERE a.supplier_id = ${supplierId} AND a.account_id = ${accountId} AND a.deleted_at IS NULL
    `,
    AccountWriteRow,
  )
}

/** The same row under FOR UPDATE (taken after the supplier's lock, never before it). */
export function lockAccount(sql: Sql, supplierId: string, accountId: string) {
  return maybeOne(
    sql`
      SELECT ${writeColumns(sql)} FROM supplier_bank_account a
      WHERE a.supplier_id = ${supplierId} AND a.account_id = ${accountId} AND a.deleted_at IS NULL
      FOR UPDATE
    `,
    AccountWriteRow,
  )
}

export const NumberHolderRow = z.object({
  accountNoBidx: z.string(),
  supplierId: z.string(),
  accountId: z.string(),
  status: z.enum(ACCOUNT_STATUSES),
})
export type NumberHolderRow = z.output<typeof NumberHolderRow>

/**
 * Every live account, at a live supplier, in one of `statuses`, that holds one of these account
 * numbers (by blind index). One lookup serves C-19 (valid at another supplier, or repeated at
 * this one) and the fraud signal (held by another supplier in any holding status).
 */
export function numberHolders(sql: Sql, bidxs: string[], statuses: readonly AccountStatus[]) {
  if (bidxs.length === 0) return Promise.resolve([] as NumberHolderRow[])
  return many(
    sql`
      SELECT a.account_no_bidx AS "accountNoBidx", a.supplier_id::text AS "supplierId",
             a.account_id::text AS "accountId", a.status
      FROM supplier_bank_account a
      JOIN supplier s ON s.supplier_id = a.supplier_id AND s.deleted_at IS NULL
      WHERE a.account_no_bidx = ANY(${bidxs}) AND a.deleted_at IS NULL
        AND a.status = ANY(${statuses as string[]})
      ORDER BY a.supplier_id, a.account_id
    `,
    NumberHolderRow,
  )
}

const Version = z.object({ accountId: z.string(), updateTime: z.string() })

/** Columns of an account a change may set (the number as ciphertext, blind index and mask). */
export interface AccountTermColumns {
  bank_name?: string
  bank_branch?: string | null
  account_no_enc?: string
  account_no_bidx?: string
  account_no_mask?: string
  proof_file_urls?: string[]
  settle_mode?: string | null
  account_period?: number | null
  invoice_type?: string | null
  tax_rate?: number | null
  risk_flags?: RiskFlagCode[]
  status?: AccountStatus
  is_default?: 'YES' | 'NO'
}

/**
 * The guarded write of an account: only while it is live, in `status` and at version
 * `expectedUpdateTime`; null on a compare-and-set miss. With no columns it only moves the
 * version (a change submitted for approval claims the account's version this way).
 */
export function updateAccount(
  sql: Sql,
  guard: { accountId: string; status: AccountStatus; expectedUpdateTime: string },
  columns: AccountTermColumns = {},
) {
  const { proof_file_urls, risk_flags, ...plain } = columns
  const set: Record<string, unknown> = { ...plain }
  if (proof_file_urls) set.proof_file_urls = sql.json(proof_file_urls)
  if (risk_flags) set.risk_flags = sql.json(risk_flags)
  // The column helper must follow SET directly (postgres.js reads the keyword before it).
  const where = sql`
    WHERE a.account_id = ${guard.accountId} AND a.deleted_at IS NULL AND a.status = ${guard.status}
      AND to_char(a.update_time, ${DATE_TIME}) = ${guard.expectedUpdateTime}
    RETURNING a.account_id::text AS "accountId", to_char(a.update_time, ${DATE_TIME}) AS "updateTime"
  `
  return maybeOne(
    Object.keys(set).length
      ? sql`UPDATE supplier_bank_account a SET ${sql(set)}, update_time = next_version(a.update_time) ${where}`
      : sql`UPDATE supplier_bank_account a SET update_time = next_version(a.update_time) ${where}`,
    Version,
  )
}

const DefaultRow = z.object({ accountId: z.string(), accountNoMask: z.string() })

/**
 * Unsets the supplier's current default (another account than `exceptAccountId`), moving its
 * version; returns it, or null when there was none.
 */
export function clearDefault(sql: Sql, supplierId: string, exceptAccountId: string) {
  return maybeOne(
    sql`
      UPDATE supplier_bank_account a SET is_default = 'NO', update_time = next_version(a.update_time)
      WHERE a.supplier_id = ${supplierId} AND a.deleted_at IS NULL AND a.is_default = 'YES'
        AND a.account_id <> ${exceptAccountId}
      RETURNING a.account_id::text AS "accountId", a.account_no_mask AS "accountNoMask"
    `,
    DefaultRow,
  )
}
