import type { SupplierStatus } from '../../vocabulary'
import {
  AllowedActions,
  COMMAND_IDS,
  LifecycleTransitionVO,
  SUPPLIER_COMMANDS,
  WRITE_OPERATIONS,
  type SupplierCommand,
  type WriteOperation,
} from '../../schemas/lifecycle'
import { isAllowed } from './policy'
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

// The table is declared with the contract it shapes (src/schemas/lifecycle.ts); `allowedActions`
// passes each command's operation to the in-state policy, which checks it is one it knows.

/** What a route declares of a write: its operationId and the permissions it requires. */
export const commandAccess = <O extends WriteOperation>(operationId: O) => ({
  operationId,
  permissions: WRITE_OPERATIONS[operationId].permissions,
})

/** Every permission some command on a supplier requires: what the detail asks the caller for. */
export const COMMAND_PERMISSIONS: readonly string[] = [
  ...new Set(COMMAND_IDS.flatMap((id) => SUPPLIER_COMMANDS[id].permissions)),
]

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
