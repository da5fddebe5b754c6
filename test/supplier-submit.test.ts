import { randomBytes, randomInt } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { today } from '../src/domain/context'
import { maskAccountNo, maskTaxNo } from '../src/crypto/sensitive'
import { useHarness, type Harness } from './harness'
import {
  ACCOUNT_NO,
  CERT_NO,
  CONTACT_PHONE,
  PHONE,
  STORAGE,
  draftBody,
  fullDraftBody,
  uniqueTaxNo,
} from './supplier-data'

/*
 * SUP-ADM-007 submit registration, the LOCAL_AUTO approval and the common result applier, the
 * internal retry route, the short-window duplicate-submit guard and Idempotency-Key.
 */

const ITEMS = '/admin/supplier/items'
const LICENSE = `${STORAGE}license.png`
const DATE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/
const APPROVAL_RESULT_KEYS = [
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

type Body = Record<string, any>

// Helpers ------------------------------------------------------------------------------------

const digits = (n: number) => Array.from({ length: n }, () => randomInt(10)).join('')
/** A fresh 19-digit card number (C-19 compares numbers across the whole database). */
const newAccountNo = () => `6222${digits(15)}`
const account = (accountNo = newAccountNo(), extra: Body = {}): Body => ({
  accountType: 'CORPORATE',
  bankName: 'ICBC Hangzhou',
  accountNo,
  ...extra,
})
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** yyyy-MM-dd of `days` days from today in the service time zone. */
function dayFromToday(h: Harness, days: number) {
  const d = new Date(`${today(h.config.timezone)}T00:00:00Z`)
  d.setUTCDate(d.getUTCDate() + days)
  return d.toISOString().slice(0, 10)
}

/** The submit body that finalizes a draft created from `body` (children kept as they are). */
function submitBodyFrom(body: Body, expectedUpdateTime: string, overrides: Body = {}): Body {
  const out: Body = { expectedUpdateTime, licenseImageUrl: LICENSE }
  for (const [k, v] of Object.entries(body)) {
    if (['contacts', 'qualifications', 'initialAccounts', 'duplicateConfirmToken'].includes(k))
      continue
    out[k] = v
  }
  return { ...out, ...overrides }
}

async function createDraft(h: Harness, admin: string, body: Body) {
  const res = await h.call('POST', ITEMS, { admin, body })
  expect(res.body, JSON.stringify(res.body)).toMatchObject({ code: 200, success: true })
  return res.body.data as { supplierId: string; updateTime: string; initialAccounts: Body[] }
}

function submit(h: Harness, admin: string, supplierId: string, body: Body, headers?: Body) {
  return h.call('POST', `${ITEMS}/${supplierId}/submit`, { admin, body, headers })
}

/** Creates a draft and submits it; returns both the draft and the submit response. */
async function register(
  h: Harness,
  admin: string,
  overrides: Body = {},
  submitOverrides: Body = {},
) {
  const body = draftBody({ licenseImageUrl: LICENSE, initialAccounts: [account()], ...overrides })
  const draft = await createDraft(h, admin, body)
  const res = await submit(
    h,
    admin,
    draft.supplierId,
    submitBodyFrom(body, draft.updateTime, submitOverrides),
  )
  return { body, draft, res }
}

async function registerActive(h: Harness, admin: string, overrides: Body = {}) {
  const r = await register(h, admin, overrides)
  expect(r.res.body, JSON.stringify(r.res.body)).toMatchObject({
    code: 200,
    data: { approvalStatus: 'APPLIED' },
  })
  return r
}

function retry(h: Harness, approvalLogId: string, token: string | null = h.config.internalToken) {
  return h.call('POST', `/internal/supplier/approvals/${approvalLogId}/apply`, {
    admin: null,
    token: null,
    headers: token === null ? {} : { 'x-internal-token': token },
  })
}

/** Row counts of every table a write may touch. */
async function counts(h: Harness) {
  const [row] = await h.sql`
    SELECT
      (SELECT count(*)::int FROM supplier) AS supplier,
      (SELECT count(*)::int FROM supplier_bank_account) AS bank_account,
      (SELECT count(*)::int FROM supplier_qualification) AS qualification,
      (SELECT count(*)::int FROM supplier_contact) AS contact,
      (SELECT count(*)::int FROM supplier_type) AS type,
      (SELECT count(*)::int FROM change_log) AS change_log,
      (SELECT count(*)::int FROM domain_event) AS domain_event,
      (SELECT count(*)::int FROM approval_log) AS approval_log,
      (SELECT count(*)::int FROM submit_guard) AS submit_guard,
      (SELECT count(*)::int FROM idempotency_record) AS idempotency
  `
  return { ...row }
}

/** The supplier row as a failed write must leave it. */
async function supplierRow(h: Harness, supplierId: string) {
  const [row] = await h.sql`
    SELECT status, supplier_no, full_name, short_name, tax_no_bidx, license_image_url,
           to_char(update_time, 'YYYY-MM-DD HH24:MI:SS.US') AS version, deleted_at IS NOT NULL AS deleted
    FROM supplier WHERE supplier_id = ${supplierId}
  `
  return { ...row }
}

async function accountsOf(h: Harness, supplierId: string) {
  return h.sql`
    SELECT account_id::text AS "accountId", status, is_default AS "isDefault"
    FROM supplier_bank_account WHERE supplier_id = ${supplierId} AND deleted_at IS NULL
    ORDER BY account_id
  `
}

async function approvalRow(h: Harness, approvalLogId: string) {
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

async function changeLogs(h: Harness, supplierId: string) {
  return h.sql`
    SELECT operation_type AS op, target_type AS "targetType", target_id::text AS "targetId",
           field_name AS field, old_value_masked AS old, new_value_masked AS new, status,
           approval_log_id::text AS "approvalLogId", operator_id::text AS operator
    FROM change_log WHERE supplier_id = ${supplierId} ORDER BY change_log_id
  `
}

async function eventsOf(h: Harness, supplierId: string) {
  return h.sql`
    SELECT event_type AS type, aggregate_type AS "aggregateType", aggregate_id::text AS "aggregateId", payload
    FROM domain_event
    WHERE (aggregate_type = 'SUPPLIER' AND aggregate_id = ${supplierId})
       OR (aggregate_type = 'ACCOUNT' AND payload->>'supplierId' = ${supplierId})
    ORDER BY event_id
  `
}

/** Puts the qualification rules of one supplier type (the C-09 source). */
async function putRules(h: Harness, typeCode: string, rules: Body[]) {
  const res = await h.call('PUT', `/admin/supplier/types/${typeCode}/qualification-rules`, {
    body: { rules },
  })
  expect(res.body, JSON.stringify(res.body)).toMatchObject({ code: 200, success: true })
}

const qual = (qualType: string, expiryDate: string | null = '2099-12-31'): Body => ({
  qualType,
  certNo: `C${digits(10)}`,
  imageUrl: `${STORAGE}${qualType.toLowerCase()}.png`,
  expiryDate,
})

// ---------------------------------------------------------------------------------------------
// Default harness: the real LOCAL_AUTO provider, duplicate-submit window 3 s.
// ---------------------------------------------------------------------------------------------

describe('submit registration through LOCAL_AUTO (default provider)', () => {
  const h = useHarness()

  describe('happy path', () => {
    it('records one PROFILE_CREATE approval and applies it: ACTIVE, supplierNo, accounts, logs, events', async () => {
      const admin = await h.admin()
      const accountNos = [newAccountNo(), newAccountNo()]
      const taxNo = uniqueTaxNo()
      const body = draftBody({
        taxNo,
        initialAccounts: accountNos.map((n) => account(n)),
      })
      const draft = await createDraft(h, admin, body)
      expect(draft.initialAccounts.map((a) => a.status)).toEqual(['DRAFT', 'DRAFT'])
      const before = await counts(h)

      const res = await submit(
        h,
        admin,
        draft.supplierId,
        submitBodyFrom(body, draft.updateTime, { submitNote: 'first registration' }),
      )
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ code: 200, success: true })
      const result = res.body.data
      expect(Object.keys(result).sort()).toEqual(APPROVAL_RESULT_KEYS)
      expect(result).toMatchObject({
        provider: 'LOCAL_AUTO',
        approvalStatus: 'APPLIED',
        spNo: '',
        spStatus: '',
        syncStatus: 'NOT_REQUIRED',
      })
      expect(result.approvalLogId).toMatch(/^\d+$/)
      expect(BigInt(result.approvalLogId)).toBeGreaterThan(2n ** 53n)
      expect(result.submittedAt).toMatch(DATE_TIME)
      expect(result.finishedAt).toMatch(DATE_TIME)

      // The approval record.
      const after = await counts(h)
      expect(after.approval_log).toBe(before.approval_log + 1)
      const approval = (await approvalRow(h, result.approvalLogId))!
      expect(approval).toMatchObject({
        request_no: result.requestNo,
        provider: 'LOCAL_AUTO',
        biz_type: 'PROFILE_CREATE',
        sub_type: null,
        levels: 4,
        status: 'APPLIED',
        sync_status: 'NOT_REQUIRED',
        sp_no: null,
        sp_status: null,
        template_id: null,
        schema_version: 1,
        supplier_id: draft.supplierId,
        target_type: 'SUPPLIER',
        target_id: draft.supplierId,
        applicant: admin,
        finished: true,
        applied: true,
        failure_code: null,
        // LOCAL_AUTO makes up no opinion; the applicant's note is kept, encrypted, as its own.
        opinion_enc: null,
      })
      expect(approval.submit_note_enc).toEqual(expect.any(String))
      expect(approval.submit_note_enc).not.toContain('first registration')
      expect(result.businessApplied).toBe(true)
      const [{ n: sameRequestNo }] =
        await h.sql`SELECT count(*)::int AS n FROM approval_log WHERE request_no = ${result.requestNo}`
      expect(sameRequestNo).toBe(1)
      const snapshot = JSON.stringify(approval.candidate_snapshot)
      expect(snapshot).toContain(maskTaxNo(taxNo)!)
      for (const n of accountNos) {
        expect(snapshot).toContain(maskAccountNo(n)!)
        expect(snapshot).not.toContain(n)
      }
      expect(snapshot).not.toContain(taxNo)

      // The supplier and its accounts.
      const supplier = await supplierRow(h, draft.supplierId)
      expect(supplier.status).toBe('ACTIVE')
      expect(supplier.supplier_no).toEqual(expect.any(String))
      expect(supplier.supplier_no.length).toBeGreaterThan(0)
      const detail = await h.call('GET', `${ITEMS}/${draft.supplierId}`, { admin })
      expect(detail.body.data).toMatchObject({ status: 'ACTIVE', supplierNo: supplier.supplier_no })
      const accounts = await accountsOf(h, draft.supplierId)
      expect(accounts).toHaveLength(2)
      for (const a of accounts) expect(a).toMatchObject({ status: 'ACTIVE', isDefault: 'NO' })
      const info = await h.call('GET', `${ITEMS}/${draft.supplierId}/account-info`, { admin })
      expect(info.body.data.bankAccounts.map((a: Body) => [a.status, a.isDefault])).toEqual([
        ['ACTIVE', 'NO'],
        ['ACTIVE', 'NO'],
      ])

      // The change log, linked to the approval.
      const allLogs = await changeLogs(h, draft.supplierId)
      const registrationLogs = allLogs.filter((l) => l.op.startsWith('REGISTRATION_'))
      expect(registrationLogs.length).toBeGreaterThan(0)
      expect(registrationLogs.every((l) => l.approvalLogId === result.approvalLogId)).toBe(true)
      const logs = allLogs.filter((l) => l.approvalLogId === result.approvalLogId)
      const submitRows = logs.filter((l) => l.op === 'REGISTRATION_SUBMIT')
      const applyRows = logs.filter((l) => l.op === 'REGISTRATION_APPLY')
      expect(submitRows).toContainEqual(
        expect.objectContaining({
          targetType: 'SUPPLIER',
          field: 'status',
          old: 'DRAFT',
          new: 'VETTING',
          operator: admin,
        }),
      )
      expect(applyRows).toContainEqual(
        expect.objectContaining({
          targetType: 'SUPPLIER',
          field: 'status',
          old: 'VETTING',
          new: 'ACTIVE',
        }),
      )
      expect(applyRows).toContainEqual(
        expect.objectContaining({ field: 'supplierNo', old: null, new: supplier.supplier_no }),
      )
      for (const a of accounts) {
        expect(applyRows).toContainEqual(
          expect.objectContaining({
            targetType: 'ACCOUNT',
            targetId: a.accountId,
            field: 'status',
            new: 'ACTIVE',
          }),
        )
      }
      expect(applyRows.every((l) => l.status === 'APPLIED')).toBe(true)

      // Pending domain events.
      const events = await eventsOf(h, draft.supplierId)
      const types = events.map((e) => e.type)
      expect(types).toContain('SupplierRegistrationSubmitted')
      expect(types).toContain('SupplierActivated')
      expect(events.find((e) => e.type === 'SupplierActivated')!.payload).toMatchObject({
        supplierId: draft.supplierId,
        supplierNo: supplier.supplier_no,
        approvalLogId: result.approvalLogId,
      })
      const activated = events.filter((e) => e.type === 'BankAccountActivated')
      expect(activated.map((e) => e.aggregateId).sort()).toEqual(
        accounts.map((a) => a.accountId).sort(),
      )
      expect(types).not.toContain('SupplierRegistrationRejected')
    })

    it('gives two registrations different supplierNos and different requestNos', async () => {
      const admin = await h.admin()
      const a = await registerActive(h, admin)
      const b = await registerActive(h, admin)
      const rowA = await supplierRow(h, a.draft.supplierId)
      const rowB = await supplierRow(h, b.draft.supplierId)
      expect(rowA.supplier_no).toBeTruthy()
      expect(rowB.supplier_no).toBeTruthy()
      expect(rowA.supplier_no).not.toBe(rowB.supplier_no)
      expect(a.res.body.data.requestNo).not.toBe(b.res.body.data.requestNo)
      expect(a.res.body.data.approvalLogId).not.toBe(b.res.body.data.approvalLogId)
    })

    it('never accepts a supplierNo, provider or templateId from the client (400, nothing written)', async () => {
      const admin = await h.admin()
      const created = await h.call('POST', ITEMS, {
        admin,
        body: draftBody({ supplierNo: 'SP-CLIENT-1' }),
      })
      expect(created.body).toMatchObject({ code: 400, success: false })
      expect(created.body.message).toContain('supplierNo')

      const body = draftBody({ licenseImageUrl: LICENSE })
      const draft = await createDraft(h, admin, body)
      const before = await counts(h)
      const row = await supplierRow(h, draft.supplierId)
      for (const extra of [
        { supplierNo: 'SP-CLIENT-2' },
        { provider: 'LOCAL_AUTO' },
        { templateId: 'tpl-1' },
        { levels: 1 },
      ]) {
        const res = await submit(h, admin, draft.supplierId, {
          ...submitBodyFrom(body, draft.updateTime),
          ...extra,
        })
        expect(res.body, JSON.stringify(extra)).toMatchObject({ code: 400, success: false })
        expect(res.body.message).toContain(Object.keys(extra)[0])
      }
      expect(await counts(h)).toEqual(before)
      expect(await supplierRow(h, draft.supplierId)).toEqual(row)
    })
  })

  describe('only a DRAFT at the expected version can be submitted', () => {
    it('refuses an ACTIVE supplier with 395005 and writes nothing', async () => {
      const admin = await h.admin()
      const { body, draft } = await registerActive(h, admin)
      const detail = await h.call('GET', `${ITEMS}/${draft.supplierId}`, { admin })
      const before = await counts(h)
      const row = await supplierRow(h, draft.supplierId)
      const res = await submit(
        h,
        admin,
        draft.supplierId,
        submitBodyFrom(body, detail.body.data.updateTime, { submitNote: 'again' }),
      )
      expect(res.body).toMatchObject({ code: 395005, success: false, data: null })
      expect(await counts(h)).toEqual(before)
      expect(await supplierRow(h, draft.supplierId)).toEqual(row)
    })

    it('refuses a stale expectedUpdateTime with 395003 and writes nothing', async () => {
      const admin = await h.admin()
      const body = draftBody({ licenseImageUrl: LICENSE })
      const draft = await createDraft(h, admin, body)
      const updated = await h.call('PUT', `${ITEMS}/${draft.supplierId}`, {
        admin,
        body: {
          shortName: 'Renamed',
          changeReason: 'rename',
          expectedUpdateTime: draft.updateTime,
        },
      })
      expect(updated.body).toMatchObject({ code: 200 })
      expect(updated.body.data.updateTime).not.toBe(draft.updateTime)
      const before = await counts(h)
      const row = await supplierRow(h, draft.supplierId)
      const res = await submit(h, admin, draft.supplierId, submitBodyFrom(body, draft.updateTime))
      expect(res.body).toMatchObject({ code: 395003, success: false })
      expect(await counts(h)).toEqual(before)
      expect(await supplierRow(h, draft.supplierId)).toEqual(row)
      expect(row.status).toBe('DRAFT')
    })

    it('refuses a malformed supplierId with 400 (never a 500)', async () => {
      const admin = await h.admin()
      const before = await counts(h)
      for (const id of ['abc', '0', '-1', '1.5', '99999999999999999999']) {
        const res = await submit(h, admin, id, submitBodyFrom(draftBody(), '2020-01-01 00:00:00'))
        expect(res.status, id).not.toBe(500)
        expect(res.body, id).toMatchObject({ code: 400, success: false })
        expect(res.body.message, id).toContain('supplierId')
      }
      expect(await counts(h)).toEqual(before)
    })

    it('refuses an unknown or deleted supplier with 395001', async () => {
      const admin = await h.admin()
      const body = draftBody({ licenseImageUrl: LICENSE })
      const draft = await createDraft(h, admin, body)
      const deleted = await h.call('DELETE', `${ITEMS}/${draft.supplierId}`, { admin })
      expect(deleted.body).toMatchObject({ code: 200 })
      const before = await counts(h)
      const gone = await submit(h, admin, draft.supplierId, submitBodyFrom(body, draft.updateTime))
      expect(gone.body).toMatchObject({ code: 395001, success: false })
      const unknown = await submit(
        h,
        admin,
        '9007199254000001',
        submitBodyFrom(draftBody(), draft.updateTime),
      )
      expect(unknown.body).toMatchObject({ code: 395001, success: false })
      expect(await counts(h)).toEqual(before)
    })

    it('requires licenseImageUrl in the submit body (C-06: 395007), even when the draft holds one', async () => {
      // The submit carries the final form: an absent, null or empty licence image is C-06's
      // 395007 (test/registration-fixes.test.ts has the rest), a blank-ish one fails the
      // storage-prefix rule (395018).
      const admin = await h.admin()
      const body = draftBody({ licenseImageUrl: LICENSE })
      const draft = await createDraft(h, admin, body)
      const before = await counts(h)
      const row = await supplierRow(h, draft.supplierId)
      const full = submitBodyFrom(body, draft.updateTime)
      delete full.licenseImageUrl
      const missing = await submit(h, admin, draft.supplierId, full)
      expect(missing.body).toMatchObject({ code: 395007, success: false })
      for (const licenseImageUrl of ['', null]) {
        const res = await submit(h, admin, draft.supplierId, { ...full, licenseImageUrl })
        expect(res.body, String(licenseImageUrl)).toMatchObject({ code: 395007, success: false })
      }
      const blank = await submit(h, admin, draft.supplierId, { ...full, licenseImageUrl: ' ' })
      expect(blank.body).toMatchObject({ code: 395018, success: false })
      const foreign = await submit(h, admin, draft.supplierId, {
        ...full,
        licenseImageUrl: 'https://evil.example.org/license.png',
      })
      expect(foreign.body).toMatchObject({ code: 395018, success: false })
      expect(await counts(h)).toEqual(before)
      expect(await supplierRow(h, draft.supplierId)).toEqual(row)
    })

    it.each(['fullName', 'taxNo', 'types', 'mainCooperation', 'expectedUpdateTime'])(
      'requires %s at submit (400 naming it, nothing written)',
      async (field) => {
        const admin = await h.admin()
        const body = draftBody({ licenseImageUrl: LICENSE })
        const draft = await createDraft(h, admin, body)
        const before = await counts(h)
        const row = await supplierRow(h, draft.supplierId)
        const full = submitBodyFrom(body, draft.updateTime)
        delete full[field]
        const res = await submit(h, admin, draft.supplierId, full)
        expect(res.body).toMatchObject({ code: 400, success: false })
        expect(res.body.message).toContain(field)
        expect(await counts(h)).toEqual(before)
        expect(await supplierRow(h, draft.supplierId)).toEqual(row)
      },
    )

    it('refuses types=[] and an empty mainCooperation at submit (400)', async () => {
      const admin = await h.admin()
      const body = draftBody({ licenseImageUrl: LICENSE })
      const draft = await createDraft(h, admin, body)
      const before = await counts(h)
      const full = submitBodyFrom(body, draft.updateTime)
      const noTypes = await submit(h, admin, draft.supplierId, { ...full, types: [] })
      expect(noTypes.body).toMatchObject({ code: 400 })
      expect(noTypes.body.message).toContain('types')
      const noMain = await submit(h, admin, draft.supplierId, { ...full, mainCooperation: '' })
      expect(noMain.body).toMatchObject({ code: 400 })
      expect(noMain.body.message).toContain('mainCooperation')
      expect(await counts(h)).toEqual(before)
    })
  })

  describe('C-09: the union of required qualifications of all chosen types', () => {
    const setRules = async () => {
      await putRules(h, 'HOTEL', [
        { qualType: 'BUSINESS_LICENSE', isRequired: true, warningDays: 30, sortOrder: 1 },
        { qualType: 'PUBLIC_HEALTH_PERMIT', isRequired: true, warningDays: 30, sortOrder: 2 },
        { qualType: 'TAX_REGISTRATION', isRequired: false, warningDays: 30, sortOrder: 3 },
      ])
      await putRules(h, 'RESTAURANT', [
        { qualType: 'BUSINESS_LICENSE', isRequired: true, warningDays: 30, sortOrder: 1 },
        { qualType: 'FOOD_OPERATION_PERMIT', isRequired: true, warningDays: 30, sortOrder: 2 },
      ])
    }
    const HOTEL_AND_RESTAURANT = [{ typeCode: 'HOTEL' }, { typeCode: 'RESTAURANT' }]

    /** Submits and expects 395008 with nothing written; returns the error. */
    async function expectMissing(admin: string, body: Body, submitOverrides: Body = {}) {
      const draft = await createDraft(h, admin, body)
      const before = await counts(h)
      const row = await supplierRow(h, draft.supplierId)
      const res = await submit(
        h,
        admin,
        draft.supplierId,
        submitBodyFrom(body, draft.updateTime, submitOverrides),
      )
      expect(res.body, JSON.stringify(res.body)).toMatchObject({ code: 395008, success: false })
      expect(await counts(h)).toEqual(before)
      expect(await supplierRow(h, draft.supplierId)).toEqual(row)
      expect(row.status).toBe('DRAFT')
      return res.body
    }

    it('lists every missing required qualification of the type union (395008, nothing written)', async () => {
      await setRules()
      const admin = await h.admin()
      const error = await expectMissing(admin, draftBody({ types: HOTEL_AND_RESTAURANT }), {
        // The form sent with the submit is rolled back too.
        shortName: 'changed at submit',
      })
      const missing = ['BUSINESS_LICENSE', 'FOOD_OPERATION_PERMIT', 'PUBLIC_HEALTH_PERMIT']
      for (const m of missing) expect(error.message).toContain(m)
      expect(error.message).not.toContain('TAX_REGISTRATION')
      expect(error.data.missing.map((m: Body) => m.qualType).sort()).toEqual(missing)
      expect(error.data.missing.find((m: Body) => m.qualType === 'BUSINESS_LICENSE')).toMatchObject(
        { typeCodes: ['HOTEL', 'RESTAURANT'] },
      )
    })

    it('requires only the missing one when some are present (HOTEL only)', async () => {
      await setRules()
      const admin = await h.admin()
      const error = await expectMissing(
        admin,
        draftBody({ types: [{ typeCode: 'HOTEL' }], qualifications: [qual('BUSINESS_LICENSE')] }),
      )
      expect(error.data.missing.map((m: Body) => m.qualType)).toEqual(['PUBLIC_HEALTH_PERMIT'])
    })

    it('counts an expired qualification (expiryDate yesterday) as missing', async () => {
      await setRules()
      const admin = await h.admin()
      const error = await expectMissing(
        admin,
        draftBody({
          types: HOTEL_AND_RESTAURANT,
          qualifications: [
            qual('BUSINESS_LICENSE'),
            qual('FOOD_OPERATION_PERMIT'),
            qual('PUBLIC_HEALTH_PERMIT', dayFromToday(h, -1)),
          ],
        }),
      )
      expect(error.data.missing.map((m: Body) => m.qualType)).toEqual(['PUBLIC_HEALTH_PERMIT'])
    })

    it('checks the qualifications sent with the submit: an empty list removes them and fails', async () => {
      await setRules()
      const admin = await h.admin()
      const error = await expectMissing(
        admin,
        draftBody({
          types: HOTEL_AND_RESTAURANT,
          qualifications: [
            qual('BUSINESS_LICENSE'),
            qual('FOOD_OPERATION_PERMIT'),
            qual('PUBLIC_HEALTH_PERMIT'),
          ],
        }),
        { qualifications: [] },
      )
      expect(error.data.missing).toHaveLength(3)
    })

    it('ignores a soft-deleted qualification', async () => {
      await setRules()
      const admin = await h.admin()
      const body = draftBody({
        types: [{ typeCode: 'HOTEL' }],
        qualifications: [qual('BUSINESS_LICENSE'), qual('PUBLIC_HEALTH_PERMIT')],
      })
      const draft = await createDraft(h, admin, body)
      await h.sql`
        UPDATE supplier_qualification SET deleted_at = now()
        WHERE supplier_id = ${draft.supplierId} AND qual_type = 'PUBLIC_HEALTH_PERMIT'`
      const res = await submit(h, admin, draft.supplierId, submitBodyFrom(body, draft.updateTime))
      expect(res.body).toMatchObject({ code: 395008 })
      expect(res.body.data.missing.map((m: Body) => m.qualType)).toEqual(['PUBLIC_HEALTH_PERMIT'])
      expect((await supplierRow(h, draft.supplierId)).status).toBe('DRAFT')
    })

    it('applies when every required one is present and valid (expiring today counts; optional not needed)', async () => {
      await setRules()
      const admin = await h.admin()
      const body = draftBody({ types: HOTEL_AND_RESTAURANT })
      const draft = await createDraft(h, admin, body)
      const res = await submit(
        h,
        admin,
        draft.supplierId,
        submitBodyFrom(body, draft.updateTime, {
          qualifications: [
            qual('BUSINESS_LICENSE', null),
            qual('FOOD_OPERATION_PERMIT'),
            qual('PUBLIC_HEALTH_PERMIT', dayFromToday(h, 0)),
          ],
        }),
      )
      expect(res.body, JSON.stringify(res.body)).toMatchObject({
        code: 200,
        data: { approvalStatus: 'APPLIED' },
      })
      expect((await supplierRow(h, draft.supplierId)).status).toBe('ACTIVE')
    })
  })

  describe('C-02 at submit', () => {
    it('refuses the tax number of another live supplier (395004), also in another spelling', async () => {
      const admin = await h.admin()
      const first = draftBody({ licenseImageUrl: LICENSE })
      const second = draftBody()
      const d1 = await createDraft(h, admin, first)
      await createDraft(h, admin, second)
      const before = await counts(h)
      const row = await supplierRow(h, d1.supplierId)
      const variants = [
        second.taxNo,
        ` ${second.taxNo.toLowerCase().slice(0, 6)} ${second.taxNo.toLowerCase().slice(6)} `,
        // full-width digits and letters
        second.taxNo.replace(/[0-9A-Z]/g, (ch: string) =>
          String.fromCharCode(ch.charCodeAt(0) + 0xfee0),
        ),
      ]
      for (const taxNo of variants) {
        const res = await submit(
          h,
          admin,
          d1.supplierId,
          submitBodyFrom(first, d1.updateTime, { taxNo }),
        )
        expect(res.body, taxNo).toMatchObject({ code: 395004, success: false })
      }
      expect(await counts(h)).toEqual(before)
      expect(await supplierRow(h, d1.supplierId)).toEqual(row)
    })

    it('refuses the tax number of an ACTIVE supplier and accepts one freed by a deleted draft', async () => {
      const admin = await h.admin()
      const active = await registerActive(h, admin)
      const body = draftBody({ licenseImageUrl: LICENSE })
      const draft = await createDraft(h, admin, body)
      const before = await counts(h)
      const clash = await submit(
        h,
        admin,
        draft.supplierId,
        submitBodyFrom(body, draft.updateTime, { taxNo: active.body.taxNo }),
      )
      expect(clash.body).toMatchObject({ code: 395004 })
      expect(await counts(h)).toEqual(before)

      const other = draftBody()
      const otherDraft = await createDraft(h, admin, other)
      const deleted = await h.call('DELETE', `${ITEMS}/${otherDraft.supplierId}`, { admin })
      expect(deleted.body).toMatchObject({ code: 200 })
      const freed = await submit(
        h,
        admin,
        draft.supplierId,
        submitBodyFrom(body, draft.updateTime, { taxNo: other.taxNo }),
      )
      expect(freed.body, JSON.stringify(freed.body)).toMatchObject({
        code: 200,
        data: { approvalStatus: 'APPLIED' },
      })
    })
  })

  describe('C-19 and C-03 for initial accounts', () => {
    it('refuses an account that is a valid account of another supplier (395016, nothing written)', async () => {
      const admin = await h.admin()
      const x = newAccountNo()
      await registerActive(h, admin, { initialAccounts: [account(x)] })
      const body = draftBody({ licenseImageUrl: LICENSE, initialAccounts: [account(x)] })
      const draft = await createDraft(h, admin, body)
      const before = await counts(h)
      const row = await supplierRow(h, draft.supplierId)
      const res = await submit(h, admin, draft.supplierId, submitBodyFrom(body, draft.updateTime))
      expect(res.body).toMatchObject({ code: 395016, success: false })
      expect(res.body.message).not.toContain(x)
      expect(await counts(h)).toEqual(before)
      expect(await supplierRow(h, draft.supplierId)).toEqual(row)
      expect((await accountsOf(h, draft.supplierId)).map((a) => a.status)).toEqual(['DRAFT'])

      // The same number in another spelling, sent with the submit.
      const spaced = `${x.slice(0, 4)} ${x.slice(4, 8)}-${x.slice(8)}`
      const again = await submit(
        h,
        admin,
        draft.supplierId,
        submitBodyFrom(body, draft.updateTime, { initialAccounts: [account(spaced)] }),
      )
      expect(again.body).toMatchObject({ code: 395016 })
      expect(await counts(h)).toEqual(before)
    })

    it('refuses the same number twice in one submit (spaces/hyphens variants) with 395016', async () => {
      const admin = await h.admin()
      const body = draftBody({ licenseImageUrl: LICENSE })
      const draft = await createDraft(h, admin, body)
      const before = await counts(h)
      const y = newAccountNo()
      const res = await submit(
        h,
        admin,
        draft.supplierId,
        submitBodyFrom(body, draft.updateTime, {
          initialAccounts: [
            account(`${y.slice(0, 4)} ${y.slice(4, 8)} ${y.slice(8)}`),
            account(`${y.slice(0, 4)}-${y.slice(4, 8)}-${y.slice(8)}`),
          ],
        }),
      )
      expect(res.body).toMatchObject({ code: 395016, success: false })
      expect(await counts(h)).toEqual(before)
    })

    it('refuses malformed account numbers with 395015 (C-03) and accepts 6 and 32 digits', async () => {
      const admin = await h.admin()
      const body = draftBody({ licenseImageUrl: LICENSE })
      const draft = await createDraft(h, admin, body)
      const before = await counts(h)
      const row = await supplierRow(h, draft.supplierId)
      for (const accountNo of [digits(5), digits(33), '6222abcd12345678', '6222_0212_3456', '--']) {
        const res = await submit(
          h,
          admin,
          draft.supplierId,
          submitBodyFrom(body, draft.updateTime, { initialAccounts: [account(accountNo)] }),
        )
        expect(res.body, accountNo).toMatchObject({ code: 395015, success: false })
      }
      expect(await counts(h)).toEqual(before)
      expect(await supplierRow(h, draft.supplierId)).toEqual(row)

      const ok = await submit(
        h,
        admin,
        draft.supplierId,
        submitBodyFrom(body, draft.updateTime, {
          initialAccounts: [account(`9${digits(5)}`), account(`8${digits(31)}`)],
        }),
      )
      expect(ok.body, JSON.stringify(ok.body)).toMatchObject({
        code: 200,
        data: { approvalStatus: 'APPLIED' },
      })
    })

    it('does not count a DRAFT account of another draft, but counts it once that one is ACTIVE', async () => {
      const admin = await h.admin()
      const z = newAccountNo()
      const c = draftBody({ licenseImageUrl: LICENSE, initialAccounts: [account(z)] })
      const cDraft = await createDraft(h, admin, c)
      const d = await register(h, admin, { initialAccounts: [account(z)] })
      expect(d.res.body, JSON.stringify(d.res.body)).toMatchObject({
        data: { approvalStatus: 'APPLIED' },
      })
      const res = await submit(h, admin, cDraft.supplierId, submitBodyFrom(c, cDraft.updateTime))
      expect(res.body).toMatchObject({ code: 395016 })
    })
  })

  describe('short-window duplicate-submit guard (3 s)', () => {
    it('refuses an identical create right after it with the uniqueness code (the guard comes after it)', async () => {
      // Spec write order: uniqueness (step 3) before the guard (step 4); the second identical
      // create therefore fails C-02 first. Either way exactly one supplier exists.
      const admin = await h.admin()
      const body = draftBody()
      await createDraft(h, admin, body)
      const before = await counts(h)
      const res = await h.call('POST', ITEMS, { admin, body })
      expect(res.body).toMatchObject({ code: 395004, success: false })
      expect(await counts(h)).toEqual(before)
    })

    it('refuses the same admin + body within the window (395013) but not another admin or body', async () => {
      // Deleting the first draft makes every pre-check pass again, so the guard alone decides.
      const admin = await h.admin()
      const body = draftBody()
      const first = await createDraft(h, admin, body)
      const del = await h.call('DELETE', `${ITEMS}/${first.supplierId}`, { admin })
      expect(del.body).toMatchObject({ code: 200 })
      const before = await counts(h)
      const twin = await h.call('POST', ITEMS, { admin, body })
      expect(twin.body).toMatchObject({ code: 395013, success: false })
      expect(await counts(h)).toEqual(before)
      const [{ n: live }] = await h.sql`
        SELECT count(*)::int AS n FROM supplier WHERE full_name = ${body.fullName} AND deleted_at IS NULL`
      expect(live).toBe(0)

      // Another body from the same admin is a different request.
      const changed = await h.call('POST', ITEMS, {
        admin,
        body: { ...body, shortName: 'changed' },
      })
      expect(changed.body).toMatchObject({ code: 200, success: true })
      const del2 = await h.call('DELETE', `${ITEMS}/${changed.body.data.supplierId}`, { admin })
      expect(del2.body).toMatchObject({ code: 200 })

      // Another administrator with the very same body is not blocked by the guard.
      const other = await h.admin()
      const theirs = await h.call('POST', ITEMS, { admin: other, body })
      expect(theirs.body).toMatchObject({ code: 200, success: true })
      // ...and a third one now fails on the tax number (C-02), not on the guard.
      const third = await h.call('POST', ITEMS, { admin: await h.admin(), body })
      expect(third.body).toMatchObject({ code: 395004 })
    })

    it('leaves no submit_guard row when the request fails, so the same request is checked again', async () => {
      const admin = await h.admin()
      const before = await counts(h)
      const badType = await h.call('POST', ITEMS, {
        admin,
        body: draftBody({ types: [{ typeCode: 'NO_SUCH_TYPE' }] }),
      })
      expect(badType.body).toMatchObject({ code: 395010 })
      expect(await counts(h)).toEqual(before)

      // A failure inside the business transaction (C-19 re-check) also leaves no guard row.
      const x = newAccountNo()
      await registerActive(h, admin, { initialAccounts: [account(x)] })
      const body = draftBody({ licenseImageUrl: LICENSE, initialAccounts: [account(x)] })
      const draft = await createDraft(h, admin, body)
      const mid = await counts(h)
      const request = submitBodyFrom(body, draft.updateTime)
      const firstTry = await submit(h, admin, draft.supplierId, request)
      expect(firstTry.body).toMatchObject({ code: 395016 })
      expect(await counts(h)).toEqual(mid)
      const secondTry = await submit(h, admin, draft.supplierId, request)
      expect(secondTry.body).toMatchObject({ code: 395016 })
      expect(await counts(h)).toEqual(mid)
    })

    it('lets exactly one of two concurrent identical creates through', async () => {
      const admin = await h.admin()
      const body = draftBody()
      const before = await counts(h)
      const results = await Promise.all([
        h.call('POST', ITEMS, { admin, body }),
        h.call('POST', ITEMS, { admin, body }),
      ])
      const codes = results.map((r) => r.body.code).sort()
      expect(codes[0]).toBe(200)
      // Which pre-check or guard refuses the loser depends on timing: C-02, near-duplicate or guard.
      expect([395004, 395006, 395013]).toContain(codes[1])
      const [{ n }] = await h.sql`
        SELECT count(*)::int AS n FROM supplier WHERE full_name = ${body.fullName}`
      expect(n).toBe(1)
      expect((await counts(h)).supplier).toBe(before.supplier + 1)
    })

    it.skipIf(!process.env.DATABASE_URL)(
      'real PostgreSQL: concurrent twins that both pass the pre-checks meet the guard (395013); other admins meet C-02',
      async () => {
        const race = async (admins: [string, string], body: Body) => {
          let pending!: Promise<{ status: number; body: any }[]>
          await h.sql.begin(async (tx) => {
            // Hold inserts into supplier so that both requests are inside their transactions.
            await tx`LOCK TABLE supplier IN SHARE MODE`
            pending = Promise.all(admins.map((admin) => h.call('POST', ITEMS, { admin, body })))
            for (let i = 0; i < 100; i++) {
              const [{ n }] = await h.sql`
                SELECT count(*)::int AS n FROM pg_stat_activity
                WHERE datname = current_database() AND wait_event_type = 'Lock'`
              if (n >= 2) break
              await sleep(50)
            }
          })
          return (await pending).map((r) => r.body.code).sort()
        }
        const admin = await h.admin()
        const same = draftBody()
        expect(await race([admin, admin], same)).toEqual([200, 395013])
        const other = draftBody()
        expect(await race([admin, await h.admin()], other)).toEqual([200, 395004])
        const [{ n }] = await h.sql`
          SELECT count(*)::int AS n FROM supplier WHERE full_name IN (${same.fullName}, ${other.fullName})`
        expect(n).toBe(2)
      },
    )
  })

  describe('no plaintext sensitive value anywhere', () => {
    it('keeps tax number, phones, account number, certificate and opinion out of responses, logs, logs tables and events', async () => {
      const admin = await h.admin()
      const taxNo = `91330106MA${randomBytes(4).toString('hex').toUpperCase()}`
      const opinion = `opinion-${randomBytes(6).toString('hex')}`
      const body = fullDraftBody({ taxNo })
      // Reads by a viewer without supplier:approval:opinion (with it, the opinion is shown on purpose).
      const viewer = await h.admin(['supplier:list', 'supplier:view'])
      const responses: unknown[] = []
      const call = async (method: string, path: string, options: Body = {}) => {
        const res = await h.call(method, path, {
          admin: method === 'GET' ? viewer : admin,
          ...options,
        })
        responses.push(res.body)
        return res
      }
      const created = await call('POST', ITEMS, {
        body,
        headers: { 'Idempotency-Key': `k-${randomBytes(8).toString('hex')}` },
      })
      expect(created.body, JSON.stringify(created.body)).toMatchObject({ code: 200 })
      const draft = created.body.data
      const submitted = await call('POST', `${ITEMS}/${draft.supplierId}/submit`, {
        body: submitBodyFrom(body, draft.updateTime, {
          submitNote: opinion,
          contacts: body.contacts,
          qualifications: body.qualifications,
          initialAccounts: body.initialAccounts,
        }),
        headers: { 'Idempotency-Key': `k-${randomBytes(8).toString('hex')}` },
      })
      expect(submitted.body, JSON.stringify(submitted.body)).toMatchObject({
        code: 200,
        data: { approvalStatus: 'APPLIED' },
      })
      // A failure path that echoes the request: C-02 with the same tax number.
      const dup = await call('POST', ITEMS, { body: { ...body, fullName: draftBody().fullName } })
      expect(dup.body).toMatchObject({ code: 395004 })
      await call('GET', `${ITEMS}/${draft.supplierId}`)
      await call('GET', `${ITEMS}/${draft.supplierId}/account-info`)
      const records = await call(
        'GET',
        `/admin/supplier/approval-records?supplierId=${draft.supplierId}`,
      )
      expect(records.body.data.records.some((r: Body) => r.hasOpinion === true)).toBe(false)
      await call('GET', `${ITEMS}?keyword=${encodeURIComponent(body.fullName.split(' ')[1])}`)

      const tables = {} as Record<string, string>
      for (const table of [
        'supplier',
        'supplier_contact',
        'supplier_qualification',
        'supplier_bank_account',
        'approval_log',
        'change_log',
        'domain_event',
        'idempotency_record',
        'submit_guard',
      ]) {
        const rows = await h.sql`SELECT row_to_json(t)::text AS j FROM ${h.sql(table)} t`
        tables[table] = rows.map((r) => r.j).join('\n')
      }
      expect(tables.idempotency_record).toContain(draft.supplierId)
      expect(tables.change_log).toContain(maskTaxNo(taxNo)!)
      const haystacks = {
        responses: JSON.stringify(responses),
        logs: h.logs.join('\n'),
        ...tables,
      }
      const needles = {
        taxNo,
        taxNoLower: taxNo.toLowerCase(),
        phone: PHONE,
        contactPhone: CONTACT_PHONE,
        accountNo: ACCOUNT_NO,
        certNo: CERT_NO,
        opinion,
      }
      for (const [where, text] of Object.entries(haystacks)) {
        for (const [what, value] of Object.entries(needles)) {
          expect(text.includes(value), `${what} found in ${where}`).toBe(false)
        }
      }
    })
  })
})

