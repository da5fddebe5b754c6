import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  DEFAULT_THRESHOLD,
  MIN_KEYED_THRESHOLD,
  compareCompanies,
  companyKeys,
  parseCompanyName,
} from '../src/domain/supplier/company-name'
import { CORPUS_PATH, type Pair } from './fixtures/company-name-pairs.gen'

// The company key: names read as region + trade name + industry + form, compared
// on what identifies the company, and indexed under keys that all carry the trade name. Measured
// on the labelled corpus (test/fixtures/company-name-pairs.md), which was written without seeing
// this matcher.

const pairs = JSON.parse(readFileSync(CORPUS_PATH, 'utf8')) as Pair[]
const flagged = (a: string, b: string, threshold = DEFAULT_THRESHOLD) =>
  compareCompanies(a, b).score >= threshold
const shareKey = (a: string, b: string) => {
  const keys = new Set(companyKeys(a))
  return companyKeys(b).some((k) => keys.has(k))
}
const CJK = /[\u3400-\u9fff\uf900-\ufaff]/

interface Tally {
  tp: number
  fp: number
  fn: number
  tn: number
}
const tally = (ps: Pair[], threshold = DEFAULT_THRESHOLD): Tally => {
  const t = { tp: 0, fp: 0, fn: 0, tn: 0 }
  for (const p of ps) {
    const f = flagged(p.a, p.b, threshold)
    if (f && p.same) t.tp++
    else if (f) t.fp++
    else if (p.same) t.fn++
    else t.tn++
  }
  return t
}
const recall = (t: Tally) => t.tp / (t.tp + t.fn)
const precision = (t: Tally) => (t.tp + t.fp === 0 ? 1 : t.tp / (t.tp + t.fp))

describe('company names: quality on the labelled corpus', () => {
  it('finds ≥ 95 % of the same companies and flags ≥ 95 % correctly, Chinese and Latin alike', () => {
    const kinds = [...new Set(pairs.map((p) => p.kind))].sort()
    const lines = kinds.map((kind) => {
      const ps = pairs.filter((p) => p.kind === kind)
      const right = ps.filter((p) => flagged(p.a, p.b) === p.same).length
      return `${kind.padEnd(40)} ${ps[0].same ? 'same' : 'diff'} ${right}/${ps.length}`
    })
    const all = tally(pairs)
    const latin = tally(pairs.filter((p) => !CJK.test(p.a) && !CJK.test(p.b)))
    const measure = (t: Tally) =>
      `recall ${recall(t).toFixed(3)} precision ${precision(t).toFixed(3)} ${JSON.stringify(t)}`
    // The figures per kind, for docs/duplicates.md and for whoever changes a rule.
    // eslint-disable-next-line no-console
    console.log(
      [
        `threshold ${DEFAULT_THRESHOLD}`,
        ...lines,
        `all:   ${measure(all)}`,
        `latin: ${measure(latin)}`,
        // What another DUPLICATE_NAME_THRESHOLD would give on the same corpus.
        ...[0.9, 0.7, 0.55].map((t) => `all at ${t}: ${measure(tally(pairs, t))}`),
      ].join('\n'),
    )
    expect(recall(all)).toBeGreaterThanOrEqual(0.95)
    expect(precision(all)).toBeGreaterThanOrEqual(0.95)
    expect(recall(latin)).toBeGreaterThanOrEqual(0.95)
    expect(precision(latin)).toBeGreaterThanOrEqual(0.95)
  })

  it('answers the six reference rows against 苏州云栖旅游服务有限公司 right at the default threshold', () => {
    const yunqi = '苏州云栖旅游服务有限公司'
    expect(compareCompanies('苏州云栖旅行社有限公司', yunqi)).toEqual({
      score: 1,
      reason: 'SAME_TRADE_NAME_AND_REGION',
    })
    expect(flagged('云栖旅游服务（苏州）有限公司', yunqi)).toBe(true)
    expect(flagged('苏州市云栖旅游服务有限责任公司', yunqi)).toBe(true)
    expect(flagged('苏州雲棲旅遊服務有限公司', yunqi)).toBe(true)
    expect(flagged('苏州金桥旅游服务有限公司', yunqi)).toBe(false)
    expect(flagged('苏州云溪旅游服务有限公司', yunqi)).toBe(false)
    // The different companies score below every one of the same company, as today they do not.
    const worstSame = Math.min(
      ...['苏州云栖旅行社有限公司', '云栖旅游服务（苏州）有限公司', '苏州雲棲旅遊服務有限公司'].map(
        (n) => compareCompanies(n, yunqi).score,
      ),
    )
    expect(compareCompanies('苏州金桥旅游服务有限公司', yunqi).score).toBeLessThan(worstSame)
    expect(compareCompanies('苏州云溪旅游服务有限公司', yunqi).score).toBeLessThan(worstSame)
  })
})

