import { describe, expect, it } from 'vitest'
import { create, createDraft } from './client'
import { useHarness } from './harness'
import { draftBody } from './supplier-data'
import { unchanged } from './unchanged'
import { nameKeysOf } from '../src/domain/supplier/name-keys'

/*
 * The near-duplicate check (395006) under look-alike input: a name whose only difference from a
 * registered one is a character a reader cannot see (U+200B, U+2060, U+00AD, U+FEFF) or a letter
 * drawn like another (Cyrillic, Greek, full width) is the same name, with the same keys. And a
 * name that leaves no trade name (only a place, a line of business and a form) is compared by all
 * it says, not as an empty or a bare place's trade name that every such name shares.
 */

const h = useHarness()

/** Han characters rare in company names: each test draws its own trade name. */
const RARE = '琰琮璟瑭珩琨璞瑄玥琬瑜璠瑾璇珏琦璐瑗瑛琳玳珈琪瑶璋琛瑢瑀璘玙珣琇瑨璿瓘珝琤璩瑱琂'
const hanTrade = () =>
  Array.from({ length: 4 }, () => RARE[Math.floor(Math.random() * RARE.length)]).join('')
/** A Latin trade name holding the letters Cyrillic and Greek have look-alikes of. */
const latinTrade = () =>
  'Kaporex' +
  Array.from({ length: 5 }, () => 'bdfghjklmnqrtvwz'[Math.floor(Math.random() * 16)]).join('')

const swap = (s: string, map: Record<string, string>) => [...s].map((c) => map[c] ?? c).join('')
const CYRILLIC = { a: '\u0430', o: '\u043E', e: '\u0435', p: '\u0440', x: '\u0445' }
const GREEK = { A: '\u0391', O: '\u039F', E: '\u0395', K: '\u039A', P: '\u03A1', X: '\u03A7' }
const fullWidth = (s: string) =>
  s.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0))
const inside = (s: string, at: number, c: string) => s.slice(0, at) + c + s.slice(at)

const HAN_VARIANTS: Record<string, (trade: string) => string> = {
  'zero-width space U+200B': (t) => inside(t, 2, '\u200B'),
  'word joiner U+2060': (t) => inside(t, 1, '\u2060'),
  'soft hyphen U+00AD': (t) => inside(t, 3, '\u00AD'),
  'byte order mark U+FEFF': (t) => inside(t, 2, '\uFEFF'),
}
const LATIN_VARIANTS: Record<string, (name: string) => string> = {
  'zero-width space U+200B': (n) => inside(n, 3, '\u200B'),
  'soft hyphen U+00AD': (n) => inside(n, 5, '\u00AD'),
  'Cyrillic а, о, е, р, х': (n) => swap(n, CYRILLIC),
  'Greek Α, Ο, Ε, Κ, Ρ, Χ (upper case)': (n) => swap(n.toUpperCase(), GREEK),
  'full width': (n) => fullWidth(n),
}

/** Registers `first`, then sends `second`: 395006 naming the first, nothing written. */
async function flagged(first: string, second: string) {
  const held = await createDraft(h, draftBody({ fullName: first, shortName: null }))
  const res = await unchanged(h, () => create(h, draftBody({ fullName: second, shortName: null })))
  expect(res.body.code, `${second}: ${res.body.message}`).toBe(395006)
  const ids = res.body.data.candidates.map((c: { supplierId: string }) => c.supplierId)
  expect(ids).toContain(held.supplierId)
}

/** Registers `first`, then `second`: no 395006, the second is a draft of its own. */
async function notFlagged(first: string, second: string) {
  await createDraft(h, draftBody({ fullName: first, shortName: null }))
  const res = await create(h, draftBody({ fullName: second, shortName: null }))
  expect(res.body.code, `${second}: ${res.body.message}`).toBe(200)
}

describe('near-duplicate check: invisible and look-alike characters make the same name', () => {
  it.each(Object.keys(HAN_VARIANTS))('a Chinese name with a %s inside', async (kind) => {
    const trade = hanTrade()
    const name = `苏州${trade}旅游服务有限公司`
    const variant = `苏州${HAN_VARIANTS[kind](trade)}旅游服务有限公司`
    expect(nameKeysOf(variant, null)).toEqual(nameKeysOf(name, null))
    await flagged(name, variant)
  })

  it.each(Object.keys(LATIN_VARIANTS))('a Latin name written with %s', async (kind) => {
    const name = `${latinTrade()} Travel Service Co., Ltd.`
    const variant = LATIN_VARIANTS[kind](name)
    expect(variant).not.toBe(name)
    expect(nameKeysOf(variant, null)).toEqual(nameKeysOf(name, null))
    await flagged(name, variant)
  })
})

describe('near-duplicate check: a name without a trade name is compared whole', () => {
  it('杭州市旅游服务有限公司 and 杭州有限公司 are two names, either way round', async () => {
    await notFlagged('杭州市旅游服务有限公司', '杭州有限公司')
    await notFlagged('宁波有限公司', '宁波市酒店管理有限公司')
  })

  it('a name of nothing but a form matches no name of other letters before it', async () => {
    await notFlagged('有限公司', `${'\uFDFA'.repeat(300)}有限公司`)
  })

  it('two such names saying the same place and line of business still match', async () => {
    await flagged('黄山市旅游发展有限公司', '黄山旅游发展股份有限公司')
  })

  it('a Latin name of only a place and industry words is not every name of that place', async () => {
    await notFlagged('Wenzhou Travel Service Co., Ltd.', 'Wenzhou Co., Ltd.')
  })
})
