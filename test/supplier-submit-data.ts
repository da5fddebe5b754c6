import { expect } from 'vitest'
import { today } from '../src/domain/context'
import { randomAccountNo } from './fixtures'
import type { Harness } from './harness'
import { STORAGE, randomDigits } from './supplier-data'

/* Shared by the SUP-ADM-007 submit tests (rules, qualifications, applier, guards). */

type Body = Record<string, any>

/** The keys of an ApprovalCommandResult. */
export const APPROVAL_RESULT_KEYS = [
  'approvalLogId',
  'requestNo',
  'provider',
  'approvalStatus',
  'businessApplied',
  'spNo',
  'spStatus',
  'syncStatus',
  'submittedAt',
  'finishedAt',
].sort()

/** An initial account; a fresh number unless given (C-19 compares numbers across the database). */
export const account = (accountNo = randomAccountNo(), extra: Body = {}): Body => ({
  accountType: 'CORPORATE',
  bankName: 'ICBC Hangzhou',
  accountNo,
  ...extra,
})

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** yyyy-MM-dd of `days` days from today in the service time zone. */
export function dayFromToday(h: Harness, days: number) {
  const d = new Date(`${today(h.config.timezone)}T00:00:00Z`)
  d.setUTCDate(d.getUTCDate() + days)
  return d.toISOString().slice(0, 10)
}

/** The supplier row as a failed write must leave it. */
export async function supplierRow(h: Harness, supplierId: string) {
  const [row] = await h.sql`
    SELECT status, supplier_no, full_name, short_name, tax_no_bidx, license_image_url,
           to_char(update_time, 'YYYY-MM-DD HH24:MI:SS.US') AS version, deleted_at IS NOT NULL AS deleted
    FROM supplier WHERE supplier_id = ${supplierId}
  `
  return { ...row }
}

export async function accountsOf(h: Harness, supplierId: string) {
  return h.sql`
    SELECT account_id::text AS "accountId", status, is_default AS "isDefault"
    FROM supplier_bank_account WHERE supplier_id = ${supplierId} AND deleted_at IS NULL
    ORDER BY account_id
  `
}

export async function approvalRow(h: Harness, approvalLogId: string) {
  const [row] = await h.sql`
    SELECT approval_log_id::text AS id, request_no, provider, biz_type, sub_type, levels, status,
           sync_status, sp_no, sp_status, template_id, schema_version, supplier_id::text AS supplier_id,
           target_type, target_id::text AS target_id, applicant_admin_id::text AS applicant,
           candidate_snapshot, finished_at IS NOT NULL AS finished, applied_at IS NOT NULL AS applied,
           apply_attempts, failure_code, failure_reason, opinion_enc, submit_note_enc,
           to_char(update_time, 'YYYY-MM-DD HH24:MI:SS.US') AS version
    FROM approval_log WHERE approval_log_id = ${approvalLogId}
  `
  return row ? { ...row } : undefined
}

export async function changeLogs(h: Harness, supplierId: string) {
  return h.sql`
    SELECT operation_type AS op, target_type AS "targetType", target_id::text AS "targetId",
           field_name AS field, old_value_masked AS old, new_value_masked AS new, status,
           approval_log_id::text AS "approvalLogId", operator_id::text AS operator
    FROM change_log WHERE supplier_id = ${supplierId} ORDER BY change_log_id
  `
}

export async function eventsOf(h: Harness, supplierId: string) {
  return h.sql`
    SELECT event_type AS type, aggregate_type AS "aggregateType", aggregate_id::text AS "aggregateId", payload
    FROM domain_event
    WHERE (aggregate_type = 'SUPPLIER' AND aggregate_id = ${supplierId})
       OR (aggregate_type = 'ACCOUNT' AND payload->>'supplierId' = ${supplierId})
    ORDER BY event_id
  `
}

/** Puts the qualification rules of one supplier type (the C-09 source). */
export async function putRules(h: Harness, typeCode: string, rules: Body[]) {
  const res = await h.call('PUT', `/admin/supplier/types/${typeCode}/qualification-rules`, {
    body: { rules },
  })
  expect(res.body, JSON.stringify(res.body)).toMatchObject({ code: 200, success: true })
}

/** A valid qualification of this type, expiring as told. */
export const qual = (qualType: string, expiryDate: string | null = '2099-12-31'): Body => ({
  qualType,
  certNo: `C${randomDigits(10)}`,
  imageUrl: `${STORAGE}${qualType.toLowerCase()}.png`,
  expiryDate,
})
