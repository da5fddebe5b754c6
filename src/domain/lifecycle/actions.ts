import { z } from 'zod'
import { SUPPLIER_STATUSES, type SupplierStatus } from '../../vocabulary'
import { isAllowed, type Operation } from './policy'
import { targetsOf, TRANSITIONS } from './transitions'

/*
 * What a caller may do with one supplier now, for drawing buttons (the detail's `allowedActions`),
 * and the transition table as clients and auditors read it. Both are views of the tables the
 * commands run on, never a copy: a command on one supplier is authorized by the permissions
 * below (its route declares them from here) and asks the in-state policy for its operation
 * (`assertAllowed`, through `supplierForWrite` and friends); the status command then narrows the
 * targets by the transition table. `allowedActions` asks the same two functions with the
 * caller's permission codes. It is advice: every command keeps all its checks.
 */

/**
 * The commands on one supplier, by operationId: the permissions their route requires and the
 * in-state policy operation their status check asks (null: no status check).
 * - unbindResourceRelation removes a relation of a supplier in any status: it checks the
 *   relation, not the supplier.
 */
export const SUPPLIER_COMMANDS = {
  updateSupplier: { permissions: ['supplier:update'], operation: 'PROFILE_EDIT' },
  replaceSupplierContacts: { permissions: ['supplier:update'], operation: 'PROFILE_EDIT' },
  submitSupplierRegistration: { permissions: ['supplier:approval:submit'], operation: 'SUBMIT' },
  deleteSupplierDraft: { permissions: ['supplier:delete'], operation: 'DELETE' },
  changeSupplierStatus: { permissions: ['supplier:status:manage'], operation: 'STATUS_CHANGE' },
  archiveSupplier: { permissions: ['supplier:status:manage'], operation: 'ARCHIVE' },
  createSupplierAccounts: { permissions: ['supplier:account:manage'], operation: 'ACCOUNT_CREATE' },
  changeSupplierAccount: { permissions: ['supplier:account:manage'], operation: 'ACCOUNT_CHANGE' },
  setDefaultSupplierAccount: {
    permissions: ['supplier:account:manage'],
    operation: 'ACCOUNT_DEFAULT',
  },
  setResourceRelation: { permissions: ['supplier:update'], operation: 'NEW_RELATION' },
  unbindResourceRelation: { permissions: ['supplier:update'], operation: null },
} as const satisfies Record<string, { permissions: readonly string[]; operation: Operation | null }>

export type SupplierCommand = keyof typeof SUPPLIER_COMMANDS

const COMMAND_IDS = Object.keys(SUPPLIER_COMMANDS) as SupplierCommand[]

/** What a route declares of a command: its operationId and the permissions it requires. */
export const commandAccess = <C extends SupplierCommand>(operationId: C) => ({
  operationId,
  permissions: SUPPLIER_COMMANDS[operationId].permissions,
})

/** Every permission some command on a supplier requires: what the detail asks the caller for. */
export const COMMAND_PERMISSIONS: readonly string[] = [
  ...new Set(COMMAND_IDS.flatMap((id) => SUPPLIER_COMMANDS[id].permissions)),
]

export const AllowedActions = z
  .object({
    statusTargets: z
      .array(z.enum(SUPPLIER_STATUSES))
      .describe(
        'the targetStatus values a status command (changeSupplierStatus) from this caller would pass its status and permission checks with now; empty without `supplier:status:manage`',
      ),
    ...(Object.fromEntries(
      COMMAND_IDS.map((id) => {
        const { permissions, operation } = SUPPLIER_COMMANDS[id]
        return [
          id,
          z
            .boolean()
            .describe(
              `whether ${id} would pass its checks now: permission ${permissions.join(' and ')}` +
                (operation ? `, status allowing ${operation}` : ', no status check'),
            ),
        ]
      }),
    ) as Record<SupplierCommand, z.ZodBoolean>),
  })
  .strict()
  .describe(
    'Advice for drawing buttons, computed for the calling administrator from the in-state policy, the transition table and their permission codes: an action offered here passes its status and permission checks now, one withheld is refused by them. Every command still makes all its checks (version, fields, guards such as valid qualifications for resume or finance clearance for archive).',
  )
  .meta({ id: 'AllowedActions' })
export type AllowedActions = z.output<typeof AllowedActions>

/**
 * The actions a caller holding `held` may take on a supplier in `status` now: for each command,
 * its permissions held and its policy operation allowed; the status targets are the transition
 * table's for a status command, when that command is.
 */
export function allowedActions(status: SupplierStatus, held: readonly string[]): AllowedActions {
  const passes = (id: SupplierCommand) => {
    const { permissions, operation } = SUPPLIER_COMMANDS[id]
    return (
      permissions.every((code) => held.includes(code)) &&
      (operation === null || isAllowed(status, operation))
    )
  }
  const actions = Object.fromEntries(COMMAND_IDS.map((id) => [id, passes(id)])) as Record<
    SupplierCommand,
    boolean
  >
  return {
    statusTargets: actions.changeSupplierStatus ? targetsOf(status, 'STATUS') : [],
    ...actions,
  }
}

export const LifecycleTransitionVO = z
  .object({
    from: z.enum(SUPPLIER_STATUSES),
    to: z.enum(SUPPLIER_STATUSES),
    trigger: z.string().describe('the move, in the spec words (SUSPEND, UNBLACKLIST, …)'),
    command: z
      .enum(['REGISTRATION', 'APPLIER', 'STATUS', 'ARCHIVE'])
      .describe(
        'who asks for it: the registration submit, the common approval applier, the status command (its targetStatus), archive',
      ),
    bizType: z
      .enum(['PROFILE_CREATE', 'STATUS_CHANGE'])
      .nullable()
      .describe('the approval the move goes through; null when none'),
    subType: z.string().nullable().describe('the STATUS_CHANGE subType; null otherwise'),
    approvalLevels: z.int().nullable().describe('approval levels; null when no approval'),
    guard: z
      .enum(['NONE', 'REGISTRATION_RULES', 'QUALIFICATIONS_VALID', 'FINANCE_CLEARED'])
      .describe(
        'what must hold, checked in the transaction that makes the move: C-02/C-06/C-09/C-19, every required qualification held and not expired, finance clearance confirmed, or only the command itself',
      ),
  })
  .meta({ id: 'LifecycleTransitionVO' })
export type LifecycleTransitionVO = z.output<typeof LifecycleTransitionVO>

export const LifecycleTransitionsVO = z
  .array(LifecycleTransitionVO)
  .describe('every declared move, in the order of the table; a move not listed is 395005')

/** The transition table as the state machine runs it, one row per declared move. */
export const lifecycleTransitions = (): LifecycleTransitionVO[] =>
  TRANSITIONS.map((t) => ({
    from: t.from,
    to: t.to,
    trigger: t.trigger,
    command: t.command,
    bizType: t.approval?.bizType ?? null,
    subType: t.approval?.subType ?? null,
    approvalLevels: t.approval?.levels ?? null,
    guard: t.guard,
  }))
