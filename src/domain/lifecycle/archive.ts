import { insertEvent } from '../../../sql/outbox'
import { findSupplier, lockSupplier } from '../../../sql/supplier'
import { fail } from '../../errors'
import type { ClearanceAnswer } from '../../ports/finance-clearance'
import type { ArchiveResult } from '../../schemas/supplier'
import type { Deps } from '../deps'
import type { WriteContext } from '../context'
import { logChanges } from '../audit/trail'
import { runWrite } from '../write/pipeline'
import { assertAllowed } from './policy'
import { moveTo } from './transitions'
import { applyMove } from './move'

/** Why a clearance answer that is not CLEARED refuses the archive. */
const REFUSAL = {
  NOT_CONNECTED: 'ARCHIVE_CLEARANCE_UNAVAILABLE',
  NOT_CLEARED: 'ARCHIVE_NOT_CLEARED',
  UNAVAILABLE: 'DEPENDENCY_UNAVAILABLE',
} as const

/**
 * SUP-ADM-010: archive, a command without body, only from SUSPENDED or BLACKLIST, only once
 * finance confirms everything is settled.
 *
 * Where the clearance question sits in the write order: the spec calls outbound ports after
 * commit, but archive needs finance's answer before the status may change. The question has no
 * side effect on either side, so it is asked in the pre-checks, before the transaction: a refusal
 * (not connected: 395032; not cleared or unclear: 395035; no answer: 395039) leaves nothing
 * written anywhere, and no row lock is held while a remote system thinks. Inside the transaction
 * the row is locked and re-read; if its status or version moved since the question was asked,
 * the answer is about another state of the supplier and the archive is refused (395014).
 */
export function archiveSupplier(
  deps: Deps,
  ctx: WriteContext,
  supplierId: string,
): Promise<ArchiveResult> {
  return runWrite(deps, ctx, {
    async precheck(sql) {
      const seen = await findSupplier(sql, supplierId)
      if (!seen) fail('SUPPLIER_NOT_FOUND')
      assertAllowed(seen.status, 'ARCHIVE', 'archiving')
      const move = moveTo(seen.status, 'ARCHIVED', 'ARCHIVE')
      const answer = await deps.financeClearance.check({
        supplierId,
        supplierNo: seen.supplierNo,
        requestId: ctx.requestId,
      })
      if (answer.outcome !== 'CLEARED') refuse(deps, supplierId, answer)
      return {
        seen: seen,
        move,
        clearance: answer,
      }
    },
    async run(tx, { seen, move, clearance }) {
      const locked = await lockSupplier(tx, supplierId)
      if (!locked) fail('SUPPLIER_NOT_FOUND')
      if (locked.status !== seen.status || locked.updateTime !== seen.updateTime) {
        fail('CONCURRENT_MODIFICATION', 'the supplier changed while finance was asked: try again')
      }
      const moved = await applyMove(tx, deps, {
        supplier: { supplierId, status: seen.status, expectedUpdateTime: seen.updateTime },
        move,
        adminId: ctx.adminId,
        evidence: { clearance: { cleared: true } },
      })
      const { clearanceRequestId, checkedAt, ledgerRevision } = clearance
      const fact = (fieldName: string, value: string) => ({
        targetType: 'SUPPLIER' as const,
        targetId: supplierId,
        fieldName,
        oldValueMasked: null,
        newValueMasked: value,
      })
      await logChanges(tx, deps, ctx, {
        supplierId,
        operationType: 'ARCHIVE',
        changes: [
          {
            targetType: 'SUPPLIER',
            targetId: supplierId,
            fieldName: 'status',
            oldValueMasked: moved.from,
            newValueMasked: moved.to,
          },
          fact('clearanceRequestId', clearanceRequestId),
          fact('clearanceCheckedAt', checkedAt),
          fact('ledgerRevision', ledgerRevision),
        ],
        changeReason: 'finance clearance confirmed everything settled',
      })
      await insertEvent(tx, {
        aggregateType: 'SUPPLIER',
        aggregateId: supplierId,
        eventType: 'SupplierArchived',
        payload: {
          supplierId,
          fromStatus: moved.from,
          clearanceRequestId,
          checkedAt,
          ledgerRevision,
          operatorId: ctx.adminId,
        },
      })
      return {
        supplierId,
        status: 'ARCHIVED',
        clearanceRequestId,
        checkedAt,
        ledgerRevision,
        updateTime: moved.updateTime,
      }
    },
  })
}

function refuse(deps: Deps, supplierId: string, answer: ClearanceAnswer): never {
  if (answer.outcome === 'CLEARED') throw new Error('a cleared answer is not a refusal')
  const reason = 'reason' in answer ? answer.reason : undefined
  deps.logger.warn({ supplierId, outcome: answer.outcome, reason }, 'archive refused by clearance')
  return fail(REFUSAL[answer.outcome], reason)
}
