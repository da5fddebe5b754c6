/*
 * The service's shared vocabulary: the spec's bounds, its enumerations and the statuses of each
 * aggregate with the moves between them, as plain data. It imports nothing, so every layer may
 * read it (sql/ builds its guarded UPDATEs and CHECK-mirroring arrays from it, schemas/ its
 * enums); the rules that act on these words live in src/domain/.
 */

/** The seven lifecycle codes, as the supplier_status_check constraint has them. */
export const SUPPLIER_STATUSES = [
  'DRAFT',
  'VETTING',
  'ACTIVE',
  'SUSPENDED',
  'FROZEN',
  'BLACKLIST',
  'ARCHIVED',
] as const
export type SupplierStatus = (typeof SUPPLIER_STATUSES)[number]

/** Account statuses as the supplier_bank_account_status_check constraint has them. */
export const ACCOUNT_STATUSES = ['DRAFT', 'PENDING', 'ACTIVE', 'APPLY_FAILED', 'REJECTED'] as const
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number]

/**
 * API sort keys of SUP-ADM-001; the only values that can reach ORDER BY (sql/supplier-read.ts
 * maps each to its columns).
 */
export const SUPPLIER_SORT_KEYS = ['createTime', 'updateTime', 'fullName', 'supplierNo'] as const
export type SupplierSortKey = (typeof SUPPLIER_SORT_KEYS)[number]

/** Values of change_log.operation_type (its CHECK constraint). */
export const CHANGE_OPERATION_TYPES = [
  'DRAFT_CREATE',
  'DRAFT_UPDATE',
  'DRAFT_DELETE',
  'PROFILE_UPDATE',
  'CONTACT_REPLACE',
  'REGISTRATION_SUBMIT',
  'REGISTRATION_APPLY',
  'REGISTRATION_REJECT',
  'REGISTRATION_APPLY_FAILED',
  'REGISTRATION_WITHDRAW',
  'ACCOUNT_CREATE',
  'ACCOUNT_CHANGE',
  'ACCOUNT_DEFAULT',
  'STATUS_CHANGE',
  'ARCHIVE',
  'RELATION_SET',
  'RELATION_UNBIND',
  'QUALIFICATION_RULE_REPLACE',
] as const
export type ChangeOperationType = (typeof CHANGE_OPERATION_TYPES)[number]

/** Values of change_log.target_type (its CHECK constraint). */
export const CHANGE_TARGET_TYPES = [
  'SUPPLIER',
  'TYPE',
  'CONTACT',
  'QUALIFICATION',
  'CONTRACT',
  'EVALUATION',
  'ACCOUNT',
  'RELATION',
  'QUALIFICATION_RULE',
] as const
export type ChangeTargetType = (typeof CHANGE_TARGET_TYPES)[number]

/** The ten module codes (the relation table's check), in the spec's order. */
export const RESOURCE_MODULES = [
  'SCENIC',
  'RESTAURANT',
  'SUPPLIES',
  'SUPPLIES_COMBO',
  'ACTIVITY',
  'HOTEL',
  'SERVICE',
  'COST_ITEM',
  'STAFF',
  'VEHICLE',
] as const
export type ResourceModule = (typeof RESOURCE_MODULES)[number]

/** Codes of the named risk flags an account can carry (raised by `src/domain/account/rules.ts`). */
export const RISK_FLAG_CODES = ['ACCOUNT_NO_HELD_ELSEWHERE', 'PERSONAL_HOLDER_MISMATCH'] as const
export type RiskFlagCode = (typeof RISK_FLAG_CODES)[number]

/**
 * Why a live supplier looks like the same company as a new name (395006): the trade name the
 * same, with the region or without; written differently (traditional characters, a homophone,
 * one character apart); a Latin name the same or spelled differently; or, for names that cannot
 * be read as region + trade name + industry + form, the whole names alike.
 */