describe('company names: the keys find what the score accepts', () => {
  it('gives every same-company pair the check flags a key in common (else the probe misses it)', () => {
    const missed = pairs.filter((p) => p.same && flagged(p.a, p.b) && !shareKey(p.a, p.b))
    expect(missed).toEqual([])
  })

  it('gives every corpus pair scored at or above MIN_KEYED_THRESHOLD a key in common', () => {
    const missed = pairs
      .filter((p) => compareCompanies(p.a, p.b).score >= MIN_KEYED_THRESHOLD)
      .filter((p) => !shareKey(p.a, p.b))
    expect(missed).toEqual([])
  })

  it('keeps one key in common through any one-character edit of a trade name the score accepts', () => {
    const han = fc.string({
      unit: fc.constantFrom(...'云栖金桥华美达春秋东方明珠锦江星辰海天'),
      minLength: 2,
      maxLength: 10,
    })
    const latin = fc.string({
      unit: fc.constantFrom(...'abcdehinorstuy'),
      minLength: 4,
      maxLength: 14,
    })
    const edit = (s: string, op: number, at: number, c: string) => {
      const x = [...s]
      const i = at % (x.length + 1)
      if (op === 0) x.splice(i, 0, c)
      else if (op === 1 && i < x.length) x.splice(i, 1)
      else if (op === 2 && i < x.length) x[i] = c
      else if (i + 1 < x.length) [x[i], x[i + 1]] = [x[i + 1], x[i]]
      return x.join('')
    }
    fc.assert(
      fc.property(han, fc.nat(3), fc.nat(), fc.constantFrom(...'云溪湾栖'), (trade, op, at, c) => {
        const a = `苏州${trade}旅游服务有限公司`
        const b = `苏州${edit(trade, op, at, c)}旅游服务有限公司`
        if (compareCompanies(a, b).score < MIN_KEYED_THRESHOLD) return true
        return shareKey(a, b)
      }),
      { numRuns: 500 },
    )
    fc.assert(
      fc.property(latin, fc.nat(3), fc.nat(), fc.constantFrom(...'aeoxz'), (word, op, at, c) => {
        const a = `${word} Travel Co., Ltd.`
        const b = `${edit(word, op, at, c)} Travel Co., Ltd.`
        if (compareCompanies(a, b).score < MIN_KEYED_THRESHOLD) return true
        return shareKey(a, b)
      }),
      { numRuns: 500 },
    )
  })

  it('bounds the keys of a name at 16, however long or strange', () => {
    for (const p of pairs)
      for (const n of [p.a, p.b]) expect(companyKeys(n).length).toBeLessThanOrEqual(16)
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (name) => companyKeys(name).length <= 16),
      { numRuns: 300 },
    )
    const long = '江苏省苏州市吴中区东方明珠云栖湾金桥华美达春秋国际旅游服务集团股份有限公司'
    expect(companyKeys(long).length).toBeLessThanOrEqual(16)
  })

  it('makes no key of region, industry or form alone: other trade names share none', () => {
    const regions = ['苏州', '苏州市', '江苏省苏州市吴中区', '桂林', '']
    const industries = ['旅游服务', '国际旅行社', '酒店管理', '']
    const forms = ['有限公司', '股份有限公司', '']
    // Trade names none of which is a homophone of another or one character from another.
    const trades = ['云栖', '金桥', '春秋', '华美达', '锦江之星', '海天', '星辰旅', '龙腾']
    for (const r of regions)
      for (const i of industries)
        for (const f of forms) {
          const names = trades.map((t) => r + t + i + f)
          for (let x = 0; x < names.length; x++)
            for (let y = x + 1; y < names.length; y++)
              expect({ a: names[x], b: names[y], shared: shareKey(names[x], names[y]) }).toEqual({
                a: names[x],
                b: names[y],
                shared: false,
              })
        }
    const latin = ['Horizon', 'Evergreen', 'Lantern', 'Yunqi', 'Maple Leaf']
    for (const r of ['Suzhou ', '', 'Hong Kong '])
      for (const f of [' Co., Ltd.', ' GmbH'])
        for (let x = 0; x < latin.length; x++)
          for (let y = x + 1; y < latin.length; y++)
            expect(shareKey(`${r}${latin[x]} Travel${f}`, `${r}${latin[y]} Travel${f}`)).toBe(false)
  })

  it('files a short name under its full name’s trade name', () => {
    const full = new Set(companyKeys('苏州云栖旅游服务有限公司'))
    for (const short of ['云栖旅游', '云栖', '雲棲'])
      expect(companyKeys(short).filter((k) => full.has(k))).toContain('t:云栖')
  })
})

