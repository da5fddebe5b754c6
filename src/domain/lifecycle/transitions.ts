import { SUPPLIER_STATUSES, updateSupplier, type SupplierColumns } from '../../../sql/supplier'
import type { Sql } from '../../../sql/db'
import { fail } from '../../errors'

export type SupplierStatus = (typeof SUPPLIER_STATUSES)[number]

/**
 * The state machine of the spec, one row per declared move. Nothing else decides a status:
 * a move missing here is SUPPLIER_STATUS_TRANSITION_INVALID.
 */
export const TRANSITIONS = [
  { from: 'DRAFT', trigger: 'SUBMIT_REGISTRATION', to: 'VETTING' },
  { from: 'VETTING', trigger: 'REGISTRATION_APPROVED', to: 'ACTIVE' },
  { from: 'VETTING', trigger: 'REGISTRATION_REJECTED', to: 'DRAFT' },
  { from: 'ACTIVE', trigger: 'SUSPEND', to: 'SUSPENDED' },
  { from: 'ACTIVE', trigger: 'FREEZE', to: 'FROZEN' },
  { from: 'ACTIVE', trigger: 'BLACKLIST', to: 'BLACKLIST' },
  { from: 'SUSPENDED', trigger: 'RESUME', to: 'ACTIVE' },
  { from: 'SUSPENDED', trigger: 'BLACKLIST', to: 'BLACKLIST' },
  { from: 'SUSPENDED', trigger: 'ARCHIVE', to: 'ARCHIVED' },
  { from: 'FROZEN', trigger: 'UNFREEZE', to: 'ACTIVE' },
  { from: 'FROZEN', trigger: 'BLACKLIST', to: 'BLACKLIST' },
  { from: 'BLACKLIST', trigger: 'UNBLACKLIST', to: 'SUSPENDED' },
  { from: 'BLACKLIST', trigger: 'ARCHIVE', to: 'ARCHIVED' },
] as const satisfies readonly { from: SupplierStatus; trigger: string; to: SupplierStatus }[]

export type Trigger = (typeof TRANSITIONS)[number]['trigger']

/** The target of `trigger` from `from`, or the spec's 395005. */
export function nextStatus(from: SupplierStatus, trigger: Trigger): SupplierStatus {
  const move = TRANSITIONS.find((t) => t.from === from && t.trigger === trigger)
  if (!move) fail('SUPPLIER_STATUS_TRANSITION_INVALID', `${trigger} is not allowed from ${from}`)
  return move.to
}

/**
 * Applies a declared move with the one guarded UPDATE (status and version compared in the
 * WHERE clause); a miss is a concurrent change, 395014.
 */
export async function moveStatus(
  sql: Sql,
  supplier: { supplierId: string; status: SupplierStatus; updateTime: string },
  trigger: Trigger,
  adminId: string,
  columns: SupplierColumns & { supplier_no?: string | null } = {},
) {
  const to = nextStatus(supplier.status, trigger)
  const row = await updateSupplier(
    sql,
    {
      supplierId: supplier.supplierId,
      status: supplier.status,
      expectedUpdateTime: supplier.updateTime,
      adminId,
    },
    { ...columns, status: to },
  )
  if (!row) fail('CONCURRENT_MODIFICATION')
  return { from: supplier.status, to, updateTime: row.updateTime }
}
