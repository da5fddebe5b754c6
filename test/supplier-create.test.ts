import { describe, expect, it } from 'vitest'
import { ALL_PERMISSIONS, useHarness } from './harness'
import {
  ACCOUNT_NO,
  CERT_NO,
  CONTACT_PHONE,
  PHONE,
  STORAGE,
  TAX_NO,
  draftBody,
  fullDraftBody,
  uniqueName,
  uniqueTaxNo,
} from './supplier-data'

/*
 * SUP-ADM-003 create draft (POST /admin/supplier/items): bounds (bytes where the spec says
 * bytes), normalization, field rules, C-02, near-duplicate protection, strict bodies,
 * authorization, the SupplierWriteResultVO, the change log, and "a failed write leaves nothing".
 */

const h = useHarness()

const CREATE = '/admin/supplier/items'
const TWO_POW_53 = 2n ** 53n
const DATE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/
const MASKED_ACCOUNT = /^\*\*\*\* \*\*\*\* \d{4}$/

// Helpers ------------------------------------------------------------------------------------

type Body = Record<string, any>

const create = (body: unknown, admin?: string) => h.call('POST', CREATE, { body, admin })
const detail = (supplierId: string) => h.call('GET', `${CREATE}/${supplierId}`)

const ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789'
/** Random letters and digits: two of these share almost no trigram, so names stay dissimilar. */
const randomText = (n: number) =>
  Array.from({ length: n }, () => ALNUM[Math.floor(Math.random() * ALNUM.length)]).join('')
const randomDigits = (n: number) =>
  Array.from({ length: n }, (_, i) => String(Math.floor(Math.random() * 10) || (i ? 0 : 6))).join(
    '',
  )
const bytes = (s: string) => Buffer.byteLength(s, 'utf8')
/** An authorized storage URL of exactly n characters. */
const storageUrl = (n: number) => STORAGE + randomText(n - STORAGE.length)
/** Full-width form of printable ASCII (U+FF01..U+FF5E; space → U+3000). */
const fullWidth = (s: string) =>
  s.replace(/[!-~ ]/g, (ch) =>
    ch === ' ' ? '\u3000' : String.fromCharCode(ch.charCodeAt(0) + 0xfee0),
  )
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
/** The 400 message names this field (messages are "path: reason; path: reason"). */
const names = (path: string) => new RegExp(`(^|; )${escapeRe(path)}:`)

