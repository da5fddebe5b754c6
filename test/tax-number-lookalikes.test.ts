import { describe, expect, it } from 'vitest'
import { create, createDraft, detail, ok, refused, update, versionOf } from './client'
import { insertSupplier } from './fixtures'
import { useHarness } from './harness'
import { draftBody, fullWidth } from './supplier-data'
import { unchanged } from './unchanged'
import { maskTaxNo } from '../src/crypto/sensitive'
import { normalizeTaxNo } from '../src/identity'
import { backfillTaxNumbers, findTaxNoCollisions } from '../src/domain/supplier/tax-number'
import { USCC_ALPHABET, withCheckCharacter } from '../src/domain/supplier/uscc'

/*
 * C-02 (one live supplier per tax number) under look-alike input: a number written with a
 * character a reader cannot see (U+200B, U+2060, U+00AD), a hyphen, or a Cyrillic or Greek
 * letter drawn like a Latin one is the number another supplier holds, and is refused (395004);
 * an 18-character code with a letter the code never uses (O for 0) is a mistyped code, refused
 * with the character and its place named; other tax numbers keep the free-text rule. Rows written
 * before are brought to the new form by the backfill, which reports the rows that now collide
 * and merges or refuses nothing.
 */

const h = useHarness()

/** A fresh code with its check character right, nobody else's in this file. */
let n = 0
const freshCode = () => {
  const serial = [...`${Date.now()}${++n}`.slice(-7)].map((d) => USCC_ALPHABET[Number(d) + 10])
  return withCheckCharacter(`91330106MA${serial.join('')}`)
}

/** The number written eight ways a reader takes for it (the review's variants and more). */
function lookalikes(code: string): Record<string, string> {
  const at = (i: number, s: string) => code.slice(0, i) + s + code.slice(i)
  const swap = (from: string, to: string) => code.replace(from, to)
  return {
    'zero-width space U+200B': at(4, '\u200B'),
    'word joiner U+2060': at(9, '\u2060'),
    'soft hyphen U+00AD': at(8, '\u00AD'),
    'byte order mark U+FEFF': at(2, '\uFEFF'),
    hyphen: at(8, '-'),
    'Cyrillic А and М': swap('MA', '\u041C\u0410'),
    'Greek Α and Μ': swap('MA', '\u039C\u0391'),
    'full width, lower case': fullWidth(code.toLowerCase()),
  }
}

describe('the one form of a tax number (normalizeTaxNo)', () => {
  it.each([
    [
      'zero-width space, word joiner, soft hyphen, BOM',
      '91\u200B33\u20600106\u00ADMA\uFEFFTM',
      '91330106MATM',
    ],
    ['hyphens, dots, slashes, spaces', ' 91-33.0106/MA TM ', '91330106MATM'],
    [
      'Cyrillic capitals А В Е К М Н О Р С Т Х',
      '\u0410\u0412\u0415\u041A\u041C\u041D\u041E\u0420\u0421\u0422\u0425',
      'ABEKMHOPCTX',
    ],
    [
      'Cyrillic small а е о р с х к м',
      '\u0430\u0435\u043E\u0440\u0441\u0445\u043A\u043C',
      'AEOPCXKM',
    ],
    ['Cyrillic І and Greek Ι are I, not L', '\u0406\u0399\u0456\u03B9', 'IIII'],
    [
      'Greek capitals Α Β Ε Ζ Η Κ Μ Ν Ο Ρ Τ Υ Χ',
      '\u0391\u0392\u0395\u0396\u0397\u039A\u039C\u039D\u039F\u03A1\u03A4\u03A5\u03A7',
      'ABEZHKMNOPTYX',
    ],
    ['full width and lower case', '\uFF19\uFF11\uFF4D\uFF41', '91MA'],
    ['ASCII look-alikes stay apart (O and 0, I and 1)', 'O0I1l', 'O0I1L'],
  ])('%s', (_kind, sent, form) => expect(normalizeTaxNo(sent)).toBe(form))
})

describe('C-02 under look-alike characters', () => {
  it('every look-alike spelling of a held number is refused with 395004, nothing written', async () => {
    const code = freshCode()
    await createDraft(h, draftBody({ taxNo: code }))
    for (const [kind, variant] of Object.entries(lookalikes(code))) {
      expect(variant, kind).not.toBe(code)
      const res = await unchanged(h, () => create(h, draftBody({ taxNo: variant })), {
        message: kind,
      })
      refused(res, 395004)
    }
  })

  it('a number first registered with look-alike characters is stored in its one form and holds it', async () => {
    for (const kind of Object.keys(lookalikes(''))) {
      const code = freshCode()
      const variant = lookalikes(code)[kind]
      expect(normalizeTaxNo(variant), kind).toBe(code)
      const first = await createDraft(h, draftBody({ taxNo: variant }))
      expect(ok(await detail(h, first.supplierId)).taxNoMask, kind).toBe(maskTaxNo(code))
      refused(await unchanged(h, () => create(h, draftBody({ taxNo: code }))), 395004)
    }
  })

  it('the review’s case: 91330106MATMGGP8WB held, its Cyrillic and zero-width spellings refused', async () => {
    await createDraft(h, draftBody({ taxNo: '91330106MATMGGP8WB' }))
    for (const variant of ['91330106\u041C\u0410TMGGP8WB', '9133\u200B0106MATMGGP8WB'])
      refused(await unchanged(h, () => create(h, draftBody({ taxNo: variant }))), 395004)
  })
})

