import { parseEventPayload, type DomainEvent } from '../src/schemas/events'
import { z } from 'zod'
import { many, maybeOne, none, one, type Sql } from './db'

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
  orderKey: z.string(),
})

export type PublishableEvent = z.output<typeof StoredEventRow>

/**
 * The next PENDING events the relay may publish, in event_id order, each with its order key
 * (`domain_event_order_key`: the supplier, or the aggregate of an event of no supplier):
 * only those whose writing transaction is older than every transaction still running (tx_id
 * below the snapshot's xmin), so that no later commit can bring an event of the same supplier
 * with a smaller id, and none behind a PARKED event of its own key (a supplier's later events
 * wait for the parked one to be re-queued). The relay reads by status, not from a cursor, so
 * none is ever passed over.
 */
export function publishableEvents(sql: Sql, limit: number) {
  return many(
    sql`
      WITH parked AS (
        SELECT domain_event_order_key(aggregate_type, aggregate_id, payload) AS order_key, min(event_id) AS first_id
        FROM domain_event WHERE status = 'PARKED' GROUP BY 1
      )
      SELECT event_id::text AS "eventId", aggregate_type AS "aggregateType",
             aggregate_id::text AS "aggregateId", event_type AS "eventType", payload,
             to_char(create_time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "createTime",
             domain_event_order_key(aggregate_type, aggregate_id, payload) AS "orderKey"
      FROM domain_event e
      WHERE status = 'PENDING' AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
        AND NOT EXISTS (
          SELECT 1 FROM parked p
          WHERE p.order_key = domain_event_order_key(e.aggregate_type, e.aggregate_id, e.payload)
            AND p.first_id < e.event_id
        )
      ORDER BY event_id
      LIMIT ${limit}
    `,
    StoredEventRow,
  )
}

/** After JetStream acknowledged them: PUBLISHED, in one statement, once (again: no change). */
export function markPublished(sql: Sql, eventIds: readonly string[]) {
  return none(sql`
    UPDATE domain_event SET status = 'PUBLISHED', published_at = now()
    WHERE event_id = ANY(${eventIds as string[]}::bigint[]) AND status = 'PENDING'
  `)
}

/**
 * An event that cannot be published: PARKED with the reason (which names what is wrong, never a
 * value). True when this call parked it (it was PENDING).
 */
export async function parkEvent(sql: Sql, eventId: string, reason: string) {
  const parked = await none(sql`
    UPDATE domain_event SET status = 'PARKED', parked_reason = ${reason}, parked_at = now()
    WHERE event_id = ${eventId} AND status = 'PENDING'
  `)
  return parked === 1
}

const ParkedRow = z.object({
  eventId: z.string(),
  aggregateType: z.string(),
  aggregateId: z.string(),
  eventType: z.string(),
  orderKey: z.string(),
  reason: z.string().nullable(),
  parkedAt: z.string(),
  held: z.number(),
})

/** The PARKED events, oldest first, each with how many later events of its key wait behind it. */
export function parkedEvents(sql: Sql) {
  return many(
    sql`
      WITH parked AS (
        SELECT event_id, aggregate_type, aggregate_id, event_type, parked_reason, parked_at,
               domain_event_order_key(aggregate_type, aggregate_id, payload) AS order_key
        FROM domain_event WHERE status = 'PARKED'
      )
      SELECT p.event_id::text AS "eventId", p.aggregate_type AS "aggregateType",
             p.aggregate_id::text AS "aggregateId", p.event_type AS "eventType",
             p.order_key AS "orderKey", p.parked_reason AS reason,
             to_char(p.parked_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS "parkedAt",
             (SELECT count(*)::int FROM domain_event e
              WHERE e.status = 'PENDING' AND e.event_id > p.event_id
                AND domain_event_order_key(e.aggregate_type, e.aggregate_id, e.payload) = p.order_key) AS held
      FROM parked p ORDER BY p.event_id
    `,
    ParkedRow,
  )
}

const StoredPayload = z.object({ eventType: z.string(), payload: z.unknown(), status: z.string() })

/** One stored event's type, payload and status (null: no such event), for the operator's checks. */
export function storedEvent(sql: Sql, eventId: string) {
  return maybeOne(
    sql`
      SELECT event_type AS "eventType", payload, status FROM domain_event
      WHERE event_id = ${eventId}
    `,
    StoredPayload,
  )
}

/** A PARKED event back to PENDING, its reason cleared; true when it was PARKED. */
export async function requeueEvent(sql: Sql, eventId: string) {
  const requeued = await none(sql`
    UPDATE domain_event SET status = 'PENDING', parked_reason = NULL, parked_at = NULL
    WHERE event_id = ${eventId} AND status = 'PARKED'
  `)
  return requeued === 1
}

const HeldBy = z.object({
  held: z.number(),
  pid: z.number().nullable(),
  database: z.string().nullable(),
  ageSeconds: z.number().nullable(),
  state: z.string().nullable(),
})

/**
 * How many committed PENDING events the xmin rule holds back, and the transaction holding them
 * (the oldest one with a transaction id, of any database of the cluster; `pid` null when the
 * role cannot see it, which pg_read_all_stats allows).
 */
export function publishingHeldBy(sql: Sql) {
  return one(
    sql`
      SELECT (SELECT count(*)::int FROM domain_event
              WHERE status = 'PENDING' AND NOT tx_id < pg_snapshot_xmin(pg_current_snapshot())) AS held,
             a.pid, a.datname AS database,
             extract(epoch FROM now() - a.xact_start)::float8 AS "ageSeconds", a.state
      FROM (SELECT 1) AS one
      LEFT JOIN LATERAL (
        SELECT pid, datname, xact_start, state FROM pg_stat_activity
        WHERE backend_xid IS NOT NULL AND pid <> pg_backend_pid()
        ORDER BY age(backend_xid) DESC LIMIT 1
      ) AS a ON true
    `,
    HeldBy,
  )
}

const PendingStats = z.object({
  pending: z.number(),
  oldestAgeSeconds: z.number(),
  parked: z.number(),
})

/**
 * How many events wait, for how long the oldest has (0 when none), and how many are PARKED: for
 * /metrics.
 */
export function pendingEventStats(sql: Sql) {
  return one(
    sql`
      SELECT count(*)::int AS pending,
             COALESCE(extract(epoch FROM now() - min(create_time)), 0)::float8 AS "oldestAgeSeconds",
             (SELECT count(*)::int FROM domain_event WHERE status = 'PARKED') AS parked
      FROM domain_event WHERE status = 'PENDING'
    `,
    PendingStats,
  )
}
