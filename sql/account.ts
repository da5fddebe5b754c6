import type postgres from 'postgres'
import { z } from 'zod'
import {
  columnOf,
  formatDateTime,
  many,
  maybeOne,
  none,
  one,
  selectFields,
  type Sql,
  DATE_TIME,
} from './db'
import {
  ACCOUNT_STATUSES,
  type AccountStatus,
  type AccountType,
  type RiskFlagCode,
} from '../src/vocabulary'
import { AccountTerms } from '../src/schemas/account-terms'
import { SupplierAccountInfoVO, SupplierBankAccountVO } from '../src/schemas/account'

/*
 * The bank-account aggregate: every statement on supplier_bank_account, for the accounts after
 * registration (SUP-ADM-034/035/036/041) and the initial accounts of a registration alike. Reads
 * select masks only: no `account_no_enc` leaves a read query, no `account_no_bidx` leaves one
 * that a response is built from, and proof file URLs only leave the single-account query. Every
 * table a query touches is filtered on deleted_at.
 *
 * The account's terms are declared once (src/schemas/account-terms.ts): the row parsers take
 * them from there, and the statements select and write each field in the column named after it
 * (`columnOf`), so a term added there is read and written here without another edit.
 */

/** An account as every view shows it (SupplierBankAccountVO): masked, no proof files. */
export const AccountListRow = SupplierBankAccountVO.omit({ proofFileUrls: true })
export type AccountListRow = z.output<typeof AccountListRow>

/** One account with its proof files (the caller decides whether they may be shown). */
export const AccountDetailRow = AccountListRow.extend({
  proofFileUrls: AccountTerms.shape.proofFileUrls,
})
export type AccountDetailRow = z.output<typeof AccountDetailRow>

/** What a write compares and guards on: the terms, the blind index, status, default, version. */
export const AccountWriteRow = AccountDetailRow.omit({ accountName: true }).extend({
  supplierId: z.string(),
  accountNoBidx: z.string(),
})
export type AccountWriteRow = z.output<typeof AccountWriteRow>

/** The fields not read as their column is stored: ids as text, the rate as a number, the version. */
const readAs = (sql: Sql) => ({
  accountId: sql`a.account_id::text`,
  supplierId: sql`a.supplier_id::text`,
  taxRate: sql`a.tax_rate::float8`,
  updateTime: sql`to_char(a.update_time, ${DATE_TIME})`,
})

/** accountName is derived from the supplier's full name (the spec), so it is read from there. */
const viewColumns = (sql: Sql, row: typeof AccountListRow | typeof AccountDetailRow) =>
  selectFields(sql, 'a', row, { ...readAs(sql), accountName: sql`s.full_name` })

const writeColumns = (sql: Sql) => selectFields(sql, 'a', AccountWriteRow, readAs(sql))

/** The live accounts of a live supplier, the default first, then by id. */
export function supplierAccounts(sql: Sql, supplierId: string) {
  return many(
    sql`
      SELECT ${viewColumns(sql, AccountListRow)}
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
      SELECT ${viewColumns(sql, AccountDetailRow)}
      FROM supplier_bank_account a
      JOIN supplier s ON s.supplier_id = a.supplier_id AND s.deleted_at IS NULL
      WHERE a.supplier_id = ${supplierId} AND a.account_id = ${accountId} AND a.deleted_at IS NULL
    `,
    AccountDetailRow,
  )
}

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

/** An account's terms as stored: the number as ciphertext, blind index and mask. */
export type StoredTerms = Omit<AccountTerms, 'accountNo'> & {
  accountNoEnc: string
  accountNoBidx: string
  accountNoMask: string
}

/** What a write may set on an account: terms, its risk flags, status and default. */
export type AccountChange = Partial<
  StoredTerms & { riskFlags: RiskFlagCode[]; status: AccountStatus; isDefault: 'YES' | 'NO' }
>

/** A new account: its name (the subject's full name), its type and its terms. */
export type NewAccount = StoredTerms & { accountName: string; accountType: AccountType }

/** The columns of the fields, for `sql(columns)` after SET or INSERT INTO; JSON ones as jsonb. */
const columnsOf = (sql: Sql, fields: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(fields).map(([field, value]) => [
      columnOf(field),
      field === 'proofFileUrls' || field === 'riskFlags'
        ? sql.json(value as postgres.JSONValue)
        : value,
    ]),
  )

/**
 * The guarded write of an account: only while it is live and still as the caller read it
 * (`seen`: its status and version); null on a compare-and-set miss. With no change it only moves
 * the version (a change submitted for approval claims the account's version this way).
 */
