-- migrate:up

CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- The version rule of the service: expectedUpdateTime has one-second resolution, so every
-- write moves update_time to a later second, even two writes within the same second.
CREATE FUNCTION next_version(previous timestamptz) RETURNS timestamptz
  LANGUAGE sql STABLE
  AS $$ SELECT greatest(date_trunc('second', now()), date_trunc('second', previous) + interval '1 second') $$;

-- Evidence tables (approval logs, change logs, sensitive-read audit) are append-only.
CREATE FUNCTION forbid_evidence_change() RETURNS trigger
  LANGUAGE plpgsql
  AS $$ BEGIN RAISE EXCEPTION '% is append-only evidence: % refused', TG_TABLE_NAME, TG_OP; END $$;

CREATE FUNCTION forbid_delete() RETURNS trigger
  LANGUAGE plpgsql
  AS $$ BEGIN RAISE EXCEPTION '% rows are never deleted (soft delete or keep): DELETE refused', TG_TABLE_NAME; END $$;

-- Which seed files have been loaded (demo data is loaded once per database).
CREATE TABLE seed_run (
  seed_name text PRIMARY KEY,
  run_at timestamptz NOT NULL DEFAULT now()
);

-- Platform dictionary ----------------------------------------------------------------------

CREATE TABLE dict_type (
  dict_type_id bigint GENERATED ALWAYS AS IDENTITY (START WITH 9007199254740993) PRIMARY KEY,
  dict_type text NOT NULL CONSTRAINT dict_type_code_format CHECK (dict_type ~ '^[a-z][a-z0-9_]{0,99}$'),
  dict_name text NOT NULL,
  status text NOT NULL DEFAULT 'ACTIVE' CONSTRAINT dict_type_status_check CHECK (status IN ('ACTIVE', 'DISABLED')),
  create_time timestamptz NOT NULL DEFAULT now(),
  update_time timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE UNIQUE INDEX dict_type_code_live ON dict_type (dict_type) WHERE deleted_at IS NULL;

CREATE TABLE dict_data (
  dict_data_id bigint GENERATED ALWAYS AS IDENTITY (START WITH 9007199254740993) PRIMARY KEY,
  dict_type text NOT NULL,
  dict_label text NOT NULL,
  dict_value text NOT NULL,
  sort_order integer NOT NULL DEFAULT 0,
  status text NOT NULL DEFAULT 'ACTIVE' CONSTRAINT dict_data_status_check CHECK (status IN ('ACTIVE', 'DISABLED')),
  create_time timestamptz NOT NULL DEFAULT now(),
  update_time timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE UNIQUE INDEX dict_data_value_live ON dict_data (dict_type, dict_value) WHERE deleted_at IS NULL;
COMMENT ON COLUMN dict_data.status IS 'ACTIVE = item enabled; not the supplier lifecycle status';

-- Dictionary items are reference data: db/seed/reference.sql, loaded by the service at start-up.

-- Administrators (default PermissionLookup adapter) ------------------------------------------

CREATE TABLE admin_role (
  id bigint GENERATED ALWAYS AS IDENTITY (START WITH 9007199254740993) PRIMARY KEY,
  admin_id bigint NOT NULL CONSTRAINT admin_role_admin_positive CHECK (admin_id > 0),
  role_code text NOT NULL CONSTRAINT admin_role_code_format CHECK (role_code ~ '^[A-Z][A-Z0-9_]{0,63}$'),
  create_time timestamptz NOT NULL DEFAULT now(),
  update_time timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE UNIQUE INDEX admin_role_live ON admin_role (admin_id, role_code) WHERE deleted_at IS NULL;

CREATE TABLE admin_permission (
  id bigint GENERATED ALWAYS AS IDENTITY (START WITH 9007199254740993) PRIMARY KEY,
  admin_id bigint NOT NULL CONSTRAINT admin_permission_admin_positive CHECK (admin_id > 0),
  permission_code text NOT NULL CONSTRAINT admin_permission_code_format CHECK (permission_code ~ '^[a-z]+(:[a-z]+)+$'),
  create_time timestamptz NOT NULL DEFAULT now(),
  update_time timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE UNIQUE INDEX admin_permission_live ON admin_permission (admin_id, permission_code) WHERE deleted_at IS NULL;

-- Suppliers --------------------------------------------------------------------------------

CREATE SEQUENCE supplier_no_seq START WITH 100001;

CREATE TABLE supplier (
  supplier_id bigint GENERATED ALWAYS AS IDENTITY (START WITH 9007199254740993) PRIMARY KEY,
  supplier_no text,
  full_name text NOT NULL CONSTRAINT supplier_full_name_length CHECK (char_length(full_name) BETWEEN 1 AND 500),
  short_name text CONSTRAINT supplier_short_name_length CHECK (char_length(short_name) <= 300),
  tax_no_enc text NOT NULL,
  tax_no_bidx text NOT NULL,
  tax_no_mask text NOT NULL,
  legal_representative text CONSTRAINT supplier_legal_rep_length CHECK (char_length(legal_representative) <= 500),
  contact_phone_enc text,
  contact_phone_mask text,
  establish_date date,
  registered_capital text CONSTRAINT supplier_capital_length CHECK (char_length(registered_capital) <= 50),
  business_scope text CONSTRAINT supplier_scope_length CHECK (char_length(business_scope) <= 500),
  address text CONSTRAINT supplier_address_length CHECK (char_length(address) <= 500),
  staff_scale text CONSTRAINT supplier_staff_scale_check CHECK (staff_scale IN ('LT50', 'R50_200', 'R200_500', 'GT500')),
  main_cooperation text NOT NULL CONSTRAINT supplier_main_cooperation_bytes CHECK (octet_length(main_cooperation) BETWEEN 1 AND 65535),
  license_image_url text CONSTRAINT supplier_license_url_length CHECK (char_length(license_image_url) <= 500),
  approve_note text CONSTRAINT supplier_approve_note_bytes CHECK (octet_length(approve_note) <= 16777215),
  remark text CONSTRAINT supplier_remark_bytes CHECK (octet_length(remark) <= 16777215),
  status text NOT NULL DEFAULT 'DRAFT' CONSTRAINT supplier_status_check
    CHECK (status IN ('DRAFT', 'VETTING', 'ACTIVE', 'SUSPENDED', 'FROZEN', 'BLACKLIST', 'ARCHIVED')),
  credit_level text,
  total_score numeric(6, 2),
  is_related_party boolean NOT NULL DEFAULT false,
  submitted_snapshot jsonb,
  create_time timestamptz NOT NULL DEFAULT now(),
  update_time timestamptz NOT NULL DEFAULT date_trunc('second', now()),
  created_by bigint NOT NULL,
  updated_by bigint NOT NULL,
  deleted_at timestamptz,
  CONSTRAINT supplier_no_only_after_approval CHECK (supplier_no IS NULL OR status NOT IN ('DRAFT', 'VETTING')),
  CONSTRAINT supplier_delete_only_draft CHECK (deleted_at IS NULL OR status = 'DRAFT')
);
COMMENT ON COLUMN supplier.tax_no_enc IS 'AES-256-GCM ciphertext v1.<keyId>.<iv>.<ct>; never plaintext';
COMMENT ON COLUMN supplier.tax_no_bidx IS 'HMAC-SHA256 blind index of the normalized tax number (rule C-02)';
COMMENT ON COLUMN supplier.submitted_snapshot IS 'identifying data frozen at submit; VETTING edits cannot touch it';
COMMENT ON COLUMN supplier.update_time IS 'the version: expectedUpdateTime is compared to it at one-second resolution';
CREATE UNIQUE INDEX supplier_tax_no_live ON supplier (tax_no_bidx) WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX supplier_no_live ON supplier (supplier_no) WHERE deleted_at IS NULL AND supplier_no IS NOT NULL;
CREATE INDEX supplier_list_order ON supplier (create_time DESC, supplier_id DESC) WHERE deleted_at IS NULL;
CREATE INDEX supplier_status_live ON supplier (status) WHERE deleted_at IS NULL;
CREATE INDEX supplier_full_name_trgm ON supplier USING gin (lower(full_name) gin_trgm_ops) WHERE deleted_at IS NULL;
CREATE INDEX supplier_short_name_trgm ON supplier USING gin (lower(short_name) gin_trgm_ops) WHERE deleted_at IS NULL;
CREATE INDEX supplier_no_trgm ON supplier USING gin (lower(supplier_no) gin_trgm_ops) WHERE deleted_at IS NULL;
CREATE TRIGGER supplier_no_physical_delete BEFORE DELETE ON supplier FOR EACH ROW EXECUTE FUNCTION forbid_delete();

CREATE TABLE supplier_type (
  id bigint GENERATED ALWAYS AS IDENTITY (START WITH 9007199254740993) PRIMARY KEY,
  supplier_id bigint NOT NULL REFERENCES supplier (supplier_id),
  type_code text NOT NULL,
  is_primary boolean NOT NULL DEFAULT false,
  create_time timestamptz NOT NULL DEFAULT now(),
  update_time timestamptz NOT NULL DEFAULT date_trunc('second', now()),
  deleted_at timestamptz
);
CREATE UNIQUE INDEX supplier_type_live ON supplier_type (supplier_id, type_code) WHERE deleted_at IS NULL;
CREATE INDEX supplier_type_code_live ON supplier_type (type_code, supplier_id) WHERE deleted_at IS NULL;
CREATE TRIGGER supplier_type_no_physical_delete BEFORE DELETE ON supplier_type FOR EACH ROW EXECUTE FUNCTION forbid_delete();

CREATE TABLE supplier_contact (
  contact_id bigint GENERATED ALWAYS AS IDENTITY (START WITH 9007199254740993) PRIMARY KEY,
  supplier_id bigint NOT NULL REFERENCES supplier (supplier_id),
  contact_name text NOT NULL CONSTRAINT supplier_contact_name_length CHECK (char_length(contact_name) BETWEEN 1 AND 500),
  contact_phone_enc text NOT NULL,
  contact_phone_mask text NOT NULL,
  contact_role text CONSTRAINT supplier_contact_role_length CHECK (char_length(contact_role) <= 64),
  remark text CONSTRAINT supplier_contact_remark_length CHECK (char_length(remark) <= 200),
  status text NOT NULL DEFAULT 'ACTIVE' CONSTRAINT supplier_contact_status_check CHECK (status IN ('ACTIVE')),
  create_time timestamptz NOT NULL DEFAULT now(),
  update_time timestamptz NOT NULL DEFAULT date_trunc('second', now()),
  deleted_at timestamptz
);
CREATE INDEX supplier_contact_live ON supplier_contact (supplier_id) WHERE deleted_at IS NULL;
CREATE TRIGGER supplier_contact_no_physical_delete BEFORE DELETE ON supplier_contact FOR EACH ROW EXECUTE FUNCTION forbid_delete();

CREATE TABLE supplier_qualification (
  qualification_id bigint GENERATED ALWAYS AS IDENTITY (START WITH 9007199254740993) PRIMARY KEY,
  supplier_id bigint NOT NULL REFERENCES supplier (supplier_id),
  qual_type text NOT NULL CONSTRAINT supplier_qualification_type_length CHECK (char_length(qual_type) BETWEEN 1 AND 64),
  cert_no_enc text,
  cert_no_mask text,
  image_url text CONSTRAINT supplier_qualification_image_bytes CHECK (octet_length(image_url) <= 65535),
  expiry_date date,
  status text NOT NULL DEFAULT 'ACTIVE' CONSTRAINT supplier_qualification_status_check CHECK (status IN ('ACTIVE')),
  create_time timestamptz NOT NULL DEFAULT now(),
  update_time timestamptz NOT NULL DEFAULT date_trunc('second', now()),
  deleted_at timestamptz
);
COMMENT ON TABLE supplier_qualification IS 'isRequired is derived from qualification_rule at read time, never stored from clients';
CREATE INDEX supplier_qualification_live ON supplier_qualification (supplier_id) WHERE deleted_at IS NULL;
CREATE INDEX supplier_qualification_expiry_live ON supplier_qualification (expiry_date) WHERE deleted_at IS NULL;
CREATE TRIGGER supplier_qualification_no_physical_delete BEFORE DELETE ON supplier_qualification FOR EACH ROW EXECUTE FUNCTION forbid_delete();

CREATE TABLE qualification_rule (
  rule_id bigint GENERATED ALWAYS AS IDENTITY (START WITH 9007199254740993) PRIMARY KEY,
  type_code text NOT NULL,
  qual_type text NOT NULL CONSTRAINT qualification_rule_type_length CHECK (char_length(qual_type) BETWEEN 1 AND 64),
  is_required boolean NOT NULL,
  warning_days integer NOT NULL CONSTRAINT qualification_rule_warning_days_check CHECK (warning_days >= 0),
  sort_order integer NOT NULL DEFAULT 0 CONSTRAINT qualification_rule_sort_order_check CHECK (sort_order >= 0),
  create_time timestamptz NOT NULL DEFAULT now(),
  update_time timestamptz NOT NULL DEFAULT date_trunc('second', now()),
  deleted_at timestamptz
);
CREATE UNIQUE INDEX qualification_rule_live ON qualification_rule (type_code, qual_type) WHERE deleted_at IS NULL;

-- Contracts and evaluations: the spec defines only their merge shape (id + version) so far.
CREATE TABLE supplier_contract (
  contract_id bigint GENERATED ALWAYS AS IDENTITY (START WITH 9007199254740993) PRIMARY KEY,
  supplier_id bigint NOT NULL REFERENCES supplier (supplier_id),
  create_time timestamptz NOT NULL DEFAULT now(),
  update_time timestamptz NOT NULL DEFAULT date_trunc('second', now()),
  deleted_at timestamptz
);
CREATE INDEX supplier_contract_live ON supplier_contract (supplier_id) WHERE deleted_at IS NULL;
CREATE TRIGGER supplier_contract_no_physical_delete BEFORE DELETE ON supplier_contract FOR EACH ROW EXECUTE FUNCTION forbid_delete();

CREATE TABLE supplier_evaluation (
  evaluation_id bigint GENERATED ALWAYS AS IDENTITY (START WITH 9007199254740993) PRIMARY KEY,
  supplier_id bigint NOT NULL REFERENCES supplier (supplier_id),
  create_time timestamptz NOT NULL DEFAULT now(),
  update_time timestamptz NOT NULL DEFAULT date_trunc('second', now()),
  deleted_at timestamptz
);
CREATE INDEX supplier_evaluation_live ON supplier_evaluation (supplier_id) WHERE deleted_at IS NULL;
CREATE TRIGGER supplier_evaluation_no_physical_delete BEFORE DELETE ON supplier_evaluation FOR EACH ROW EXECUTE FUNCTION forbid_delete();

CREATE TABLE supplier_bank_account (
  account_id bigint GENERATED ALWAYS AS IDENTITY (START WITH 9007199254740993) PRIMARY KEY,
  supplier_id bigint NOT NULL REFERENCES supplier (supplier_id),
  account_name text NOT NULL,
  account_type text NOT NULL CONSTRAINT supplier_bank_account_type_check CHECK (account_type IN ('CORPORATE', 'PERSONAL')),
  bank_name text NOT NULL CONSTRAINT supplier_bank_account_bank_length CHECK (char_length(bank_name) BETWEEN 1 AND 500),
  bank_branch text CONSTRAINT supplier_bank_account_branch_length CHECK (char_length(bank_branch) <= 500),
  account_no_enc text NOT NULL,
  account_no_bidx text NOT NULL,
  account_no_mask text NOT NULL,
  proof_file_urls jsonb NOT NULL DEFAULT '[]'::jsonb CONSTRAINT supplier_bank_account_proof_array CHECK (jsonb_typeof(proof_file_urls) = 'array' AND jsonb_array_length(proof_file_urls) <= 20),
  settle_mode text CONSTRAINT supplier_bank_account_settle_mode_check CHECK (settle_mode IN ('PER_ORDER', 'WEEKLY', 'MONTHLY', 'PREPAID')),
  account_period integer CONSTRAINT supplier_bank_account_period_check CHECK (account_period IS NULL OR (account_period BETWEEN 1 AND 365 AND settle_mode = 'MONTHLY')),
  invoice_type text CONSTRAINT supplier_bank_account_invoice_check CHECK (invoice_type IN ('SPECIAL', 'NORMAL', 'NONE')),
  tax_rate numeric(5, 2) CONSTRAINT supplier_bank_account_tax_rate_check CHECK (tax_rate >= 0 AND tax_rate <= 100),
  status text NOT NULL CONSTRAINT supplier_bank_account_status_check CHECK (status IN ('DRAFT', 'PENDING', 'ACTIVE', 'APPLY_FAILED')),
  is_default text NOT NULL DEFAULT 'NO' CONSTRAINT supplier_bank_account_default_check CHECK (is_default IN ('YES', 'NO')),
  create_time timestamptz NOT NULL DEFAULT now(),
  update_time timestamptz NOT NULL DEFAULT date_trunc('second', now()),
  created_by bigint NOT NULL,
  deleted_at timestamptz,
  CONSTRAINT supplier_bank_account_tax_rate_by_invoice CHECK (
    (invoice_type IS NULL) OR (invoice_type = 'NONE' AND tax_rate IS NULL) OR (invoice_type IN ('SPECIAL', 'NORMAL') AND tax_rate IS NOT NULL))
);
COMMENT ON COLUMN supplier_bank_account.status IS 'DRAFT: initial account of an unsubmitted registration; ACTIVE: applied by an approval';
CREATE UNIQUE INDEX supplier_bank_account_one_default ON supplier_bank_account (supplier_id) WHERE deleted_at IS NULL AND is_default = 'YES';
CREATE UNIQUE INDEX supplier_bank_account_no_active ON supplier_bank_account (account_no_bidx) WHERE deleted_at IS NULL AND status = 'ACTIVE';
CREATE INDEX supplier_bank_account_live ON supplier_bank_account (supplier_id) WHERE deleted_at IS NULL;
CREATE TRIGGER supplier_bank_account_no_physical_delete BEFORE DELETE ON supplier_bank_account FOR EACH ROW EXECUTE FUNCTION forbid_delete();

-- Approvals (LOCAL_AUTO now; the columns of SupplierApprovalSnapshotDTO are here already) ----

CREATE TABLE approval_log (
  approval_log_id bigint GENERATED ALWAYS AS IDENTITY (START WITH 9007199254740993) PRIMARY KEY,
  request_no text NOT NULL,
  provider text NOT NULL CONSTRAINT approval_log_provider_check CHECK (provider IN ('LOCAL_AUTO')),
  biz_type text NOT NULL CONSTRAINT approval_log_biz_type_check CHECK (biz_type IN ('PROFILE_CREATE', 'ACCOUNT_CREATE', 'ACCOUNT_CHANGE', 'STATUS_CHANGE')),
  sub_type text CONSTRAINT approval_log_sub_type_check CHECK (sub_type IN ('STATUS_SUSPEND', 'STATUS_RESUME', 'STATUS_FREEZE', 'STATUS_UNFREEZE', 'STATUS_BLACKLIST', 'STATUS_UNBLACKLIST')),
  supplier_id bigint NOT NULL REFERENCES supplier (supplier_id),
  target_type text NOT NULL CONSTRAINT approval_log_target_type_check CHECK (target_type IN ('SUPPLIER', 'ACCOUNT')),
  target_id bigint NOT NULL,
  applicant_admin_id bigint NOT NULL,
  candidate_snapshot jsonb NOT NULL,
  levels integer NOT NULL CONSTRAINT approval_log_levels_check CHECK (levels BETWEEN 1 AND 10),
  status text NOT NULL CONSTRAINT approval_log_status_check CHECK (status IN ('SUBMITTED', 'APPROVED', 'REJECTED', 'APPLIED', 'APPLY_FAILED')),
  sync_status text NOT NULL CONSTRAINT approval_log_sync_status_check CHECK (sync_status IN ('NOT_REQUIRED', 'PENDING', 'SYNCED', 'FAILED')),
  submitted_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  applied_at timestamptz,
  apply_attempts integer NOT NULL DEFAULT 0,
  failure_code integer,
  failure_reason text,
  opinion_enc text,
  schema_version integer NOT NULL DEFAULT 1 CONSTRAINT approval_log_schema_version_check CHECK (schema_version = 1),
  sp_no text,
  template_id text,
  sp_status varchar(64),
  source_revision bigint,
  detail_digest text,
  detail_sync_status text,
  level_details jsonb,
  source_event_key text,
  create_time timestamptz NOT NULL DEFAULT now(),
  update_time timestamptz NOT NULL DEFAULT date_trunc('second', now())
);
COMMENT ON TABLE approval_log IS 'approval evidence: never deleted; sp_* / template / levels stay empty for LOCAL_AUTO';
COMMENT ON COLUMN approval_log.candidate_snapshot IS 'the change to apply; sensitive values only as ciphertext and masks';
COMMENT ON COLUMN approval_log.opinion_enc IS 'opinion text (the applicant''s submitNote for LOCAL_AUTO), encrypted';
CREATE UNIQUE INDEX approval_log_request_no ON approval_log (request_no);
CREATE INDEX approval_log_supplier ON approval_log (supplier_id, approval_log_id DESC);
CREATE TRIGGER approval_log_no_delete BEFORE DELETE ON approval_log FOR EACH ROW EXECUTE FUNCTION forbid_evidence_change();
CREATE TRIGGER approval_log_no_truncate BEFORE TRUNCATE ON approval_log FOR EACH STATEMENT EXECUTE FUNCTION forbid_evidence_change();

CREATE TABLE change_log (
  change_log_id bigint GENERATED ALWAYS AS IDENTITY (START WITH 9007199254740993) PRIMARY KEY,
  supplier_id bigint NOT NULL REFERENCES supplier (supplier_id),
  approval_log_id bigint REFERENCES approval_log (approval_log_id),
  operation_type text NOT NULL CONSTRAINT change_log_operation_type_check CHECK (operation_type IN (
    'DRAFT_CREATE', 'DRAFT_UPDATE', 'DRAFT_DELETE', 'PROFILE_UPDATE', 'CONTACT_REPLACE', 'REGISTRATION_SUBMIT',
    'REGISTRATION_APPLY', 'REGISTRATION_REJECT', 'ACCOUNT_CREATE', 'ACCOUNT_CHANGE', 'ACCOUNT_DEFAULT',
    'STATUS_CHANGE', 'ARCHIVE', 'RELATION_SET', 'RELATION_UNBIND')),
  target_type text NOT NULL CONSTRAINT change_log_target_type_check CHECK (target_type IN (
    'SUPPLIER', 'TYPE', 'CONTACT', 'QUALIFICATION', 'CONTRACT', 'EVALUATION', 'ACCOUNT', 'RELATION')),
  target_id bigint,
  field_name text NOT NULL,
  old_value_masked text,
  new_value_masked text,
  change_reason text,
  status text CONSTRAINT change_log_status_check CHECK (status IN ('SUBMITTED', 'APPROVED', 'REJECTED', 'APPLIED', 'APPLY_FAILED')),
  operator_id bigint,
  request_id text,
  create_time timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE change_log IS 'field-level change evidence, masked values only; append-only';
CREATE INDEX change_log_supplier ON change_log (supplier_id, create_time DESC, change_log_id DESC);
CREATE INDEX change_log_order ON change_log (create_time DESC, change_log_id DESC);
CREATE INDEX change_log_approval ON change_log (approval_log_id) WHERE approval_log_id IS NOT NULL;
CREATE TRIGGER change_log_append_only BEFORE UPDATE OR DELETE ON change_log FOR EACH ROW EXECUTE FUNCTION forbid_evidence_change();
CREATE TRIGGER change_log_no_truncate BEFORE TRUNCATE ON change_log FOR EACH STATEMENT EXECUTE FUNCTION forbid_evidence_change();

CREATE TABLE sensitive_read_audit (
  id bigint GENERATED ALWAYS AS IDENTITY (START WITH 9007199254740993) PRIMARY KEY,
  admin_id bigint NOT NULL,
  subject text NOT NULL,
  subject_id bigint NOT NULL,
  field_name text NOT NULL,
  request_id text,
  create_time timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sensitive_read_audit_subject ON sensitive_read_audit (subject, subject_id);
COMMENT ON TABLE sensitive_read_audit IS 'who decrypted which sensitive value (e.g. an approval opinion), when';
CREATE TRIGGER sensitive_read_audit_append_only BEFORE UPDATE OR DELETE ON sensitive_read_audit FOR EACH ROW EXECUTE FUNCTION forbid_evidence_change();
CREATE TRIGGER sensitive_read_audit_no_truncate BEFORE TRUNCATE ON sensitive_read_audit FOR EACH STATEMENT EXECUTE FUNCTION forbid_evidence_change();

-- Pending domain events (outbox): written with the business change, published later ----------

CREATE TABLE domain_event (
  event_id bigint GENERATED ALWAYS AS IDENTITY (START WITH 9007199254740993) PRIMARY KEY,
  aggregate_type text NOT NULL CONSTRAINT domain_event_aggregate_check CHECK (aggregate_type IN ('SUPPLIER', 'ACCOUNT', 'RELATION')),
  aggregate_id bigint NOT NULL,
  event_type text NOT NULL,
  payload jsonb NOT NULL,
  status text NOT NULL DEFAULT 'PENDING' CONSTRAINT domain_event_status_check CHECK (status IN ('PENDING', 'PUBLISHED')),
  create_time timestamptz NOT NULL DEFAULT now(),
  published_at timestamptz
);
COMMENT ON TABLE domain_event IS 'outbox; the publisher port stays closed in this phase, so events stay PENDING';
CREATE INDEX domain_event_pending ON domain_event (event_id) WHERE status = 'PENDING';

-- Write guards ------------------------------------------------------------------------------

CREATE TABLE submit_guard (
  id bigint GENERATED ALWAYS AS IDENTITY (START WITH 9007199254740993) PRIMARY KEY,
  admin_id bigint NOT NULL,
  operation text NOT NULL,
  target text NOT NULL,
  fingerprint text NOT NULL,
  expires_at timestamptz NOT NULL,
  create_time timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE submit_guard IS 'short-window duplicate-submit guard; written inside the business transaction';
CREATE UNIQUE INDEX submit_guard_key ON submit_guard (admin_id, operation, target, fingerprint);

CREATE TABLE idempotency_record (
  id bigint GENERATED ALWAYS AS IDENTITY (START WITH 9007199254740993) PRIMARY KEY,
  admin_id bigint NOT NULL,
  idempotency_key text NOT NULL CONSTRAINT idempotency_record_key_length CHECK (char_length(idempotency_key) BETWEEN 1 AND 255),
  operation text NOT NULL,
  request_hash text NOT NULL,
  status text NOT NULL CONSTRAINT idempotency_record_status_check CHECK (status IN ('IN_PROGRESS', 'DONE')),
  response jsonb,
  expires_at timestamptz NOT NULL,
  create_time timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE idempotency_record IS 'Idempotency-Key replay store: masked responses only';
CREATE UNIQUE INDEX idempotency_record_key ON idempotency_record (admin_id, idempotency_key);

-- Supplier-resource relations -----------------------------------------------------------------

CREATE TABLE supplier_resource_relation (
  relation_id bigint GENERATED ALWAYS AS IDENTITY (START WITH 9007199254740993) PRIMARY KEY,
  supplier_id bigint NOT NULL REFERENCES supplier (supplier_id),
  resource_module text NOT NULL CONSTRAINT supplier_resource_relation_module_check CHECK (resource_module IN (
    'SCENIC', 'RESTAURANT', 'SUPPLIES', 'SUPPLIES_COMBO', 'ACTIVITY', 'HOTEL', 'SERVICE', 'COST_ITEM', 'STAFF', 'VEHICLE')),
  resource_id bigint NOT NULL,
  required_type_code text,
  remark text CONSTRAINT supplier_resource_relation_remark_length CHECK (char_length(remark) <= 500),
  create_time timestamptz NOT NULL DEFAULT now(),
  update_time timestamptz NOT NULL DEFAULT date_trunc('second', now()),
  created_by bigint NOT NULL,
  updated_by bigint NOT NULL,
  deleted_at timestamptz
);
CREATE UNIQUE INDEX supplier_resource_relation_one_valid ON supplier_resource_relation (resource_module, resource_id) WHERE deleted_at IS NULL;
CREATE INDEX supplier_resource_relation_supplier ON supplier_resource_relation (supplier_id, update_time DESC, relation_id DESC) WHERE deleted_at IS NULL;
CREATE TRIGGER supplier_resource_relation_no_physical_delete BEFORE DELETE ON supplier_resource_relation FOR EACH ROW EXECUTE FUNCTION forbid_delete();

-- migrate:down

DROP TABLE supplier_resource_relation;
DROP TABLE idempotency_record;
DROP TABLE submit_guard;
DROP TABLE domain_event;
DROP TABLE sensitive_read_audit;
DROP TABLE change_log;
DROP TABLE approval_log;
DROP TABLE supplier_bank_account;
DROP TABLE supplier_evaluation;
DROP TABLE supplier_contract;
DROP TABLE qualification_rule;
DROP TABLE supplier_qualification;
DROP TABLE supplier_contact;
DROP TABLE supplier_type;
DROP TABLE supplier;
DROP SEQUENCE supplier_no_seq;
DROP TABLE admin_permission;
DROP TABLE admin_role;
DROP TABLE dict_data;
DROP TABLE dict_type;
DROP TABLE seed_run;
DROP FUNCTION forbid_delete();
DROP FUNCTION forbid_evidence_change();
DROP FUNCTION next_version(timestamptz);