describe('a mistyped unified social credit code is refused, naming the character', () => {
  const typo = (code: string, position: number, c: string) =>
    code.slice(0, position - 1) + c + code.slice(position)

  it('the review’s case: 9133O106MA0K7P2N0J (O for 0 at 5) → 400 naming “O” and 5', async () => {
    await createDraft(h, draftBody({ taxNo: '91330106MA0K7P2N0J' }))
    const res = await unchanged(h, () => create(h, draftBody({ taxNo: '9133O106MA0K7P2N0J' })))
    refused(res, 400)
    expect(res.body.message).toBe(
      'taxNo: character 5 is “O”, a letter no unified social credit code uses (is it 0?)',
    )
    expect(JSON.stringify(res.body)).not.toContain('9133O106MA0K7P2N0J')
  })

  it.each([
    ['O', '0'],
    ['I', '1'],
    ['S', '5'],
    ['V', 'U'],
    ['Z', '2'],
  ])('%s at positions 3, 10 and 18 → 400 naming it and its position', async (c, meant) => {
    const code = freshCode()
    for (const position of [3, 10, 18]) {
      const sent = typo(code, position, c)
      const res = await unchanged(h, () => create(h, draftBody({ taxNo: sent })))
      refused(res, 400)
      expect(res.body.message).toContain(`character ${position} is “${c}”`)
      expect(res.body.message).toContain(`is it ${meant}?`)
      expect(JSON.stringify(res.body)).not.toContain(sent)
    }
  })

  it('two such letters → 400 naming both; lower case and full width are read the same', async () => {
    const sent = typo(typo(freshCode(), 6, 'o'), 12, 'i')
    for (const variant of [sent, fullWidth(sent)]) {
      const res = await unchanged(h, () => create(h, draftBody({ taxNo: variant })))
      refused(res, 400)
      expect(res.body.message).toBe(
        'taxNo: character 6 is “O” and character 12 is “I”, letters no unified social credit code uses (are they 0 and 1?)',
      )
    }
  })

  it('three such letters, or a pair GB 32100 does not define in front, are not a code: free text', async () => {
    const code = freshCode()
    await createDraft(h, draftBody({ taxNo: typo(typo(typo(code, 4, 'O'), 8, 'O'), 11, 'S') }))
    await createDraft(h, draftBody({ taxNo: `94${code.slice(2, 9)}O${code.slice(10)}` }))
    await createDraft(h, draftBody({ taxNo: `Z1${code.slice(2, 9)}O${code.slice(10)}` }))
  })

  it.each([
    ['Mexican CURP, 18 characters', 'GODE561231HDFRRN09', 'GODE561231HDFRRN09'],
    ['Brazilian CNPJ as printed, 18 characters', '11.222.333/0001-81', '11222333000181'],
    ['German VAT number', 'DE136695976', 'DE136695976'],
    ['Italian codice fiscale', 'RSSMRA85T10A562S', 'RSSMRA85T10A562S'],
    ['Indian GSTIN', '27AAPFU0939F1ZV', '27AAPFU0939F1ZV'],
    ['US employer identification number', '12-3456789', '123456789'],
    ['Japanese corporate number', '5835678256246', '5835678256246'],
  ])('a foreign tax number passes: %s', async (_kind, sent, stored) => {
    const created = await createDraft(h, draftBody({ taxNo: sent }))
    expect(ok(await detail(h, created.supplierId)).taxNoMask).toBe(maskTaxNo(stored))
    refused(await unchanged(h, () => create(h, draftBody({ taxNo: stored }))), 395004)
  })
})

