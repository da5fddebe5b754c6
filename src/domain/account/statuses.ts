import type { AccountStatus, StateMove } from '../../vocabulary'
import { fail } from '../../errors'

/**
 * Bank account statuses and the moves between them, as data. The spec names only ACTIVE (the
 * result of a normally finished local approval, rule 8); the rest is ours:
 *
 * - DRAFT: an initial account of an unsubmitted registration (replaced with the draft's form).
 * - PENDING: under approval (a submitted registration, or an ACCOUNT_CREATE not yet applied).
 * - ACTIVE: applied by an approval; the only status finance may pay into or make the default.
 * - APPLY_FAILED: its ACCOUNT_CREATE was approved but could not be applied (retryable).
 * - REJECTED: its ACCOUNT_CREATE was rejected, or withdrawn after a failed application; kept as
 *   evidence, holds nothing.
 *
 * A change (ACCOUNT_CHANGE) does not move the status: the account stays ACTIVE with its current
 * values until the approved candidate is applied.
 */
export const ACCOUNT_MOVES = [
  { from: 'DRAFT', trigger: 'REGISTRATION_SUBMITTED', to: 'PENDING' },
  { from: 'PENDING', trigger: 'REGISTRATION_RETURNED', to: 'DRAFT' },
  { from: 'PENDING', trigger: 'APPROVAL_APPLIED', to: 'ACTIVE' },
  { from: 'PENDING', trigger: 'APPLY_FAILED', to: 'APPLY_FAILED' },
  { from: 'PENDING', trigger: 'APPROVAL_REJECTED', to: 'REJECTED' },
  { from: 'APPLY_FAILED', trigger: 'APPROVAL_APPLIED', to: 'ACTIVE' },
  { from: 'APPLY_FAILED', trigger: 'APPROVAL_WITHDRAWN', to: 'REJECTED' },
] as const satisfies readonly StateMove<AccountStatus>[]

export type AccountTrigger = (typeof ACCOUNT_MOVES)[number]['trigger']

/** The status `trigger` leads to from `from`, or null when the table declares no such move. */
export function accountMove(from: AccountStatus, trigger: AccountTrigger): AccountStatus | null {
  return ACCOUNT_MOVES.find((m) => m.from === from && m.trigger === trigger)?.to ?? null
}

/** The status `trigger` leads to from `from`; an undeclared move is refused (395021). */
export function nextAccountStatus(from: AccountStatus, trigger: AccountTrigger): AccountStatus {
  const to = accountMove(from, trigger)
  if (!to) fail('OPERATION_NOT_ALLOWED_IN_STATUS', `a ${from} account cannot take ${trigger}`)
  return to
}

/**
 * Statuses in which an account holds its number: a second live account of the same supplier
 * with the same number is a repeat (C-19), and another supplier holding it raises the risk flag.
 */
export const HOLDS_NUMBER: readonly AccountStatus[] = ['DRAFT', 'PENDING', 'ACTIVE', 'APPLY_FAILED']

/** Only an ACTIVE account may be changed or become the default. */
export const CHANGEABLE: readonly AccountStatus[] = ['ACTIVE']

/**
 * Every live account of the supplier in `from` moves by `trigger`, to the status the table
 * declares: the registration moves its initial accounts with the supplier, in the statement of
 * the supplier's own move (`applyMove`'s `accounts`).
 */
export function accountsMove(from: AccountStatus, trigger: AccountTrigger) {
  return { from, to: nextAccountStatus(from, trigger) }
}
