import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { maskAccountNo, maskTaxNo } from '../src/crypto/sensitive'
import { withCheckCharacter } from '../src/domain/supplier/uscc'
import {
  ITEMS,
  LICENSE,
  createDraft,
  register,
  registerActive,
  submit,
  submitBodyFrom,
} from './client'
import { randomAccountNo } from './fixtures'
import { useHarness } from './harness'
import {
  APPROVAL_RESULT_KEYS,
  account,
  accountsOf,
  approvalRow,
  changeLogs,
  eventsOf,
  supplierRow,
} from './supplier-submit-data'
import {
  ACCOUNT_NO,
  CERT_NO,
  CONTACT_PHONE,
  DATE_TIME,
  PHONE,
  draftBody,
  fullDraftBody,
  randomDigits,
  uniqueTaxNo,
} from './supplier-data'
import { rowCounts, unchanged } from './unchanged'

/*
 * SUP-ADM-007 submit registration through the real LOCAL_AUTO provider and the common applier:
 * what a registration records and applies, the states and versions it may start from, C-02,
 * C-19 and C-03 at submit, and what the client may not set or see. C-09 is in
 * supplier-submit-qualifications.test.ts, APPLY_FAILED and the retry route in
 * supplier-submit-apply.test.ts, the duplicate-submit guard and Idempotency-Key in
 * supplier-submit-guards.test.ts.
 */

type Body = Record<string, any>

