import { describe, expect, it } from 'vitest'
import { create, createDraft, detail, remove } from './client'
import { useHarness } from './harness'
import {
  account,
  changeLogRows,
  eventRows,
  expectRefused,
  names,
  shanghaiDate,
} from './supplier-create-data'
import {
  ACCOUNT_NO,
  CERT_NO,
  CONTACT_PHONE,
  DATE_TIME,
  PHONE,
  STORAGE,
  TAX_NO,
  draftBody,
  fullDraftBody,
  fullWidth,
  randomDigits,
  randomText,
  uniqueName,
  uniqueTaxNo,
} from './supplier-data'
import { rowCounts } from './unchanged'

/*
 * SUP-ADM-003 create draft (POST /admin/supplier/items): normalization, the result, its change
 * log and event; the field rules, C-02 and the initial accounts' terms, each refusal writing
 * nothing. Bounds are in supplier-create-bounds.test.ts, the refusals that protect data and
 * identity (storage URLs, child ids, near duplicates, strict bodies, authorization, no
 * plaintext) in supplier-create-security.test.ts.
 */

const h = useHarness()

type Body = Record<string, any>

describe('SUP-ADM-003 create draft', () => {
  describe('happy: normalization', () => {
    it("fullName '  Ｈａｎｇｚｈｏｕ   Lake  ' is stored as 'Hangzhou Lake'", async () => {
      const created = await createDraft(h, draftBody({ fullName: '  Ｈａｎｇｚｈｏｕ   Lake  ' }))
      expect((await detail(h, created.supplierId)).body.data.fullName).toBe('Hangzhou Lake')
      const log = await changeLogRows(h, created.supplierId)
      expect(log.find((r) => r.field_name === 'fullName')?.new_value_masked).toBe('Hangzhou Lake')
    })

    it('fullName: surrounding spaces and collapsed runs do not count against the 500 limit', async () => {
      const a = randomText(250)
      const b = randomText(249)
      // 504 raw characters; trimmed and collapsed they are 500.
      const created = await createDraft(h, draftBody({ fullName: `  ${a}  ${b}  ` }))
      expect((await detail(h, created.supplierId)).body.data.fullName).toBe(`${a} ${b}`)
      // Full-width letters count one character each: 500 of them are accepted as 500 ASCII.
      const wide = randomText(500)
      const second = await createDraft(h, draftBody({ fullName: fullWidth(wide) }))
      expect((await detail(h, second.supplierId)).body.data.fullName).toBe(wide)
    })

    it("taxNo ' ９１３３ａｂ ' is stored as '9133AB' (mask in detail, C-02 against the plain value)", async () => {
      const created = await createDraft(h, draftBody({ taxNo: ' ９１３３ａｂ ' }))
      expect((await detail(h, created.supplierId)).body.data.taxNoMask).toBe('****AB')
      const [row] =
        await h.sql`SELECT tax_no_enc FROM supplier WHERE supplier_id = ${created.supplierId}`
      expect(await h.cipher.decrypt(row.tax_no_enc)).toBe('9133AB')
      await expectRefused(h, draftBody({ taxNo: '9133AB' }), 395004)
    })

    it('a long full-width lower-case taxNo is upper-cased and half-width; the mask keeps 2 + 4', async () => {
      const plain = uniqueTaxNo() // e.g. 9133…MA001…: has letters to lower-case
      const sent = ` ${fullWidth(plain.toLowerCase())} `
      const created = await createDraft(h, draftBody({ taxNo: sent }))
      const mask = `${plain.slice(0, 2)}${'*'.repeat(plain.length - 6)}${plain.slice(-4)}`
      expect((await detail(h, created.supplierId)).body.data.taxNoMask).toBe(mask)
      const res = await expectRefused(h, draftBody({ taxNo: plain }), 395004)
      expect(JSON.stringify(res.body)).not.toContain(plain)
    })
  })

  describe('happy: result, change log and events', () => {
    it('updateTime is the current second in the service time zone (Asia/Shanghai)', async () => {
      const created = await createDraft(h, draftBody())
      expect(created.version).toMatch(DATE_TIME)
      const [now] = await h.sql`
        SELECT to_char(now() AT TIME ZONE ${h.config.timezone}, 'YYYY-MM-DD HH24:MI:SS') AS t
      `
      const asUtc = (t: string) => Date.parse(`${t.replace(' ', 'T')}Z`)
      expect(Math.abs(asUtc(now.t) - asUtc(created.version))).toBeLessThan(120_000)
    })

    it('answers with the draft as a read finds it: version, status and every initial account', async () => {
      const admin = await h.admin()
      const body = draftBody({
        initialAccounts: [account(), account(), account()],
      })
      const created = await createDraft(h, body, admin)
      const read = (await detail(h, created.supplierId, { admin })).body.data
      // The answer is built from what the inserts returned, not read back: it must be what a
      // read finds, the version a later write must send included.
      expect(created.data).toMatchObject({
        supplierId: created.supplierId,
        supplierNo: null,
        status: 'DRAFT',
        onboardingStage: 'PROFILE_DRAFT',
        updateTime: read.updateTime,
      })
      const accounts = await h.sql`
        SELECT account_id::text AS "accountId", account_no_mask AS "accountNoMask", status
        FROM supplier_bank_account WHERE supplier_id = ${created.supplierId} AND deleted_at IS NULL
        ORDER BY account_id`
      expect(created.data.initialAccounts).toEqual(accounts.map((a) => ({ ...a })))
      expect(created.data.initialAccounts).toHaveLength(3)
    })

    it('writes one DRAFT_CREATE change-log row per set field, masked, and one pending event', async () => {
      const admin = await h.admin()
      const fullName = uniqueName('Changelog')
      const shortName = uniqueName('Changelog short')
      const body = fullDraftBody({
        fullName,
        shortName,
        taxNo: TAX_NO,
        approveNote: 'internal note for the approver',
        remark: 'met at the spring fair',
      })
      const created = await createDraft(h, body, admin)
      const id = created.supplierId
      const accountId = created.data.initialAccounts[0].accountId

      const log = await changeLogRows(h, id)
      const got = log
        .map((r) => [r.target_type, r.field_name, r.new_value_masked].join(' | '))
        .sort()
      const expected = [
        ['SUPPLIER', 'fullName', fullName],
        ['SUPPLIER', 'shortName', shortName],
        ['SUPPLIER', 'taxNo', '91************712Q'],
        ['SUPPLIER', 'contactPhone', '138****5678'],
        ['SUPPLIER', 'legalRepresentative', 'Zhang San'],
        ['SUPPLIER', 'establishDate', '2015-06-01'],
        ['SUPPLIER', 'registeredCapital', '1000万'],
        ['SUPPLIER', 'businessScope', 'Travel services'],
        ['SUPPLIER', 'address', 'Hangzhou, Xihu district'],
        ['SUPPLIER', 'staffScale', 'R50_200'],
        ['SUPPLIER', 'mainCooperation', 'Guided tours and tickets'],
        ['SUPPLIER', 'licenseImageUrl', `${STORAGE}license.png`],
        ['SUPPLIER', 'approveNote', '******'],
        ['SUPPLIER', 'remark', 'met at the spring fair'],
        ['TYPE', 'type', 'OTHER'],
        ['CONTACT', 'contact', 'Li Si 139****4321'],
        ['QUALIFICATION', 'qualification', 'BUSINESS_LICENSE JY**********2345'],
        ['ACCOUNT', 'account', 'ICBC Hangzhou **** **** 0123'],
      ]
        .map((r) => r.join(' | '))
        .sort()
      expect(got).toEqual(expected)
      for (const r of log) {
        expect(r.operation_type).toBe('DRAFT_CREATE')
        expect(r.old_value_masked).toBeNull()
        expect(r.operator_id).toBe(admin)
        if (r.target_type === 'SUPPLIER') expect(r.target_id).toBe(id)
        if (r.target_type === 'ACCOUNT') expect(r.target_id).toBe(accountId)
      }
      expect(new Set(log.map((r) => r.request_id)).size).toBe(1)
      const raw = log.map((r) => r.raw).join('\n')
      for (const secret of [TAX_NO, PHONE, CONTACT_PHONE, ACCOUNT_NO, CERT_NO, body.approveNote]) {
        expect(raw).not.toContain(secret)
      }

      // Through the API as well (SUP-ADM-012 reads the same rows).
      const records = await h.call(
        'GET',
        `/admin/supplier/approval-records?supplierId=${id}&pageSize=100`,
      )
      expect(records.body.data.total).toBe(18)

      const events = await eventRows(h, id)
      expect(events).toHaveLength(1)
      expect(events[0]).toMatchObject({ event_type: 'SupplierDraftCreated', status: 'PENDING' })
      const payload = JSON.stringify(events[0].payload)
      for (const secret of [TAX_NO, PHONE, CONTACT_PHONE, ACCOUNT_NO, CERT_NO]) {
        expect(payload).not.toContain(secret)
      }
    })

    it('unset optional fields get no change-log row', async () => {
      const created = await createDraft(h, draftBody())
      const log = await changeLogRows(h, created.supplierId)
      expect(log.map((r) => r.field_name).sort()).toEqual([
        'fullName',
        'mainCooperation',
        'taxNo',
        'type',
      ])
    })
  })

  describe('error: establishDate', () => {
    it('today in Asia/Shanghai is accepted; tomorrow and 2023-02-30 are 400', async () => {
      const created = await createDraft(h, draftBody({ establishDate: shanghaiDate(0) }))
      expect((await detail(h, created.supplierId)).body.data.establishDate).toBe(shanghaiDate(0))
      await expectRefused(h, draftBody({ establishDate: shanghaiDate(1) }), 400, {
        message: names('establishDate'),
      })
      await expectRefused(h, draftBody({ establishDate: '2023-02-30' }), 400, {
        message: names('establishDate'),
      })
    })
  })

  describe('error: types', () => {
    it('an unknown typeCode → 395010 naming it', async () => {
      await expectRefused(h, draftBody({ types: [{ typeCode: 'NOT_A_TYPE' }] }), 395010, {
        message: /NOT_A_TYPE/,
      })
    })

    it('a disabled typeCode → 395010; enabled again, it is accepted', async () => {
      await h.sql`UPDATE dict_data SET status = 'DISABLED' WHERE dict_type = 'supplier_type' AND dict_value = 'TICKET'`
      try {
        await expectRefused(
          h,
          draftBody({ types: [{ typeCode: 'OTHER' }, { typeCode: 'TICKET' }] }),
          395010,
          {
            message: /TICKET/,
          },
        )
      } finally {
        await h.sql`UPDATE dict_data SET status = 'ACTIVE' WHERE dict_type = 'supplier_type' AND dict_value = 'TICKET'`
      }
      await createDraft(h, draftBody({ types: [{ typeCode: 'OTHER' }, { typeCode: 'TICKET' }] }))
    })

    it('a lower-case or label-like typeCode is 400 (codes only)', async () => {
      await expectRefused(h, draftBody({ types: [{ typeCode: 'hotel' }] }), 400, {
        message: names('types.0.typeCode'),
      })
    })
  })

  describe('error: initial accounts, settlement terms, C-03 and repetition', () => {
    const cases: [string, number, Body][] = [
      [
        'accountPeriod with settleMode PER_ORDER',
        395017,
        { settleMode: 'PER_ORDER', accountPeriod: 30 },
      ],
      ['accountPeriod without settleMode', 395017, { accountPeriod: 30 }],
      ['invoiceType SPECIAL without taxRate', 395017, { invoiceType: 'SPECIAL' }],
      ['invoiceType NORMAL without taxRate', 395017, { invoiceType: 'NORMAL' }],
      ['invoiceType NONE with taxRate', 395017, { invoiceType: 'NONE', taxRate: 6 }],
      ['invoiceType NONE with taxRate 0', 395017, { invoiceType: 'NONE', taxRate: 0 }],
      ["accountNo 'abc123'", 395015, { accountNo: 'abc123' }],
      ['accountNo of 5 digits', 395015, { accountNo: '12345' }],
      ['accountNo of 33 digits', 395015, { accountNo: randomDigits(33) }],
      ['accountNo with a full stop', 395015, { accountNo: '6222.0212.3456' }],
    ]
    it.each(cases)('%s → %i', async (_name, code, overrides) => {
      await expectRefused(h, draftBody({ initialAccounts: [account(overrides)] }), code, {
        message: /initialAccounts\.0\./,
      })
    })

    it.each([
      [
        'MONTHLY + accountPeriod 30, SPECIAL + taxRate 6',
        { settleMode: 'MONTHLY', accountPeriod: 30, invoiceType: 'SPECIAL', taxRate: 6 },
      ],
      ['MONTHLY without accountPeriod', { settleMode: 'MONTHLY' }],
      [
        'PER_ORDER without accountPeriod, NORMAL + taxRate 3',
        { settleMode: 'PER_ORDER', invoiceType: 'NORMAL', taxRate: 3 },
      ],
      ['WEEKLY, NONE without taxRate', { settleMode: 'WEEKLY', invoiceType: 'NONE' }],
      ['PREPAID alone', { settleMode: 'PREPAID' }],
      ['no settlement terms at all', {}],
    ] as [string, Body][])('valid settlement terms are accepted: %s', async (_name, terms) => {
      const created = await createDraft(h, draftBody({ initialAccounts: [account(terms)] }))
      expect(created.data.initialAccounts).toEqual([expect.objectContaining({ status: 'DRAFT' })])
      const [row] = await h.sql`
        SELECT settle_mode, account_period, invoice_type, tax_rate::float8 AS tax_rate
        FROM supplier_bank_account WHERE supplier_id = ${created.supplierId}
      `
      expect(row).toEqual({
        settle_mode: terms.settleMode ?? null,
        account_period: terms.accountPeriod ?? null,
        invoice_type: terms.invoiceType ?? null,
        tax_rate: terms.taxRate ?? null,
      })
    })

    it("accountNo '6222-0212 3456' is accepted with spaces and hyphens removed; 6 and 32 digits too", async () => {
      const created = await createDraft(
        h,
        draftBody({
          initialAccounts: [
            account({ accountNo: '6222-0212 3456' }),
            account({ accountNo: randomDigits(6) }),
            account({ accountNo: randomDigits(32) }),
          ],
        }),
      )
      expect(created.data.initialAccounts[0]).toMatchObject({
        accountNoMask: '**** **** 3456',
        status: 'DRAFT',
      })
      const rows = await h.sql`
        SELECT account_no_enc, account_no_mask FROM supplier_bank_account
        WHERE supplier_id = ${created.supplierId} ORDER BY account_id
      `
      expect(await h.cipher.decrypt(rows[0].account_no_enc)).toBe('622202123456')
      expect(rows[0].account_no_mask).toBe('**** **** 3456')
    })

    it('the same number twice in initialAccounts → 395016, also when formatted differently', async () => {
      const number = randomDigits(16)
      await expectRefused(
        h,
        draftBody({
          initialAccounts: [account({ accountNo: number }), account({ accountNo: number })],
        }),
        395016,
        { message: /initialAccounts\.1\.accountNo/ },
      )
      const spaced = number.replace(/(\d{4})(?=\d)/g, '$1 ')
      const hyphened = number.replace(/(\d{4})(?=\d)/g, '$1-')
      await expectRefused(
        h,
        draftBody({
          initialAccounts: [account({ accountNo: spaced }), account({ accountNo: hyphened })],
        }),
        395016,
      )
    })
  })

  describe('error: C-02 tax number uniqueness', () => {
    it('a second draft with the same tax number in any case or width → 395004; free again after delete', async () => {
      const taxNo = uniqueTaxNo()
      const first = await createDraft(h, draftBody({ taxNo }))
      for (const variant of [
        taxNo,
        taxNo.toLowerCase(),
        ` ${fullWidth(taxNo)} `,
        `${taxNo.slice(0, 6)} ${taxNo.slice(6)}`,
      ]) {
        const res = await expectRefused(h, draftBody({ taxNo: variant }), 395004)
        expect(JSON.stringify(res.body)).not.toContain(taxNo)
      }
      const deleted = await remove(h, first.supplierId)
      expect(deleted.body).toMatchObject({ code: 200, success: true })
      const again = await createDraft(h, draftBody({ taxNo: taxNo.toLowerCase() }))
      expect(again.supplierId).not.toBe(first.supplierId)
    })

    it('a second draft with the same tax number and the same name → 395004 before any near-duplicate (395006)', async () => {
      // C-02 and the near-duplicate probe are one statement: the tax number is still judged first.
      const body = draftBody()
      await createDraft(h, body)
      await expectRefused(h, { ...body }, 395004)
      await expectRefused(h, { ...body, duplicateConfirmToken: 'stale' }, 395004)
      // The name alone is a near-duplicate.
      await expectRefused(h, { ...body, taxNo: uniqueTaxNo() }, 395006)
      // The field rules come first, although their read and the identity's go out together.
      await expectRefused(h, { ...body, types: [{ typeCode: 'NO_SUCH_TYPE' }] }, 395010)
    })

    it('concurrent drafts with one tax number: exactly one is created, the others get 395004', async () => {
      const taxNo = uniqueTaxNo()
      const before = await rowCounts(h)
      const results = await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          create(h, draftBody({ taxNo: i % 2 ? taxNo.toLowerCase() : taxNo })),
        ),
      )
      const codes = results.map((r) => r.body.code).sort()
      expect(codes).toEqual([200, 395004, 395004, 395004, 395004])
      const winner = results.find((r) => r.body.code === 200)!.body.data.supplierId
      const after = await rowCounts(h)
      const logRows = (await changeLogRows(h, winner)).length
      expect(after.supplier - before.supplier).toBe(1)
      expect(after.domain_event - before.domain_event).toBe(1)
      expect(after.change_log - before.change_log).toBe(logRows)
      expect(after.submit_guard - before.submit_guard).toBe(1)
      const bidx = await h.cipher.blindIndex(taxNo, 'taxNo')
      const [live] = await h.sql`
        SELECT count(*)::int AS n FROM supplier WHERE tax_no_bidx = ${bidx} AND deleted_at IS NULL
      `
      expect(live.n).toBe(1)
    })
  })
})
