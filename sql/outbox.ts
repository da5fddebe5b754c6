import { none, type Sql } from './db'

/*
 * The outbox (domain_event): a write records its events in its own transaction, so an event
 * exists exactly when the change it announces committed. They stay PENDING: no publisher reads
 * them in this phase.
 */

export interface DomainEvent {
  aggregateType: 'SUPPLIER' | 'ACCOUNT' | 'RELATION' | 'SUPPLIER_TYPE'
  aggregateId: string
  eventType: string
  /** Ids, codes and field names only: never a sensitive value. */
  payload: Record<string, unknown>
}

/** Records a pending event in the caller's transaction (the outbox). */
export function insertEvent(sql: Sql, event: DomainEvent) {
  return none(sql`
    INSERT INTO domain_event (aggregate_type, aggregate_id, event_type, payload)
    VALUES (${event.aggregateType}, ${event.aggregateId}, ${event.eventType}, ${sql.json(event.payload as never)})
  `)
}