/** Today and tomorrow in the service time zone (Asia/Shanghai), yyyy-MM-dd. */
const shanghaiDate = (offsetDays = 0) =>
  new Intl.DateTimeFormat('en-CA', {
    timeZone: 'Asia/Shanghai',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(new Date(Date.now() + offsetDays * 86_400_000))

const account = (overrides: Body = {}): Body => ({
  accountType: 'CORPORATE',
  bankName: 'Bank of Hangzhou',
  accountNo: randomDigits(19),
  ...overrides,
})

const TABLES = [
  'supplier',
  'supplier_type',
  'supplier_contact',
  'supplier_qualification',
  'supplier_bank_account',
  'change_log',
  'domain_event',
  'submit_guard',
  'approval_log',
  'idempotency_record',
] as const

/** Row counts of every table a create could touch. */
async function counts(): Promise<Record<string, number>> {
  const rows = await h.sql.unsafe(
    `SELECT ${TABLES.map((t) => `(SELECT count(*)::int FROM ${t}) AS ${t}`).join(', ')}`,
  )
  return { ...rows[0] }
}

/**
 * Sends a create that must fail with `code` (HTTP 200 envelope, success false) and proves it
 * wrote nothing: no supplier, child, change-log, event, guard, approval or idempotency row.
 */
async function expectRefused(
  body: unknown,
  code: number,
  options: { admin?: string; message?: RegExp } = {},
) {
  const before = await counts()
  const res = await create(body, options.admin)
  expect(res.status).toBe(200)
  expect(res.body).toMatchObject({ code, success: false })
  if (options.message) expect(res.body.message).toMatch(options.message)
  expect(await counts()).toEqual(before)
  return res
}

/** Sends a create that must succeed; returns the SupplierWriteResultVO. */
async function expectCreated(body: unknown, admin?: string) {
  const res = await create(body, admin)
  expect(res.body, JSON.stringify(res.body).slice(0, 500)).toMatchObject({
    code: 200,
    success: true,
  })
  return res.body.data as {
    supplierId: string
    supplierNo: string | null
    status: string
    onboardingStage: string
    initialAccounts: { accountId: string; accountNoMask: string; status: string }[]
    updateTime: string
  }
}

/** Every stored row of the supplier and its children, as text, for plaintext searches. */
async function storedRows(supplierId: string) {
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

async function changeLogRows(supplierId: string) {
  return h.sql`
    SELECT operation_type, target_type, target_id::text AS target_id, field_name,
           old_value_masked, new_value_masked, operator_id::text AS operator_id, request_id,
           c::text AS raw
    FROM change_log c WHERE supplier_id = ${supplierId} ORDER BY change_log_id
  `
}

async function eventRows(supplierId: string) {
  return h.sql`
    SELECT event_type, status, payload, e::text AS raw
    FROM domain_event e WHERE aggregate_id = ${supplierId} ORDER BY event_id
  `
}

// Bounds -------------------------------------------------------------------------------------

describe('SUP-ADM-003 bounds: every field at its limit is accepted', () => {
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
    const created = await expectCreated(body)
    expect(created.initialAccounts).toEqual([
      expect.objectContaining({ accountNoMask: `**** **** ${digits.slice(-4)}`, status: 'DRAFT' }),
    ])

    const read = (await detail(created.supplierId)).body.data
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
    const created = await expectCreated(body)
    const [row] = await h.sql`
      SELECT approve_note, approve_note_enc FROM supplier WHERE supplier_id = ${created.supplierId}
    `
    expect(row.approve_note).toBeNull()
    expect(await h.cipher.decrypt(row.approve_note_enc)).toBe(body.approveNote)
  })

  it('remark of exactly 16,777,215 UTF-8 bytes is accepted (the body passes the body limit)', async () => {
    const body = draftBody({ remark: 'a'.repeat(16_777_215) })
    expect(JSON.stringify(body).length).toBeLessThan(h.config.bodyLimitBytes)
    const created = await expectCreated(body)
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
    await expectCreated(draftBody({ taxNo }))
  })

  it('lower bounds are accepted: 1-character fullName, 1-byte taxNo and mainCooperation, 1-character contact phone', async () => {
    const created = await expectCreated({
      fullName: 'Q',
      taxNo: 'Z',
      types: [{ typeCode: 'OTHER' }],
      mainCooperation: 'x',
      contacts: [{ contactName: 'W', contactPhone: '1' }],
      qualifications: [{ qualType: 'L' }],
      initialAccounts: [account({ bankName: 'B' })],
    })
    const read = (await detail(created.supplierId)).body.data
    expect(read).toMatchObject({ fullName: 'Q', taxNoMask: '****', mainCooperation: 'x' })
    expect(read.contacts).toEqual([expect.objectContaining({ contactName: 'W' })])
  })
})

describe('SUP-ADM-003 bounds: one past the limit is 400 naming the field, and writes nothing', () => {
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
    ['company contactPhone 21', 'contactPhone', () => draftBody({ contactPhone: '1'.repeat(21) })],
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
    const res = await expectRefused(body, 400, { message: names(path) })
    // A refusal never echoes the tax number it was sent.
    expect(JSON.stringify(res.body)).not.toContain(String(body.taxNo))
  })

  it('approveNote of 16,777,216 bytes → 400 naming approveNote (not the body limit)', async () => {
    const body = { ...base(), approveNote: 'a'.repeat(16_777_216) }
    expect(JSON.stringify(body).length).toBeLessThan(h.config.bodyLimitBytes)
    await expectRefused(body, 400, { message: names('approveNote') })
  })

  it('remark of 16,777,216 bytes → 400 naming remark (not the body limit)', async () => {
    const body = { ...base(), remark: 'a'.repeat(16_777_216) }
    expect(JSON.stringify(body).length).toBeLessThan(h.config.bodyLimitBytes)
    await expectRefused(body, 400, { message: names('remark') })
  })

  it('accountNo of 128 bytes passes the byte bound but 128 digits fail C-03 (6..32 digits) → 395015', async () => {
    // The 1..128-byte bound is the field's storage bound; C-03 then allows 6..32 digits once
    // spaces and hyphens are removed. 128 digits are inside the first and outside the second,
    // so the answer is 395015 and not 400; 129 bytes (above) fail validation with 400.
    await expectRefused(
      draftBody({ initialAccounts: [account({ accountNo: randomDigits(128) })] }),
      395015,
      {
        message: /initialAccounts\.0\.accountNo/,
      },
    )
  })
})

