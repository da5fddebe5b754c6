import type { PermissionLookup } from './permission'

/**
 * What the service reports about itself; on Node, Prometheus metrics (src/metrics.ts), on the
 * edge nothing. Every method is cheap and never throws.
 */
export interface Observer {
  /** One answered request, by route template (never the raw path) and business code. */
  request(r: {
    method: string
    route: string
    status: number
    code?: number
    seconds: number
  }): void
  /** A permission or role lookup that failed or timed out (and so denied). */
  permissionLookupFailed(): void
  /**
   * A write transaction the server ended as a deadlock (40P01) or serialization failure (40001):
   * run again ('retried'), or answered 395014 after the last attempt ('refused').
   */
  writeConflict(sqlState: string, outcome: 'retried' | 'refused'): void
  /** Where an approval ended after the applier ran: APPLIED, REJECTED, APPLY_FAILED, … */
  approvalOutcome(bizType: string, outcome: string): void
  /** A read-only route read from a standby or the primary, and why (DATABASE_READ_URL set). */
  databaseRead?(target: 'standby' | 'primary', reason: string): void
  /** A standby's replay lag as last measured, in seconds; undefined while it does not answer. */
  standbyLag?(standby: string, seconds: number | undefined): void
  /** The relay had `count` (1 when not given) events acknowledged by the broker and marked. */
  eventPublished(count?: number): void
  /** A failed attempt of the relay: a publish, or a connection (the events stay PENDING). */
  eventPublishFailed(): void
  /** The relay parked an event it cannot publish. */
  eventParked?(): void
}

/** Reports every lookup that rejects (error or deadline), then rejects as before. */
export function observeLookupFailures(
  lookup: PermissionLookup,
  observer: Observer | undefined,
): PermissionLookup {
  if (!observer) return lookup
  const watch = <T>(work: Promise<T>) =>
    work.catch((err: unknown) => {
      observer.permissionLookupFailed()
      throw err
    })
  const { allows, grantsOf } = lookup
  return {
    has: (adminId, code) => watch(lookup.has(adminId, code)),
    roles: (adminId) => watch(lookup.roles(adminId)),
    ...(allows && {
      allows: (adminId, access) => watch(allows.call(lookup, adminId, access)),
    }),
    ...(grantsOf && {
      grantsOf: (adminId, codes, withRoles) =>
        watch(grantsOf.call(lookup, adminId, codes, withRoles)),
    }),
    fromServiceDatabase: lookup.fromServiceDatabase,
    readGrants: lookup.readGrants,
  }
}
