import type { Deps } from './deps'
import type { ApprovalProvider } from '../ports/approval-provider'
import type { ApprovalHandlers } from './approval/handler'
import type { RequestDeadline } from './deadline'

/** Who is writing, and the identity of the write for the duplicate-submit guard. */
export interface WriteContext {
  adminId: string
  requestId: string
  /** Operation id of the route (e.g. SUP-ADM-004). */
  operation: string
  /** The aggregate written, or '-' for a create. */
  target: string
  /** HMAC of the canonical request body: equal bodies, equal fingerprints, no plaintext kept. */
  fingerprint: string
  /** The client's Idempotency-Key, when it sent one. */
  idempotencyKey?: string
  /** The request's deadline: past it nothing of this write commits. Absent outside a request. */
  deadline?: RequestDeadline
  /** The route's advice codes (`advise`) the caller holds, e.g. whether it may see suppliers. */
  heldCodes?: readonly string[]
}

/** Today's date (yyyy-MM-dd) in the service time zone. */
export const today = (timezone: string, now = new Date()) =>
  new Intl.DateTimeFormat('en-CA', {
    timeZone: timezone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(now)

/** JSON with object keys sorted, so equal bodies serialize equally. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)),
        )
      : v,
  )
}

export type DomainDeps = Pick<Deps, 'config' | 'sql' | 'cipher' | 'logger' | 'observer'> & {
  approvalProvider: ApprovalProvider
  /** The approval business types the applier knows (`src/domain/approval-handlers.ts`). */
  approvalHandlers: ApprovalHandlers
}
