import { describe, expect, it } from 'vitest'
import { maskAccountNo } from '../src/crypto/sensitive'
import {
  ITEMS,
  LICENSE,
  createDraft,
  registerActive,
  retry,
  submit,
  submitBodyFrom,
} from './client'
import { randomAccountNo } from './fixtures'
import { useHarness, type Harness } from './harness'
import {
  account,
  accountsOf,
  approvalRow,
  changeLogs,
  eventsOf,
  putRules,
  qual,
  supplierRow,
} from './supplier-submit-data'
import { draftBody, uniqueTaxNo } from './supplier-data'
import { snapshot, unchanged } from './unchanged'

/*
 * SUP-ADM-007 submit registration with a provider under test control: the applier's re-checks
 * (C-19, C-06, C-09) make an approval APPLY_FAILED, the internal retry route applies it once
 * fixed, a provider that fails leaves it SUBMITTED for reconciliation, and an unknown result
 * schema or identifying data the approval did not cover is never applied.
 */

type Body = Record<string, any>

type Mode =
  | { kind: 'approve' }
  | { kind: 'conflict'; accountNo: string; holderId: string }
  | { kind: 'dropQualification'; qualType: string }
  | { kind: 'throw' }
  | { kind: 'version'; schemaVersion: number }

describe('SUP-ADM-007 submit registration: the common result applier and the retry route', () => {
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
    const holder = await registerActive(h, admin, { initialAccounts: [account()] })
    const x = randomAccountNo()
    const body = draftBody({ licenseImageUrl: LICENSE, initialAccounts: [account(x)] })
    const draft = await createDraft(h, body, admin)
    mode = { kind: 'conflict', accountNo: x, holderId: holder.supplierId }
    const res = await submit(h, draft.supplierId, submitBodyFrom(body, draft.version), { admin })
    mode = { kind: 'approve' }
    return { body, draft, res, accountNo: x }
  }

  describe('error: APPLY_FAILED, the retry route and a failing provider', () => {
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
      const approvalBefore = await approvalRow(h, approvalLogId)
      await unchanged(h, async () => {
        for (const token of [null, 'wrong-token', `${h.config.internalToken}x`, '']) {
          const denied = await retry(h, approvalLogId, token)
          expect(denied.body, String(token)).toMatchObject({ code: 401, success: false })
        }
        // An administrator's bearer token is not an internal token.
        const asAdmin = await h.call(
          'POST',
          `/internal/supplier/approvals/${approvalLogId}/apply`,
          {
            admin,
          },
        )
        expect(asAdmin.body).toMatchObject({ code: 401 })
      })
      expect(await approvalRow(h, approvalLogId)).toEqual(approvalBefore)

      // Retrying while the conflict is still there fails again and stays VETTING.
      const stillFailing = await retry(h, approvalLogId)
      expect(stillFailing.body).toMatchObject({
        code: 200,
        data: { approvalStatus: 'APPLY_FAILED' },
      })
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
      expect((await eventsOf(h, draft.supplierId)).map((e) => e.type)).toContain(
        'SupplierActivated',
      )

      // Applying an APPLIED approval again changes nothing.
      const settledApproval = await approvalRow(h, approvalLogId)
      await unchanged(h, async () => {
        const again = await retry(h, approvalLogId)
        expect(again.body).toMatchObject({ code: 200, data: { approvalStatus: 'APPLIED' } })
        expect(await supplierRow(h, draft.supplierId)).toEqual(active)
      })
      expect(await approvalRow(h, approvalLogId)).toEqual(settledApproval)
    })

    it('answers 395029 for an unknown approval and 400 for a malformed id', async () => {
      await unchanged(h, async () => {
        const unknown = await retry(h, '9007199254000777')
        expect(unknown.body).toMatchObject({ code: 395029, success: false })
        const malformed = await retry(h, 'abc')
        expect(malformed.body).toMatchObject({ code: 400, success: false })
      })
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
      const draft = await createDraft(h, body, admin)
      mode = { kind: 'dropQualification', qualType: 'BUSINESS_LICENSE' }
      const res = await submit(h, draft.supplierId, submitBodyFrom(body, draft.version), { admin })
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

    it('a provider that throws leaves the approval SUBMITTED and the supplier VETTING (answer: SUBMITTED)', async () => {
      const admin = await h.admin()
      const body = draftBody({ licenseImageUrl: LICENSE, initialAccounts: [account()] })
      const draft = await createDraft(h, body, admin)
      mode = { kind: 'throw' }
      const res = await submit(h, draft.supplierId, submitBodyFrom(body, draft.version), { admin })
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
      await unchanged(h, async () => {
        mode = { kind: 'throw' }
        const failed = await retry(h, approvalLogId)
        mode = { kind: 'approve' }
        expect(failed.body).toMatchObject({ code: 395039, success: false })
      })
      expect((await supplierRow(h, draft.supplierId)).status).toBe('VETTING')
      // ... and once it answers, the decision is applied as at submit.
      const reconciled = await retry(h, approvalLogId)
      expect(reconciled.body).toMatchObject({ code: 200, data: { approvalStatus: 'APPLIED' } })
      expect((await supplierRow(h, draft.supplierId)).status).toBe('ACTIVE')
    })
  })

  describe('security: nothing is applied that the approval did not cover', () => {
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

    it('never applies a result with an unknown schemaVersion, and does not answer failure for a recorded submission', async () => {
      const admin = await h.admin()
      const body = draftBody({ licenseImageUrl: LICENSE })
      const draft = await createDraft(h, body, admin)
      const before = await snapshot(h)
      mode = { kind: 'version', schemaVersion: 2 }
      const res = await submit(h, draft.supplierId, submitBodyFrom(body, draft.version), { admin })
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
        expect(await snapshot(h)).toEqual(before)
        expect(row.status).toBe('DRAFT')
      } else {
        expect(res.body.data).toMatchObject({ approvalStatus: 'SUBMITTED' })
        expect(row.status).toBe('VETTING')
      }
    })
  })
})
