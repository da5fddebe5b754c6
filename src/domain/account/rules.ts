import type { z } from 'zod'
import { numberHolders, type AccountWriteRow, type NumberHolderRow } from '../../../sql/account'
import { type RiskFlagCode } from '../../vocabulary'
import type { Sql } from '../../../sql/db'
import { fail } from '../../errors'
import type { BankAccountInput } from '../../schemas/supplier'
import type { Candidate, RiskFlag } from './snapshot'
import type { Config } from '../../config'
import { normalizeAccountNo, normalizeName } from '../../identity'
import { checkStorageUrls } from '../write/fields'
import { HOLDS_NUMBER } from './statuses'
import { AccountTerms, type SettlementTerms } from '../../schemas/account-terms'

/*
 * The account rules shared by batch create, change and their approval handlers: the same
 * checks as registration (C-03, settlement terms, storage URLs; C-19 against the database), and
 * the fraud signal. Nothing here writes.
 */

/** Field rules of new accounts (SUP-ADM-035): C-03, no number twice, terms, proof URLs. */
export function checkNewAccounts(
  config: Config,
  accounts: z.output<typeof BankAccountInput>[],
  path = 'accounts',
) {
  checkAccounts(accounts, path)
  checkStorageUrls(
    config,
    accounts.flatMap((a, i) =>
      (a.proofFileUrls ?? []).map((u, j): [string, string] => [
        `${path}.${i}.proofFileUrls.${j}`,
        u,
      ]),
    ),
  )
}

/**
 * The one check of a candidate on the account it would change, by the change command (before
 * and under the lock) and by the approval handlers (on what they apply): C-03 for a new number,
 * the settlement terms as they would be (the candidate over the account's), proof URLs. Returns
 * the number the account would hold (`accountNoBidx`, the candidate's, or null for the
 * account's own), which C-19 and the fraud signal then screen (`screenNumbers`).
 */
export function checkCandidate(
  config: Config,
  {
    account,
    candidate,
    accountNoBidx,
  }: { account: AccountWriteRow; candidate: Candidate; accountNoBidx: string | null },
): NumberToScreen {
  if (candidate.accountNo !== undefined) checkAccountNo(candidate.accountNo, 'candidate')
  checkSettlementTerms({ ...account, ...candidate }, 'candidate')
  checkStorageUrls(
    config,
    (candidate.proofFileUrls ?? []).map((u, j): [string, string] => [`proofFileUrls.${j}`, u]),
  )
  return {
    accountNoBidx: accountNoBidx ?? account.accountNoBidx,
    accountType: account.accountType,
    at: 'candidate',
    accountId: account.accountId,
  }
}

const comparableName = (s: string | null | undefined) => (s ? normalizeName(s).toLowerCase() : '')

/**
 * Whose name a PERSONAL account is paid to: the spec derives accountName from the supplier's
 * full name, and clients cannot send a holder, so the holder is the full name. It matches the
 * legal representative only when the supplier is registered under that person's own name (an
 * individual business); a company paid into a person's account is what finance must look at.
 */
export function personalHolderMismatch(
  accountType: string,
  supplier: { fullName: string; legalRepresentative: string | null },
) {
  if (accountType !== 'PERSONAL') return false
  const representative = comparableName(supplier.legalRepresentative)
  return representative === '' || representative !== comparableName(supplier.fullName)
}

/** The supplier whose numbers are screened, with the names a PERSONAL account is paid to. */
export interface ScreenedSupplier {
  supplierId: string
  fullName: string
  legalRepresentative: string | null
}

/** One account number to screen: its blind index, where it sits in the request, its type. */
export interface NumberToScreen {
  accountNoBidx: string
  accountType: string
  /** Field path for messages (`accounts.3`, `candidate`). */
  at: string
  /** The account being changed: its own row does not count as a repeat. */
  accountId?: string
}

/** The distinct numbers of the items: their holders are looked up once each. */
export const numbersOf = (items: NumberToScreen[]) => [
  ...new Set(items.map((i) => i.accountNoBidx)),
]

