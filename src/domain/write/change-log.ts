import type { Sql } from '../../../sql/db'
import { appendChangeLogs, type AuditDeps } from '../audit/trail'
import type { WriteContext } from '../context'
import type { ChangeOperationType, ChangeTargetType } from '../../vocabulary'

/*
 * The change log of a write: every command and every approval handler writes its rows here, in
 * the transaction of the business write, with values already masked, sealed into the audit
 * trail (`../audit/trail`).
 */

/** A field-level change, values already masked for the change log. */
export interface FieldChange {
  targetType: ChangeTargetType
  targetId: string | null
  fieldName: string
  oldValueMasked: string | null
  newValueMasked: string | null
}

/** Writes the change-log rows of one command; nothing sensitive reaches here unmasked. */
export function logChanges(
  tx: Sql,
  deps: AuditDeps,
  ctx: Pick<WriteContext, 'adminId' | 'requestId'>,
  supplierId: string,
  operationType: ChangeOperationType,
  changes: FieldChange[],
  extra: {
    changeReason?: string | null
    approvalLogId?: string | null
    status?: string | null
  } = {},
) {
  return appendChangeLogs(
    tx,
    deps,
    changes.map((c) => ({
      ...c,
      targetId: c.targetId ?? (c.targetType === 'SUPPLIER' ? supplierId : null),
      supplierId,
      operationType,
      operatorId: ctx.adminId,
      requestId: ctx.requestId,
      ...extra,
    })),
  )
}

/** The change-log row of a status move (of a supplier, or of an account). */
export const statusChange = (
  targetType: 'SUPPLIER' | 'ACCOUNT',
  targetId: string,
  from: string,
  to: string,
): FieldChange => ({
  targetType,
  targetId,
  fieldName: 'status',
  oldValueMasked: from,
  newValueMasked: to,
})
