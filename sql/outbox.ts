import { parseEventPayload, type DomainEvent } from '../src/schemas/events'
import { z } from 'zod'
import { many, none, one, type Sql } from './db'

export type { DomainEvent }

/*
 * The outbox (domain_event): a write records its events in its own transaction, so an event
 * exists exactly when the change it announces committed. They stay PENDING until the relay
 * (src/domain/events/relay.ts), when one is configured, has them acknowledged by the broker.
 */

/**
 * Records a pending event in the caller's transaction (the outbox). The payload is parsed by its
 * catalog schema first: a payload tsc let through (a cast, a spread) still cannot store an
 * undeclared key, and the write fails instead of announcing something malformed.
 */
export async function insertEvent(sql: Sql, event: DomainEvent) {
  return insertEvents(sql, [event])
}

/** Pending events of one write, in one statement, in the order given (none: no statement). */
export async function insertEvents(sql: Sql, events: readonly DomainEvent[]) {
  if (events.length) await none(insertEventsStep(sql, events))
}

/**
 * The INSERT of pending events, to run alone or as a step of another statement (the change log's,
 * `insertSealedChangeLogs`): one statement however many, recorded in the order given. Each
 * payload is parsed by its catalog schema first, as `insertEvent` says.
 */
export function insertEventsStep(sql: Sql, events: readonly DomainEvent[]) {
  const rows = events.map((event) => {
    const parsed = parseEventPayload(event.eventType, event.payload)
    if (!parsed.success) throw new Error(`domain event refused: ${parsed.error}`)
    return { t: event.aggregateType, id: event.aggregateId, e: event.eventType, p: parsed.data }
  })
  if (rows.length === 1) {
    const [r] = rows
    return sql`
      INSERT INTO domain_event (aggregate_type, aggregate_id, event_type, payload)
      VALUES (${r.t}, ${r.id}, ${r.e}, ${sql.json(r.p as never)})
    `
  }
  return sql`
    INSERT INTO domain_event (aggregate_type, aggregate_id, event_type, payload)
    SELECT e.v->>'t', (e.v->>'id')::bigint, e.v->>'e', e.v->'p'
    FROM jsonb_array_elements(${sql.json(rows as never)}) WITH ORDINALITY AS e(v, n)
    ORDER BY e.n
  `
}

const StoredEventRow = z.object({
  eventId: z.string(),
  aggregateType: z.string(),
  aggregateId: z.string(),
  eventType: z.string(),
  payload: z.unknown(),
  createTime: z.string(),
})

/**
 * The next PENDING events the relay may publish, in event_id order: only those whose writing
 * transaction is older than every transaction still running (tx_id below the snapshot's xmin).
 * A running transaction may hold a smaller event_id than a committed one; reading past it would
 * publish out of order, so the committed one waits until that transaction ends, and no event is
 * ever passed over (the relay reads by status, not from a cursor).
 */
export function publishableEvents(sql: Sql, limit: number) {
  return many(
    sql`
      SELECT event_id::text AS "eventId", aggregate_type AS "aggregateType",
             aggregate_id::text AS "aggregateId", event_type AS "eventType", payload,
             to_char(create_time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "createTime"
      FROM domain_event
      WHERE status = 'PENDING' AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
      ORDER BY event_id
      LIMIT ${limit}
    `,
    StoredEventRow,
  )
}

/** After JetStream acknowledged it: PUBLISHED, once (a second call changes nothing). */
export function markPublished(sql: Sql, eventId: string) {
  return none(sql`
    UPDATE domain_event SET status = 'PUBLISHED', published_at = now()
    WHERE event_id = ${eventId} AND status = 'PENDING'
  `)
}

const PendingStats = z.object({ pending: z.number(), oldestAgeSeconds: z.number() })

/** How many events wait, and for how long the oldest has (0 when none): for /metrics. */
export function pendingEventStats(sql: Sql) {
  return one(
    sql`
      SELECT count(*)::int AS pending,
             COALESCE(extract(epoch FROM now() - min(create_time)), 0)::float8 AS "oldestAgeSeconds"
      FROM domain_event WHERE status = 'PENDING'
    `,
    PendingStats,
  )
}