describe('rows written before: the online backfill and the collision report', () => {
  /** Stores `written` as the service stored numbers before (half-width, no white space, upper). */
  async function storedAsBefore(supplierId: string, written: string) {
    const before = written.replace(/\s+/g, '').toUpperCase()
    await h.sql`
      UPDATE supplier SET tax_no_enc = ${await h.cipher.encrypt(before)},
        tax_no_bidx = ${await h.cipher.blindIndex(before, 'taxNo')},
        tax_no_mask = ${maskTaxNo(before) as string}
      WHERE supplier_id = ${supplierId}
    `
  }
  const row = async (supplierId: string) => {
    const [r] = await h.sql`
      SELECT tax_no_enc, tax_no_bidx, tax_no_mask, status, deleted_at, update_time::text
      FROM supplier WHERE supplier_id = ${supplierId}
    `
    return { ...r, taxNo: await h.cipher.decrypt(r.tax_no_enc as string) } as Record<string, any>
  }

  it('rewrites a lone look-alike number, leaves and reports a colliding one, defers one in approval', async () => {
    await h.sql`UPDATE backfill_progress SET after_id = 0, finished_at = NULL`
    const lone = freshCode()
    const loner = await insertSupplier(h, { status: 'ACTIVE', supplierNo: `SPL${Date.now()}` })
    await storedAsBefore(loner.supplierId, lookalikes(lone)['zero-width space U+200B'])

    const held = freshCode()
    const holder = await insertSupplier(h, {
      status: 'ACTIVE',
      supplierNo: `SPH${Date.now()}`,
      taxNo: held,
      fullName: '嘉兴琰琮旅游服务有限公司',
    })
    const twin = await insertSupplier(h, {
      status: 'ACTIVE',
      supplierNo: `SPT${Date.now()}`,
      fullName: '嘉兴琰琮旅游有限公司',
    })
    await storedAsBefore(twin.supplierId, lookalikes(held)['Cyrillic А and М'])

    const vetting = await insertSupplier(h, { status: 'VETTING' })
    await storedAsBefore(vetting.supplierId, lookalikes(freshCode())['hyphen'])

    const twinBefore = await row(twin.supplierId)
    const holderBefore = await row(holder.supplierId)
    const vettingBefore = await row(vetting.supplierId)
    const lonerBefore = await row(loner.supplierId)
    // Before the backfill, C-02 cannot see the lone row under its plain spelling.
    expect(lonerBefore.taxNo).not.toBe(lone)

    const outcome = await backfillTaxNumbers(h.deps, { batch: 2 })
    expect(outcome).toMatchObject({
      ran: true,
      rewritten: 1,
      collisions: 1,
      deferred: 1,
      finished: false,
    })

    // The lone row: its one form, index and mask; its version unchanged.
    const lonerAfter = await row(loner.supplierId)
    expect(lonerAfter).toMatchObject({
      taxNo: lone,
      tax_no_bidx: await h.cipher.blindIndex(lone, 'taxNo'),
      tax_no_mask: maskTaxNo(lone),
      status: 'ACTIVE',
      update_time: lonerBefore.update_time,
    })
    refused(await unchanged(h, () => create(h, draftBody({ taxNo: lone }))), 395004)

    // The colliding pair: both live and unchanged, nothing merged; the report names them.
    expect(await row(twin.supplierId)).toEqual(twinBefore)
    expect(await row(holder.supplierId)).toEqual(holderBefore)
    expect(await row(vetting.supplierId)).toEqual(vettingBefore)
    const collisions = await findTaxNoCollisions(h.deps)
    expect(collisions).toEqual([
      {
        taxNoMask: maskTaxNo(held),
        suppliers: [
          expect.objectContaining({
            supplierId: holder.supplierId,
            fullName: '嘉兴琰琮旅游服务有限公司',
            status: 'ACTIVE',
            storedAsWritten: false,
          }),
          expect.objectContaining({ supplierId: twin.supplierId, storedAsWritten: true }),
        ],
      },
    ])
    expect(JSON.stringify(collisions)).not.toContain(held)

    // Once the approval is over, the next round rewrites the deferred row and finishes.
    await h.sql`UPDATE supplier SET status = 'ACTIVE' WHERE supplier_id = ${vetting.supplierId}`
    const again = await backfillTaxNumbers(h.deps, { batch: 2 })
    expect(again).toMatchObject({ rewritten: 1, collisions: 1, deferred: 0, finished: true })
    expect((await row(vetting.supplierId)).taxNo).toBe(normalizeTaxNo(vettingBefore.taxNo))
    // A finished backfill does not run again; the collision stays reported until resolved.
    expect(await backfillTaxNumbers(h.deps)).toMatchObject({ ran: false, finished: true })
    expect(await findTaxNoCollisions(h.deps)).toHaveLength(1)
  })

  it('an edit that sends back a number stored before, as it was written, is no identity edit', async () => {
    const written = lookalikes(freshCode())['Cyrillic А and М']
    const active = await insertSupplier(h, { status: 'ACTIVE', supplierNo: `SPE${Date.now()}` })
    await storedAsBefore(active.supplierId, written)
    const before = await row(active.supplierId)
    ok(
      await update(h, active.supplierId, {
        taxNo: written,
        remark: 'the whole form sent back',
        changeReason: 'remark',
        expectedUpdateTime: await versionOf(h, active.supplierId),
      }),
    )
    const after = await row(active.supplierId)
    expect([after.taxNo, after.tax_no_bidx, after.tax_no_mask]).toEqual([
      before.taxNo,
      before.tax_no_bidx,
      before.tax_no_mask,
    ])
  })
})
