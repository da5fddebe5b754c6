-- migrate:up
-- /metrics counts stuck approvals at every scrape; this keeps the count to the unfinished rows.
CREATE INDEX approval_log_unfinished ON approval_log (submitted_at) WHERE status IN ('SUBMITTED', 'APPROVED');

-- migrate:down
DROP INDEX IF EXISTS approval_log_unfinished;