export const MATCH_REASONS = [
  'SAME_TRADE_NAME_AND_REGION',
  'SAME_TRADE_NAME',
  'TRADE_NAME_WRITTEN_DIFFERENTLY',
  'SAME_LATIN_NAME',
  'LATIN_NAME_WRITTEN_DIFFERENTLY',
  'SIMILAR_WHOLE_NAME',
] as const
export type MatchReason = (typeof MATCH_REASONS)[number]

/** Worst first: the order in which a type's state is the worst of its required qualifications. */
export const COMPLIANCE_STATES = ['MISSING', 'EXPIRED', 'EXPIRING', 'OK'] as const
export type ComplianceState = (typeof COMPLIANCE_STATES)[number]

/** States that let a supplier act (resume, unfreeze): held and not expired. */
export const COMPLIANT_STATES: readonly ComplianceState[] = ['EXPIRING', 'OK']

/** Bounds of the spec, in one place. Byte bounds are UTF-8 bytes, not characters. */
export const LIMITS = {
  fullName: 500,
  shortName: 300,
  legalRepresentative: 500,
  taxNoBytes: 64,
  companyPhone: 20,
  registeredCapital: 50,
  businessScope: 500,
  address: 500,
  mainCooperationBytes: 65_535,
  licenseImageUrl: 500,
  noteBytes: 16_777_215,
  types: 15,
  contactName: 500,
  contactPhone: 20,
  contactRole: 64,
  contactRemark: 200,
  qualType: 64,
  certNo: 128,
  qualImageUrlBytes: 65_535,
  bankName: 500,
  bankBranch: 500,
  accountNoBytes: 128,
  proofFileUrls: 20,
  proofFileUrl: 1000,
  /** N of the spec's "0..N initial accounts" (not shown there): ours. */
  initialAccounts: 20,
  changeReason: 500,
  submitNote: 2000,
  collectionItems: 100,
} as const

/** At most this many live qualification rules per supplier type. */
export const MAX_RULES = 100

export const STAFF_SCALES = ['LT50', 'R50_200', 'R200_500', 'GT500'] as const
export const ACCOUNT_TYPES = ['CORPORATE', 'PERSONAL'] as const
export type AccountType = (typeof ACCOUNT_TYPES)[number]
export const SETTLE_MODES = ['PER_ORDER', 'WEEKLY', 'MONTHLY', 'PREPAID'] as const
export const INVOICE_TYPES = ['SPECIAL', 'NORMAL', 'NONE'] as const

/**
 * One row of a state table: a move from a status, on a trigger, to a status. The approval's
 * moves (below), the bank account's (src/domain/account/statuses.ts) and the supplier's
 * transition table (src/domain/lifecycle/transitions.ts, whose rows add the command, guard and
 * approval) all have this shape.
 */
export interface StateMove<S extends string> {
  from: S
  trigger: string
  to: S
}

/** The business types of an approval: what approving it changes (one handler each). */
export const APPROVAL_BIZ_TYPES = [
  'PROFILE_CREATE',
  'ACCOUNT_CREATE',
  'ACCOUNT_CHANGE',
  'STATUS_CHANGE',
] as const
export type ApprovalBizType = (typeof APPROVAL_BIZ_TYPES)[number]

/*
 * What a row of the supplier's transition table (src/domain/lifecycle/transitions.ts) says of a
 * move besides from, trigger and to, in the words the table and /openapi.json's
 * LifecycleTransitionVO share: who may ask for it, what must hold, the approval it goes through.
 */
export const MOVE_COMMANDS = ['REGISTRATION', 'APPLIER', 'STATUS', 'ARCHIVE'] as const
export const MOVE_GUARDS = [
  'NONE',
  'REGISTRATION_RULES',
  'QUALIFICATIONS_VALID',
  'FINANCE_CLEARED',
] as const
export const MOVE_BIZ_TYPES = [
  'PROFILE_CREATE',
  'STATUS_CHANGE',
] as const satisfies readonly ApprovalBizType[]

