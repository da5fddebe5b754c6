import { fail, type ErrorName } from '../../errors'
import { TRANSITIONS, type MoveCommand } from './transitions'
import type { SupplierStatus } from '../../vocabulary'

/*
 * What may be done to a supplier in each lifecycle status (spec, "States and transitions",
 * rules 4 and 5), as data. Every write route asks `assertAllowed(status, operation)` before its
 * lock and again on the row it re-read under the lock; no route keeps a status list of its own.
 *
 * Rule 4 (allowed): DRAFT edits everything including initial accounts and may be deleted; VETTING
 * updates non-identifying data only; ACTIVE maintains contacts, types, qualifications and
 * post-registration accounts; SUSPENDED and FROZEN allow viewing and remediation (profile,
 * contacts, qualifications, bank accounts) with the status unchanged.
 * Rule 5 (prohibited): DRAFT gets no business selection and no post-registration account
 * approval; SUSPENDED, FROZEN and BLACKLIST get no new business selection and cannot be deleted;
 * BLACKLIST gets no new resource relation; ACTIVE cannot be deleted; ARCHIVED is read-only.
 * Moves between statuses (submit, status commands, archive) are the transition table's: their
 * entries here are derived from it, and their refusal is its 395005.
 */

/** An operation on one supplier, in the words of rules 4 and 5. */
export type Operation =
  /** Non-identifying subject fields, contacts, qualifications, contracts, evaluations. */
  | 'PROFILE_EDIT'
  /** fullName and taxNo (after submission only their original values may be sent). */
  | 'IDENTITY_EDIT'
  /** The type set (frozen while the registration is vetted). */
  | 'TYPES_EDIT'
  /** The registration's 0..N initial accounts. */
  | 'INITIAL_ACCOUNTS_EDIT'
  /** Soft deletion. */
  | 'DELETE'
  /** Post-registration bank account approvals and the default account. */
  | 'ACCOUNT_CREATE'
  | 'ACCOUNT_CHANGE'
  | 'ACCOUNT_DEFAULT'
  /** A new (or rebound) supplier-resource relation: being chosen for business. */
  | 'NEW_RELATION'
  /** Moves of the transition table. */
  | 'SUBMIT'
  | 'STATUS_CHANGE'
  | 'ARCHIVE'

/** Statuses that may be maintained: everything but BLACKLIST and ARCHIVED. */
const MAINTAINABLE = ['DRAFT', 'VETTING', 'ACTIVE', 'SUSPENDED', 'FROZEN'] as const
/**
 * Registered suppliers whose data may be maintained: ACTIVE, and SUSPENDED or FROZEN as
 * remediation. Post-registration accounts are maintained here (each create and change still
 * goes through an approval, and no payment is made while SUSPENDED or FROZEN anyway).
 */
const REMEDIABLE = ['ACTIVE', 'SUSPENDED', 'FROZEN'] as const

/** From which statuses `command` has a declared move. */
const movableBy = (command: MoveCommand): SupplierStatus[] => [
  ...new Set(TRANSITIONS.filter((t) => t.command === command).map((t) => t.from)),
]

/**
 * Per operation: the statuses that allow it, and the catalog error that refuses it elsewhere.
 * Field-level refusals are 395009, whole operations 395021, relations 395024 (the supplier is
 * not eligible), moves 395005.
 */
export const POLICY = {
  PROFILE_EDIT: { allowedIn: MAINTAINABLE, refusal: 'OPERATION_NOT_ALLOWED_IN_STATUS' },
  IDENTITY_EDIT: { allowedIn: ['DRAFT'], refusal: 'FIELD_NOT_EDITABLE' },
  TYPES_EDIT: {
    allowedIn: ['DRAFT', 'ACTIVE', 'SUSPENDED', 'FROZEN'],
    refusal: 'FIELD_NOT_EDITABLE',
  },
  INITIAL_ACCOUNTS_EDIT: { allowedIn: ['DRAFT'], refusal: 'FIELD_NOT_EDITABLE' },
  DELETE: { allowedIn: ['DRAFT'], refusal: 'OPERATION_NOT_ALLOWED_IN_STATUS' },
  ACCOUNT_CREATE: { allowedIn: REMEDIABLE, refusal: 'OPERATION_NOT_ALLOWED_IN_STATUS' },
  ACCOUNT_CHANGE: { allowedIn: REMEDIABLE, refusal: 'OPERATION_NOT_ALLOWED_IN_STATUS' },
  ACCOUNT_DEFAULT: { allowedIn: REMEDIABLE, refusal: 'OPERATION_NOT_ALLOWED_IN_STATUS' },
  NEW_RELATION: { allowedIn: ['ACTIVE'], refusal: 'SUPPLIER_NOT_ELIGIBLE' },
  SUBMIT: { allowedIn: movableBy('REGISTRATION'), refusal: 'SUPPLIER_STATUS_TRANSITION_INVALID' },
  STATUS_CHANGE: { allowedIn: movableBy('STATUS'), refusal: 'SUPPLIER_STATUS_TRANSITION_INVALID' },
  ARCHIVE: { allowedIn: movableBy('ARCHIVE'), refusal: 'SUPPLIER_STATUS_TRANSITION_INVALID' },
} as const satisfies Record<Operation, { allowedIn: readonly SupplierStatus[]; refusal: ErrorName }>

/** Whether `operation` is allowed on a supplier in `status`. */
export function isAllowed(status: SupplierStatus, operation: Operation): boolean {
  return (POLICY[operation].allowedIn as readonly SupplierStatus[]).includes(status)
}

/** Refuses `operation` in `status` with the operation's catalog error; `what` names it for people. */
export function assertAllowed(status: SupplierStatus, operation: Operation, what?: string): void {
  if (isAllowed(status, operation)) return
  const allowed = POLICY[operation].allowedIn
  fail(
    POLICY[operation].refusal,
    `${what ?? operation} is not allowed for a ${status} supplier` +
      (allowed.length ? ` (only ${allowed.join(', ')})` : ''),
  )
}

/**
 * The operations a supplier in `status` allows. Screens read the detail's `allowedActions`
 * (./actions.ts), which adds the caller's permissions to this.
 */
export const allowedOperations = (status: SupplierStatus): Operation[] =>
  (Object.keys(POLICY) as Operation[]).filter((op) => isAllowed(status, op))
