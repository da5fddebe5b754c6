-- migrate:up

-- Post-registration accounts (SUP-ADM-035/036): a created account whose approval is rejected
-- stays as evidence with status REJECTED (it never held money and no longer holds its number).
ALTER TABLE supplier_bank_account DROP CONSTRAINT supplier_bank_account_status_check;
ALTER TABLE supplier_bank_account ADD CONSTRAINT supplier_bank_account_status_check
  CHECK (status IN ('DRAFT', 'PENDING', 'ACTIVE', 'APPLY_FAILED', 'REJECTED'));
COMMENT ON COLUMN supplier_bank_account.status IS
  'DRAFT: initial account of an unsubmitted registration; PENDING: under approval; ACTIVE: applied by an approval; APPLY_FAILED: approved, not applied (retryable); REJECTED: creation rejected. Moves: src/domain/account/statuses.ts';

-- Risk flags of the values the account holds now (codes only, e.g. ACCOUNT_NO_HELD_ELSEWHERE,
-- PERSONAL_HOLDER_MISMATCH); written with the values by the approval that set them.
ALTER TABLE supplier_bank_account ADD COLUMN risk_flags jsonb NOT NULL DEFAULT '[]'::jsonb
  CONSTRAINT supplier_bank_account_risk_flags_array CHECK (jsonb_typeof(risk_flags) = 'array');

-- The fraud signal looks an account number up at every other supplier, whatever its status.
CREATE INDEX supplier_bank_account_no_live ON supplier_bank_account (account_no_bidx) WHERE deleted_at IS NULL;

-- The approval record carries the risk flags of its candidate (ids and codes only), read from
-- the snapshot so that the two can never disagree; a later provider can route on them.
ALTER TABLE approval_log ADD COLUMN risk_flags jsonb
  GENERATED ALWAYS AS (COALESCE(candidate_snapshot -> 'riskFlags', '[]'::jsonb)) STORED;
CREATE INDEX approval_log_risky ON approval_log (approval_log_id) WHERE risk_flags <> '[]'::jsonb;

-- migrate:down

DROP INDEX approval_log_risky;
ALTER TABLE approval_log DROP COLUMN risk_flags;
DROP INDEX supplier_bank_account_no_live;
ALTER TABLE supplier_bank_account DROP COLUMN risk_flags;
UPDATE supplier_bank_account SET status = 'APPLY_FAILED' WHERE status = 'REJECTED';
ALTER TABLE supplier_bank_account DROP CONSTRAINT supplier_bank_account_status_check;
ALTER TABLE supplier_bank_account ADD CONSTRAINT supplier_bank_account_status_check
  CHECK (status IN ('DRAFT', 'PENDING', 'ACTIVE', 'APPLY_FAILED'));
COMMENT ON COLUMN supplier_bank_account.status IS 'DRAFT: initial account of an unsubmitted registration; ACTIVE: applied by an approval';
