import { parseEventPayload, type DomainEvent } from '../src/schemas/events'
import { none, type Sql } from './db'

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
  const parsed = parseEventPayload(event.eventType, event.payload)
  if (!parsed.success) throw new Error(`domain event refused: ${parsed.error}`)
  return none(sql`
    INSERT INTO domain_event (aggregate_type, aggregate_id, event_type, payload)
    VALUES (${event.aggregateType}, ${event.aggregateId}, ${event.eventType}, ${sql.json(parsed.data as never)})
  `)
}
