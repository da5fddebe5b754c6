import { z } from 'zod'
import {
  MOVE_BIZ_TYPES,
  MOVE_COMMANDS,
  MOVE_GUARDS,
  SUPPLIER_STATUSES,
  type ApprovalBizType,
  type ChangeOperationType,
} from '../vocabulary'

/*
 * The lifecycle as the contract publishes it: the commands on one supplier and what each
 * requires (the shape of the detail's `allowedActions`), and the transition table's rows. The
 * domain computes both (src/domain/lifecycle/actions.ts) from the tables its commands run on.
 */

/**
 * Every write of the administrators' API, by its one name, the operationId (the reference's,
 * the route's, and the name its Idempotency-Key and duplicate-submit claims are kept under).
 * Beside it, what it requires and records:
 * - `permissions`: what its route requires;
 * - `operation`: the in-state policy operation its status check asks (null: no status check;
 *   unbindResourceRelation checks the relation, not the supplier);
 * - `changeLog`: the change-log operation types of its rows, its approval's outcomes included
 *   (a withdrawal writes the types of the approval it withdraws);
 * - `approval`: the business type of the approval it opens, if any.
 */
export const WRITE_OPERATIONS = {
  createSupplierDraft: {
    permissions: ['supplier:create'],
    operation: null,
    changeLog: ['DRAFT_CREATE'],
    approval: null,
  },
  updateSupplier: {
    permissions: ['supplier:update'],
    operation: 'PROFILE_EDIT',
    changeLog: ['DRAFT_UPDATE', 'PROFILE_UPDATE'],
    approval: null,
  },
  replaceSupplierContacts: {
    permissions: ['supplier:update'],
    operation: 'PROFILE_EDIT',
    changeLog: ['CONTACT_REPLACE'],
    approval: null,
  },
  submitSupplierRegistration: {
    permissions: ['supplier:approval:submit'],
    operation: 'SUBMIT',
    changeLog: [
      'REGISTRATION_SUBMIT',
      'REGISTRATION_APPLY',
      'REGISTRATION_REJECT',
      'REGISTRATION_APPLY_FAILED',
      'REGISTRATION_WITHDRAW',
    ],
    approval: 'PROFILE_CREATE',
  },
  deleteSupplierDraft: {
    permissions: ['supplier:delete'],
    operation: 'DELETE',
    changeLog: ['DRAFT_DELETE'],
    approval: null,
  },
  changeSupplierStatus: {
    permissions: ['supplier:status:manage'],
    operation: 'STATUS_CHANGE',
    changeLog: ['STATUS_CHANGE'],
    approval: 'STATUS_CHANGE',
  },
  archiveSupplier: {
    permissions: ['supplier:status:manage'],
    operation: 'ARCHIVE',
    changeLog: ['ARCHIVE'],
    approval: null,
  },
  createSupplierAccounts: {
    permissions: ['supplier:account:manage'],
    operation: 'ACCOUNT_CREATE',
    changeLog: ['ACCOUNT_CREATE'],
    approval: 'ACCOUNT_CREATE',
  },
  changeSupplierAccount: {
    permissions: ['supplier:account:manage'],
    operation: 'ACCOUNT_CHANGE',
    changeLog: ['ACCOUNT_CHANGE'],
    approval: 'ACCOUNT_CHANGE',
  },
  setDefaultSupplierAccount: {
    permissions: ['supplier:account:manage'],
    operation: 'ACCOUNT_DEFAULT',
    changeLog: ['ACCOUNT_DEFAULT'],
    approval: null,
  },
  setResourceRelation: {
    permissions: ['supplier:update'],
    operation: 'NEW_RELATION',
    changeLog: ['RELATION_SET'],
    approval: null,
  },
  unbindResourceRelation: {
    permissions: ['supplier:update'],
    operation: null,
    changeLog: ['RELATION_UNBIND'],
    approval: null,
  },
  withdrawFailedApproval: {
    permissions: ['supplier:approval:submit'],
    operation: null,
    changeLog: [],
    approval: null,
  },
  replaceQualificationRules: {
    permissions: ['supplier:type:manage'],
    operation: null,
    changeLog: ['QUALIFICATION_RULE_REPLACE'],
    approval: null,
  },
} as const satisfies Record<
  string,
  {
    permissions: readonly string[]
    operation: string | null
    changeLog: readonly ChangeOperationType[]
    approval: ApprovalBizType | null
  }
>

export type WriteOperation = keyof typeof WRITE_OPERATIONS

/** The writes that open an approval. */
export type OpensApproval = {
  [K in WriteOperation]: (typeof WRITE_OPERATIONS)[K]['approval'] extends null ? never : K
}[WriteOperation]

/** The business type and permissions of the approval `operationId` opens, for its handler. */
export const approvalOpenedBy = <O extends OpensApproval>(operationId: O) => ({
  bizType: WRITE_OPERATIONS[operationId].approval,
  permissions: WRITE_OPERATIONS[operationId].permissions,
})

/** The commands on one supplier: the writes whose actions the detail's `allowedActions` advises. */
const COMMANDS = [
  'updateSupplier',
  'replaceSupplierContacts',
  'submitSupplierRegistration',
  'deleteSupplierDraft',
  'changeSupplierStatus',
  'archiveSupplier',
  'createSupplierAccounts',
  'changeSupplierAccount',
  'setDefaultSupplierAccount',
  'setResourceRelation',
  'unbindResourceRelation',
] as const satisfies readonly WriteOperation[]

/** The commands on one supplier, by operationId: their permissions and policy operation. */
export const SUPPLIER_COMMANDS = Object.fromEntries(
  COMMANDS.map((id) => [
    id,
    { permissions: WRITE_OPERATIONS[id].permissions, operation: WRITE_OPERATIONS[id].operation },
  ]),
) as {
  [K in (typeof COMMANDS)[number]]: Pick<(typeof WRITE_OPERATIONS)[K], 'permissions' | 'operation'>
}

export type SupplierCommand = keyof typeof SUPPLIER_COMMANDS

export const COMMAND_IDS = Object.keys(SUPPLIER_COMMANDS) as SupplierCommand[]

export const AllowedActions = z
  .strictObject({
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
      .enum(MOVE_COMMANDS)
      .describe(
        'who asks for it: the registration submit, the common approval applier, the status command (its targetStatus), archive',
      ),
    bizType: z
      .enum(MOVE_BIZ_TYPES)
      .nullable()
      .describe('the approval the move goes through; null when none'),
    subType: z.string().nullable().describe('the STATUS_CHANGE subType; null otherwise'),
    approvalLevels: z.int().nullable().describe('approval levels; null when no approval'),
    guard: z
      .enum(MOVE_GUARDS)
      .describe(
        'what must hold, checked in the transaction that makes the move: C-02/C-06/C-09/C-19, every required qualification held and not expired, finance clearance confirmed, or only the command itself',
      ),
  })
  .meta({ id: 'LifecycleTransitionVO' })
export type LifecycleTransitionVO = z.output<typeof LifecycleTransitionVO>

export const LifecycleTransitionsVO = z
  .array(LifecycleTransitionVO)
  .describe('every declared move, in the order of the table; a move not listed is 395005')
