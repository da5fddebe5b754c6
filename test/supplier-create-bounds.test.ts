import { describe, expect, it } from 'vitest'
import { createDraft, detail } from './client'
import { useHarness } from './harness'
import {
  account,
  bytes,
  expectRefused,
  names,
  shanghaiDate,
  storageUrl,
} from './supplier-create-data'
import {
  PHONE,
  STORAGE,
  draftBody,
  fullWidth,
  randomDigits,
  randomText,
  uniqueTaxNo,
} from './supplier-data'

/*
 * SUP-ADM-003 create draft (POST /admin/supplier/items), its bounds: every field at its limit
 * (bytes where the spec says bytes) is accepted, and one past it is a 400 naming the field that
 * writes nothing. The other rules are in supplier-create.test.ts, the refusals that protect
 * data and identity in supplier-create-security.test.ts.
 */

const h = useHarness()

type Body = Record<string, any>

describe('SUP-ADM-003 create draft: bounds', () => {
  describe('happy: every field at its limit is accepted', () => {
    it('accepts one draft with every character, byte and item bound at its maximum', async () => {
      const dict = await h.call('GET', '/admin/dict/data/supplier_type')
      const allTypes: string[] = dict.body.data.map((d: { dictValue: string }) => d.dictValue)
      expect(allTypes).toHaveLength(15)

      const fullName = randomText(500)
      const shortName = randomText(300)
      const mainCooperation = '汉'.repeat(21_845) // 21,845 characters, 65,535 UTF-8 bytes
      expect(bytes(mainCooperation)).toBe(65_535)
      const filler = 65_535 - bytes(STORAGE)
      const qualImageUrl = STORAGE + '汉'.repeat(Math.floor(filler / 3)) + 'a'.repeat(filler % 3)
      expect(bytes(qualImageUrl)).toBe(65_535)
      // 128 bytes that C-03 accepts: 19 digits, hyphens and spaces are removed before the check.
      const digits = randomDigits(19)
      const accountNo = `${digits.slice(0, 4)}-${digits.slice(4)}`.padEnd(128, ' ')
      expect(bytes(accountNo)).toBe(128)
      const taxNo = (uniqueTaxNo() + randomText(64)).toUpperCase().slice(0, 64)
      expect(bytes(taxNo)).toBe(64)
      const proofFileUrls = Array.from({ length: 20 }, () => storageUrl(1000))

      const body = draftBody({
        fullName,
        shortName,
        taxNo,
        legalRepresentative: 'L'.repeat(500),
        contactPhone: '0'.repeat(20),
        establishDate: shanghaiDate(0),
        registeredCapital: 'R'.repeat(50),
        businessScope: 'B'.repeat(500),
        address: 'A'.repeat(500),
        licenseImageUrl: storageUrl(500),
        mainCooperation,
        types: allTypes.map((typeCode) => ({ typeCode })),
        contacts: [
          { contactName: 'N'.repeat(500), contactPhone: '1'.repeat(20), remark: 'r'.repeat(200) },
        ],
        qualifications: [
          { qualType: 'Q'.repeat(64), certNo: 'C'.repeat(128), imageUrl: qualImageUrl },
        ],
        initialAccounts: [
          account({
            bankName: 'K'.repeat(500),
            bankBranch: 'b'.repeat(500),
            accountNo,
            proofFileUrls,
          }),
        ],
      })
      const created = await createDraft(h, body)
      expect(created.data.initialAccounts).toEqual([
        expect.objectContaining({
          accountNoMask: `**** **** ${digits.slice(-4)}`,
          status: 'DRAFT',
        }),
      ])

      const read = (await detail(h, created.supplierId)).body.data
      expect(read).toMatchObject({
        fullName,
        shortName,
        legalRepresentative: 'L'.repeat(500),
        registeredCapital: 'R'.repeat(50),
        businessScope: 'B'.repeat(500),
        address: 'A'.repeat(500),
        licenseImageUrl: body.licenseImageUrl,
        mainCooperation,
        establishDate: shanghaiDate(0),
      })
      expect(read.types.map((t: { typeCode: string }) => t.typeCode).sort()).toEqual(
        [...allTypes].sort(),
      )
      expect(read.contacts).toEqual([
        expect.objectContaining({ contactName: 'N'.repeat(500), remark: 'r'.repeat(200) }),
      ])
      expect(read.qualifications).toEqual([
        expect.objectContaining({ qualType: 'Q'.repeat(64), imageUrl: qualImageUrl }),
      ])
      const [stored] = await h.sql`
        SELECT octet_length(main_cooperation) AS mc, char_length(main_cooperation) AS mc_chars,
               (SELECT octet_length(image_url) FROM supplier_qualification WHERE supplier_id = s.supplier_id) AS img,
               (SELECT jsonb_array_length(proof_file_urls) FROM supplier_bank_account WHERE supplier_id = s.supplier_id) AS proofs
        FROM supplier s WHERE supplier_id = ${created.supplierId}
      `
      expect(stored).toEqual({ mc: 65_535, mc_chars: 21_845, img: 65_535, proofs: 20 })
      const [acct] = await h.sql`
        SELECT account_no_enc FROM supplier_bank_account WHERE supplier_id = ${created.supplierId}
      `
      expect(await h.cipher.decrypt(acct.account_no_enc)).toBe(digits)
    })

    it('approveNote of exactly 16,777,215 UTF-8 bytes is accepted (the body passes the body limit)', async () => {
      const body = draftBody({ approveNote: 'a'.repeat(16_777_215) })
      expect(JSON.stringify(body).length).toBeLessThan(h.config.bodyLimitBytes)
      const created = await createDraft(h, body)
      const [row] = await h.sql`
        SELECT approve_note, approve_note_enc FROM supplier WHERE supplier_id = ${created.supplierId}
      `
      expect(row.approve_note).toBeNull()
      expect(await h.cipher.decrypt(row.approve_note_enc)).toBe(body.approveNote)
    })

    it('remark of exactly 16,777,215 UTF-8 bytes is accepted (the body passes the body limit)', async () => {
      const body = draftBody({ remark: 'a'.repeat(16_777_215) })
      expect(JSON.stringify(body).length).toBeLessThan(h.config.bodyLimitBytes)
      const created = await createDraft(h, body)
      const [row] = await h.sql`
        SELECT octet_length(remark) AS n FROM supplier WHERE supplier_id = ${created.supplierId}
      `
      expect(row.n).toBe(16_777_215)
    })

    it('taxNo is bounded by UTF-8 bytes: 21 CJK characters + 1 ASCII (64 bytes) is accepted', async () => {
      const cjk = String.fromCharCode(0x4e00 + Math.floor(Math.random() * 20_000))
      const taxNo = `${'税'.repeat(20)}${cjk}${randomText(1).toUpperCase()}`
      expect(bytes(taxNo)).toBe(64)
      expect(taxNo.length).toBe(22)
      await createDraft(h, draftBody({ taxNo }))
    })

    it('lower bounds are accepted: 1-character fullName, 1-byte taxNo and mainCooperation, 1-character contact phone', async () => {
      const created = await createDraft(h, {
        fullName: 'Q',
        taxNo: 'Z',
        types: [{ typeCode: 'OTHER' }],
        mainCooperation: 'x',
        contacts: [{ contactName: 'W', contactPhone: '1' }],
        qualifications: [{ qualType: 'L' }],
        initialAccounts: [account({ bankName: 'B' })],
      })
      const read = (await detail(h, created.supplierId)).body.data
      expect(read).toMatchObject({ fullName: 'Q', taxNoMask: '****', mainCooperation: 'x' })
      expect(read.contacts).toEqual([expect.objectContaining({ contactName: 'W' })])
    })
  })

  describe('error: one past the limit is 400 naming the field, and writes nothing', () => {
    const base = () => draftBody()
    const withAccount = (overrides: Body) => draftBody({ initialAccounts: [account(overrides)] })
    const cases: [string, string, () => Body][] = [
      ['fullName 501 characters', 'fullName', () => draftBody({ fullName: randomText(501) })],
      [
        'fullName 501 characters after full-width → half-width',
        'fullName',
        () => draftBody({ fullName: fullWidth(randomText(501)) }),
      ],
      ['fullName blank after trimming', 'fullName', () => draftBody({ fullName: ' \u3000  ' })],
      ['shortName 301', 'shortName', () => draftBody({ shortName: randomText(301) })],
      [
        'legalRepresentative 501',
        'legalRepresentative',
        () => draftBody({ legalRepresentative: 'L'.repeat(501) }),
      ],
      [
        'taxNo 65 bytes',
        'taxNo',
        () => draftBody({ taxNo: (uniqueTaxNo() + randomText(70)).toUpperCase().slice(0, 65) }),
      ],
      [
        'taxNo 22 CJK characters (22 characters, 66 bytes)',
        'taxNo',
        () => draftBody({ taxNo: '税'.repeat(22) }),
      ],
      ['taxNo blank after normalization', 'taxNo', () => draftBody({ taxNo: ' \u3000 ' })],
      [
        'mainCooperation 65,536 bytes (21,845 × 汉 + 1 byte)',
        'mainCooperation',
        () => draftBody({ mainCooperation: `${'汉'.repeat(21_845)}a` }),
      ],
      [
        'mainCooperation 21,846 × 汉 (65,538 bytes, far fewer characters)',
        'mainCooperation',
        () => draftBody({ mainCooperation: '汉'.repeat(21_846) }),
      ],
      ['mainCooperation empty', 'mainCooperation', () => draftBody({ mainCooperation: '' })],
      [
        'company contactPhone 21',
        'contactPhone',
        () => draftBody({ contactPhone: '1'.repeat(21) }),
      ],
      [
        'registeredCapital 51',
        'registeredCapital',
        () => draftBody({ registeredCapital: 'R'.repeat(51) }),
      ],
      ['businessScope 501', 'businessScope', () => draftBody({ businessScope: 'B'.repeat(501) })],
      ['address 501', 'address', () => draftBody({ address: 'A'.repeat(501) })],
      [
        'licenseImageUrl 501',
        'licenseImageUrl',
        () => draftBody({ licenseImageUrl: storageUrl(501) }),
      ],
      ['types empty', 'types', () => draftBody({ types: [] })],
      [
        'types 16 items',
        'types',
        () =>
          draftBody({
            types: [
              'SCENIC',
              'RESTAURANT',
              'SUPPLIES',
              'ACTIVITY',
              'HOTEL',
              'SERVICE',
              'FLEET',
              'RENTAL',
              'PERFORMANCE',
              'INSURANCE',
              'CHANNEL',
              'PROFESSIONAL_SERVICE',
              'PROPERTY',
              'TICKET',
              'OTHER',
              'EXTRA_TYPE',
            ].map((typeCode) => ({ typeCode })),
          }),
      ],
      [
        'duplicate typeCode',
        'types',
        () => draftBody({ types: [{ typeCode: 'HOTEL' }, { typeCode: 'HOTEL' }] }),
      ],
      [
        'contacts.contactName 501',
        'contacts.0.contactName',
        () => draftBody({ contacts: [{ contactName: 'N'.repeat(501), contactPhone: PHONE }] }),
      ],
      [
        'contacts.contactPhone empty',
        'contacts.0.contactPhone',
        () => draftBody({ contacts: [{ contactName: 'Wang', contactPhone: '' }] }),
      ],
      [
        // Spaces only: no number, and no mask to store (it was a 500 at the INSERT).
        'contacts.contactPhone blank',
        'contacts.0.contactPhone',
        () => draftBody({ contacts: [{ contactName: 'Wang', contactPhone: '   ' }] }),
      ],
      [
        'contacts.contactPhone 21',
        'contacts.0.contactPhone',
        () => draftBody({ contacts: [{ contactName: 'Wang', contactPhone: '1'.repeat(21) }] }),
      ],
      [
        'contacts.remark 201',
        'contacts.0.remark',
        () =>
          draftBody({
            contacts: [{ contactName: 'Wang', contactPhone: PHONE, remark: 'r'.repeat(201) }],
          }),
      ],
      [
        'qualifications.qualType 65',
        'qualifications.0.qualType',
        () => draftBody({ qualifications: [{ qualType: 'Q'.repeat(65) }] }),
      ],
      [
        'qualifications.certNo 129',
        'qualifications.0.certNo',
        () => draftBody({ qualifications: [{ qualType: 'LICENSE', certNo: 'C'.repeat(129) }] }),
      ],
      [
        'qualifications.imageUrl 65,536 bytes',
        'qualifications.0.imageUrl',
        () => {
          const filler = 65_536 - bytes(STORAGE)
          const imageUrl = STORAGE + '汉'.repeat(Math.floor(filler / 3)) + 'a'.repeat(filler % 3)
          return draftBody({ qualifications: [{ qualType: 'LICENSE', imageUrl }] })
        },
      ],
      [
        'initialAccounts.bankName 501',
        'initialAccounts.0.bankName',
        () => withAccount({ bankName: 'K'.repeat(501) }),
      ],
      [
        'initialAccounts.bankBranch 501',
        'initialAccounts.0.bankBranch',
        () => withAccount({ bankBranch: 'b'.repeat(501) }),
      ],
      [
        'initialAccounts.accountNo 129 bytes',
        'initialAccounts.0.accountNo',
        () => withAccount({ accountNo: `${randomDigits(19)}`.padEnd(129, ' ') }),
      ],
      [
        'initialAccounts.proofFileUrls 21 items',
        'initialAccounts.0.proofFileUrls',
        () => withAccount({ proofFileUrls: Array.from({ length: 21 }, () => storageUrl(100)) }),
      ],
      [
        'initialAccounts.proofFileUrls item of 1001 characters',
        'initialAccounts.0.proofFileUrls.0',
        () => withAccount({ proofFileUrls: [storageUrl(1001)] }),
      ],
      [
        'initialAccounts.proofFileUrls empty item',
        'initialAccounts.0.proofFileUrls.0',
        () => withAccount({ proofFileUrls: [''] }),
      ],
      [
        'establishDate not a calendar date',
        'establishDate',
        () => draftBody({ establishDate: '2023-02-30' }),
      ],
      [
        'establishDate tomorrow',
        'establishDate',
        () => draftBody({ establishDate: shanghaiDate(1) }),
      ],
    ]

    it.each(cases)('%s → 400', async (_name, path, make) => {
      const body = make()
      const res = await expectRefused(h, body, 400, { message: names(path) })
      // A refusal never echoes the tax number it was sent.
      expect(JSON.stringify(res.body)).not.toContain(String(body.taxNo))
    })

    it('approveNote of 16,777,216 bytes → 400 naming approveNote (not the body limit)', async () => {
      const body = { ...base(), approveNote: 'a'.repeat(16_777_216) }
      expect(JSON.stringify(body).length).toBeLessThan(h.config.bodyLimitBytes)
      await expectRefused(h, body, 400, { message: names('approveNote') })
    })

    it('remark of 16,777,216 bytes → 400 naming remark (not the body limit)', async () => {
      const body = { ...base(), remark: 'a'.repeat(16_777_216) }
      expect(JSON.stringify(body).length).toBeLessThan(h.config.bodyLimitBytes)
      await expectRefused(h, body, 400, { message: names('remark') })
    })

    it('accountNo of 128 bytes passes the byte bound but 128 digits fail C-03 (6..32 digits) → 395015', async () => {
      // The 1..128-byte bound is the field's storage bound; C-03 then allows 6..32 digits once
      // spaces and hyphens are removed. 128 digits are inside the first and outside the second,
      // so the answer is 395015 and not 400; 129 bytes (above) fail validation with 400.
      await expectRefused(
        h,
        draftBody({ initialAccounts: [account({ accountNo: randomDigits(128) })] }),
        395015,
        {
          message: /initialAccounts\.0\.accountNo/,
        },
      )
    })
  })
})
