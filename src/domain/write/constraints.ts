import { AppError, ERRORS, type ErrorName } from '../../errors'

/**
 * Every unique index and check constraint of the tables the service writes, mapped to the
 * catalog error a violation answers. The pre-checks normally refuse first; these entries are
 * what a race or a missed pre-check answers instead of a 500. `INTERNAL` marks an invariant
 * that only a bug can break. A test compares this map with the live catalog, so a new
 * constraint without an entry fails `npm test`.
 */
export const CONSTRAINT_ERRORS: Record<string, ErrorName> = {
  // supplier
  supplier_tax_no_live: 'TAX_NO_DUPLICATE',
  supplier_no_live: 'INTERNAL',
  supplier_address_length: 'BAD_REQUEST',
  supplier_approve_note_bytes: 'BAD_REQUEST',
  supplier_capital_length: 'BAD_REQUEST',
  supplier_full_name_length: 'BAD_REQUEST',
  supplier_legal_rep_length: 'BAD_REQUEST',
  supplier_license_url_length: 'BAD_REQUEST',
  supplier_main_cooperation_bytes: 'BAD_REQUEST',
  supplier_remark_bytes: 'BAD_REQUEST',
  supplier_scope_length: 'BAD_REQUEST',
  supplier_short_name_length: 'BAD_REQUEST',
  supplier_staff_scale_check: 'BAD_REQUEST',
  supplier_status_check: 'INTERNAL',
  supplier_delete_only_draft: 'OPERATION_NOT_ALLOWED_IN_STATUS',
  supplier_no_only_after_approval: 'INTERNAL',
  // children
  supplier_type_live: 'CONCURRENT_MODIFICATION',
  supplier_contact_name_length: 'BAD_REQUEST',
  supplier_contact_remark_length: 'BAD_REQUEST',
  supplier_contact_role_length: 'BAD_REQUEST',
  supplier_contact_status_check: 'INTERNAL',
  supplier_qualification_image_bytes: 'BAD_REQUEST',
  supplier_qualification_status_check: 'INTERNAL',
  supplier_qualification_type_length: 'BAD_REQUEST',
  // bank accounts
  supplier_bank_account_no_active: 'ACCOUNT_DUPLICATED',
  supplier_bank_account_one_default: 'CONCURRENT_MODIFICATION',
  supplier_bank_account_bank_length: 'BAD_REQUEST',
  supplier_bank_account_branch_length: 'BAD_REQUEST',
  supplier_bank_account_default_check: 'INTERNAL',
  supplier_bank_account_invoice_check: 'SETTLEMENT_TERMS_INVALID',
  supplier_bank_account_period_check: 'SETTLEMENT_TERMS_INVALID',
  supplier_bank_account_proof_array: 'BAD_REQUEST',
  supplier_bank_account_settle_mode_check: 'SETTLEMENT_TERMS_INVALID',
  supplier_bank_account_status_check: 'INTERNAL',
  supplier_bank_account_tax_rate_by_invoice: 'SETTLEMENT_TERMS_INVALID',
  supplier_bank_account_tax_rate_check: 'SETTLEMENT_TERMS_INVALID',
  supplier_bank_account_type_check: 'BAD_REQUEST',
  supplier_bank_account_risk_flags_array: 'INTERNAL',
  // qualification rules
  qualification_rule_live: 'BAD_REQUEST',
  qualification_rule_sort_order_check: 'BAD_REQUEST',
  qualification_rule_type_length: 'BAD_REQUEST',
  qualification_rule_warning_days_check: 'BAD_REQUEST',
  // relations
  supplier_resource_relation_one_valid: 'RELATION_CONFLICT',
  supplier_resource_relation_module_check: 'RESOURCE_MODULE_UNSUPPORTED',
  supplier_resource_relation_remark_length: 'BAD_REQUEST',
  // approvals, evidence, outbox and write guards: only the service's own code writes these
  approval_log_request_no: 'INTERNAL',
  approval_log_biz_type_check: 'INTERNAL',
  approval_log_levels_check: 'INTERNAL',
  approval_log_provider_check: 'INTERNAL',
  approval_log_schema_version_check: 'APPROVAL_SCHEMA_UNSUPPORTED',
  approval_log_status_check: 'INTERNAL',
  approval_log_sub_type_check: 'INTERNAL',
  approval_log_sync_status_check: 'INTERNAL',
  approval_log_target_type_check: 'INTERNAL',
  change_log_operation_type_check: 'INTERNAL',
  change_log_status_check: 'INTERNAL',
  change_log_target_type_check: 'INTERNAL',
  domain_event_aggregate_check: 'INTERNAL',
  domain_event_status_check: 'INTERNAL',
  idempotency_record_key: 'INTERNAL',
  idempotency_record_key_length: 'BAD_REQUEST',
  idempotency_record_status_check: 'INTERNAL',
  submit_guard_key: 'INTERNAL',
  change_log_supplier_required: 'INTERNAL',
}

/** SQLSTATEs of integrity violations that carry a constraint name. */
const INTEGRITY = new Set(['23505', '23514', '23P01'])

/**
 * The catalog error for a database integrity violation, or the error unchanged. An unmapped
 * constraint stays a 500: it is a bug the test above should have caught.
 */
export function mapConstraintViolation(err: unknown): unknown {
  const e = err as { code?: string; constraint_name?: string }
  if (!e || !INTEGRITY.has(e.code ?? '') || !e.constraint_name) return err
  const name = CONSTRAINT_ERRORS[e.constraint_name]
  if (!name || name === 'INTERNAL') return err
  return new AppError(ERRORS[name])
}
