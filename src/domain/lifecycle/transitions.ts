import type {
  MOVE_BIZ_TYPES,
  MOVE_COMMANDS,
  MOVE_GUARDS,
  StateMove,
  SupplierStatus,
} from '../../vocabulary'
import { fail } from '../../errors'

/**
 * What must hold for a move, checked in the transaction that makes it:
 * - REGISTRATION_RULES: C-02, C-06, C-09, and C-19 for each initial account;
 * - QUALIFICATIONS_VALID: every type's required qualifications held and not expired (the same
 *   computation as the detail's `compliance`); "verification done" of unfreeze is this check too;
 * - FINANCE_CLEARED: the finance clearance port confirmed everything settled (its answer is the
 *   evidence the caller hands over);
 * - NONE: the status command itself (permission, reason, version) is the condition.
 * The table only names them; `GUARDS` (./guards.ts) checks them, so the table is plain data.
 */
export type Guard = (typeof MOVE_GUARDS)[number]

/** The approval a move goes through, if any: business type, subType and level count. */
export interface MoveApproval {
  bizType: (typeof MOVE_BIZ_TYPES)[number]
  subType: string | null
  levels: number
}

/** Who may ask for a move: a registration verb, the common applier, a status command, archive. */
export type MoveCommand = (typeof MOVE_COMMANDS)[number]

/**
 * The state machine of the spec ("States and transitions"), one row per declared move. Nothing
 * else decides a status: a move missing here is SUPPLIER_STATUS_TRANSITION_INVALID (395005).
 * There are no self-loops, and nothing leaves ARCHIVED. Each (from, to) pair appears once.
 */
export const TRANSITIONS = [
  {
    from: 'DRAFT',
    trigger: 'SUBMIT_REGISTRATION',
    to: 'VETTING',
    command: 'REGISTRATION',
    guard: 'REGISTRATION_RULES',
    approval: { bizType: 'PROFILE_CREATE', subType: null, levels: 4 },
  },
  {
    from: 'VETTING',
    trigger: 'REGISTRATION_APPROVED',
    to: 'ACTIVE',
    command: 'APPLIER',
    guard: 'REGISTRATION_RULES',
    approval: null,
  },
  {
    from: 'VETTING',
    trigger: 'REGISTRATION_REJECTED',
    to: 'DRAFT',
    command: 'APPLIER',
    guard: 'NONE',
    approval: null,
  },
  {
    from: 'ACTIVE',
    trigger: 'SUSPEND',
    to: 'SUSPENDED',
    command: 'STATUS',
    guard: 'NONE',
    approval: { bizType: 'STATUS_CHANGE', subType: 'STATUS_SUSPEND', levels: 1 },
  },
  {
    from: 'ACTIVE',
    trigger: 'FREEZE',
    to: 'FROZEN',
    command: 'STATUS',
    guard: 'NONE',
    approval: { bizType: 'STATUS_CHANGE', subType: 'STATUS_FREEZE', levels: 1 },
  },
  {
    from: 'ACTIVE',
    trigger: 'BLACKLIST',
    to: 'BLACKLIST',
    command: 'STATUS',
    guard: 'NONE',
    approval: { bizType: 'STATUS_CHANGE', subType: 'STATUS_BLACKLIST', levels: 1 },
  },
  {
    from: 'SUSPENDED',
    trigger: 'RESUME',
    to: 'ACTIVE',
    command: 'STATUS',
    guard: 'QUALIFICATIONS_VALID',
    approval: { bizType: 'STATUS_CHANGE', subType: 'STATUS_RESUME', levels: 1 },
  },
  {
    from: 'SUSPENDED',
    trigger: 'BLACKLIST',
    to: 'BLACKLIST',
    command: 'STATUS',
    guard: 'NONE',
    approval: { bizType: 'STATUS_CHANGE', subType: 'STATUS_BLACKLIST', levels: 1 },
  },
  {
    from: 'SUSPENDED',
    trigger: 'ARCHIVE',
    to: 'ARCHIVED',
    command: 'ARCHIVE',
    guard: 'FINANCE_CLEARED',
    approval: null,
  },
  {
    from: 'FROZEN',
    trigger: 'UNFREEZE',
    to: 'ACTIVE',
    command: 'STATUS',
    guard: 'QUALIFICATIONS_VALID',
    approval: { bizType: 'STATUS_CHANGE', subType: 'STATUS_UNFREEZE', levels: 1 },
  },
  {
    from: 'FROZEN',
    trigger: 'BLACKLIST',
    to: 'BLACKLIST',
    command: 'STATUS',
    guard: 'NONE',
    approval: { bizType: 'STATUS_CHANGE', subType: 'STATUS_BLACKLIST', levels: 1 },
  },
  {
    from: 'BLACKLIST',
    trigger: 'UNBLACKLIST',
    to: 'SUSPENDED',
    command: 'STATUS',
    guard: 'NONE',
    approval: { bizType: 'STATUS_CHANGE', subType: 'STATUS_UNBLACKLIST', levels: 2 },
  },
  {
    from: 'BLACKLIST',
    trigger: 'ARCHIVE',
    to: 'ARCHIVED',
    command: 'ARCHIVE',
    guard: 'FINANCE_CLEARED',
    approval: null,
  },
] as const satisfies readonly (StateMove<SupplierStatus> & {
  command: MoveCommand
  guard: Guard
  approval: MoveApproval | null
})[]

export type Move = (typeof TRANSITIONS)[number]
export type Trigger = Move['trigger']

/** The declared move from `from` by `trigger`, or 395005. */
export function moveBy(from: SupplierStatus, trigger: Trigger): Move {
  const move = TRANSITIONS.find((t) => t.from === from && t.trigger === trigger)
  if (!move) fail('SUPPLIER_STATUS_TRANSITION_INVALID', `${trigger} is not allowed from ${from}`)
  return move
}

/**
 * The declared move from `from` to `to` that `command` may ask for, or 395005 (the server narrows
 * the legal targets by the current status).
 */
export function moveTo(from: SupplierStatus, to: SupplierStatus, command: MoveCommand): Move {
  const move = TRANSITIONS.find((t) => t.from === from && t.to === to && t.command === command)
  if (!move) {
    const legal = targetsOf(from, command)
    fail(
      'SUPPLIER_STATUS_TRANSITION_INVALID',
      `${from} → ${to} is not a declared move${legal.length ? ` (from ${from}: ${legal.join(', ')})` : ''}`,
    )
  }
  return move
}

/** The statuses `command` may move a supplier to from `from`. */
export const targetsOf = (from: SupplierStatus, command: MoveCommand): SupplierStatus[] =>
  TRANSITIONS.filter((t) => t.from === from && t.command === command).map((t) => t.to)

/** The approval of the move to `to` by `command` from `from` (for STATUS_CHANGE: subType, levels). */
export function approvalOf(move: Move): MoveApproval {
  if (!move.approval) throw new Error(`${move.from} → ${move.to} goes through no approval`)
  return move.approval
}