// Normalization ------------------------------------------------------------------------------

describe('SUP-ADM-003 normalization', () => {
  it("fullName '  Ｈａｎｇｚｈｏｕ   Lake  ' is stored as 'Hangzhou Lake'", async () => {
    const created = await expectCreated(draftBody({ fullName: '  Ｈａｎｇｚｈｏｕ   Lake  ' }))
    expect((await detail(created.supplierId)).body.data.fullName).toBe('Hangzhou Lake')
    const log = await changeLogRows(created.supplierId)
    expect(log.find((r) => r.field_name === 'fullName')?.new_value_masked).toBe('Hangzhou Lake')
  })

  it('fullName: surrounding spaces and collapsed runs do not count against the 500 limit', async () => {
    const a = randomText(250)
    const b = randomText(249)
    // 504 raw characters; trimmed and collapsed they are 500.
    const created = await expectCreated(draftBody({ fullName: `  ${a}  ${b}  ` }))
    expect((await detail(created.supplierId)).body.data.fullName).toBe(`${a} ${b}`)
    // Full-width letters count one character each: 500 of them are accepted as 500 ASCII.
    const wide = randomText(500)
    const second = await expectCreated(draftBody({ fullName: fullWidth(wide) }))
    expect((await detail(second.supplierId)).body.data.fullName).toBe(wide)
  })

  it("taxNo ' ９１３３ａｂ ' is stored as '9133AB' (mask in detail, C-02 against the plain value)", async () => {
    const created = await expectCreated(draftBody({ taxNo: ' ９１３３ａｂ ' }))
    expect((await detail(created.supplierId)).body.data.taxNoMask).toBe('****AB')
    const [row] =
      await h.sql`SELECT tax_no_enc FROM supplier WHERE supplier_id = ${created.supplierId}`
    expect(await h.cipher.decrypt(row.tax_no_enc)).toBe('9133AB')
    await expectRefused(draftBody({ taxNo: '9133AB' }), 395004)
  })

  it('a long full-width lower-case taxNo is upper-cased and half-width; the mask keeps 2 + 4', async () => {
    const plain = uniqueTaxNo() // e.g. 9133…0001X: ends with a letter
    const sent = ` ${fullWidth(plain.toLowerCase())} `
    const created = await expectCreated(draftBody({ taxNo: sent }))
    const mask = `${plain.slice(0, 2)}${'*'.repeat(plain.length - 6)}${plain.slice(-4)}`
    expect((await detail(created.supplierId)).body.data.taxNoMask).toBe(mask)
    const res = await expectRefused(draftBody({ taxNo: plain }), 395004)
    expect(JSON.stringify(res.body)).not.toContain(plain)
  })
})

// establishDate ------------------------------------------------------------------------------

describe('SUP-ADM-003 establishDate', () => {
  it('today in Asia/Shanghai is accepted; tomorrow and 2023-02-30 are 400', async () => {
    const created = await expectCreated(draftBody({ establishDate: shanghaiDate(0) }))
    expect((await detail(created.supplierId)).body.data.establishDate).toBe(shanghaiDate(0))
    await expectRefused(draftBody({ establishDate: shanghaiDate(1) }), 400, {
      message: names('establishDate'),
    })
    await expectRefused(draftBody({ establishDate: '2023-02-30' }), 400, {
      message: names('establishDate'),
    })
  })
})

// Types --------------------------------------------------------------------------------------

describe('SUP-ADM-003 types', () => {
  it('an unknown typeCode → 395010 naming it', async () => {
    await expectRefused(draftBody({ types: [{ typeCode: 'NOT_A_TYPE' }] }), 395010, {
      message: /NOT_A_TYPE/,
    })
  })

  it('a disabled typeCode → 395010; enabled again, it is accepted', async () => {
    await h.sql`UPDATE dict_data SET status = 'DISABLED' WHERE dict_type = 'supplier_type' AND dict_value = 'TICKET'`
    try {
      await expectRefused(
        draftBody({ types: [{ typeCode: 'OTHER' }, { typeCode: 'TICKET' }] }),
        395010,
        {
          message: /TICKET/,
        },
      )
    } finally {
      await h.sql`UPDATE dict_data SET status = 'ACTIVE' WHERE dict_type = 'supplier_type' AND dict_value = 'TICKET'`
    }
    await expectCreated(draftBody({ types: [{ typeCode: 'OTHER' }, { typeCode: 'TICKET' }] }))
  })

  it('a lower-case or label-like typeCode is 400 (codes only)', async () => {
    await expectRefused(draftBody({ types: [{ typeCode: 'hotel' }] }), 400, {
      message: names('types.0.typeCode'),
    })
  })
})

