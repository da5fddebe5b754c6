import type { z } from 'zod'
import type { ApprovalRow } from '../../../sql/approval'
import type { Sql } from '../../../sql/db'
import type { AppError } from '../../errors'
import type { DomainDeps, WriteContext } from '../context'

export type BizType = ApprovalRow['bizType']
export type ApplierDeps = Pick<DomainDeps, 'sql' | 'config' | 'logger' | 'cipher' | 'observer'>
/** Who the applied change is attributed to, and the request it runs in. */
export type ApplierCtx = Pick<WriteContext, 'adminId' | 'requestId' | 'deadline'>

/**
 * One approval business type: what its snapshot holds and what approving, rejecting or failing
 * to apply it does. The applier core knows none of them; adding a type is adding a handler to
 * the registry (`src/domain/approval-handlers.ts`). Every step runs inside the applier's
 * transaction with the approval row locked, and must be idempotent: a retry calls it again.
 */
export interface ApprovalHandler<S = unknown> {
  bizType: BizType
  /** The versioned candidate snapshot (schemaVersion 1); an unreadable one is refused. */
  snapshot: z.ZodType<S>
  /** Locks the target, re-checks and applies from the snapshot, with change log and events. */
  apply(
    tx: Sql,
    deps: ApplierDeps,
    ctx: ApplierCtx,
    approval: ApprovalRow,
    snapshot: S,
  ): Promise<void>
  /** What a final rejection does to the business (e.g. a registration goes back to DRAFT). */
  reject(
    tx: Sql,
    deps: ApplierDeps,
    ctx: ApplierCtx,
    approval: ApprovalRow,
    snapshot: S,
  ): Promise<void>
  /**
   * What a failed application does besides marking the approval APPLY_FAILED (usually
   * nothing to the business: the change stays pending and retryable).
   */
  applyFailed(
    tx: Sql,
    deps: ApplierDeps,
    ctx: ApplierCtx,
    approval: ApprovalRow,
    snapshot: S,
    error: AppError,
  ): Promise<void>
  /**
   * What withdrawing an approval that can never be applied does (the administrator's way out
   * of APPLY_FAILED). Absent: the type cannot be withdrawn.
   */
  withdraw?(
    tx: Sql,
    deps: ApplierDeps,
    ctx: ApplierCtx,
    approval: ApprovalRow,
    snapshot: S,
  ): Promise<void>
}

/** The registry the applier looks handlers up in, by business type. */
export type ApprovalHandlers = Partial<Record<BizType, ApprovalHandler<never>>>

/** Typed registration of a handler (its snapshot type checked against its steps). */
export const approvalHandler = <S>(handler: ApprovalHandler<S>) =>
  handler as unknown as ApprovalHandler<never>
