import { SUPPLIER_STATUSES, updateSupplier, type SupplierColumns } from '../../../sql/supplier'
import type { Sql } from '../../../sql/db'
import { fail } from '../../errors'
import type { DomainDeps } from '../context'
import { assertQualificationsValid } from '../supplier/compliance'
import { checkRegistration } from '../supplier/registration-rules'

export type SupplierStatus = (typeof SUPPLIER_STATUSES)[number]
export { SUPPLIER_STATUSES }

/**
 * What must hold for a move, checked in the transaction that makes it:
 * - REGISTRATION_RULES: C-02, C-06, C-09, and C-19 for each initial account;
 * - QUALIFICATIONS_VALID: every type's required qualifications held and not expired (the same
 *   computation as the detail's `compliance`); "verification done" of unfreeze is this check too;
 * - FINANCE_CLEARED: the finance clearance port confirmed everything settled (its answer is the
 *   evidence the caller hands over);
 * - NONE: the status command itself (permission, reason, version) is the condition.
 */
export type Guard = 'NONE' | 'REGISTRATION_RULES' | 'QUALIFICATIONS_VALID' | 'FINANCE_CLEARED'

/** The approval a move goes through, if any: business type, subType and level count. */
export interface MoveApproval {
  bizType: 'PROFILE_CREATE' | 'STATUS_CHANGE'
  subType: string | null
  levels: number
}

/** Who may ask for a move: a registration verb, the common applier, a status command, archive. */
export type MoveCommand = 'REGISTRATION' | 'APPLIER' | 'STATUS' | 'ARCHIVE'

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
] as const satisfies readonly {
  from: SupplierStatus
  trigger: string
  to: SupplierStatus
  command: MoveCommand
  guard: Guard
  approval: MoveApproval | null
}[]

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

/** What a guard may need beyond the database: the finance clearance port's answer. */
export interface GuardEvidence {
  clearance?: { cleared: true }
}

type GuardDeps = Pick<DomainDeps, 'config'>

/** Checks the guard of `move` on the supplier as it is inside the caller's transaction. */
export async function checkGuard(
  tx: Sql,
  deps: GuardDeps,
  move: Move,
  supplierId: string,
  evidence: GuardEvidence = {},
) {
  switch (move.guard) {
    case 'NONE':
      return
    case 'REGISTRATION_RULES':
      return checkRegistration(tx, deps, supplierId)
    case 'QUALIFICATIONS_VALID':
      return assertQualificationsValid(tx, supplierId)
    case 'FINANCE_CLEARED':
      if (evidence.clearance?.cleared !== true) {
        fail('ARCHIVE_CLEARANCE_UNAVAILABLE', 'finance clearance has not confirmed the archive')
      }
      return
  }
}

/**
 * The supplier a move is applied to. `expectedUpdateTime` is the version the move is guarded by:
 * for a command, the one the client sent, so a change since the client read the row makes the
 * UPDATE miss.
 */
export interface MoveSubject {
  supplierId: string
  status: SupplierStatus
  expectedUpdateTime: string
}

/**
 * Applies `move` with the one guarded UPDATE (`WHERE id AND status = from AND update_time =
 * expected AND deleted_at IS NULL`); a miss is a concurrent change, 395014. The guard is then
 * checked on the row as written, in the same transaction (the registration rules must see the
 * form the same UPDATE writes), so a failed guard rolls the move back with everything else.
 */
export async function applyMove(
  tx: Sql,
  deps: GuardDeps,
  supplier: MoveSubject,
  move: Move,
  options: {
    adminId: string
    columns?: SupplierColumns & { supplier_no?: string | null }
    evidence?: GuardEvidence
  },
) {
  if (move.from !== supplier.status) {
    fail(
      'SUPPLIER_STATUS_TRANSITION_INVALID',
      `${move.trigger} is not allowed from ${supplier.status}`,
    )
  }
  const row = await updateSupplier(
    tx,
    {
      supplierId: supplier.supplierId,
      status: move.from,
      expectedUpdateTime: supplier.expectedUpdateTime,
      adminId: options.adminId,
    },
    { ...options.columns, status: move.to },
  )
  if (!row) fail('CONCURRENT_MODIFICATION')
  await checkGuard(tx, deps, move, supplier.supplierId, options.evidence)
  return { from: move.from, to: move.to, updateTime: row.updateTime }
}

/** `applyMove` of the move declared from the supplier's status by `trigger` (else 395005). */
export function moveStatus(
  tx: Sql,
  deps: GuardDeps,
  supplier: MoveSubject,
  trigger: Trigger,
  options: Parameters<typeof applyMove>[4],
) {
  return applyMove(tx, deps, supplier, moveBy(supplier.status, trigger), options)
}

/**
 * A command's claim on the supplier before its approval decides: the same guarded UPDATE with
 * the client's version, changing nothing but the version (and who wrote). Two commands sent on
 * the same version cannot both pass it, so at most one approval is opened per version.
 */
export async function claimVersion(
  tx: Sql,
  supplier: MoveSubject,
  adminId: string,
): Promise<string> {
  const row = await updateSupplier(
    tx,
    {
      supplierId: supplier.supplierId,
      status: supplier.status,
      expectedUpdateTime: supplier.expectedUpdateTime,
      adminId,
    },
    {},
  )
  if (!row) fail('CONCURRENT_MODIFICATION')
  return row.updateTime
}