describe('company names: how a name is read', () => {
  const parts = (name: string) => {
    const { region, tradeName, industry, form } = parseCompanyName(name)
    return { region, tradeName, industry, form }
  }

  it('reads region + trade name + industry + form, the region in front with or without its suffix', () => {
    const yunqi = { region: '苏州', tradeName: '云栖', industry: '旅游服务', form: '有限公司' }
    expect(parts('苏州云栖旅游服务有限公司')).toEqual(yunqi)
    expect(parts('苏州市云栖旅游服务有限公司')).toEqual(yunqi)
    expect(parts('江苏省苏州市云栖旅游服务有限公司')).toEqual(yunqi)
    expect(parts('江苏苏州云栖旅游服务有限公司')).toEqual(yunqi)
    expect(parts('江苏省苏州市吴中区云栖旅游服务有限公司')).toEqual({ ...yunqi, region: '吴中' })
  })

  it('reads the region in brackets after the trade name or the industry', () => {
    expect(parts('云栖旅游服务（苏州）有限公司')).toEqual({
      region: '苏州',
      tradeName: '云栖',
      industry: '旅游服务',
      form: '有限公司',
    })
    expect(parseCompanyName('云栖（苏州市）旅游服务有限公司').tradeName).toBe('云栖')
    expect(parseCompanyName('云栖旅游服务【苏州】有限公司').region).toBe('苏州')
  })

  it('reads autonomous regions, prefectures and counties by their short names', () => {
    expect(parts('广西壮族自治区桂林市云栖旅游有限公司').region).toBe('桂林')
    expect(parts('广西桂林云栖旅游有限公司').tradeName).toBe('云栖')
    expect(parts('恩施土家族苗族自治州云栖旅游有限公司')).toMatchObject({
      region: '恩施',
      tradeName: '云栖',
    })
    expect(parts('云栖旅游（恩施）有限公司').region).toBe('恩施')
    expect(parts('新疆维吾尔自治区云栖旅游有限公司').region).toBe('新疆')
    expect(parts('婺源县云栖旅游有限公司')).toMatchObject({ region: '婺源', tradeName: '云栖' })
    expect(parts('内蒙古云栖旅游有限公司').region).toBe('内蒙古')
  })

  it('reads a name without a region, and a short name, to the same trade name', () => {
    expect(parts('云栖旅游服务有限公司')).toEqual({
      region: undefined,
      tradeName: '云栖',
      industry: '旅游服务',
      form: '有限公司',
    })
    expect(parts('云栖旅游').tradeName).toBe('云栖')
    expect(parts('云栖').tradeName).toBe('云栖')
    // A short name may put the place after the trade name, without brackets.
    expect(parts('云栖苏州')).toMatchObject({ region: '苏州', tradeName: '云栖' })
    expect(flagged('云栖苏州', '苏州云栖旅游服务有限公司')).toBe(true)
  })

  it('reads the organisational forms, a group, and a branch after its parent', () => {
    expect(parts('苏州云栖旅游服务有限责任公司').form).toBe('有限责任公司')
    expect(parts('苏州云栖旅游服务股份有限公司').form).toBe('股份有限公司')
    expect(parts('苏州云栖旅游集团有限公司')).toMatchObject({
      tradeName: '云栖',
      form: '集团有限公司',
    })
    expect(parts('云栖旅游（集团）有限公司').tradeName).toBe('云栖')
    const branch = parseCompanyName('苏州云栖旅游服务有限公司吴江分公司')
    expect(branch).toMatchObject({ tradeName: '云栖', form: '有限公司', branch: '吴江分公司' })
    expect(parseCompanyName('苏州云栖旅行社南京路营业部')).toMatchObject({
      tradeName: '云栖',
      branch: '南京路营业部',
    })
  })

  it('does not mistake a hotel (饭店) for a shop (店), nor a trade name for the place it starts with', () => {
    expect(parts('苏州云栖大饭店')).toMatchObject({ tradeName: '云栖', industry: '大饭店' })
    // 东方 is a county-level city of Hainan; 东方明珠 is also read as a whole trade name.
    expect(flagged('东方明珠旅游有限公司', '上海东方明珠旅游有限公司')).toBe(true)
    expect(flagged('黄山旅游发展股份有限公司', '黄山市旅游发展有限公司')).toBe(true)
  })

  it('normalises traditional characters, full width, spaces, punctuation and case', () => {
    expect(parseCompanyName('苏州雲棲旅遊服務有限公司').normalized).toBe('苏州云栖旅游服务有限公司')
    expect(parseCompanyName('云栖旅游服务（苏州）有限公司').normalized).toBe(
      '云栖旅游服务苏州有限公司',
    )
    expect(parseCompanyName('苏州 云栖·旅游服务 有限公司').normalized).toBe(
      '苏州云栖旅游服务有限公司',
    )
    expect(parseCompanyName('ＡＢＣ旅游（苏州）有限公司')).toMatchObject({
      normalized: 'abc旅游苏州有限公司',
      tradeName: 'abc',
    })
    expect(parseCompanyName('雲棲旅遊（香港）有限公司')).toMatchObject({
      region: '香港',
      tradeName: '云栖',
    })
  })

  it('reads a Latin name as words without its legal suffix, articles and places', () => {
    expect(parseCompanyName('Suzhou Yunqi Travel Service Co., Ltd.')).toMatchObject({
      script: 'latin',
      region: 'suzhou',
      tradeName: 'yunqi',
      industry: 'travel service',
      form: 'co ltd',
    })
    expect(parseCompanyName('The Blue Sky Tours GmbH')).toMatchObject({
      tradeName: 'blue sky',
      form: 'gmbh',
    })
    expect(parseCompanyName('ＢＬＵＥ ＳＫＹ Ｔｏｕｒｓ L.L.C.')).toMatchObject({
      tradeName: 'blue sky',
      form: 'llc',
    })
    expect(parseCompanyName('Smith & Sons Travel Company Limited').tradeName).toBe('smith sons')
    expect(parseCompanyName('Société Générale Voyages SA').normalized).toBe(
      'societe generale voyages sa',
    )
    expect(parseCompanyName('Yunqi Travel Service (Suzhou) Co., Ltd.').region).toBe('suzhou')
    expect(parseCompanyName('Yunqi (Suzhou) Travel Service Co., Ltd.')).toMatchObject({
      region: 'suzhou',
      tradeName: 'yunqi',
    })
  })

  it('compares the same trade name written with a homophone, a typo, or in pinyin', () => {
    expect(
      compareCompanies('苏州华美达旅游服务有限公司', '苏州华美答旅游服务有限公司').reason,
    ).toBe('TRADE_NAME_WRITTEN_DIFFERENTLY')
    expect(flagged('苏州华美达旅游服务有限公司', '苏州华美答旅游服务有限公司')).toBe(true)
    expect(flagged('苏州锦江之星旅游有限公司', '苏州锦江之心旅游有限公司')).toBe(true)
    // Two characters one apart are two companies, a homophone too (宏达, 鸿达); so are trade names
    // in another place and trade.
    expect(flagged('苏州云栖旅游有限公司', '苏州云溪旅游有限公司')).toBe(false)
    expect(compareCompanies('苏州宏达旅游有限公司', '苏州鸿达旅游有限公司')).toEqual({
      score: 0.7,
      reason: 'TRADE_NAME_WRITTEN_DIFFERENTLY',
    })
    expect(compareCompanies('杭州云栖科技有限公司', '苏州云栖旅游服务有限公司')).toMatchObject({
      reason: 'SAME_TRADE_NAME',
    })
    expect(flagged('杭州云栖科技有限公司', '苏州云栖旅游服务有限公司')).toBe(false)
    expect(
      compareCompanies('Pacific Horizen Tours Ltd', 'Pacific Horizon Tours Ltd'),
    ).toMatchObject({ reason: 'LATIN_NAME_WRITTEN_DIFFERENTLY' })
    expect(flagged('Suzhou Yunqi Travel Service Co., Ltd.', '苏州云栖旅游服务有限公司')).toBe(true)
  })

  it('falls back to the whole name where a name does not parse', () => {
    expect(parseCompanyName('１２３４５６').script).toBe('other')
    expect(compareCompanies('１２３４５６７', '1234567')).toEqual({
      score: 1,
      reason: 'SIMILAR_WHOLE_NAME',
    })
    expect(flagged('1234567', '1234568')).toBe(true)
    expect(shareKey('1234567', '1234568')).toBe(true)
    expect(flagged('1234567', '7654321')).toBe(false)
  })
})
