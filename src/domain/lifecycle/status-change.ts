import { z } from 'zod'
import { insertEvent } from '../../../sql/outbox'
import { isLatestApproval } from '../../../sql/approval'
import type { Sql } from '../../../sql/db'
import { lockSupplier } from '../../../sql/supplier'
import { fail } from '../../errors'
import type { ApprovalCommandResult, SupplierStatusRequest } from '../../schemas/supplier'
import { approvalHandler, type ApplierCtx, type NotAppliedOf } from '../approval/handler'
import type { Deps } from '../deps'
import type { WriteContext } from '../context'
import { assertQualificationsValid, GUARDS } from './guards'
import { statusChange } from '../write/change-log'
import { logChanges } from '../audit/trail'
import { openApproval, runApprovalCommand } from '../approval/command'
import { relockSupplier, supplierForWrite } from '../write/target'
import { approvalOf, moveTo } from './transitions'
import { applyMove, claimVersion } from './move'
import { SUPPLIER_STATUSES } from '../../vocabulary'
import { approvalOpenedBy } from '../../schemas/lifecycle'

/*
 * SUP-ADM-043, the status command, and its STATUS_CHANGE approval. The command checks
 * permission (route), status (the transition table narrows the legal targets), reason and
 * version, then claims the supplier's version with the one guarded UPDATE (the client's
 * expectedUpdateTime in its WHERE) and records the approval, with the subType and level count the
 * table declares for the move. After commit LOCAL_AUTO approves and the common applier calls the
 * handler below, which locks, re-reads, re-checks the move and its guard and applies it.
 */

/** What a status-change approval approves: this move, on the version the command claimed. */
export const StatusChangeSnapshot = z.object({
  schemaVersion: z.literal(1),
  supplierId: z.string(),
  fromStatus: z.enum(SUPPLIER_STATUSES),
  targetStatus: z.enum(SUPPLIER_STATUSES),
  changeReason: z.string(),
  /** The supplier's version after the command's claim: the applied move is guarded by it. */
  expectedUpdateTime: z.string(),
})
export type StatusChangeSnapshot = z.output<typeof StatusChangeSnapshot>

/** SUP-ADM-043: asks for a status change through a STATUS_CHANGE approval. */
export function changeSupplierStatus(
  deps: Deps,
  ctx: WriteContext,
  supplierId: string,
  req: SupplierStatusRequest,
): Promise<ApprovalCommandResult> {
  return runApprovalCommand(deps, ctx, {
    async precheck(sql) {
      const seen = await supplierForWrite(sql, supplierId, {
        operation: 'STATUS_CHANGE',
        what: 'a status change',
      })
      const move = moveTo(seen.status, req.targetStatus, 'STATUS')
      if (seen.updateTime !== req.expectedUpdateTime) fail('VERSION_STALE')
      // Refused early, with nothing written; checked again under the lock and when applied.
      if (move.guard === 'QUALIFICATIONS_VALID') await assertQualificationsValid(sql, supplierId)
      return { seen, move }
    },
    async run(tx, { seen, move }) {
      await relockSupplier(tx, seen, 'status')
      const claimed = await claimVersion(
        tx,
        { supplierId, status: seen.status, expectedUpdateTime: req.expectedUpdateTime },
        ctx.adminId,
      )
      await GUARDS[move.guard](tx, deps, { supplierId })
      const { subType, levels } = approvalOf(move)
      const snapshot: StatusChangeSnapshot = {
        schemaVersion: 1,
        supplierId,
        fromStatus: move.from,
        targetStatus: move.to,
        changeReason: req.changeReason,
        expectedUpdateTime: claimed,
      }
      return openApproval(tx, deps, ctx, {
        handler: statusChangeApproval,
        approval: {
          subType,
          supplierId,
          targetType: 'SUPPLIER',
          targetId: supplierId,
          candidateSnapshot: snapshot,
          levels,
        },
        log: {
          operationType: 'STATUS_CHANGE',
          changes: [statusChange('SUPPLIER', supplierId, move.from, move.to)],
          changeReason: req.changeReason,
        },
        event: {
          aggregateType: 'SUPPLIER',
          aggregateId: supplierId,
          eventType: 'SupplierStatusChangeRequested',
          payload: {
            supplierId,
            fromStatus: move.from,
            targetStatus: move.to,
            subType,
            changeReason: req.changeReason,
          },
        },
      })
    },
  })
}

/**
 * STATUS_CHANGE: approved, the move is applied if it is still what was asked (the supplier in the
 * same status and version, the approval the latest of its kind, the guard passing). Rejected,
 * failed or withdrawn, the status stays as it is; the evidence says why.
 */
export const statusChangeApproval = approvalHandler<StatusChangeSnapshot>({
  ...approvalOpenedBy('changeSupplierStatus'),
  snapshot: StatusChangeSnapshot,

  async apply(tx, deps, ctx, { approval, snapshot }) {
    const supplier = await lockSupplier(tx, approval.supplierId)
    if (!supplier) fail('SUPPLIER_NOT_FOUND')
    if (!(await isLatestApproval(tx, approval))) {
      fail('APPROVAL_APPLY_FAILED', 'superseded by a newer status command')
    }
    const move = moveTo(snapshot.fromStatus, snapshot.targetStatus, 'STATUS')
    const moved = await applyMove(tx, deps, {
      supplier: {
        supplierId: supplier.supplierId,
        status: supplier.status,
        expectedUpdateTime: snapshot.expectedUpdateTime,
      },
      move,
      adminId: ctx.adminId,
    })
    await logChanges(tx, deps, ctx, {
      supplierId: supplier.supplierId,
      operationType: 'STATUS_CHANGE',
      changes: [statusChange('SUPPLIER', supplier.supplierId, moved.from, moved.to)],
      approvalLogId: approval.approvalLogId,
      status: 'APPLIED',
      changeReason: snapshot.changeReason,
    })
    await insertEvent(tx, {
      aggregateType: 'SUPPLIER',
      aggregateId: supplier.supplierId,
      eventType: 'SupplierStatusChanged',
      payload: {
        supplierId: supplier.supplierId,
        approvalLogId: approval.approvalLogId,
        fromStatus: moved.from,
        toStatus: moved.to,
        subType: approval.subType,
        changeReason: snapshot.changeReason,
      },
    })
  },

  notApplied: logNotApplied,
})

/** The evidence of a status change that did not happen: the status is left as it is. */
async function logNotApplied(
  tx: Sql,
  deps: Deps,
  ctx: ApplierCtx,
  { approval, snapshot, outcome: { status: outcome, reason } }: NotAppliedOf<StatusChangeSnapshot>,
) {
  await logChanges(tx, deps, ctx, {
    supplierId: approval.supplierId,
    operationType: 'STATUS_CHANGE',
    changes: [
      {
        targetType: 'SUPPLIER',
        targetId: approval.supplierId,
        fieldName: 'approvalStatus',
        oldValueMasked: null,
        newValueMasked: outcome,
      },
    ],
    approvalLogId: approval.approvalLogId,
    status: outcome,
    changeReason: reason,
  })
  await insertEvent(tx, {
    aggregateType: 'SUPPLIER',
    aggregateId: approval.supplierId,
    eventType: 'SupplierStatusChangeNotApplied',
    payload: {
      supplierId: approval.supplierId,
      approvalLogId: approval.approvalLogId,
      fromStatus: snapshot.fromStatus,
      targetStatus: snapshot.targetStatus,
      outcome,
    },
  })
}
