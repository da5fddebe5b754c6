-- migrate:up

-- The relay (EVENTS_NATS_URL) publishes PENDING events in event_id order. An identity is taken
-- when a row is inserted, not when its transaction commits, so a smaller id can commit after a
-- larger one: a relay that read "every committed PENDING event" could publish 6 before 5. The
-- writing transaction's id lets it read only the events of transactions older than every running
-- one (tx_id < pg_snapshot_xmin(pg_current_snapshot())), which no later commit can precede.
ALTER TABLE domain_event ADD COLUMN tx_id xid8 NOT NULL DEFAULT pg_current_xact_id();
COMMENT ON COLUMN domain_event.tx_id IS
  'the writing transaction; the relay reads only events whose transaction is older than every running one';
COMMENT ON TABLE domain_event IS
  'outbox; PENDING until the relay (EVENTS_NATS_URL) has JetStream acknowledge it, then PUBLISHED';
-- The age gauge of /metrics and the relay both start from the oldest pending event.
CREATE INDEX domain_event_pending_time ON domain_event (create_time) WHERE status = 'PENDING';

-- One reminder per qualification, expiry date and kind, whatever the number of sweeps, restarts
-- or replicas: the sweep inserts here and records the event only for the rows it inserted, in
-- one transaction. A new expiry date is a new key, so it re-arms both reminders.
CREATE TABLE qualification_reminder (
  qualification_id bigint NOT NULL REFERENCES supplier_qualification (qualification_id),
  expiry_date date NOT NULL,
  kind text NOT NULL CONSTRAINT qualification_reminder_kind_check CHECK (kind IN ('EXPIRING', 'EXPIRED')),
  create_time timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (qualification_id, expiry_date, kind)
);
COMMENT ON TABLE qualification_reminder IS
  'QualificationExpiring / QualificationExpired recorded, once per qualification, expiry date and kind';

-- migrate:down

DROP TABLE qualification_reminder;
DROP INDEX domain_event_pending_time;
COMMENT ON TABLE domain_event IS 'outbox; the publisher port stays closed in this phase, so events stay PENDING';
ALTER TABLE domain_event DROP COLUMN tx_id;
