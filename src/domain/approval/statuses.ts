/*
 * The statuses of an approval record and the moves between them, as data (spec, "States and
 * transitions", rule 9: APPROVED reaches APPLIED only through the common result applier, and a
 * failed application can be retried). The SQL module builds its guarded UPDATEs from this table,
 * so no status literal of an approval is spelled anywhere else. Plain data: no imports, so the
 * SQL layer may read it.
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
  { from: 'SUBMITTED', event: 'DECIDE_APPROVED', to: 'APPROVED' },
  { from: 'SUBMITTED', event: 'DECIDE_REJECTED', to: 'REJECTED' },
  { from: 'APPROVED', event: 'APPLY', to: 'APPLIED' },
  { from: 'APPROVED', event: 'APPLY_FAIL', to: 'APPLY_FAILED' },
  { from: 'APPLY_FAILED', event: 'APPLY', to: 'APPLIED' },
  { from: 'APPLY_FAILED', event: 'APPLY_FAIL', to: 'APPLY_FAILED' },
  { from: 'APPLY_FAILED', event: 'WITHDRAW', to: 'WITHDRAWN' },
] as const satisfies readonly { from: ApprovalStatus; event: string; to: ApprovalStatus }[]

export type ApprovalEvent = (typeof APPROVAL_TRANSITIONS)[number]['event']

/** The statuses `event` may leave from (the WHERE of its guarded UPDATE). */
export function approvalSources(event: ApprovalEvent): ApprovalStatus[] {
  return APPROVAL_TRANSITIONS.filter((t) => t.event === event).map((t) => t.from)
}

/** The one status `event` leads to. */
export function approvalTarget(event: ApprovalEvent): ApprovalStatus {
  const targets = new Set<ApprovalStatus>(
    APPROVAL_TRANSITIONS.filter((t) => t.event === event).map((t) => t.to),
  )
  if (targets.size !== 1) throw new Error(`approval event ${event} must lead to exactly one status`)
  return [...targets][0]
}

/** The provider's decision as the event that records it. */
export const DECISION_EVENT = {
  APPROVED: 'DECIDE_APPROVED',
  REJECTED: 'DECIDE_REJECTED',
} as const satisfies Record<'APPROVED' | 'REJECTED', ApprovalEvent>

/** Statuses with a decision still to be applied: the applier (or its retry) may run on them. */
export const APPROVAL_APPLICABLE = approvalSources('APPLY')

/** Statuses nothing leaves: the approval is over. */
export const APPROVAL_FINAL = APPROVAL_STATUSES.filter(
  (s) => !APPROVAL_TRANSITIONS.some((t) => t.from === s),
)

/** Undecided or not yet applied: a newer command of the same kind supersedes such an approval. */
export const APPROVAL_OPEN = APPROVAL_STATUSES.filter((s) => !APPROVAL_FINAL.includes(s))

/**
 * Statuses the service itself moves on from (the provider decides, the applier applies), with no
 * administrator needed: one left there long is stuck and goes to reconciliation. APPLY_FAILED
 * waits for a retry or a withdrawal instead.
 */
export const APPROVAL_IN_FLIGHT = APPROVAL_STATUSES.filter(
  (s) =>
    APPROVAL_TRANSITIONS.some((t) => t.from === s) &&
    !APPROVAL_TRANSITIONS.some((t) => t.from === s && t.event === 'WITHDRAW'),
)