/*
 * The statuses of an approval record and the moves between them (spec, "States and
 * transitions", rule 9: APPROVED reaches APPLIED only through the common result applier, and a
 * failed application can be retried). sql/approval.ts builds its guarded UPDATEs from this table,
 * so no status literal of an approval is spelled anywhere else.
 */

/** Every status an approval record can be in, as approval_log_status_check has them. */
export const APPROVAL_STATUSES = [
  'SUBMITTED',
  'APPROVED',
  'REJECTED',
  'APPLIED',
  'APPLY_FAILED',
  'WITHDRAWN',
] as const
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number]

/** The status a new approval starts in. */
export const APPROVAL_INITIAL: ApprovalStatus = 'SUBMITTED'

/**
 * One row per declared move. `DECIDE_*` is the provider's standardized answer; `APPLY` and
 * `APPLY_FAIL` are the common applier's outcomes; `WITHDRAW` is an administrator's way out of an
 * application that can never pass. REJECTED, APPLIED and WITHDRAWN are final.
 */
export const APPROVAL_TRANSITIONS = [
  { from: 'SUBMITTED', trigger: 'DECIDE_APPROVED', to: 'APPROVED' },
  { from: 'SUBMITTED', trigger: 'DECIDE_REJECTED', to: 'REJECTED' },
  { from: 'APPROVED', trigger: 'APPLY', to: 'APPLIED' },
  { from: 'APPROVED', trigger: 'APPLY_FAIL', to: 'APPLY_FAILED' },
  { from: 'APPLY_FAILED', trigger: 'APPLY', to: 'APPLIED' },
  { from: 'APPLY_FAILED', trigger: 'APPLY_FAIL', to: 'APPLY_FAILED' },
  { from: 'APPLY_FAILED', trigger: 'WITHDRAW', to: 'WITHDRAWN' },
] as const satisfies readonly StateMove<ApprovalStatus>[]

export type ApprovalTrigger = (typeof APPROVAL_TRANSITIONS)[number]['trigger']

/** The statuses `trigger` may leave from (the WHERE of its guarded UPDATE). */
export function approvalSources(trigger: ApprovalTrigger): ApprovalStatus[] {
  return APPROVAL_TRANSITIONS.filter((t) => t.trigger === trigger).map((t) => t.from)
}

/** The one status `trigger` leads to. */
export function approvalTarget(trigger: ApprovalTrigger): ApprovalStatus {
  const targets = new Set<ApprovalStatus>(
    APPROVAL_TRANSITIONS.filter((t) => t.trigger === trigger).map((t) => t.to),
  )
  if (targets.size !== 1) {
    throw new Error(`approval trigger ${trigger} must lead to exactly one status`)
  }
  return [...targets][0]
}

/** The provider's decision as the trigger that records it. */
export const DECISION_TRIGGER = {
  APPROVED: 'DECIDE_APPROVED',
  REJECTED: 'DECIDE_REJECTED',
} as const satisfies Record<'APPROVED' | 'REJECTED', ApprovalTrigger>

/** Statuses with a decision still to be applied: the applier (or its retry) may run on them. */
export const APPROVAL_APPLICABLE = approvalSources('APPLY')

/** Statuses nothing leaves: the approval is over. */
export const APPROVAL_FINAL = APPROVAL_STATUSES.filter(
  (s) => !APPROVAL_TRANSITIONS.some((t) => t.from === s),
)

/**
 * Statuses the service itself moves on from (the provider decides, the applier applies), with no
 * administrator needed: one left there long is stuck and goes to reconciliation. APPLY_FAILED
 * waits for a retry or a withdrawal instead.
 */
export const APPROVAL_IN_FLIGHT = APPROVAL_STATUSES.filter(
  (s) =>
    APPROVAL_TRANSITIONS.some((t) => t.from === s) &&
    !APPROVAL_TRANSITIONS.some((t) => t.from === s && t.trigger === 'WITHDRAW'),
)
