-- migrate:up

-- An event the relay cannot publish (its payload fails today's catalog schema, its type is no
-- longer declared, its message is larger than the broker takes) is PARKED with the reason, and
-- the relay goes on. The later events of the same supplier wait behind it (still PENDING) until
-- an operator re-queues it (`npm run events -- requeue <id>`), so a consumer never sees a
-- supplier's events out of order.
ALTER TABLE domain_event DROP CONSTRAINT domain_event_status_check;
ALTER TABLE domain_event ADD CONSTRAINT domain_event_status_check
  CHECK (status IN ('PENDING', 'PUBLISHED', 'PARKED'));
ALTER TABLE domain_event ADD COLUMN parked_reason text;
ALTER TABLE domain_event ADD COLUMN parked_at timestamptz;
COMMENT ON COLUMN domain_event.parked_reason IS
  'why the relay could not publish it (names the failing fields, never a value); set while PARKED';
COMMENT ON TABLE domain_event IS
  'outbox; PENDING until the relay (EVENTS_NATS_URL) has JetStream acknowledge it, then PUBLISHED; PARKED when it cannot be published';
-- The key whose events the relay publishes one after the other, in event_id order: the supplier
-- (a SUPPLIER event's aggregate, the supplierId of an ACCOUNT or RELATION event); a SUPPLIER_TYPE
-- event, or a payload without supplierId, is keyed by its own aggregate.
CREATE FUNCTION domain_event_order_key(aggregate_type text, aggregate_id bigint, payload jsonb)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE WHEN aggregate_type = 'SUPPLIER' THEN aggregate_id::text
  ELSE COALESCE(payload->>'supplierId', aggregate_type || ':' || aggregate_id::text) END;
-- The relay reads PENDING events in event_id order; the parked ones are few and read every batch.
CREATE INDEX domain_event_pending_id ON domain_event (event_id) WHERE status = 'PENDING';
CREATE INDEX domain_event_parked_id ON domain_event (event_id) WHERE status = 'PARKED';

-- migrate:down

DROP INDEX domain_event_parked_id;
DROP FUNCTION domain_event_order_key(text, bigint, jsonb);
DROP INDEX domain_event_pending_id;
COMMENT ON TABLE domain_event IS
  'outbox; PENDING until the relay (EVENTS_NATS_URL) has JetStream acknowledge it, then PUBLISHED';
ALTER TABLE domain_event DROP COLUMN parked_at;
ALTER TABLE domain_event DROP COLUMN parked_reason;
ALTER TABLE domain_event DROP CONSTRAINT domain_event_status_check;
ALTER TABLE domain_event ADD CONSTRAINT domain_event_status_check
  CHECK (status IN ('PENDING', 'PUBLISHED'));