describe('SUP-ADM-007 submit registration through LOCAL_AUTO (default provider)', () => {
  const h = useHarness()

  describe('happy', () => {
    it('records one PROFILE_CREATE approval and applies it: ACTIVE, supplierNo, accounts, logs, events', async () => {
      const admin = await h.admin()
      const accountNos = [randomAccountNo(), randomAccountNo()]
      const taxNo = uniqueTaxNo()
      const body = draftBody({
        taxNo,
        initialAccounts: accountNos.map((n) => account(n)),
      })
      const draft = await createDraft(h, body, admin)
      expect(draft.data.initialAccounts.map((a: Body) => a.status)).toEqual(['DRAFT', 'DRAFT'])
      const before = await rowCounts(h)

      const res = await submit(
        h,
        draft.supplierId,
        submitBodyFrom(body, draft.version, { submitNote: 'first registration' }),
        { admin },
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
      const after = await rowCounts(h)
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
      // The events of one write are recorded in one statement, in the order the write gives them.
      expect(types).toEqual([
        'SupplierDraftCreated',
        'SupplierRegistrationSubmitted',
        'SupplierActivated',
        'BankAccountActivated',
        'BankAccountActivated',
      ])
      expect(types).not.toContain('SupplierRegistrationRejected')
    })

    it('gives two registrations different supplierNos and different requestNos', async () => {
      const admin = await h.admin()
      const a = await registerActive(h, admin, { initialAccounts: [account()] })
      const b = await registerActive(h, admin, { initialAccounts: [account()] })
      const rowA = await supplierRow(h, a.supplierId)
      const rowB = await supplierRow(h, b.supplierId)
      expect(rowA.supplier_no).toBeTruthy()
      expect(rowB.supplier_no).toBeTruthy()
      expect(rowA.supplier_no).not.toBe(rowB.supplier_no)
      expect(a.res.body.data.requestNo).not.toBe(b.res.body.data.requestNo)
      expect(a.res.body.data.approvalLogId).not.toBe(b.res.body.data.approvalLogId)
    })
  })

  describe('error: only a DRAFT at the expected version can be submitted', () => {
    it('refuses an ACTIVE supplier with 395005 and writes nothing', async () => {
      const admin = await h.admin()
      const { body, supplierId } = await registerActive(h, admin, { initialAccounts: [account()] })
      const detail = await h.call('GET', `${ITEMS}/${supplierId}`, { admin })
      const row = await supplierRow(h, supplierId)
      await unchanged(h, async () => {
        const res = await submit(
          h,
          supplierId,
          submitBodyFrom(body, detail.body.data.updateTime, { submitNote: 'again' }),
          { admin },
        )
        expect(res.body).toMatchObject({ code: 395005, success: false, data: null })
      })
      expect(await supplierRow(h, supplierId)).toEqual(row)
    })

    it('refuses a stale expectedUpdateTime with 395003 and writes nothing', async () => {
      const admin = await h.admin()
      const body = draftBody({ licenseImageUrl: LICENSE })
      const draft = await createDraft(h, body, admin)
      const updated = await h.call('PUT', `${ITEMS}/${draft.supplierId}`, {
        admin,
        body: {
          shortName: 'Renamed',
          changeReason: 'rename',
          expectedUpdateTime: draft.version,
        },
      })
      expect(updated.body).toMatchObject({ code: 200 })
      expect(updated.body.data.updateTime).not.toBe(draft.version)
      const row = await supplierRow(h, draft.supplierId)
      await unchanged(h, async () => {
        const res = await submit(h, draft.supplierId, submitBodyFrom(body, draft.version), {
          admin,
        })
        expect(res.body).toMatchObject({ code: 395003, success: false })
      })
      expect(await supplierRow(h, draft.supplierId)).toEqual(row)
      expect(row.status).toBe('DRAFT')
    })

    it('refuses a malformed supplierId with 400 (never a 500)', async () => {
      const admin = await h.admin()
      await unchanged(h, async () => {
        for (const id of ['abc', '0', '-1', '1.5', '99999999999999999999']) {
          const res = await submit(h, id, submitBodyFrom(draftBody(), '2020-01-01 00:00:00'), {
            admin,
          })
          expect(res.status, id).not.toBe(500)
          expect(res.body, id).toMatchObject({ code: 400, success: false })
          expect(res.body.message, id).toContain('supplierId')
        }
      })
    })

    it('refuses an unknown or deleted supplier with 395001', async () => {
      const admin = await h.admin()
      const body = draftBody({ licenseImageUrl: LICENSE })
      const draft = await createDraft(h, body, admin)
      const deleted = await h.call('DELETE', `${ITEMS}/${draft.supplierId}`, { admin })
      expect(deleted.body).toMatchObject({ code: 200 })
      await unchanged(h, async () => {
        const gone = await submit(h, draft.supplierId, submitBodyFrom(body, draft.version), {
          admin,
        })
        expect(gone.body).toMatchObject({ code: 395001, success: false })
        const unknown = await submit(
          h,
          '9007199254000001',
          submitBodyFrom(draftBody(), draft.version),
          { admin },
        )
        expect(unknown.body).toMatchObject({ code: 395001, success: false })
      })
    })

    it('requires licenseImageUrl in the submit body (C-06: 395007), even when the draft holds one', async () => {
      // The submit carries the final form: an absent, null or empty licence image is C-06's
      // 395007 (test/registration-fixes.test.ts has the rest), a blank-ish one fails the
      // storage-prefix rule (395018).
      const admin = await h.admin()
      const body = draftBody({ licenseImageUrl: LICENSE })
      const draft = await createDraft(h, body, admin)
      const row = await supplierRow(h, draft.supplierId)
      await unchanged(h, async () => {
        const full = submitBodyFrom(body, draft.version)
        delete full.licenseImageUrl
        const missing = await submit(h, draft.supplierId, full, { admin })
        expect(missing.body).toMatchObject({ code: 395007, success: false })
        for (const licenseImageUrl of ['', null]) {
          const res = await submit(h, draft.supplierId, { ...full, licenseImageUrl }, { admin })
          expect(res.body, String(licenseImageUrl)).toMatchObject({ code: 395007, success: false })
        }
        const blank = await submit(
          h,
          draft.supplierId,
          { ...full, licenseImageUrl: ' ' },
          { admin },
        )
        expect(blank.body).toMatchObject({ code: 395018, success: false })
        const foreign = await submit(
          h,
          draft.supplierId,
          {
            ...full,
            licenseImageUrl: 'https://evil.example.org/license.png',
          },
          { admin },
        )
        expect(foreign.body).toMatchObject({ code: 395018, success: false })
      })
      expect(await supplierRow(h, draft.supplierId)).toEqual(row)
    })

    it.each(['fullName', 'taxNo', 'types', 'mainCooperation', 'expectedUpdateTime'])(
      'requires %s at submit (400 naming it, nothing written)',
      async (field) => {
        const admin = await h.admin()
        const body = draftBody({ licenseImageUrl: LICENSE })
        const draft = await createDraft(h, body, admin)
        const row = await supplierRow(h, draft.supplierId)
        await unchanged(h, async () => {
          const full = submitBodyFrom(body, draft.version)
          delete full[field]
          const res = await submit(h, draft.supplierId, full, { admin })
          expect(res.body).toMatchObject({ code: 400, success: false })
          expect(res.body.message).toContain(field)
        })
        expect(await supplierRow(h, draft.supplierId)).toEqual(row)
      },
    )

    it('refuses types=[] and an empty mainCooperation at submit (400)', async () => {
      const admin = await h.admin()
      const body = draftBody({ licenseImageUrl: LICENSE })
      const draft = await createDraft(h, body, admin)
      await unchanged(h, async () => {
        const full = submitBodyFrom(body, draft.version)
        const noTypes = await submit(h, draft.supplierId, { ...full, types: [] }, { admin })
        expect(noTypes.body).toMatchObject({ code: 400 })
        expect(noTypes.body.message).toContain('types')
        const noMain = await submit(
          h,
          draft.supplierId,
          { ...full, mainCooperation: '' },
          { admin },
        )
        expect(noMain.body).toMatchObject({ code: 400 })
        expect(noMain.body.message).toContain('mainCooperation')
      })
    })
  })

  describe('error: C-02 at submit', () => {
    it('refuses the tax number of another live supplier (395004), also in another spelling', async () => {
      const admin = await h.admin()
      const first = draftBody({ licenseImageUrl: LICENSE })
      const second = draftBody()
      const d1 = await createDraft(h, first, admin)
      await createDraft(h, second, admin)
      const row = await supplierRow(h, d1.supplierId)
      await unchanged(h, async () => {
        const variants = [
          second.taxNo,
          ` ${second.taxNo.toLowerCase().slice(0, 6)} ${second.taxNo.toLowerCase().slice(6)} `,
          // full-width digits and letters
          second.taxNo.replace(/[0-9A-Z]/g, (ch: string) =>
            String.fromCharCode(ch.charCodeAt(0) + 0xfee0),
          ),
        ]
        for (const taxNo of variants) {
          const res = await submit(h, d1.supplierId, submitBodyFrom(first, d1.version, { taxNo }), {
            admin,
          })
          expect(res.body, taxNo).toMatchObject({ code: 395004, success: false })
        }
      })
      expect(await supplierRow(h, d1.supplierId)).toEqual(row)
    })

    it("answers the supplier's refusal before the form's: 395001 and 395003 come before 395010 and 395004", async () => {
      // The form's identity reads go out with the supplier's read; the answers keep their order.
      const admin = await h.admin()
      const other = draftBody()
      await createDraft(h, other, admin)
      const body = draftBody({ licenseImageUrl: LICENSE })
      const draft = await createDraft(h, body, admin)
      const renamed = await h.call('PUT', `${ITEMS}/${draft.supplierId}`, {
        admin,
        body: { shortName: 'Renamed', changeReason: 'rename', expectedUpdateTime: draft.version },
      })
      expect(renamed.body).toMatchObject({ code: 200 })
      const clash = { taxNo: other.taxNo }
      const unknownType = { types: [{ typeCode: 'NO_SUCH_TYPE' }] }
      await unchanged(h, async () => {
        const stale = submitBodyFrom(body, draft.version, clash)
        expect((await submit(h, draft.supplierId, stale, { admin })).body).toMatchObject({
          code: 395003,
        })
        const unknown = submitBodyFrom(body, draft.version, clash)
        expect((await submit(h, '9007199254000001', unknown, { admin })).body).toMatchObject({
          code: 395001,
        })
        const current = renamed.body.data.updateTime
        const both = submitBodyFrom(body, current, { ...clash, ...unknownType })
        expect((await submit(h, draft.supplierId, both, { admin })).body).toMatchObject({
          code: 395010,
        })
        const taxOnly = submitBodyFrom(body, current, clash)
        expect((await submit(h, draft.supplierId, taxOnly, { admin })).body).toMatchObject({
          code: 395004,
        })
      })
    })

    it('refuses the tax number of an ACTIVE supplier and accepts one freed by a deleted draft', async () => {
      const admin = await h.admin()
      const active = await registerActive(h, admin, { initialAccounts: [account()] })
      const body = draftBody({ licenseImageUrl: LICENSE })
      const draft = await createDraft(h, body, admin)
      await unchanged(h, async () => {
        const clash = await submit(
          h,
          draft.supplierId,
          submitBodyFrom(body, draft.version, { taxNo: active.body.taxNo }),
          { admin },
        )
        expect(clash.body).toMatchObject({ code: 395004 })
      })

      const other = draftBody()
      const otherDraft = await createDraft(h, other, admin)
      const deleted = await h.call('DELETE', `${ITEMS}/${otherDraft.supplierId}`, { admin })
      expect(deleted.body).toMatchObject({ code: 200 })
      const freed = await submit(
        h,
        draft.supplierId,
        submitBodyFrom(body, draft.version, { taxNo: other.taxNo }),
        { admin },
      )
      expect(freed.body, JSON.stringify(freed.body)).toMatchObject({
        code: 200,
        data: { approvalStatus: 'APPLIED' },
      })
    })
  })

  describe('error: C-19 and C-03 for initial accounts', () => {
    it('refuses an account that is a valid account of another supplier (395016, nothing written)', async () => {
      const admin = await h.admin()
      const x = randomAccountNo()
      await registerActive(h, admin, { initialAccounts: [account(x)] })
      const body = draftBody({ licenseImageUrl: LICENSE, initialAccounts: [account(x)] })
      const draft = await createDraft(h, body, admin)
      const row = await supplierRow(h, draft.supplierId)
      await unchanged(h, async () => {
        const res = await submit(h, draft.supplierId, submitBodyFrom(body, draft.version), {
          admin,
        })
        expect(res.body).toMatchObject({ code: 395016, success: false })
        expect(res.body.message).not.toContain(x)
      })
      expect(await supplierRow(h, draft.supplierId)).toEqual(row)
      expect((await accountsOf(h, draft.supplierId)).map((a) => a.status)).toEqual(['DRAFT'])

      // The same number in another spelling, sent with the submit.
      const spaced = `${x.slice(0, 4)} ${x.slice(4, 8)}-${x.slice(8)}`
      const again = await unchanged(h, () =>
        submit(
          h,
          draft.supplierId,
          submitBodyFrom(body, draft.version, { initialAccounts: [account(spaced)] }),
          { admin },
        ),
      )
      expect(again.body).toMatchObject({ code: 395016 })
    })

    it('refuses the same number twice in one submit (spaces/hyphens variants) with 395016', async () => {
      const admin = await h.admin()
      const body = draftBody({ licenseImageUrl: LICENSE })
      const draft = await createDraft(h, body, admin)
      await unchanged(h, async () => {
        const y = randomAccountNo()
        const res = await submit(
          h,
          draft.supplierId,
          submitBodyFrom(body, draft.version, {
            initialAccounts: [
              account(`${y.slice(0, 4)} ${y.slice(4, 8)} ${y.slice(8)}`),
              account(`${y.slice(0, 4)}-${y.slice(4, 8)}-${y.slice(8)}`),
            ],
          }),
          { admin },
        )
        expect(res.body).toMatchObject({ code: 395016, success: false })
      })
    })

    it('refuses malformed account numbers with 395015 (C-03) and accepts 6 and 32 digits', async () => {
      const admin = await h.admin()
      const body = draftBody({ licenseImageUrl: LICENSE })
      const draft = await createDraft(h, body, admin)
      const row = await supplierRow(h, draft.supplierId)
      await unchanged(h, async () => {
        for (const accountNo of [
          randomDigits(5),
          randomDigits(33),
          '6222abcd12345678',
          '6222_0212_3456',
          '--',
        ]) {
          const res = await submit(
            h,
            draft.supplierId,
            submitBodyFrom(body, draft.version, { initialAccounts: [account(accountNo)] }),
            { admin },
          )
          expect(res.body, accountNo).toMatchObject({ code: 395015, success: false })
        }
      })
      expect(await supplierRow(h, draft.supplierId)).toEqual(row)

      const ok = await submit(
        h,
        draft.supplierId,
        submitBodyFrom(body, draft.version, {
          initialAccounts: [account(`9${randomDigits(5)}`), account(`8${randomDigits(31)}`)],
        }),
        { admin },
      )
      expect(ok.body, JSON.stringify(ok.body)).toMatchObject({
        code: 200,
        data: { approvalStatus: 'APPLIED' },
      })
    })

    it('does not count a DRAFT account of another draft, but counts it once that one is ACTIVE', async () => {
      const admin = await h.admin()
      const z = randomAccountNo()
      const c = draftBody({ licenseImageUrl: LICENSE, initialAccounts: [account(z)] })
      const cDraft = await createDraft(h, c, admin)
      const d = await register(h, admin, { initialAccounts: [account(z)] })
      expect(d.res.body, JSON.stringify(d.res.body)).toMatchObject({
        data: { approvalStatus: 'APPLIED' },
      })
      const res = await submit(h, cDraft.supplierId, submitBodyFrom(c, cDraft.version), { admin })
      expect(res.body).toMatchObject({ code: 395016 })
    })
  })

  describe('security: no server-owned field from the client, no plaintext anywhere', () => {
    it('never accepts a supplierNo, provider or templateId from the client (400, nothing written)', async () => {
      const admin = await h.admin()
      const created = await h.call('POST', ITEMS, {
        admin,
        body: draftBody({ supplierNo: 'SP-CLIENT-1' }),
      })
      expect(created.body).toMatchObject({ code: 400, success: false })
      expect(created.body.message).toContain('supplierNo')

      const body = draftBody({ licenseImageUrl: LICENSE })
      const draft = await createDraft(h, body, admin)
      const row = await supplierRow(h, draft.supplierId)
      await unchanged(h, async () => {
        for (const extra of [
          { supplierNo: 'SP-CLIENT-2' },
          { provider: 'LOCAL_AUTO' },
          { templateId: 'tpl-1' },
          { levels: 1 },
        ]) {
          const res = await submit(
            h,
            draft.supplierId,
            {
              ...submitBodyFrom(body, draft.version),
              ...extra,
            },
            { admin },
          )
          expect(res.body, JSON.stringify(extra)).toMatchObject({ code: 400, success: false })
          expect(res.body.message).toContain(Object.keys(extra)[0])
        }
      })
      expect(await supplierRow(h, draft.supplierId)).toEqual(row)
    })

    it('keeps tax number, phones, account number, certificate and opinion out of responses, logs, logs tables and events', async () => {
      const admin = await h.admin()
      const taxNo = withCheckCharacter(
        `91330106MA${randomBytes(4).toString('hex').toUpperCase().slice(0, 7)}`,
      )
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
