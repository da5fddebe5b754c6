import { insertEvents, type DomainEvent } from '../../../sql/outbox'
import { releaseLease, takeLease } from '../../../sql/lease'
import { claimDueReminders, type ReminderCursor } from '../../../sql/qualification-reminder'
import { today } from '../context'
import type { Deps } from '../deps'

/*
 * Qualification-expiry reminders: QualificationExpiring when a qualification enters its rule's
 * warning window, QualificationExpired when its expiry date has passed, each once per
 * qualification, expiry date and kind (the unique key of qualification_reminder), whatever the
 * number of sweeps, restarts or replicas; a new expiry date is a new key and re-arms both. They
 * are ordinary domain events (the catalog, the relay). No change-log row: nothing of the supplier
 * changed, the reminder is about time passing.
 */

/** The lease (sql/lease.ts) that lets one replica at a time sweep. */
const SWEEP_JOB = 'qualification-expiry-sweep'
const SWEEP_LEASE_SECONDS = 300
/** Reminders claimed and recorded per transaction. */
const BATCH = 500

export interface ReminderOutcome {
  /** False when another replica held the sweep lease. */
  ran: boolean
  expiring: number
  expired: number
}

/**
 * One sweep under the lease: claims the due reminders and records their events, a batch per
 * transaction, so that a key and its event commit together or not at all. `on` is the day to
 * sweep for (today in APP_TIMEZONE unless given). An aborted `signal` ends the sweep before its
 * next batch: a backlog (a first start on a large data set) takes minutes, and a service asked
 * to stop would otherwise be killed mid-sweep, its lease left to expire.
 */
export async function sweepQualificationReminders(
  deps: Pick<Deps, 'sql' | 'logger'> & { config: Pick<Deps['config'], 'timezone'> },
  on = today(deps.config.timezone),
  { batch = BATCH, signal }: { batch?: number; signal?: AbortSignal } = {},
): Promise<ReminderOutcome> {
  const outcome: ReminderOutcome = { ran: false, expiring: 0, expired: 0 }
  const holder = crypto.randomUUID()
  if (!(await takeLease(deps.sql, SWEEP_JOB, holder, SWEEP_LEASE_SECONDS))) return outcome
  outcome.ran = true
  try {
    let after: ReminderCursor | null = null
    while (!signal?.aborted) {
      const recorded = await recordDueReminders(deps, on, batch, after)
      after = recorded.last
      outcome.expiring += recorded.expiring
      outcome.expired += recorded.expired
      if (recorded.expiring + recorded.expired < batch) break
    }
  } finally {
    await releaseLease(deps.sql, SWEEP_JOB, holder)
  }
  if (outcome.expiring || outcome.expired) deps.logger.info(outcome, 'qualification reminders')
  return outcome
}

/** The order reminders are claimed in: expiry date, then qualification id. */
const laterThan = (a: ReminderCursor, b: ReminderCursor) =>
  a.expiryDate !== b.expiryDate
    ? a.expiryDate > b.expiryDate
    : BigInt(a.qualificationId) > BigInt(b.qualificationId)

/**
 * Claims up to `limit` due reminders after `after` and records their events in one transaction,
 * and says where the batch ended (`last`, null when it claimed none). Safe to run concurrently
 * with itself (the unique key decides who records), which is what the lease spares.
 */
export async function recordDueReminders(
  deps: Pick<Deps, 'sql'>,
  on: string,
  limit: number,
  after: ReminderCursor | null = null,
) {
  const counts = { expiring: 0, expired: 0, last: null as ReminderCursor | null }
  await deps.sql.begin(async (tx) => {
    const events: DomainEvent[] = []
    for (const r of await claimDueReminders(tx, on, limit, after)) {
      if (!counts.last || laterThan(r, counts.last)) counts.last = r
      const common = {
        supplierId: r.supplierId,
        qualificationId: r.qualificationId,
        qualificationType: r.qualificationType,
        expiryDate: r.expiryDate,
      }
      const aggregate = { aggregateType: 'SUPPLIER', aggregateId: r.supplierId } as const
      if (r.kind === 'EXPIRED') {
        events.push({ ...aggregate, eventType: 'QualificationExpired', payload: common })
        counts.expired++
      } else {
        events.push({
          ...aggregate,
          eventType: 'QualificationExpiring',
          payload: { ...common, warningDays: r.warningDays ?? 0 },
        })
        counts.expiring++
      }
    }
    // One statement for the batch's events: one each was 500 round trips a batch.
    await insertEvents(tx, events)
  })
  return counts
}

/**
 * Sweeps at start-up and then every QUALIFICATION_EXPIRY_SWEEP_INTERVAL_SECONDS (0: start-up
 * only) until the returned stop function is called; a failed sweep is logged, the next one runs.
 */
export function startQualificationReminders(deps: Deps) {
  const stop = new AbortController()
  let running: Promise<unknown> = Promise.resolve()
  const round = () => {
    running = sweepQualificationReminders(deps, undefined, { signal: stop.signal }).catch((err) =>
      deps.logger.warn({ err: (err as Error).message }, 'qualification reminder sweep failed'),
    )
  }
  round()
  const seconds = deps.config.qualificationExpirySweepSeconds
  const timer = seconds > 0 ? setInterval(round, seconds * 1000) : undefined
  timer?.unref()
  return async () => {
    clearInterval(timer)
    stop.abort()
    await running
  }
}
