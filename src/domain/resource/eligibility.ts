import { isAllowed } from '../lifecycle/policy'
import { SUPPLIER_STATUSES, type SupplierStatus } from '../../vocabulary'

/*
 * Which lifecycle statuses may take part in new business through a resource relation, as the
 * spec's prohibitions say: DRAFT cannot be chosen for business; SUSPENDED, FROZEN and BLACKLIST
 * allow no new business selection (BLACKLIST explicitly no new resource relation); ARCHIVED is
 * read-only. VETTING is not yet approved (no supplierNo), so it is not chosen either. The same
 * table says whether an existing relation is still available. The rule itself is the lifecycle's
 * in-state policy (NEW_RELATION); this is its view by status.
 */
export const NEW_RELATION_ALLOWED = Object.fromEntries(
  SUPPLIER_STATUSES.map((status) => [status, isAllowed(status, 'NEW_RELATION')]),
) as Record<SupplierStatus, boolean>

/** Why a relation is not (or would not be) available; `[]` when it is. */
export type RelationReason =
  `SUPPLIER_STATUS_${SupplierStatus}` | 'REQUIRED_TYPE_NOT_HELD' | 'RESOURCE_UNAVAILABLE'

export function relationReasons(facts: {
  supplierStatus: SupplierStatus
  requiredTypeHeld: boolean
  resourceAvailable: boolean
}): RelationReason[] {
  const reasons: RelationReason[] = []
  if (!NEW_RELATION_ALLOWED[facts.supplierStatus])
    reasons.push(`SUPPLIER_STATUS_${facts.supplierStatus}`)
  if (!facts.requiredTypeHeld) reasons.push('REQUIRED_TYPE_NOT_HELD')
  if (!facts.resourceAvailable) reasons.push('RESOURCE_UNAVAILABLE')
  return reasons
}
