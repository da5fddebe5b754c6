import type { z } from 'zod'
import type { ApprovalRow } from '../../../sql/approval'
import type { Sql } from '../../../sql/db'
import type { AppError } from '../../errors'
import type { RequestDeadline } from '../deadline'
import type { Contention } from '../write/transaction'
import type { Deps } from '../deps'

export type BizType = ApprovalRow['bizType']
/** Who the applied change is attributed to, and the request it runs in. */
export interface ApplierCtx {
  adminId: string
  requestId: string
  deadline?: RequestDeadline
  contention?: Contention
}

/**
 * One approval business type: what its snapshot holds and what approving, rejecting or failing
 * to apply it does. The applier core knows none of them; adding a type is adding a handler to
 * the registry (`src/domain/approval/registry.ts`). Every step runs inside the applier's
 * transaction with the approval row locked, and must be idempotent: a retry calls it again.
 */
export interface ApprovalHandler<S = unknown> {
  bizType: BizType
  /**
   * The permissions of the command that opens this type. Withdrawing such an approval undoes that
   * command's pending change (an account REJECTED, a registration back to DRAFT), so the caller
   * needs them as well as the withdraw route's own.
   */
  permissions: readonly string[]
  /** The versioned candidate snapshot (schemaVersion 1); an unreadable one is refused. */
  snapshot: z.ZodType<S>
  /** Locks the target, re-checks and applies from the snapshot, with change log and events. */
  apply(tx: Sql, deps: Deps, ctx: ApplierCtx, of: ApplyOf<S>): Promise<void>
  /**
   * What an approval that will not be applied does to the business: rejected by the provider (a
   * registration goes back to DRAFT), failed to apply (usually nothing: the change stays
   * pending and retryable), or withdrawn by an administrator after a failed application.
   * `outcome.reason` is the wording of `notAppliedReason`, the same for every type.
   */
  notApplied(tx: Sql, deps: Deps, ctx: ApplierCtx, of: NotAppliedOf<S>): Promise<void>
}

/** What a handler applies: the approval and its snapshot, read by the handler's schema. */
export type ApplyOf<S> = { approval: ApprovalRow; snapshot: S }

/** What a handler settles when its approval will not be applied, and why. */
export type NotAppliedOf<S> = ApplyOf<S> & { outcome: NotApplied }

/**
 * The registry the applier looks handlers up in, by the business type an approval row records
 * (a decision can arrive long after the command, from the provider or the reconciliation sweep).
 */
export type ApprovalHandlers = Partial<Record<BizType, ApprovalHandler<never>>>

/**
 * A handler, typed by its snapshot: the command that opens its approval names it (`openApproval`)
 * and must record a snapshot of that type, and "go to definition" from the command leads here.
 */
export const approvalHandler = <S>(handler: ApprovalHandler<S>) => handler

/**
 * The registry of these handlers, each under its own business type. The applier parses a row's
 * snapshot with the handler's own schema before calling it, which is what the one cast relies on.
 */
export const approvalRegistry = <T extends unknown[]>(
  ...handlers: { [K in keyof T]: ApprovalHandler<T[K]> }
): ApprovalHandlers =>
  Object.fromEntries(handlers.map((h) => [h.bizType, h])) as unknown as ApprovalHandlers

/** How an approval ends without being applied, and why (the change log's reason). */
export interface NotApplied {
  status: 'REJECTED' | 'APPLY_FAILED' | 'WITHDRAWN'
  reason: string
}

/** The one wording of each way an approval ends unapplied; a failed one says what failed. */
export const notAppliedReason = (
  status: NotApplied['status'],
  error?: Pick<AppError, 'message'>,
): NotApplied => ({
  status,
  reason: {
    REJECTED: 'rejected by the approval provider',
    APPLY_FAILED: error?.message ?? 'not applied',
    WITHDRAWN: 'withdrawn after its application failed',
  }[status],
})