// Storage URLs -------------------------------------------------------------------------------

describe('SUP-ADM-003 storage URLs (STORAGE_URL_PREFIXES)', () => {
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
      () => draftBody({ initialAccounts: [account({ proofFileUrls: [storageUrl(80), foreign] })] }),
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
    await expectRefused(make(), 395018, { message })
  })

  it('a URL that climbs out of the authorized prefix with ../ → 395018', async () => {
    // Textually it starts with the prefix; resolved, it is https://storage.example.com/private/…
    const escaping = `${STORAGE}../private/keys.png`
    expect(new URL(escaping).href.startsWith(STORAGE)).toBe(false)
    await expectRefused(draftBody({ licenseImageUrl: escaping }), 395018)
  })
})

// Settlement and account rules ---------------------------------------------------------------

describe('SUP-ADM-003 initial accounts: settlement terms, C-03 and repetition', () => {
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
    await expectRefused(draftBody({ initialAccounts: [account(overrides)] }), code, {
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
    const created = await expectCreated(draftBody({ initialAccounts: [account(terms)] }))
    expect(created.initialAccounts).toEqual([expect.objectContaining({ status: 'DRAFT' })])
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
    const created = await expectCreated(
      draftBody({
        initialAccounts: [
          account({ accountNo: '6222-0212 3456' }),
          account({ accountNo: randomDigits(6) }),
          account({ accountNo: randomDigits(32) }),
        ],
      }),
    )
    expect(created.initialAccounts[0]).toMatchObject({
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
      draftBody({
        initialAccounts: [account({ accountNo: number }), account({ accountNo: number })],
      }),
      395016,
      { message: /initialAccounts\.1\.accountNo/ },
    )
    const spaced = number.replace(/(\d{4})(?=\d)/g, '$1 ')
    const hyphened = number.replace(/(\d{4})(?=\d)/g, '$1-')
    await expectRefused(
      draftBody({
        initialAccounts: [account({ accountNo: spaced }), account({ accountNo: hyphened })],
      }),
      395016,
    )
  })
})

// Children ownership -------------------------------------------------------------------------

describe('SUP-ADM-003 child ids', () => {
  it("a contactId or qualificationId of another supplier's child → 395011, nothing written", async () => {
    const other = await expectCreated(
      draftBody({
        contacts: [{ contactName: 'Owner', contactPhone: PHONE }],
        qualifications: [{ qualType: 'LICENSE', certNo: CERT_NO }],
      }),
    )
    const read = (await detail(other.supplierId)).body.data
    const contactId = read.contacts[0].contactId
    const qualificationId = read.qualifications[0].qualificationId
    await expectRefused(
      draftBody({ contacts: [{ contactId, contactName: 'Thief', contactPhone: PHONE }] }),
      395011,
    )
    await expectRefused(
      draftBody({ qualifications: [{ qualificationId, qualType: 'LICENSE' }] }),
      395011,
    )
  })
})

// C-02 ---------------------------------------------------------------------------------------

describe('SUP-ADM-003 C-02 tax number uniqueness', () => {
  it('a second draft with the same tax number in any case or width → 395004; free again after delete', async () => {
    const taxNo = uniqueTaxNo()
    const first = await expectCreated(draftBody({ taxNo }))
    for (const variant of [
      taxNo,
      taxNo.toLowerCase(),
      ` ${fullWidth(taxNo)} `,
      `${taxNo.slice(0, 6)} ${taxNo.slice(6)}`,
    ]) {
      const res = await expectRefused(draftBody({ taxNo: variant }), 395004)
      expect(JSON.stringify(res.body)).not.toContain(taxNo)
    }
    const deleted = await h.call('DELETE', `${CREATE}/${first.supplierId}`)
    expect(deleted.body).toMatchObject({ code: 200, success: true })
    const again = await expectCreated(draftBody({ taxNo: taxNo.toLowerCase() }))
    expect(again.supplierId).not.toBe(first.supplierId)
  })

  it('concurrent drafts with one tax number: exactly one is created, the others get 395004', async () => {
    const taxNo = uniqueTaxNo()
    const before = await counts()
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        create(draftBody({ taxNo: i % 2 ? taxNo.toLowerCase() : taxNo })),
      ),
    )
    const codes = results.map((r) => r.body.code).sort()
    expect(codes).toEqual([200, 395004, 395004, 395004, 395004])
    const winner = results.find((r) => r.body.code === 200)!.body.data.supplierId
    const after = await counts()
    const logRows = (await changeLogRows(winner)).length
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

// Near-duplicates ----------------------------------------------------------------------------

describe('SUP-ADM-003 near-duplicate protection', () => {
  it('a similar name → 395006 with masked candidates and a token; only the same admin and name may use it', async () => {
    const adminA = await h.admin()
    const adminB = await h.admin()
    const firstBody = fullDraftBody({
      fullName: 'Hangzhou West Lake Travel Service Co',
      shortName: null,
      taxNo: uniqueTaxNo(),
    })
    const first = await expectCreated(firstBody, adminA)
    const secondBody = draftBody({ fullName: 'Hangzhou West Lake Travel Services Co' })

    const refused = await expectRefused(secondBody, 395006, { admin: adminA })
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
    })
    expect(mine.similarity).toBeGreaterThanOrEqual(0.6)
    expect(mine.similarity).toBeLessThanOrEqual(1)
    for (const c of candidates) {
      expect(Object.keys(c).sort()).toEqual([
        'fullName',
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
    await expectRefused({ ...secondBody, duplicateConfirmToken }, 395006, { admin: adminB })
    // ...and to the normalized name it was issued for.
    await expectRefused(
      { ...secondBody, fullName: 'Hangzhou West Lake Travel Servicing Co', duplicateConfirmToken },
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
      await expectRefused({ ...secondBody, duplicateConfirmToken: forged }, 395006, {
        admin: adminA,
      })
    }
    // `force` is not a way around it.
    await expectRefused({ ...secondBody, force: true }, 400, {
      admin: adminA,
      message: names('force'),
    })

    const second = await expectCreated({ ...secondBody, duplicateConfirmToken }, adminA)
    expect(second.status).toBe('DRAFT')
    expect(second.supplierId).not.toBe(first.supplierId)
  })

  it('the token is bound to the candidate set: a new similar supplier invalidates it', async () => {
    const stem = randomText(14)
    const adminA = await h.admin()
    const adminB = await h.admin()
    await expectCreated(draftBody({ fullName: `${stem} Travel Service Co` }), adminA)
    const mineBody = draftBody({ fullName: `${stem} Travel Services Co` })
    const token = (await expectRefused(mineBody, 395006, { admin: adminA })).body.data
      .duplicateConfirmToken

    // Meanwhile another administrator adds a third similar supplier (confirming their own token).
    const otherBody = draftBody({ fullName: `${stem} Travel Service Co.` })
    const otherToken = (await expectRefused(otherBody, 395006, { admin: adminB })).body.data
      .duplicateConfirmToken
    await expectCreated({ ...otherBody, duplicateConfirmToken: otherToken }, adminB)

    const again = await expectRefused({ ...mineBody, duplicateConfirmToken: token }, 395006, {
      admin: adminA,
    })
    expect(again.body.data.candidates).toHaveLength(2)
    await expectCreated(
      { ...mineBody, duplicateConfirmToken: again.body.data.duplicateConfirmToken },
      adminA,
    )
  })

  it('similarity is judged on normalized names and on short names too', async () => {
    const stem = randomText(14)
    const first = await expectCreated(
      draftBody({ fullName: `${stem} Hotel Group Co`, shortName: `${stem} Resorts` }),
    )
    // Full-width spelling of a near-identical name.
    const wide = await expectRefused(
      draftBody({ fullName: fullWidth(`${stem} Hotel Group Ltd`) }),
      395006,
    )
    expect(wide.body.data.candidates.map((c: { supplierId: string }) => c.supplierId)).toContain(
      first.supplierId,
    )
    // A different full name whose short name resembles the first's short name.
    const short = await expectRefused(
      draftBody({ fullName: uniqueName('Unrelated'), shortName: `${stem} Resort` }),
      395006,
    )
    expect(short.body.data.candidates.map((c: { supplierId: string }) => c.supplierId)).toContain(
      first.supplierId,
    )
  })

  it('a deleted draft is not a near-duplicate candidate', async () => {
    const stem = randomText(14)
    const first = await expectCreated(draftBody({ fullName: `${stem} Catering Co` }))
    expect((await h.call('DELETE', `${CREATE}/${first.supplierId}`)).body.code).toBe(200)
    await expectCreated(draftBody({ fullName: `${stem} Catering Co` }))
  })
})

// Strict body --------------------------------------------------------------------------------

describe('SUP-ADM-003 strict body', () => {
  it('an unknown field → 400 naming it', async () => {
    await expectRefused({ ...draftBody(), nickname: 'x' }, 400, { message: names('nickname') })
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
    await expectRefused({ ...draftBody(), [field]: value }, 400, { message: names(field) })
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
    await expectRefused(make(draftBody()), 400, { message: names(path) })
  })

  it('a required field missing → 400 naming it', async () => {
    for (const field of ['fullName', 'taxNo', 'types', 'mainCooperation']) {
      const body = draftBody()
      delete body[field]
      await expectRefused(body, 400, { message: names(field) })
    }
  })
})

// Authorization ------------------------------------------------------------------------------

describe('SUP-ADM-003 authorization', () => {
  it('an administrator without supplier:create → 395002 and nothing is written', async () => {
    const admin = await h.admin(ALL_PERMISSIONS.filter((p) => p !== 'supplier:create'))
    await expectRefused(draftBody(), 395002, { admin })
  })

  it('a missing token → 401 and nothing is written', async () => {
    const admin = await h.admin()
    const before = await counts()
    const res = await h.call('POST', CREATE, { body: draftBody(), admin, token: null })
    expect(res.body).toMatchObject({ code: 401, success: false })
    expect(await counts()).toEqual(before)
  })
})

// Response, stored data, change log, events --------------------------------------------------

describe('SUP-ADM-003 result, storage, change log and events', () => {
  it('answers a SupplierWriteResultVO with nothing sensitive; rows store ciphertext only', async () => {
    const admin = await h.admin()
    const taxNo = uniqueTaxNo()
    const body = fullDraftBody({
      fullName: uniqueName('Result'),
      shortName: uniqueName('Result short'),
      taxNo,
    })
    const res = await create(body, admin)
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
    const log = await changeLogRows(data.supplierId)
    const events = await eventRows(data.supplierId)
    const stored = await storedRows(data.supplierId)
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
    const read = await detail(data.supplierId)
    for (const secret of secrets) expect(JSON.stringify(read.body)).not.toContain(secret)
  })

  it('updateTime is the current second in the service time zone (Asia/Shanghai)', async () => {
    const created = await expectCreated(draftBody())
    expect(created.updateTime).toMatch(DATE_TIME)
    const [now] = await h.sql`
      SELECT to_char(now() AT TIME ZONE ${h.config.timezone}, 'YYYY-MM-DD HH24:MI:SS') AS t
    `
    const asUtc = (t: string) => Date.parse(`${t.replace(' ', 'T')}Z`)
    expect(Math.abs(asUtc(now.t) - asUtc(created.updateTime))).toBeLessThan(120_000)
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
    const created = await expectCreated(body, admin)
    const id = created.supplierId
    const accountId = created.initialAccounts[0].accountId

    const log = await changeLogRows(id)
    const got = log.map((r) => [r.target_type, r.field_name, r.new_value_masked].join(' | ')).sort()
    const expected = [
      ['SUPPLIER', 'fullName', fullName],
      ['SUPPLIER', 'shortName', shortName],
      ['SUPPLIER', 'taxNo', '91************Z12Q'],
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

    const events = await eventRows(id)
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({ event_type: 'SupplierDraftCreated', status: 'PENDING' })
    const payload = JSON.stringify(events[0].payload)
    for (const secret of [TAX_NO, PHONE, CONTACT_PHONE, ACCOUNT_NO, CERT_NO]) {
      expect(payload).not.toContain(secret)
    }
  })

  it('unset optional fields get no change-log row', async () => {
    const created = await expectCreated(draftBody())
    const log = await changeLogRows(created.supplierId)
    expect(log.map((r) => r.field_name).sort()).toEqual([
      'fullName',
      'mainCooperation',
      'taxNo',
      'type',
    ])
  })
})
