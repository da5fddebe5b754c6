import { beforeAll, describe, expect, it } from 'vitest'
import { insertAccount, insertSupplier } from './fixtures'
import { versionOf } from './client'
import { unchanged } from './unchanged'
import { useHarness } from './harness'
import { draftBody, fullDraftBody, STORAGE } from './supplier-data'

/**
 * A name made only of characters nobody can see (zero-width, default-ignorable, format) is as
 * empty as a whitespace-only one, in every name field: full, short, contact, bank, legal
 * representative. Required names are refused (400 naming the field, nothing written), optional
 * ones are no name (null), and such characters around a visible name are trimmed like spaces.
 */

const h = useHarness()
const ITEMS = '/admin/supplier/items'

/** Names nobody can see, one family each, some mixed with whitespace. */
const INVISIBLE: [string, string][] = [
  ['zero-width space U+200B', '\u200B'],
  ['zero-width non-joiner and joiner', '\u200C\u200D'],
  ['word joiner U+2060', '\u2060'],
  ['byte order mark U+FEFF', '\uFEFF'],
  ['soft hyphen U+00AD', '\u00AD'],
  ['Mongolian vowel separator U+180E', '\u180E'],
  ['Hangul filler U+3164', '\u3164'],
  ['variation selector U+FE0F', '\uFE0F'],
  ['right-to-left override U+202E', '\u202E'],
  ['tag space U+E0020 (astral)', '\u{E0020}'],
  ['mixed with spaces and U+3000', ' \u200B\u3000\u200D\t'],
]

describe('invisible names', () => {
  let admin: string
  beforeAll(async () => {
    admin = await h.admin()
  })

  const refused = async (method: string, path: string, body: unknown, field: string) => {
    const res = await unchanged(h, () => h.call(method, path, { admin, body }), { grants: true })
    expect(res.status).toBe(200)
    expect(res.body, `${field} ${JSON.stringify(body).slice(0, 200)}`).toMatchObject({
      code: 400,
      success: false,
      data: null,
    })
    expect(res.body.message).toMatch(new RegExp(`^${field.replace(/\./g, '\\.')}: `))
  }

  it.each(INVISIBLE)('a fullName of %s does not create a supplier', async (_what, name) => {
    await refused('POST', ITEMS, draftBody({ fullName: name }), 'fullName')
  })

  it.each(INVISIBLE)('a contactName or bankName of %s is refused as missing', async (_w, name) => {
    await refused(
      'POST',
      ITEMS,
      fullDraftBody({ contacts: [{ contactName: name, contactPhone: '13900001111' }] }),
      'contacts.0.contactName',
    )
    const account = fullDraftBody().initialAccounts[0]
    await refused(
      'POST',
      ITEMS,
      fullDraftBody({ initialAccounts: [{ ...account, bankName: name }] }),
      'initialAccounts.0.bankName',
    )
  })

  it('an update, a contacts replacement, an account batch and an account change refuse them too', async () => {
    const { supplierId } = await insertSupplier(h)
    const version = await versionOf(h, supplierId)
    await refused(
      'PUT',
      `${ITEMS}/${supplierId}`,
      { fullName: '\u200B', changeReason: 'rename', expectedUpdateTime: version },
      'fullName',
    )
    await refused(
      'PUT',
      `${ITEMS}/${supplierId}/contacts`,
      {
        contacts: [{ contactName: '\uFEFF\u2060', contactPhone: '139' }],
        expectedUpdateTime: version,
      },
      'contacts.0.contactName',
    )
    const { supplierId: active } = await insertSupplier(h, {
      status: 'ACTIVE',
      supplierNo: 'SPIN1',
    })
    await refused(
      'POST',
      `${ITEMS}/${active}/accounts/batch`,
      { accounts: [{ ...fullDraftBody().initialAccounts[0], bankName: '\u200B' }] },
      'accounts.0.bankName',
    )
    const accountId = await insertAccount(h, active, { status: 'ACTIVE' })
    const [{ v }] = await h.sql`
      SELECT to_char(update_time, 'YYYY-MM-DD HH24:MI:SS') AS v FROM supplier_bank_account
      WHERE account_id = ${accountId}`
    await refused(
      'POST',
      `${ITEMS}/${active}/accounts/${accountId}/change`,
      { bankName: '\u3164', changeReason: 'rename', expectedUpdateTime: v },
      'bankName',
    )
  })

  it('an invisible shortName or legalRepresentative is no name (null), like a blank one', async () => {
    for (const [what, name] of [...INVISIBLE, ['spaces only', '   ']]) {
      const res = await h.call('POST', ITEMS, {
        admin,
        body: draftBody({ shortName: name, legalRepresentative: `${name} ` }),
      })
      expect(res.body, what).toMatchObject({ code: 200, success: true })
      const detail = await h.call('GET', `${ITEMS}/${res.body.data.supplierId}`, { admin })
      expect(detail.body.data, what).toMatchObject({ shortName: null, legalRepresentative: null })
    }
  })

  it('invisible characters around a visible name are trimmed like spaces; inside, they stay', async () => {
    const family = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}'
    const fullName = `${family} 湖畔\u200C旅游 Co`
    const body = fullDraftBody({
      fullName: `\u200B\uFEFF ${fullName}\u2060\u{E0020}`,
      shortName: '\u00AD湖畔\u200B',
      legalRepresentative: '\u202E张三\u200D',
      licenseImageUrl: `${STORAGE}license.png`,
      contacts: [{ contactName: '\u2060Li Si\u200B', contactPhone: '13900001111' }],
    })
    body.initialAccounts = [{ ...body.initialAccounts[0], bankName: '\uFE0F工商银行\u180E' }]
    const created = await h.call('POST', ITEMS, { admin, body })
    expect(created.body, created.body.message).toMatchObject({ code: 200, success: true })
    const id = created.body.data.supplierId
    const detail = await h.call('GET', `${ITEMS}/${id}`, { admin })
    expect(detail.body.data).toMatchObject({
      fullName,
      shortName: '湖畔',
      legalRepresentative: '张三',
      contacts: [expect.objectContaining({ contactName: 'Li Si' })],
    })
    const [account] = await h.sql`
      SELECT bank_name FROM supplier_bank_account WHERE supplier_id = ${id}`
    expect(account.bank_name).toBe('工商银行')
  })
})
