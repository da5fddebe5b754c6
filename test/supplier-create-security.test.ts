import { describe, expect, it } from 'vitest'
import { create, createDraft, detail, remove } from './client'
import { ALL_PERMISSIONS, useHarness } from './harness'
import {
  MASKED_ACCOUNT,
  TWO_POW_53,
  account,
  changeLogRows,
  eventRows,
  expectRefused,
  names,
  storageUrl,
  storedRows,
} from './supplier-create-data'
import {
  ACCOUNT_NO,
  CERT_NO,
  CONTACT_PHONE,
  DATE_TIME,
  PHONE,
  STORAGE,
  draftBody,
  fullDraftBody,
  fullWidth,
  randomText,
  uniqueName,
  uniqueTaxNo,
} from './supplier-data'
import { unchanged } from './unchanged'

/*
 * SUP-ADM-003 create draft (POST /admin/supplier/items): what protects data and identity. No
 * plaintext in the answer or the stored rows, authorized storage URLs only, no child of another
 * supplier, near duplicates confirmed by the administrator and name the token was issued for,
 * strict bodies (no server-owned or unknown field), and the permission.
 */

const h = useHarness()

type Body = Record<string, any>

describe('SUP-ADM-003 create draft', () => {
  describe('security: the result and the stored rows hold no plaintext', () => {
    it('answers a SupplierWriteResultVO with nothing sensitive; rows store ciphertext only', async () => {
      const admin = await h.admin()
      const taxNo = uniqueTaxNo()
      const body = fullDraftBody({
        fullName: uniqueName('Result'),
        shortName: uniqueName('Result short'),
        taxNo,
      })
      const res = await create(h, body, { admin })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ code: 200, success: true, message: expect.any(String) })
      const data = res.body.data
      expect(Object.keys(data).sort()).toEqual([
        'initialAccounts',
        'onboardingStage',
        'status',
        'supplierId',
        'supplierNo',
        'updateTime',
      ])
      expect(typeof data.supplierId).toBe('string')
      expect(BigInt(data.supplierId) > TWO_POW_53).toBe(true)
      expect(data.supplierNo).toBeNull()
      expect(data.status).toBe('DRAFT')
      expect(typeof data.onboardingStage).toBe('string')
      expect(data.onboardingStage.length).toBeGreaterThan(0)
      expect(data.updateTime).toMatch(DATE_TIME)
      expect(data.initialAccounts).toHaveLength(1)
      expect(Object.keys(data.initialAccounts[0]).sort()).toEqual([
        'accountId',
        'accountNoMask',
        'status',
      ])
      expect(typeof data.initialAccounts[0].accountId).toBe('string')
      expect(BigInt(data.initialAccounts[0].accountId) > TWO_POW_53).toBe(true)
      expect(data.initialAccounts[0].accountNoMask).toMatch(MASKED_ACCOUNT)
      expect(data.initialAccounts[0].accountNoMask).toBe(`**** **** ${ACCOUNT_NO.slice(-4)}`)
      expect(data.initialAccounts[0].status).toBe('DRAFT')

      const secrets = [taxNo, PHONE, CONTACT_PHONE, ACCOUNT_NO, CERT_NO]
      const log = await changeLogRows(h, data.supplierId)
      const events = await eventRows(h, data.supplierId)
      const stored = await storedRows(h, data.supplierId)
      const places: [string, string][] = [
        ['response', JSON.stringify(res.body)],
        ['logs', h.logs.join('\n')],
        ['change_log', log.map((r) => r.raw).join('\n')],
        [
          'domain_event',
          JSON.stringify(events.map((e) => e.payload)) + events.map((e) => e.raw).join('\n'),
        ],
        ['stored rows', stored],
      ]
      for (const [where, text] of places) {
        for (const secret of secrets) expect(text, `${where} holds ${secret}`).not.toContain(secret)
      }
      expect(events.length).toBeGreaterThan(0)

      // Stored encrypted, and the ciphertexts hold exactly the normalized values.
      const [s] = await h.sql`
        SELECT tax_no_enc, tax_no_bidx, tax_no_mask, contact_phone_enc, contact_phone_mask
        FROM supplier WHERE supplier_id = ${data.supplierId}
      `
      expect(await h.cipher.decrypt(s.tax_no_enc)).toBe(taxNo)
      expect(s.tax_no_bidx).toMatch(/^[0-9a-f]{64}$/)
      expect(await h.cipher.decrypt(s.contact_phone_enc)).toBe(PHONE)
      expect(s.contact_phone_mask).toBe('138****5678')
      const [c] =
        await h.sql`SELECT contact_phone_enc, contact_phone_mask FROM supplier_contact WHERE supplier_id = ${data.supplierId}`
      expect(await h.cipher.decrypt(c.contact_phone_enc)).toBe(CONTACT_PHONE)
      expect(c.contact_phone_mask).toBe('139****4321')
      const [q] =
        await h.sql`SELECT cert_no_enc, cert_no_mask FROM supplier_qualification WHERE supplier_id = ${data.supplierId}`
      expect(await h.cipher.decrypt(q.cert_no_enc)).toBe(CERT_NO)
      const [a] = await h.sql`
        SELECT account_no_enc, account_name, status, is_default FROM supplier_bank_account
        WHERE supplier_id = ${data.supplierId}
      `
      expect(await h.cipher.decrypt(a.account_no_enc)).toBe(ACCOUNT_NO)
      // accountName is derived from the subject's full name; a draft account is DRAFT, not default.
      expect(a).toMatchObject({ account_name: body.fullName, status: 'DRAFT', is_default: 'NO' })

      // Nothing sensitive in the detail read either.
      const read = await detail(h, data.supplierId)
      for (const secret of secrets) expect(JSON.stringify(read.body)).not.toContain(secret)
    })
  })

  describe('security: storage URLs (STORAGE_URL_PREFIXES)', () => {
    const foreign = 'https://evil.example.net/supplier/x.png'
    const cases: [string, RegExp, () => Body][] = [
      ['licenseImageUrl', /licenseImageUrl/, () => draftBody({ licenseImageUrl: foreign })],
      [
        'qualification imageUrl',
        /qualifications\.0\.imageUrl/,
        () => draftBody({ qualifications: [{ qualType: 'LICENSE', imageUrl: foreign }] }),
      ],
      [
        'initial account proofFileUrls (second item)',
        /initialAccounts\.0\.proofFileUrls\.1/,
        () =>
          draftBody({ initialAccounts: [account({ proofFileUrls: [storageUrl(80), foreign] })] }),
      ],
      [
        'licenseImageUrl over plain http on the same host',
        /licenseImageUrl/,
        () => draftBody({ licenseImageUrl: 'http://storage.example.com/supplier/x.png' }),
      ],
      [
        'licenseImageUrl on a sibling path that only shares the text before the slash',
        /licenseImageUrl/,
        () => draftBody({ licenseImageUrl: 'https://storage.example.com/supplier-evil/x.png' }),
      ],
    ]
    it.each(cases)('%s not on an authorized prefix → 395018', async (_name, message, make) => {
      await expectRefused(h, make(), 395018, { message })
    })

    it('a URL that climbs out of the authorized prefix with ../ → 395018', async () => {
      // Textually it starts with the prefix; resolved, it is https://storage.example.com/private/…
      const escaping = `${STORAGE}../private/keys.png`
      expect(new URL(escaping).href.startsWith(STORAGE)).toBe(false)
      await expectRefused(h, draftBody({ licenseImageUrl: escaping }), 395018)
    })
  })

  describe('security: child ids', () => {
    it("a contactId or qualificationId of another supplier's child → 395011, nothing written", async () => {
      const other = await createDraft(
        h,
        draftBody({
          contacts: [{ contactName: 'Owner', contactPhone: PHONE }],
          qualifications: [{ qualType: 'LICENSE', certNo: CERT_NO }],
        }),
      )
      const read = (await detail(h, other.supplierId)).body.data
      const contactId = read.contacts[0].contactId
      const qualificationId = read.qualifications[0].qualificationId
      await expectRefused(
        h,
        draftBody({ contacts: [{ contactId, contactName: 'Thief', contactPhone: PHONE }] }),
        395011,
      )
      await expectRefused(
        h,
        draftBody({ qualifications: [{ qualificationId, qualType: 'LICENSE' }] }),
        395011,
      )
    })
  })

  describe('security: near-duplicate protection', () => {
    it('a similar name → 395006 with masked candidates and a token; only the same admin and name may use it', async () => {
      const adminA = await h.admin()
      const adminB = await h.admin()
      const firstBody = fullDraftBody({
        fullName: 'Hangzhou West Lake Travel Service Co',
        shortName: null,
        taxNo: uniqueTaxNo(),
      })
      const first = await createDraft(h, firstBody, adminA)
      const secondBody = draftBody({ fullName: 'Hangzhou West Lake Travel Services Co' })

      const refused = await expectRefused(h, secondBody, 395006, { admin: adminA })
      const { candidates, duplicateConfirmToken } = refused.body.data
      expect(typeof duplicateConfirmToken).toBe('string')
      expect(duplicateConfirmToken.length).toBeGreaterThan(0)
      const mine = candidates.find((c: { supplierId: string }) => c.supplierId === first.supplierId)
      expect(mine).toEqual({
        supplierId: first.supplierId,
        supplierNo: null,
        fullName: 'Hangzhou West Lake Travel Service Co',
        status: 'DRAFT',
        similarity: expect.any(Number),
        reason: expect.any(String),
        explanation: expect.any(String),
      })
      expect(mine.similarity).toBeGreaterThanOrEqual(h.config.duplicateNameThreshold)
      expect(mine.similarity).toBeLessThanOrEqual(1)
      expect(refused.body.data.candidateCount).toBe(candidates.length)
      for (const c of candidates) {
        expect(Object.keys(c).sort()).toEqual([
          'explanation',
          'fullName',
          'reason',
          'similarity',
          'status',
          'supplierId',
          'supplierNo',
        ])
      }
      const text = JSON.stringify(refused.body)
      for (const secret of [firstBody.taxNo, PHONE, CONTACT_PHONE, ACCOUNT_NO, CERT_NO]) {
        expect(text).not.toContain(secret)
      }
      const [firstRow] =
        await h.sql`SELECT tax_no_mask, contact_phone_mask FROM supplier WHERE supplier_id = ${first.supplierId}`
      expect(text).not.toContain(firstRow.tax_no_mask)
      expect(text).not.toContain(firstRow.contact_phone_mask)

      // The token is bound to the administrator who received it...
      await expectRefused(h, { ...secondBody, duplicateConfirmToken }, 395006, { admin: adminB })
      // ...and to the normalized name it was issued for (this one is the same company too).
      await expectRefused(
        h,
        {
          ...secondBody,
          fullName: 'The Hangzhou West Lake Travel Service Co., Ltd.',
          duplicateConfirmToken,
        },
        395006,
        { admin: adminA },
      )
      // Forged or garbled tokens are worthless.
      const [expiry, mac] = duplicateConfirmToken.split('.')
      const flipped = `${mac.slice(0, -1)}${mac.endsWith('0') ? '1' : '0'}`
      for (const forged of [
        'garbage',
        `${expiry}.${flipped}`,
        `${Number(expiry) + 3600}.${mac}`,
        `${Math.floor(Date.now() / 1000) + 300}.${'0'.repeat(64)}`,
        `${duplicateConfirmToken}x`,
      ]) {
        await expectRefused(h, { ...secondBody, duplicateConfirmToken: forged }, 395006, {
          admin: adminA,
        })
      }
      // `force` is not a way around it.
      await expectRefused(h, { ...secondBody, force: true }, 400, {
        admin: adminA,
        message: names('force'),
      })

      const second = await createDraft(h, { ...secondBody, duplicateConfirmToken }, adminA)
      expect(second.data.status).toBe('DRAFT')
      expect(second.supplierId).not.toBe(first.supplierId)
    })

    it('the token is bound to the candidate set: a new similar supplier invalidates it', async () => {
      const stem = randomText(14)
      const adminA = await h.admin()
      const adminB = await h.admin()
      await createDraft(h, draftBody({ fullName: `${stem} Travel Service Co` }), adminA)
      const mineBody = draftBody({ fullName: `${stem} Travel Services Co` })
      const token = (await expectRefused(h, mineBody, 395006, { admin: adminA })).body.data
        .duplicateConfirmToken

      // Meanwhile another administrator adds a third similar supplier (confirming their own token).
      const otherBody = draftBody({ fullName: `${stem} Travel Service Co.` })
      const otherToken = (await expectRefused(h, otherBody, 395006, { admin: adminB })).body.data
        .duplicateConfirmToken
      await createDraft(h, { ...otherBody, duplicateConfirmToken: otherToken }, adminB)

      const again = await expectRefused(h, { ...mineBody, duplicateConfirmToken: token }, 395006, {
        admin: adminA,
      })
      expect(again.body.data.candidates).toHaveLength(2)
      await createDraft(
        h,
        { ...mineBody, duplicateConfirmToken: again.body.data.duplicateConfirmToken },
        adminA,
      )
    })

    it('similarity is judged on normalized names and on short names too', async () => {
      const stem = randomText(14)
      const first = await createDraft(
        h,
        draftBody({ fullName: `${stem} Hotel Group Co`, shortName: `${stem} Resorts` }),
      )
      // Full-width spelling of a near-identical name.
      const wide = await expectRefused(
        h,
        draftBody({ fullName: fullWidth(`${stem} Hotel Group Ltd`) }),
        395006,
      )
      expect(wide.body.data.candidates.map((c: { supplierId: string }) => c.supplierId)).toContain(
        first.supplierId,
      )
      // A different full name whose short name resembles the first's short name.
      const short = await expectRefused(
        h,
        draftBody({ fullName: uniqueName('Unrelated'), shortName: `${stem} Resort` }),
        395006,
      )
      expect(short.body.data.candidates.map((c: { supplierId: string }) => c.supplierId)).toContain(
        first.supplierId,
      )
    })

    it('a deleted draft is not a near-duplicate candidate', async () => {
      const stem = randomText(14)
      const first = await createDraft(h, draftBody({ fullName: `${stem} Catering Co` }))
      expect((await remove(h, first.supplierId)).body.code).toBe(200)
      await createDraft(h, draftBody({ fullName: `${stem} Catering Co` }))
    })
  })

  describe('security: strict body', () => {
    it('an unknown field → 400 naming it', async () => {
      await expectRefused(h, { ...draftBody(), nickname: 'x' }, 400, { message: names('nickname') })
    })

    it.each([
      'adminId',
      'applicantAdminId',
      'permissionCodes',
      'createdBy',
      'templateId',
      'approverUserIds',
      'spStatus',
      'provider',
    ])('client-forbidden field %s → 400 naming it', async (field) => {
      const value = field === 'permissionCodes' || field === 'approverUserIds' ? ['1'] : '1'
      await expectRefused(h, { ...draftBody(), [field]: value }, 400, { message: names(field) })
    })

    it.each([
      [
        'expectedUpdateTime on create',
        'expectedUpdateTime',
        (b: Body) => ({ ...b, expectedUpdateTime: '2026-01-01 00:00:00' }),
      ],
      ['supplierNo (server-generated)', 'supplierNo', (b: Body) => ({ ...b, supplierNo: 'SP1' })],
      ['status', 'status', (b: Body) => ({ ...b, status: 'ACTIVE' })],
      [
        'qualification isRequired',
        'qualifications.0.isRequired',
        (b: Body) => ({ ...b, qualifications: [{ qualType: 'LICENSE', isRequired: true }] }),
      ],
      [
        'account confirmAccountNo',
        'initialAccounts.0.confirmAccountNo',
        (b: Body) => {
          const a = account()
          return { ...b, initialAccounts: [{ ...a, confirmAccountNo: a.accountNo }] }
        },
      ],
      [
        'account accountNoMask',
        'initialAccounts.0.accountNoMask',
        (b: Body) => ({ ...b, initialAccounts: [account({ accountNoMask: '**** **** 1234' })] }),
      ],
      [
        'account isPersonal',
        'initialAccounts.0.isPersonal',
        (b: Body) => ({ ...b, initialAccounts: [account({ isPersonal: false })] }),
      ],
      [
        'account accountName',
        'initialAccounts.0.accountName',
        (b: Body) => ({ ...b, initialAccounts: [account({ accountName: 'Someone Else' })] }),
      ],
      [
        'type typeName',
        'types.0.typeName',
        (b: Body) => ({ ...b, types: [{ typeCode: 'HOTEL', typeName: '酒店' }] }),
      ],
      [
        'contact unknown field',
        'contacts.0.email',
        (b: Body) => ({
          ...b,
          contacts: [{ contactName: 'Wang', contactPhone: PHONE, email: 'a@b.c' }],
        }),
      ],
    ])('%s → 400 naming it', async (_name, path, make) => {
      await expectRefused(h, make(draftBody()), 400, { message: names(path) })
    })

    it('a required field missing → 400 naming it', async () => {
      for (const field of ['fullName', 'taxNo', 'types', 'mainCooperation']) {
        const body = draftBody()
        delete body[field]
        await expectRefused(h, body, 400, { message: names(field) })
      }
    })
  })

  describe('security: authorization', () => {
    it('an administrator without supplier:create → 395002 and nothing is written', async () => {
      const admin = await h.admin(ALL_PERMISSIONS.filter((p) => p !== 'supplier:create'))
      await expectRefused(h, draftBody(), 395002, { admin })
    })

    it('a missing token → 401 and nothing is written', async () => {
      const admin = await h.admin()
      const res = await unchanged(h, () => create(h, draftBody(), { admin, token: null }))
      expect(res.body).toMatchObject({ code: 401, success: false })
    })
  })
})
