-- migrate:up

-- LOCAL_AUTO never fabricates an opinion: the applicant's submit note is its own column, and
-- notes stored as opinions by earlier releases move there (both encrypted; nothing is decrypted).
ALTER TABLE approval_log ADD COLUMN submit_note_enc text;
COMMENT ON COLUMN approval_log.submit_note_enc IS 'the applicant''s note sent with the submission, encrypted';
COMMENT ON COLUMN approval_log.opinion_enc IS 'the approver''s opinion from an external provider, encrypted; always empty for LOCAL_AUTO';
UPDATE approval_log SET submit_note_enc = opinion_enc, opinion_enc = NULL
WHERE provider = 'LOCAL_AUTO' AND opinion_enc IS NOT NULL;

-- An APPLY_FAILED approval whose re-check can never pass is WITHDRAWN by an administrator: the
-- record stays as evidence, the pending change is undone.
ALTER TABLE approval_log DROP CONSTRAINT approval_log_status_check;
ALTER TABLE approval_log ADD CONSTRAINT approval_log_status_check
  CHECK (status IN ('SUBMITTED', 'APPROVED', 'REJECTED', 'APPLIED', 'APPLY_FAILED', 'WITHDRAWN'));
ALTER TABLE approval_log ADD COLUMN withdrawn_at timestamptz;
CREATE INDEX approval_log_pending ON approval_log (submitted_at)
  WHERE status IN ('SUBMITTED', 'APPROVED');

-- Change log: withdrawals, and qualification-rule replacements (rules belong to a supplier type,
-- not to a supplier, so those rows carry no supplier).
ALTER TABLE change_log DROP CONSTRAINT change_log_status_check;
ALTER TABLE change_log ADD CONSTRAINT change_log_status_check
  CHECK (status IN ('SUBMITTED', 'APPROVED', 'REJECTED', 'APPLIED', 'APPLY_FAILED', 'WITHDRAWN'));
ALTER TABLE change_log DROP CONSTRAINT change_log_operation_type_check;
ALTER TABLE change_log ADD CONSTRAINT change_log_operation_type_check CHECK (operation_type IN (
  'DRAFT_CREATE', 'DRAFT_UPDATE', 'DRAFT_DELETE', 'PROFILE_UPDATE', 'CONTACT_REPLACE', 'REGISTRATION_SUBMIT',
  'REGISTRATION_APPLY', 'REGISTRATION_REJECT', 'REGISTRATION_APPLY_FAILED', 'REGISTRATION_WITHDRAW',
  'ACCOUNT_CREATE', 'ACCOUNT_CHANGE', 'ACCOUNT_DEFAULT', 'STATUS_CHANGE', 'ARCHIVE', 'RELATION_SET',
  'RELATION_UNBIND', 'QUALIFICATION_RULE_REPLACE'));
ALTER TABLE change_log DROP CONSTRAINT change_log_target_type_check;
ALTER TABLE change_log ADD CONSTRAINT change_log_target_type_check CHECK (target_type IN (
  'SUPPLIER', 'TYPE', 'CONTACT', 'QUALIFICATION', 'CONTRACT', 'EVALUATION', 'ACCOUNT', 'RELATION',
  'QUALIFICATION_RULE'));
ALTER TABLE change_log ALTER COLUMN supplier_id DROP NOT NULL;
ALTER TABLE change_log ADD CONSTRAINT change_log_supplier_required
  CHECK (supplier_id IS NOT NULL OR target_type = 'QUALIFICATION_RULE');
CREATE INDEX change_log_rule ON change_log (target_id, create_time DESC)
  WHERE target_type = 'QUALIFICATION_RULE';

ALTER TABLE domain_event DROP CONSTRAINT domain_event_aggregate_check;
ALTER TABLE domain_event ADD CONSTRAINT domain_event_aggregate_check
  CHECK (aggregate_type IN ('SUPPLIER', 'ACCOUNT', 'RELATION', 'SUPPLIER_TYPE'));

-- migrate:down

ALTER TABLE domain_event DROP CONSTRAINT domain_event_aggregate_check;
ALTER TABLE domain_event ADD CONSTRAINT domain_event_aggregate_check
  CHECK (aggregate_type IN ('SUPPLIER', 'ACCOUNT', 'RELATION'));
DROP INDEX change_log_rule;
ALTER TABLE change_log DROP CONSTRAINT change_log_supplier_required;
-- Rule rows have no supplier and cannot be kept under the old NOT NULL; change_log is
-- append-only, so going down past this migration needs those rows archived first.
ALTER TABLE change_log ALTER COLUMN supplier_id SET NOT NULL;
ALTER TABLE change_log DROP CONSTRAINT change_log_target_type_check;
ALTER TABLE change_log ADD CONSTRAINT change_log_target_type_check CHECK (target_type IN (
  'SUPPLIER', 'TYPE', 'CONTACT', 'QUALIFICATION', 'CONTRACT', 'EVALUATION', 'ACCOUNT', 'RELATION'));
ALTER TABLE change_log DROP CONSTRAINT change_log_operation_type_check;
ALTER TABLE change_log ADD CONSTRAINT change_log_operation_type_check CHECK (operation_type IN (
  'DRAFT_CREATE', 'DRAFT_UPDATE', 'DRAFT_DELETE', 'PROFILE_UPDATE', 'CONTACT_REPLACE', 'REGISTRATION_SUBMIT',
  'REGISTRATION_APPLY', 'REGISTRATION_REJECT', 'ACCOUNT_CREATE', 'ACCOUNT_CHANGE', 'ACCOUNT_DEFAULT',
  'STATUS_CHANGE', 'ARCHIVE', 'RELATION_SET', 'RELATION_UNBIND'));
ALTER TABLE change_log DROP CONSTRAINT change_log_status_check;
ALTER TABLE change_log ADD CONSTRAINT change_log_status_check
  CHECK (status IN ('SUBMITTED', 'APPROVED', 'REJECTED', 'APPLIED', 'APPLY_FAILED'));
DROP INDEX approval_log_pending;
ALTER TABLE approval_log DROP COLUMN withdrawn_at;
ALTER TABLE approval_log DROP CONSTRAINT approval_log_status_check;
ALTER TABLE approval_log ADD CONSTRAINT approval_log_status_check
  CHECK (status IN ('SUBMITTED', 'APPROVED', 'REJECTED', 'APPLIED', 'APPLY_FAILED'));
UPDATE approval_log SET opinion_enc = submit_note_enc WHERE provider = 'LOCAL_AUTO' AND submit_note_enc IS NOT NULL;
ALTER TABLE approval_log DROP COLUMN submit_note_enc;