// ---------------------------------------------------------------------------------------------
// A provider under test control: APPLY_FAILED, retries, provider failure, unknown schema version.
// ---------------------------------------------------------------------------------------------

type Mode =
  | { kind: 'approve' }
  | { kind: 'conflict'; accountNo: string; holderId: string }
  | { kind: 'dropQualification'; qualType: string }
  | { kind: 'throw' }
  | { kind: 'version'; schemaVersion: number }

describe('common result applier, APPLY_FAILED and the retry route', () => {
  let mode: Mode = { kind: 'approve' }
  /** Accounts inserted behind the service's back to make the applier's re-check fail. */
  const planted: string[] = []
  const h: Harness = useHarness({
    approvalProvider: (hh) => ({
      name: 'LOCAL_AUTO',
      submit: async (approval) => {
        const m = mode
        if (m.kind === 'throw') throw new Error('approval platform unreachable')
        if (m.kind === 'conflict') {
          const bidx = await hh.cipher.blindIndex(m.accountNo, 'accountNo')
          const [row] = await hh.sql`
            INSERT INTO supplier_bank_account (supplier_id, account_name, account_type, bank_name,
              account_no_enc, account_no_bidx, account_no_mask, status, created_by)
            VALUES (${m.holderId}, 'Holder', 'CORPORATE', 'Bank', ${await hh.cipher.encrypt(m.accountNo)},
              ${bidx}, ${maskAccountNo(m.accountNo)}, 'ACTIVE', 1)
            RETURNING account_id::text AS id`
          planted.push(row.id)
        }
        if (m.kind === 'dropQualification') {
          await hh.sql`
            UPDATE supplier_qualification SET deleted_at = now()
            WHERE supplier_id = ${approval.supplierId} AND qual_type = ${m.qualType} AND deleted_at IS NULL`
        }
        return {
          approvalLogId: approval.approvalLogId,
          decision: 'APPROVED',
          schemaVersion: m.kind === 'version' ? m.schemaVersion : 1,
        }
      },
    }),
  })

  const removePlanted = async () => {
    await h.sql`UPDATE supplier_bank_account SET deleted_at = now() WHERE account_id = ANY(${planted}::bigint[])`
  }

  /** A registered holder and a draft whose initial account the provider will plant on the holder. */
  async function failingRegistration(admin: string) {
    mode = { kind: 'approve' }
    const holder = await registerActive(h, admin)
    const x = newAccountNo()
    const body = draftBody({ licenseImageUrl: LICENSE, initialAccounts: [account(x)] })
    const draft = await createDraft(h, admin, body)
    mode = { kind: 'conflict', accountNo: x, holderId: holder.draft.supplierId }
    const res = await submit(h, admin, draft.supplierId, submitBodyFrom(body, draft.updateTime))
    mode = { kind: 'approve' }
    return { body, draft, res, accountNo: x }
  }

  it('answers APPLY_FAILED when the re-check fails, keeps the supplier VETTING, and a retry applies it once fixed', async () => {
    const admin = await h.admin()
    const { draft, res } = await failingRegistration(admin)
    expect(res.body, JSON.stringify(res.body)).toMatchObject({
      code: 200,
      success: true,
      data: {
        provider: 'LOCAL_AUTO',
        approvalStatus: 'APPLY_FAILED',
        businessApplied: false,
        spNo: '',
        spStatus: '',
      },
    })
    const approvalLogId = res.body.data.approvalLogId
    // The state table moves VETTING -> DRAFT only on rejection: a failed application leaves the
    // registration pending, its accounts PENDING, and the approval retryable.
    const supplier = await supplierRow(h, draft.supplierId)
    expect(supplier).toMatchObject({ status: 'VETTING', supplier_no: null })
    expect((await accountsOf(h, draft.supplierId)).map((a) => a.status)).toEqual(['PENDING'])
    expect(await approvalRow(h, approvalLogId)).toMatchObject({
      status: 'APPLY_FAILED',
      failure_code: 395016,
      apply_attempts: 1,
      applied: false,
    })
    const logs = await changeLogs(h, draft.supplierId)
    expect(logs).toContainEqual(
      expect.objectContaining({
        op: 'REGISTRATION_APPLY_FAILED',
        approvalLogId,
        field: 'approvalStatus',
        old: 'APPROVED',
        new: 'APPLY_FAILED',
        status: 'APPLY_FAILED',
      }),
    )
    expect(logs.filter((l) => l.op === 'REGISTRATION_APPLY')).toEqual([])
    expect(logs.filter((l) => l.op === 'REGISTRATION_REJECT')).toEqual([])
    const events = (await eventsOf(h, draft.supplierId)).map((e) => e.type)
    expect(events).not.toContain('SupplierRegistrationRejected')
    expect(events).not.toContain('SupplierActivated')
    expect(events).not.toContain('BankAccountActivated')

    // The retry route is internal: a wrong or missing token is 401 and changes nothing.
    const before = await counts(h)
    const approvalBefore = await approvalRow(h, approvalLogId)
    for (const token of [null, 'wrong-token', `${h.config.internalToken}x`, '']) {
      const denied = await retry(h, approvalLogId, token)
      expect(denied.body, String(token)).toMatchObject({ code: 401, success: false })
    }
    // An administrator's bearer token is not an internal token.
    const asAdmin = await h.call('POST', `/internal/supplier/approvals/${approvalLogId}/apply`, {
      admin,
    })
    expect(asAdmin.body).toMatchObject({ code: 401 })
    expect(await counts(h)).toEqual(before)
    expect(await approvalRow(h, approvalLogId)).toEqual(approvalBefore)

    // Retrying while the conflict is still there fails again and stays VETTING.
    const stillFailing = await retry(h, approvalLogId)
    expect(stillFailing.body).toMatchObject({ code: 200, data: { approvalStatus: 'APPLY_FAILED' } })
    expect(await supplierRow(h, draft.supplierId)).toMatchObject({
      status: 'VETTING',
      supplier_no: null,
    })
    expect(await approvalRow(h, approvalLogId)).toMatchObject({
      apply_attempts: 2,
      failure_code: 395016,
    })

    // Once the conflict is gone, the retry applies.
    await removePlanted()
    const applied = await retry(h, approvalLogId)
    expect(applied.body, JSON.stringify(applied.body)).toMatchObject({
      code: 200,
      success: true,
      data: {
        approvalLogId,
        approvalStatus: 'APPLIED',
        provider: 'LOCAL_AUTO',
        spNo: '',
        spStatus: '',
      },
    })
    const active = await supplierRow(h, draft.supplierId)
    expect(active.status).toBe('ACTIVE')
    expect(active.supplier_no).toBeTruthy()
    expect(await accountsOf(h, draft.supplierId)).toEqual([
      expect.objectContaining({ status: 'ACTIVE', isDefault: 'NO' }),
    ])
    expect(await approvalRow(h, approvalLogId)).toMatchObject({
      status: 'APPLIED',
      failure_code: null,
      applied: true,
    })
    const afterLogs = await changeLogs(h, draft.supplierId)
    expect(afterLogs).toContainEqual(
      expect.objectContaining({
        op: 'REGISTRATION_APPLY',
        approvalLogId,
        field: 'supplierNo',
        new: active.supplier_no,
      }),
    )
    expect((await eventsOf(h, draft.supplierId)).map((e) => e.type)).toContain('SupplierActivated')

    // Applying an APPLIED approval again changes nothing.
    const settled = await counts(h)
    const settledApproval = await approvalRow(h, approvalLogId)
    const again = await retry(h, approvalLogId)
    expect(again.body).toMatchObject({ code: 200, data: { approvalStatus: 'APPLIED' } })
    expect(await supplierRow(h, draft.supplierId)).toEqual(active)
    expect(await counts(h)).toEqual(settled)
    expect(await approvalRow(h, approvalLogId)).toEqual(settledApproval)
  })

  it('answers 395029 for an unknown approval and 400 for a malformed id', async () => {
    const before = await counts(h)
    const unknown = await retry(h, '9007199254000777')
    expect(unknown.body).toMatchObject({ code: 395029, success: false })
    const malformed = await retry(h, 'abc')
    expect(malformed.body).toMatchObject({ code: 400, success: false })
    expect(await counts(h)).toEqual(before)
  })

  it('re-checks C-06 on retry: a draft whose licence was removed after APPLY_FAILED fails with 395007', async () => {
    const admin = await h.admin()
    const { draft, res } = await failingRegistration(admin)
    const approvalLogId = res.body.data.approvalLogId
    await removePlanted()
    const current = await h.call('GET', `${ITEMS}/${draft.supplierId}`, { admin })
    const cleared = await h.call('PUT', `${ITEMS}/${draft.supplierId}`, {
      admin,
      body: {
        licenseImageUrl: null,
        changeReason: 'licence withdrawn',
        expectedUpdateTime: current.body.data.updateTime,
      },
    })
    expect(cleared.body, JSON.stringify(cleared.body)).toMatchObject({ code: 200 })
    const failed = await retry(h, approvalLogId)
    expect(failed.body).toMatchObject({ code: 200, data: { approvalStatus: 'APPLY_FAILED' } })
    expect(await approvalRow(h, approvalLogId)).toMatchObject({ failure_code: 395007 })
    expect(await supplierRow(h, draft.supplierId)).toMatchObject({
      status: 'VETTING',
      supplier_no: null,
    })

    const restored = await h.call('PUT', `${ITEMS}/${draft.supplierId}`, {
      admin,
      body: {
        licenseImageUrl: LICENSE,
        changeReason: 'licence restored',
        expectedUpdateTime: cleared.body.data.updateTime,
      },
    })
    expect(restored.body).toMatchObject({ code: 200 })
    const applied = await retry(h, approvalLogId)
    expect(applied.body).toMatchObject({ code: 200, data: { approvalStatus: 'APPLIED' } })
    expect((await supplierRow(h, draft.supplierId)).status).toBe('ACTIVE')
  })

  it('re-checks C-09 on apply: a required qualification removed before the decision makes it APPLY_FAILED (395008)', async () => {
    await putRules(h, 'SCENIC', [
      { qualType: 'BUSINESS_LICENSE', isRequired: true, warningDays: 30, sortOrder: 1 },
    ])
    const admin = await h.admin()
    const body = draftBody({
      licenseImageUrl: LICENSE,
      types: [{ typeCode: 'SCENIC' }],
      qualifications: [qual('BUSINESS_LICENSE')],
    })
    const draft = await createDraft(h, admin, body)
    mode = { kind: 'dropQualification', qualType: 'BUSINESS_LICENSE' }
    const res = await submit(h, admin, draft.supplierId, submitBodyFrom(body, draft.updateTime))
    mode = { kind: 'approve' }
    expect(res.body).toMatchObject({ code: 200, data: { approvalStatus: 'APPLY_FAILED' } })
    const approvalLogId = res.body.data.approvalLogId
    expect(await approvalRow(h, approvalLogId)).toMatchObject({
      status: 'APPLY_FAILED',
      failure_code: 395008,
    })
    expect(await supplierRow(h, draft.supplierId)).toMatchObject({
      status: 'VETTING',
      supplier_no: null,
    })

    const current = await h.call('GET', `${ITEMS}/${draft.supplierId}`, { admin })
    const fixed = await h.call('PUT', `${ITEMS}/${draft.supplierId}`, {
      admin,
      body: {
        qualifications: [qual('BUSINESS_LICENSE')],
        changeReason: 'licence added',
        expectedUpdateTime: current.body.data.updateTime,
      },
    })
    expect(fixed.body, JSON.stringify(fixed.body)).toMatchObject({ code: 200 })
    const applied = await retry(h, approvalLogId)
    expect(applied.body).toMatchObject({ code: 200, data: { approvalStatus: 'APPLIED' } })
    expect((await supplierRow(h, draft.supplierId)).status).toBe('ACTIVE')
  })

  it('never activates identifying data that the approval did not cover (identity frozen while pending)', async () => {
    const admin = await h.admin()
    const { draft, res } = await failingRegistration(admin)
    const approvalLogId = res.body.data.approvalLogId
    const approved = (await approvalRow(h, approvalLogId))!.candidate_snapshot as Body
    await removePlanted()
    const current = await h.call('GET', `${ITEMS}/${draft.supplierId}`, { admin })
    const renamed = await h.call('PUT', `${ITEMS}/${draft.supplierId}`, {
      admin,
      body: {
        fullName: draftBody().fullName,
        taxNo: uniqueTaxNo(),
        changeReason: 'rename while pending',
        expectedUpdateTime: current.body.data.updateTime,
      },
    })
    expect(renamed.body, JSON.stringify(renamed.body)).toMatchObject({ code: 395009 })
    const applied = await retry(h, approvalLogId)
    expect(applied.body).toMatchObject({ code: 200, data: { approvalStatus: 'APPLIED' } })
    const row = await supplierRow(h, draft.supplierId)
    expect(row).toMatchObject({ status: 'ACTIVE', full_name: approved.fullName })
  })

  it('a provider that throws leaves the approval SUBMITTED and the supplier VETTING (answer: SUBMITTED)', async () => {
    const admin = await h.admin()
    const body = draftBody({ licenseImageUrl: LICENSE, initialAccounts: [account()] })
    const draft = await createDraft(h, admin, body)
    mode = { kind: 'throw' }
    const res = await submit(h, admin, draft.supplierId, submitBodyFrom(body, draft.updateTime))
    mode = { kind: 'approve' }
    expect(res.body, JSON.stringify(res.body)).toMatchObject({
      code: 200,
      success: true,
      data: {
        approvalStatus: 'SUBMITTED',
        businessApplied: false,
        provider: 'LOCAL_AUTO',
        finishedAt: null,
      },
    })
    const approvalLogId = res.body.data.approvalLogId
    expect(await supplierRow(h, draft.supplierId)).toMatchObject({
      status: 'VETTING',
      supplier_no: null,
    })
    expect((await accountsOf(h, draft.supplierId)).map((a) => a.status)).toEqual(['PENDING'])
    expect(await approvalRow(h, approvalLogId)).toMatchObject({
      status: 'SUBMITTED',
      finished: false,
      applied: false,
      apply_attempts: 0,
    })
    const ops = (await changeLogs(h, draft.supplierId)).map((l) => l.op)
    expect(ops).toContain('REGISTRATION_SUBMIT')
    expect(ops).not.toContain('REGISTRATION_APPLY')
    expect((await eventsOf(h, draft.supplierId)).map((e) => e.type)).not.toContain(
      'SupplierActivated',
    )
    expect(h.logs.some((l) => l.includes('left to reconciliation'))).toBe(true)

    // Reconciliation asks the provider again: while it still fails nothing changes (395039) ...
    const before = await counts(h)
    mode = { kind: 'throw' }
    const failed = await retry(h, approvalLogId)
    mode = { kind: 'approve' }
    expect(failed.body).toMatchObject({ code: 395039, success: false })
    expect(await counts(h)).toEqual(before)
    expect((await supplierRow(h, draft.supplierId)).status).toBe('VETTING')
    // ... and once it answers, the decision is applied as at submit.
    const reconciled = await retry(h, approvalLogId)
    expect(reconciled.body).toMatchObject({ code: 200, data: { approvalStatus: 'APPLIED' } })
    expect((await supplierRow(h, draft.supplierId)).status).toBe('ACTIVE')
  })

  it('never applies a result with an unknown schemaVersion, and does not answer failure for a recorded submission', async () => {
    const admin = await h.admin()
    const body = draftBody({ licenseImageUrl: LICENSE })
    const draft = await createDraft(h, admin, body)
    const before = await counts(h)
    mode = { kind: 'version', schemaVersion: 2 }
    const res = await submit(h, admin, draft.supplierId, submitBodyFrom(body, draft.updateTime))
    mode = { kind: 'approve' }
    const row = await supplierRow(h, draft.supplierId)
    const approvals = await h.sql`
      SELECT status, applied_at IS NOT NULL AS applied FROM approval_log WHERE supplier_id = ${draft.supplierId}`
    // Rejected for final application: nothing is applied.
    expect(row.status).not.toBe('ACTIVE')
    expect(row.supplier_no).toBeNull()
    expect(approvals.every((a) => a.status !== 'APPLIED' && !a.applied)).toBe(true)
    // And the answer matches what was written: an error only if nothing was written, otherwise a
    // success that reports the approval as still SUBMITTED.
    if (res.body.success === false) {
      expect(res.body.code).toBe(395026)
      expect(await counts(h)).toEqual(before)
      expect(row.status).toBe('DRAFT')
    } else {
      expect(res.body.data).toMatchObject({ approvalStatus: 'SUBMITTED' })
      expect(row.status).toBe('VETTING')
    }
  })
})

