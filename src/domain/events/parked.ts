import { parkedEvents, requeueEvent, storedEvent } from '../../../sql/outbox'
import { parseEventPayload } from '../../schemas/events'
import type { Sql } from '../../../sql/db'

/*
 * The operator's side of parking (scripts/events.ts, docs/operations.md): the events the relay
 * could not publish, and putting one back in line once its cause is fixed.
 */

/** The PARKED events, oldest first, each with its reason and the later events waiting on it. */
export const listParked = (sql: Sql) => parkedEvents(sql)

export type RequeueOutcome =
  | { requeued: true }
  | { requeued: false; why: 'NOT_FOUND' | 'NOT_PARKED' | 'STILL_REFUSED'; detail: string }

/**
 * PARKED back to PENDING, so that the relay publishes it and then the later events of its
 * supplier. Refused while today's catalog still refuses its type or payload (the relay would only
 * park it again): fix the row or deploy the catalog that reads it first.
 */
export async function requeueParked(sql: Sql, eventId: string): Promise<RequeueOutcome> {
  if (!/^[1-9][0-9]{0,18}$/.test(eventId)) {
    return { requeued: false, why: 'NOT_FOUND', detail: `"${eventId}" is not an event id` }
  }
  const row = await storedEvent(sql, eventId)
  if (!row) return { requeued: false, why: 'NOT_FOUND', detail: `no event ${eventId}` }
  if (row.status !== 'PARKED') {
    return { requeued: false, why: 'NOT_PARKED', detail: `event ${eventId} is ${row.status}` }
  }
  const parsed = parseEventPayload(row.eventType, row.payload)
  if (!parsed.success) return { requeued: false, why: 'STILL_REFUSED', detail: parsed.error }
  if (!(await requeueEvent(sql, eventId))) {
    return { requeued: false, why: 'NOT_PARKED', detail: `event ${eventId} is no longer PARKED` }
  }
  return { requeued: true }
}