/**
 * C-19 and the fraud signal, from the live holders of the items' numbers (`screenAgainstHolders`
 * looks them up):
 * - refused (ACCOUNT_DUPLICATED) when the number is a valid (ACTIVE) account of another
 *   supplier, or held by another live account of this supplier (a repeat);
 * - flagged ACCOUNT_NO_HELD_ELSEWHERE when another live supplier holds it in any other holding
 *   status (a draft or a pending approval); flagged PERSONAL_HOLDER_MISMATCH as above.
 * Returns the flags of each item, in order.
 */
export function screenNumbers(
  holders: NumberHolderRow[],
  supplier: ScreenedSupplier,
  items: NumberToScreen[],
): RiskFlag[][] {
  const byNumber = new Map<string, NumberHolderRow[]>()
  for (const h of holders)
    byNumber.set(h.accountNoBidx, [...(byNumber.get(h.accountNoBidx) ?? []), h])
  return items.map((item) => {
    const held = (byNumber.get(item.accountNoBidx) ?? []).filter(
      (h) => h.accountId !== item.accountId,
    )
    const elsewhere = held.filter((h) => h.supplierId !== supplier.supplierId)
    if (elsewhere.some((h) => h.status === 'ACTIVE')) {
      fail('ACCOUNT_DUPLICATED', `${item.at}.accountNo: a valid account of another supplier (C-19)`)
    }
    if (held.some((h) => h.supplierId === supplier.supplierId)) {
      fail('ACCOUNT_DUPLICATED', `${item.at}.accountNo: this supplier already holds it (C-19)`)
    }
    const flags: RiskFlag[] = []
    if (elsewhere.length) {
      flags.push({
        code: 'ACCOUNT_NO_HELD_ELSEWHERE',
        supplierIds: [...new Set(elsewhere.map((h) => h.supplierId))],
      })
    }
    if (personalHolderMismatch(item.accountType, supplier)) {
      flags.push({ code: 'PERSONAL_HOLDER_MISMATCH' })
    }
    return flags
  })
}

/**
 * `screenNumbers` against the numbers' holders as the database has them now: every live account
 * in a holding status (HOLDS_NUMBER), looked up once for all the items.
 */
export async function screenAgainstHolders(
  sql: Sql,
  supplier: ScreenedSupplier,
  items: NumberToScreen[],
): Promise<RiskFlag[][]> {
  return screenNumbers(await numberHolders(sql, numbersOf(items), HOLDS_NUMBER), supplier, items)
}

/** The codes an account row keeps (the approval keeps the full flags). */
export const flagCodes = (flags: RiskFlag[]): RiskFlagCode[] => flags.map((f) => f.code)

/** C-03 (number well formed), settlement terms, and no number twice in one request. */
export function checkAccounts(accounts: z.output<typeof BankAccountInput>[], path: string) {
  const seen = new Set<string>()
  accounts.forEach((a, i) => {
    const at = `${path}.${i}`
    const number = checkAccountNo(a.accountNo, at)
    if (seen.has(number))
      fail('ACCOUNT_DUPLICATED', `${at}.accountNo: repeated in this request (C-19)`)
    seen.add(number)
    checkSettlementTerms(a, at)
  })
}

/** C-03: the normalized account number (6..32 digits), or ACCOUNT_NO_INVALID naming `at`. */
export function checkAccountNo(accountNo: string, at: string): string {
  const number = normalizeAccountNo(accountNo)
  if (!AccountTerms.shape.accountNo.safeParse(number).success) {
    fail(
      'ACCOUNT_NO_INVALID',
      `${at}.accountNo: 6..32 digits after removing spaces and hyphens (C-03)`,
    )
  }
  return number
}

/** Settlement terms of one account as they will be stored (a new one, or a change merged). */
export function checkSettlementTerms(a: Partial<SettlementTerms>, at: string) {
  if (a.accountPeriod != null && a.settleMode !== 'MONTHLY') {
    fail('SETTLEMENT_TERMS_INVALID', `${at}.accountPeriod: allowed only when settleMode is MONTHLY`)
  }
  if ((a.invoiceType === 'SPECIAL' || a.invoiceType === 'NORMAL') && a.taxRate == null) {
    fail('SETTLEMENT_TERMS_INVALID', `${at}.taxRate: required when invoiceType is ${a.invoiceType}`)
  }
  if (a.invoiceType === 'NONE' && a.taxRate != null) {
    fail('SETTLEMENT_TERMS_INVALID', `${at}.taxRate: must be empty when invoiceType is NONE`)
  }
}