// ---------------------------------------------------------------------------------------------
// The guard window itself (1 s) and Idempotency-Key (guard off).
// ---------------------------------------------------------------------------------------------

describe('duplicate-submit window of 1 s', () => {
  const h = useHarness({ env: { DUPLICATE_SUBMIT_WINDOW_SECONDS: '1' } })

  it('blocks within the window and no longer after it', async () => {
    const admin = await h.admin()
    await createDraft(h, admin, draftBody()) // warm-up, so the timed part below is fast
    const body = draftBody()
    const first = await createDraft(h, admin, body)
    await h.call('DELETE', `${ITEMS}/${first.supplierId}`, { admin })
    const inside = await h.call('POST', ITEMS, { admin, body })
    expect(inside.body).toMatchObject({ code: 395013 })
    await sleep(1200)
    const after = await h.call('POST', ITEMS, { admin, body })
    expect(after.body, JSON.stringify(after.body)).toMatchObject({ code: 200, success: true })
  })
})

describe('Idempotency-Key (duplicate-submit window 0)', () => {
  const h = useHarness({ env: { DUPLICATE_SUBMIT_WINDOW_SECONDS: '0' } })
  const key = () => `k-${randomBytes(8).toString('hex')}`
  const post = (admin: string, body: Body, k: string) =>
    h.call('POST', ITEMS, { admin, body, headers: { 'Idempotency-Key': k } })
  const liveByTax = async (taxNo: string) => {
    const bidx = await h.cipher.blindIndex(taxNo, 'taxNo')
    const [{ n }] = await h.sql`SELECT count(*)::int AS n FROM supplier WHERE tax_no_bidx = ${bidx}`
    return n
  }

  it('runs without the guard when the window is 0', async () => {
    const admin = await h.admin()
    const body = draftBody()
    const first = await createDraft(h, admin, body)
    await h.call('DELETE', `${ITEMS}/${first.supplierId}`, { admin })
    const again = await h.call('POST', ITEMS, { admin, body })
    expect(again.body).toMatchObject({ code: 200 })
  })

  it('replays the first response for the same key and body, writing nothing again', async () => {
    const admin = await h.admin()
    const body = draftBody()
    const k = key()
    const first = await post(admin, body, k)
    expect(first.body).toMatchObject({ code: 200, success: true })
    const before = await counts(h)
    const second = await post(admin, body, k)
    expect(second.body).toEqual(first.body)
    expect(await counts(h)).toEqual(before)
    expect(await liveByTax(body.taxNo)).toBe(1)
    const [record] = await h.sql`
      SELECT status, response FROM idempotency_record WHERE admin_id = ${admin} AND idempotency_key = ${k}`
    expect(record.status).toBe('DONE')
    expect(record.response).toEqual(first.body.data)
  })

  it('refuses the same key with a different body or another operation (395027)', async () => {
    const admin = await h.admin()
    const body = draftBody({ licenseImageUrl: LICENSE })
    const k = key()
    const first = await post(admin, body, k)
    expect(first.body).toMatchObject({ code: 200 })
    const before = await counts(h)
    const other = draftBody()
    const changed = await post(admin, other, k)
    expect(changed.body).toMatchObject({ code: 395027, success: false })
    expect(await liveByTax(other.taxNo)).toBe(0)
    const onSubmit = await submit(
      h,
      admin,
      first.body.data.supplierId,
      submitBodyFrom(body, first.body.data.updateTime),
      { 'Idempotency-Key': k },
    )
    expect(onSubmit.body).toMatchObject({ code: 395027 })
    expect(await counts(h)).toEqual(before)
    expect((await supplierRow(h, first.body.data.supplierId)).status).toBe('DRAFT')
  })

  it('runs for real after a failed first request with the same key', async () => {
    const admin = await h.admin()
    const k = key()
    const bad = draftBody({ types: [{ typeCode: 'NO_SUCH_TYPE' }] })
    const before = await counts(h)
    const failed = await post(admin, bad, k)
    expect(failed.body).toMatchObject({ code: 395010 })
    const failedAgain = await post(admin, bad, k)
    expect(failedAgain.body).toMatchObject({ code: 395010 })
    expect(await counts(h)).toEqual(before)
    const good = draftBody()
    const ok = await post(admin, good, k)
    expect(ok.body).toMatchObject({ code: 200, success: true })
    expect(await liveByTax(good.taxNo)).toBe(1)
  })

  it('refuses a malformed key with 400 and writes nothing', async () => {
    const admin = await h.admin()
    const before = await counts(h)
    for (const k of ['x'.repeat(256), 'x'.repeat(300), 'has space', 'key/slash', 'key+plus', '']) {
      const body = draftBody()
      const res = await post(admin, body, k)
      expect(res.body, k).toMatchObject({ code: 400, success: false })
      expect(res.body.message).toContain('Idempotency-Key')
      expect(await liveByTax(body.taxNo)).toBe(0)
    }
    expect(await counts(h)).toEqual(before)
    const longest = await post(admin, draftBody(), 'k'.repeat(255))
    expect(longest.body).toMatchObject({ code: 200 })
  })

  it('keeps keys per administrator', async () => {
    const a = await h.admin()
    const b = await h.admin()
    const k = key()
    const body = draftBody()
    const first = await post(a, body, k)
    expect(first.body).toMatchObject({ code: 200 })
    // The same key and body from another admin is not a replay: it runs and meets C-02.
    const theirs = await post(b, body, k)
    expect(theirs.body).toMatchObject({ code: 395004 })
    // And another body under the same key is theirs to use.
    const other = draftBody()
    const own = await post(b, other, k)
    expect(own.body).toMatchObject({ code: 200 })
    expect(own.body.data.supplierId).not.toBe(first.body.data.supplierId)
  })

  it('replays a submit: one approval, the same ApprovalCommandResult', async () => {
    const admin = await h.admin()
    const body = draftBody({ licenseImageUrl: LICENSE, initialAccounts: [account()] })
    const draft = await createDraft(h, admin, body)
    const k = key()
    const request = submitBodyFrom(body, draft.updateTime)
    const first = await submit(h, admin, draft.supplierId, request, { 'Idempotency-Key': k })
    expect(first.body).toMatchObject({ code: 200, data: { approvalStatus: 'APPLIED' } })
    const before = await counts(h)
    const row = await supplierRow(h, draft.supplierId)
    const second = await submit(h, admin, draft.supplierId, request, { 'Idempotency-Key': k })
    expect(second.body).toEqual(first.body)
    expect(await counts(h)).toEqual(before)
    expect(await supplierRow(h, draft.supplierId)).toEqual(row)
    // Without the key the same request runs and is refused: the supplier is no longer a DRAFT.
    const plain = await submit(h, admin, draft.supplierId, request)
    expect(plain.body).toMatchObject({ code: 395005 })
  })

  it('lets one of two concurrent requests with the same key run', async () => {
    const admin = await h.admin()
    const body = draftBody()
    const k = key()
    const [a, b] = await Promise.all([post(admin, body, k), post(admin, body, k)])
    expect(await liveByTax(body.taxNo)).toBe(1)
    const bodies = [a.body, b.body]
    const winner = bodies.find((r) => r.code === 200)
    expect(winner).toBeDefined()
    for (const r of bodies) {
      if (r.code === 200) expect(r.data.supplierId).toBe(winner.data.supplierId)
      else expect(r.code).toBe(395028)
    }
  })
})