export function updateAccount(
  sql: Sql,
  seen: Pick<AccountWriteRow, 'accountId' | 'status' | 'updateTime'>,
  change: AccountChange = {},
) {
  const set = columnsOf(sql, change)
  // The column helper must follow SET directly (postgres.js reads the keyword before it).
  const where = sql`
    WHERE a.account_id = ${seen.accountId} AND a.deleted_at IS NULL AND a.status = ${seen.status}
      AND to_char(a.update_time, ${DATE_TIME}) = ${seen.updateTime}
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

// New accounts, and the initial accounts of a registration -------------------------------------

/** An account as the registration steps and the lifecycle guards see it. */
export const AccountRow = z.object({
  accountId: z.string(),
  accountNoBidx: z.string(),
  accountNoMask: z.string(),
  status: z.enum(ACCOUNT_STATUSES),
  isDefault: AccountListRow.shape.isDefault,
})
export type AccountRow = z.output<typeof AccountRow>

/** This supplier's live accounts (in `status` if given), by id. */
export function liveAccounts(sql: Sql, supplierId: string, status?: AccountStatus) {
  return many(
    sql`
      SELECT a.account_id::text AS "accountId", a.account_no_bidx AS "accountNoBidx",
             a.account_no_mask AS "accountNoMask", a.status, a.is_default AS "isDefault"
      FROM supplier_bank_account a
      WHERE a.supplier_id = ${supplierId} AND a.deleted_at IS NULL
        ${status ? sql`AND a.status = ${status}` : sql``}
      ORDER BY a.account_id
    `,
    AccountRow,
  )
}

const InsertedAccount = z.object({
  accountId: z.string(),
  accountNoMask: z.string(),
  status: z.enum(ACCOUNT_STATUSES),
})

/** A new account in `status`; `riskFlags` are the codes its values raise (none at registration). */
export function insertAccount(
  sql: Sql,
  {
    supplierId,
    account,
    status,
    adminId,
    riskFlags = [],
  }: {
    supplierId: string
    account: NewAccount
    status: AccountStatus
    adminId: string
    riskFlags?: readonly RiskFlagCode[]
  },
) {
  const row = { supplierId, ...account, status, createdBy: adminId, riskFlags: [...riskFlags] }
  return one(
    sql`
      INSERT INTO supplier_bank_account ${sql(columnsOf(sql, row))}
      RETURNING account_id::text AS "accountId", account_no_mask AS "accountNoMask", status
    `,
    InsertedAccount,
  )
}

/** The draft's initial accounts, which a resubmitted form may repeat. */
export function draftAccounts(sql: Sql, supplierId: string) {
  return many(
    sql`
      SELECT ${writeColumns(sql)} FROM supplier_bank_account a
      WHERE a.supplier_id = ${supplierId} AND a.deleted_at IS NULL AND a.status = 'DRAFT'
      ORDER BY a.account_id
    `,
    AccountWriteRow,
  )
}

/** Accounts not yet approved carry the subject's current full name (the spec derives it). */
export function renameUnapprovedAccounts(sql: Sql, supplierId: string, accountName: string) {
  return none(sql`
    UPDATE supplier_bank_account SET account_name = ${accountName}, update_time = next_version(update_time)
    WHERE supplier_id = ${supplierId} AND deleted_at IS NULL AND status IN ('DRAFT', 'PENDING')
      AND account_name <> ${accountName}
  `)
}

/** A draft's initial accounts that a new form replaces (soft-deleted, as child rows are). */
export function softDeleteAccounts(sql: Sql, supplierId: string, ids: string[]) {
  if (ids.length === 0) return Promise.resolve(0)
  return none(sql`
    UPDATE supplier_bank_account SET deleted_at = now(), update_time = now()
    WHERE supplier_id = ${supplierId} AND deleted_at IS NULL AND account_id = ANY(${ids}::bigint[])
  `)
}

/** The accounts of a draft deleted with it (`softDeleteDraft`, sql/supplier.ts). */
export function softDeleteDraftAccounts(sql: Sql, supplierId: string) {
  return none(
    sql`UPDATE supplier_bank_account SET deleted_at = now() WHERE supplier_id = ${supplierId} AND deleted_at IS NULL`,
  )
}

// C-19 at registration, and the supplier reads (SUP-ADM-001, SUP-ADM-002) ----------------------

/** The number of a supplier's live ACTIVE accounts (a column of the supplier list). */
export const activeAccountCount = (sql: Sql, supplierId: postgres.Fragment) => sql`
  (SELECT count(*)::int FROM supplier_bank_account a
   WHERE a.supplier_id = ${supplierId} AND a.status = 'ACTIVE' AND a.deleted_at IS NULL)
`

/**
 * The live bank accounts of one live supplier (masked; no proof files), default first then by
 * account id, with the supplier's version. Null when the supplier is missing or soft-deleted.
 * Each account's name is the one it holds (the list of SUP-ADM-034 reads the supplier's current
 * full name instead), and times are rendered in `timezone` (the edge serves this read).
 */
export function supplierAccountInfo(sql: Sql, supplierId: string, timezone: string) {
  const account = selectFields(sql, 'a', AccountListRow, {
    ...readAs(sql),
    updateTime: formatDateTime(sql, sql`a.update_time`, timezone),
  })
  return maybeOne(
    sql`
      SELECT s.supplier_id::text AS "supplierId",
             COALESCE((
               SELECT json_agg(v ORDER BY (a.is_default = 'YES') DESC, a.account_id)
               FROM supplier_bank_account a CROSS JOIN LATERAL (SELECT ${account}) v
               WHERE a.supplier_id = s.supplier_id AND a.deleted_at IS NULL
             ), '[]'::json) AS "bankAccounts",
             ${formatDateTime(sql, sql`s.update_time`, timezone)} AS "updateTime"
      FROM supplier s
      WHERE s.supplier_id = ${supplierId} AND s.deleted_at IS NULL
    `,
    SupplierAccountInfoVO,
  )
}
