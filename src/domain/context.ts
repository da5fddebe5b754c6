import type { RequestDeadline } from './deadline'
import type { Contention } from './write/transaction'

/** Who is writing, and the identity of the write for the duplicate-submit guard. */
export interface WriteContext {
  adminId: string
  requestId: string
  /** The route's operationId (e.g. updateSupplier): the write's name in its kept claims. */
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
  /** Counts the times the write ran again after a lock conflict (the access log shows it). */
  contention?: Contention
}

/** Building an Intl formatter or collator costs far more than using one: one per time zone. */
const dayFormats = new Map<string, Intl.DateTimeFormat>()

/** Today's date (yyyy-MM-dd) in the service time zone. */
export function today(timezone: string, now = new Date()) {
  let format = dayFormats.get(timezone)
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone: timezone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    })
    dayFormats.set(timezone, format)
  }
  return format.format(now)
}

/**
 * The order `a.localeCompare(b)` gives (the default locale's collator), built once: the order of
 * keys in a canonical body, and so its fingerprint (kept with an Idempotency-Key), stays as it was.
 */
const keyOrder = new Intl.Collator()

/** JSON with object keys sorted, so equal bodies serialize equally. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => keyOrder.compare(a, b)),
        )
      : v,
  )
}
