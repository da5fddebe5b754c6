-- migrate:up

-- The stuck-approval sweep runs on one replica at a time. A session advisory lock did that, but
-- behind a transaction pooler (PgBouncer with pool_mode = transaction) a session lock stays on
-- whichever server connection took it, and the unlock may reach another one: the lock leaks and
-- no replica sweeps again. A lease row works through any pooler, and a holder that dies lets it
-- expire instead of holding it forever.
CREATE TABLE job_lease (
  job text PRIMARY KEY,
  holder text NOT NULL,
  expires_at timestamptz NOT NULL
);

COMMENT ON TABLE job_lease IS
  'One row per background job that must run on one replica at a time: who holds it, until when.';

-- migrate:down

DROP TABLE job_lease;
