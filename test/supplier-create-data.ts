import { expect } from 'vitest'
import { create } from './client'
import type { Harness } from './harness'
import { STORAGE, randomDigits, randomText } from './supplier-data'
import { unchanged } from './unchanged'

/* Shared by the SUP-ADM-003 create draft tests (bounds, rules, security). */

export const TWO_POW_53 = 2n ** 53n
export const MASKED_ACCOUNT = /^\*\*\*\* \*\*\*\* \d{4}$/

type Body = Record<string, any>

export const bytes = (s: string) => Buffer.byteLength(s, 'utf8')
/** An authorized storage URL of exactly n characters. */
export const storageUrl = (n: number) => STORAGE + randomText(n - STORAGE.length)
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
/** The 400 message names this field (messages are "path: reason; path: reason"). */
export const names = (path: string) => new RegExp(`(^|; )${escapeRe(path)}:`)

/** Today and tomorrow in the service time zone (Asia/Shanghai), yyyy-MM-dd. */
export const shanghaiDate = (offsetDays = 0) =>
  new Intl.DateTimeFormat('en-CA', {
    timeZone: 'Asia/Shanghai',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(new Date(Date.now() + offsetDays * 86_400_000))

/** An initial account with a fresh 19-digit number. */
export const account = (overrides: Body = {}): Body => ({
  accountType: 'CORPORATE',
  bankName: 'Bank of Hangzhou',
  accountNo: randomDigits(19),
  ...overrides,
})

/**
 * Sends a create that must fail with `code` (HTTP 200 envelope, success false) and proves it
 * wrote nothing: no supplier, child, change-log, event, guard, approval or idempotency row.
 */
export async function expectRefused(
  h: Harness,
  body: unknown,
  code: number,
  options: { admin?: string; message?: RegExp } = {},
) {
  const res = await unchanged(h, () => create(h, body, { admin: options.admin }))
  expect(res.status).toBe(200)
  expect(res.body).toMatchObject({ code, success: false })
  if (options.message) expect(res.body.message).toMatch(options.message)
  return res
}

/** Every stored row of the supplier and its children, as text, for plaintext searches. */
export async function storedRows(h: Harness, supplierId: string) {
  const rows = await h.sql.unsafe(
    `SELECT s::text AS row FROM supplier s WHERE supplier_id = $1
     UNION ALL SELECT c::text FROM supplier_contact c WHERE supplier_id = $1
     UNION ALL SELECT q::text FROM supplier_qualification q WHERE supplier_id = $1
     UNION ALL SELECT a::text FROM supplier_bank_account a WHERE supplier_id = $1
     UNION ALL SELECT t::text FROM supplier_type t WHERE supplier_id = $1`,
    [supplierId],
  )
  return rows.map((r) => r.row as string).join('\n')
}

export async function changeLogRows(h: Harness, supplierId: string) {
  return h.sql`
    SELECT operation_type, target_type, target_id::text AS target_id, field_name,
           old_value_masked, new_value_masked, operator_id::text AS operator_id, request_id,
           c::text AS raw
    FROM change_log c WHERE supplier_id = ${supplierId} ORDER BY change_log_id
  `
}

export async function eventRows(h: Harness, supplierId: string) {
  return h.sql`
    SELECT event_type, status, payload, e::text AS raw
    FROM domain_event e WHERE aggregate_id = ${supplierId} ORDER BY event_id
  `
}
