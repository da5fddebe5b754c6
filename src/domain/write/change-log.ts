import type { ChangeLogEntry } from '../audit/trail'
import type { WriteContext } from '../context'
import type { ChangeOperationType, ChangeTargetType } from '../../vocabulary'
import { maskAccountNo, maskCertNo, maskPhone, maskTaxNo, maskText } from '../../crypto/sensitive'

/*
 * The change log of a write: the rows every command and every approval handler records, their
 * values masked here, which `logChanges` (`../audit/trail`) writes sealed into the audit trail in
 * the transaction of the business write.
 */

/** A field-level change, values already masked for the change log. */
export interface FieldChange {
  targetType: ChangeTargetType
  targetId: string | null
  fieldName: string
  oldValueMasked: string | null
  newValueMasked: string | null
}

/** A change of the supplier itself may leave its target id out: it is the supplier's. */
const targetIdOf = (c: FieldChange, supplierId: string | null) =>
  c.targetId ?? (c.targetType === 'SUPPLIER' ? supplierId : null)

/** The change-log rows of one command: whose, which operation, what changed, and why. */
export interface ChangeLogRows {
  /** Null only for rows about a supplier type's qualification rules (their own chain). */
  supplierId: string | null
  operationType: ChangeOperationType
  changes: FieldChange[]
  changeReason?: string | null
  approvalLogId?: string | null
  status?: string | null
}

/** The change-log rows of one command, as `logChanges` (`../audit/trail`) writes them. */
export const changeLogEntries = (
  ctx: Pick<WriteContext, 'adminId' | 'requestId'>,
  { supplierId, operationType, changes, ...extra }: ChangeLogRows,
): ChangeLogEntry[] =>
  changes.map((c) => ({
    ...c,
    targetId: targetIdOf(c, supplierId),
    supplierId,
    operationType,
    operatorId: ctx.adminId,
    requestId: ctx.requestId,
    ...extra,
  }))

/**
 * The `changes` of an event: the same rows, with the same masked values, the change log gets, so
 * a consumer sees what changed without the event ever holding more than the log does.
 */
export const eventChanges = (supplierId: string, changes: FieldChange[]) =>
  changes.map((c) => ({
    targetType: c.targetType,
    targetId: targetIdOf(c, supplierId),
    field: c.fieldName,
    old: c.oldValueMasked,
    new: c.newValueMasked,
  }))

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

const EXCERPT = 200

/** Proof files are shown only to holders of supplier:account:proof:read: logs keep the count. */
const fileCount = (json: string) => {
  const n = (JSON.parse(json) as unknown[]).length
  return n === 1 ? '1 file' : `${n} files`
}

/** How a field's value may appear in a change log: sensitive ones masked, long ones cut. */
const POLICY: Record<string, (value: string) => string | null> = {
  taxNo: maskTaxNo,
  contactPhone: maskPhone,
  accountNo: maskAccountNo,
  certNo: maskCertNo,
  approveNote: maskText,
  opinion: maskText,
  proofFileUrls: fileCount,
}

export function maskForLog(field: string, value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null
  const text = typeof value === 'string' ? value : JSON.stringify(value)
  const policy = POLICY[field]
  if (policy) return policy(text)
  return text.length > EXCERPT ? `${text.slice(0, EXCERPT)}…` : text
}
