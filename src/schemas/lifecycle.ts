import { z } from 'zod'
import { SUPPLIER_STATUSES } from '../vocabulary'

/*
 * The lifecycle as the contract publishes it: the commands on one supplier and what each
 * requires (the shape of the detail's `allowedActions`), and the transition table's rows. The
 * domain computes both (src/domain/lifecycle/actions.ts) from the tables its commands run on.
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
} as const satisfies Record<string, { permissions: readonly string[]; operation: string | null }>

export type SupplierCommand = keyof typeof SUPPLIER_COMMANDS

export const COMMAND_IDS = Object.keys(SUPPLIER_COMMANDS) as SupplierCommand[]

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
