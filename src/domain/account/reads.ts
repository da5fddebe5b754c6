import {
  AccountListRow,
  supplierAccount,
  supplierAccounts,
  type AccountDetailRow,
} from '../../../sql/account'
import { recordSensitiveReads } from '../../../sql/change-log-read'
import { findSupplier } from '../../../sql/supplier'
import { fail } from '../../errors'
import type { Deps } from '../deps'
import type { SupplierBankAccountVO } from '../../schemas/account'
import { holds, type Reader } from '../supplier/reads'

/** Besides supplier:view, what reveals an account's proof files in its detail. */
export const PROOF_PERMISSION = 'supplier:account:proof:read'

/** The fields every view of an account answers, in the VO's order. */
const VIEW_FIELDS = AccountListRow.keyof().options

/**
 * The one mapping from an account row to SupplierBankAccountVO: the view's fields, picked by
 * name so that nothing a query adds reaches a client unless the view names it; proofFileUrls
 * only when the caller may see them.
 */
export function toAccountVO(
  row: AccountListRow | AccountDetailRow,
  proofFileUrls?: string[],
): SupplierBankAccountVO {
  const view = Object.fromEntries(VIEW_FIELDS.map((field) => [field, row[field]])) as AccountListRow
  return proofFileUrls === undefined ? view : { ...view, proofFileUrls }
}

/** SUP-ADM-034 list: the live accounts of a live supplier, masked, never with proof files. */
export async function listSupplierAccounts(
  { sql }: Deps,
  supplierId: string,
): Promise<SupplierBankAccountVO[]> {
  if (!(await findSupplier(sql, supplierId))) fail('SUPPLIER_NOT_FOUND')
  return (await supplierAccounts(sql, supplierId)).map((row) => toAccountVO(row))
}

/**
 * SUP-ADM-034 detail. proofFileUrls only for a caller who also holds supplier:account:proof:read
 * (asked fail-closed); a read that reveals proof files is written to sensitive_read_audit first,
 * and fails if it cannot be.
 */
export async function getSupplierAccount(
  deps: Deps,
  supplierId: string,
  accountId: string,
  reader: Reader,
): Promise<SupplierBankAccountVO> {
  const { sql } = deps
  if (!(await findSupplier(sql, supplierId))) fail('SUPPLIER_NOT_FOUND')
  const [row, mayReadProof] = await Promise.all([
    supplierAccount(sql, supplierId, accountId),
    holds(deps, reader.adminId, PROOF_PERMISSION),
  ])
  if (!row) return fail('ACCOUNT_NOT_FOUND')
  if (!mayReadProof) return toAccountVO(row)
  if (row.proofFileUrls.length) {
    await recordSensitiveReads(sql, [
      {
        adminId: reader.adminId,
        subject: 'supplier_bank_account',
        subjectId: row.accountId,
        fieldName: 'proofFileUrls',
        requestId: reader.requestId,
      },
    ])
  }
  return toAccountVO(row, row.proofFileUrls)
}
