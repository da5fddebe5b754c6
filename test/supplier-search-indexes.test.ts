import { describe, expect, it } from 'vitest'
import { useHarness } from './harness'
import { insertSupplier } from './fixtures'
import { keywordMatchesByPass, keywordPages } from './client'
import { searchFold } from '../src/domain/supplier/search'

/*
 * Keywords whose pairs most rows hold are looked up by indexes of their own, not by the terms:
 * - one with a digit, such as a supplier number or a part of one, by the numbers holding it and
 *   by the rows whose names or other spellings hold a digit or whose number has another shape
 *   (sql/supplier-read.ts numberMatches, migration 20261203000700);
 * - one of three or more letters a-z alone (pinyin, a Latin word) by the sequences of three and
 *   four letters of the rows' runs of letters (latinTerms, migration 20261203000800).
 * Whatever such a keyword holds, every page, total, rank and order is the one a pass over
 * supplier_search gives: a name holding a number-like text still matches, ranked as a name, a
 * number of another shape holding the keyword anywhere still matches, and a Latin keyword across
 * the words of a name still matches. The typo fallback is off: a keyword none holds answers none.
 */

const h = useHarness({ env: { KEYWORD_SIMILARITY_THRESHOLD: '0' } })

interface Filter {
  status?: string
  typeCode?: string
  asc?: boolean
}

/** The keyword's matches by a pass over supplier_search. */
const expected = (fold: string, filter: Filter = {}) => keywordMatchesByPass(h, fold, filter)

/** Every page of `size` of the keyword, with the total each page answered. */
function pages(keyword: string, size: number, { status, typeCode, asc }: Filter = {}) {
  const more =
    (status ? `&status=${status}` : '') +
    (typeCode ? `&typeCode=${typeCode}` : '') +
    (asc ? '&sortBy=createTime&sortDirection=ASC' : '')
  return keywordPages(h, keyword, size, more)
}

/**
 * Each keyword, with each filter and order and in pages of `size` and of 100, answers every page,
 * total, rank and order as a pass over supplier_search gives them.
 */
async function everyPageAsByPass(keywords: string[], size: number) {
  for (const keyword of keywords) {
    const fold = searchFold(keyword)
    for (const filter of [{}, { status: 'ACTIVE' }, { typeCode: 'HOTEL' }, { asc: true }]) {
      const all = await expected(fold, filter)
      for (const pageSize of [size, 100]) {
        expect(
          await pages(keyword, pageSize, filter),
          `${keyword} ${JSON.stringify(filter)}`,
        ).toEqual({ ids: all, totals: [all.length] })
      }
    }
  }
}

describe('list keyword shaped like a supplier number', () => {
  it('happy: every page, total, rank and order as a pass over supplier_search gives them', async () => {
    const t = (s: number) => `2026-03-01 08:00:${String(s).padStart(2, '0')}`
    // Numbers as SQL draws them ('SP', the day, a sequence number), of every status; two created
    // within one second (id order decides).
    const statuses = ['ACTIVE', 'SUSPENDED', 'FROZEN', 'ACTIVE', 'ARCHIVED', 'BLACKLIST'] as const
    for (let i = 0; i < 12; i++) {
      await insertSupplier(h, {
        fullName: `${['杭州', '苏州', '宁波'][i % 3]}${['湖畔', '云栖', '青鸾', '翠松'][i % 4]}旅游有限公司`,
        supplierNo: `SP2026030${1 + (i % 2)}${100001 + i}`,
        status: statuses[i % statuses.length],
        types: [{ typeCode: i % 2 === 0 ? 'HOTEL' : 'SCENIC', isPrimary: true }],
        createTime: t(i === 11 ? 10 : 1 + i),
      })
    }
    // Names and short names holding number-like texts: ranked as names, numbered or not.
    await insertSupplier(h, { fullName: 'SP20260301 Travel Co., Ltd.', createTime: t(20) })
    await insertSupplier(h, {
      fullName: 'SP2026030110000 Holdings Co., Ltd.',
      supplierNo: 'SP20260302100099',
      status: 'ACTIVE',
      createTime: t(21),
    })
    await insertSupplier(h, {
      fullName: '杭州速普旅游有限公司',
      shortName: 'ＳＰ２０２６-03',
      types: [{ typeCode: 'HOTEL', isPrimary: true }],
      createTime: t(22),
    })
    await insertSupplier(h, { fullName: '杭州2026旅游有限公司', createTime: t(23) })
    await insertSupplier(h, { fullName: 'Abc123 Tours Co., Ltd.', createTime: t(24) })
    // A full name equal to a keyword (rank 0).
    await insertSupplier(h, { fullName: 'SP2026030110', createTime: t(25) })
    // Numbers of other shapes, holding the keywords elsewhere than at their start.
    await insertSupplier(h, {
      fullName: '苏州恒远景区管理有限公司',
      supplierNo: 'NO-SP20260301-1',
      status: 'ACTIVE',
      createTime: t(30),
    })
    await insertSupplier(h, {
      fullName: '宁波嘉禾文化有限公司',
      supplierNo: 'XP2026abc123',
      status: 'FROZEN',
      createTime: t(31),
    })
    // Soft-deleted holders, and unrelated suppliers.
    await insertSupplier(h, { fullName: 'SP20260301 Gone Co., Ltd.', deletedAt: 'now' })
    for (const name of ['杭州鸿翎物流有限公司', '苏州青鸾酒店有限公司']) {
      await insertSupplier(h, { fullName: name, createTime: t(40) })
    }

    await everyPageAsByPass(
      [
        'SP20260301100001', // one whole number
        'sp20260302100012',
        ' sp 2026-0301-1000 ', // folded to the start of several numbers
        'SP2026030110', // also a full name equal to it, and a name holding it
        'P202603', // a number's start but its S
        'SP2026', // every number, names holding it, a number of another shape holding it
        'ＳＰ２０２６０３', // full-width
        'abc123', // a name and another shape's number, no drawn number
        '杭州2026', // a name only
        '2026sp', // no spelling
        '20260301', // digits alone, in numbers of either shape
        '100012', // a sequence number
        '12', // digits too short for a trigram: the terms
        'sp0', // none
      ],
      3,
    )
    // The cases above are not vacuous: a name holding a number's start ranks before the numbers,
    // and the number of another shape is found by a keyword in its middle.
    const sp2026 = await expected('sp2026')
    expect(sp2026.length).toBeGreaterThan(15)
    const [first] = (await pages('SP2026030110', 100)).ids
    const [equal] = await h.sql`
      SELECT supplier_id::text AS id FROM supplier WHERE full_name = 'SP2026030110'`
    expect(first).toBe(equal.id)
    const [other] = await h.sql`
      SELECT supplier_id::text AS id FROM supplier WHERE supplier_no = 'NO-SP20260301-1'`
    expect((await pages('SP20260301', 100)).ids).toContain(other.id)
    expect((await pages('杭州2026', 100)).totals).toEqual([1])
  })

  it('happy: a rename that adds or drops a digit, or a number drawn later, is found at once', async () => {
    const s = await insertSupplier(h, { fullName: '嘉兴蘅芷旅游有限公司', status: 'VETTING' })
    expect((await pages('蘅芷7x', 5)).totals).toEqual([0])
    await h.sql`UPDATE supplier_search SET full_fold = '嘉兴蘅芷7x旅游有限公司'
                WHERE supplier_id = ${s.supplierId}`
    expect((await pages('蘅芷7x', 5)).ids).toEqual([s.supplierId])
    await h.sql`UPDATE supplier SET status = 'ACTIVE', supplier_no = 'SP20260305900001'
                WHERE supplier_id = ${s.supplierId}`
    expect((await pages('SP20260305900001', 5)).ids).toEqual([s.supplierId])
    expect((await pages('p202603059', 5)).ids).toEqual([s.supplierId])
    await h.sql`UPDATE supplier_search SET full_fold = '嘉兴蘅芷旅游有限公司'
                WHERE supplier_id = ${s.supplierId}`
    expect((await pages('蘅芷7x', 5)).totals).toEqual([0])
    await h.sql`UPDATE supplier SET status = 'DRAFT', supplier_no = NULL, deleted_at = now()
                WHERE supplier_id = ${s.supplierId}`
    expect((await pages('SP20260305900001', 5)).totals).toEqual([0])
  })
})

describe('list keyword of letters alone', () => {
  it('happy: pinyin, initials runs, Latin words: every page, total, rank and order as a pass gives them', async () => {
    const t = (s: number) => `2026-03-02 08:00:${String(s).padStart(2, '0')}`
    // Trade names read wenxia (文霞, 温侠), hupan (湖畔), yunqi (云栖), of every status.
    const statuses = ['ACTIVE', 'SUSPENDED', 'FROZEN', 'ACTIVE', 'ARCHIVED'] as const
    for (let i = 0; i < 10; i++) {
      await insertSupplier(h, {
        fullName: `${['杭州', '苏州', '宁波'][i % 3]}${['文霞', '温侠', '湖畔', '云栖'][i % 4]}${['旅游', '酒店'][i % 2]}有限公司`,
        status: statuses[i % statuses.length],
        types: [{ typeCode: i % 2 === 0 ? 'HOTEL' : 'SCENIC', isPrimary: true }],
        createTime: t(i === 9 ? 3 : 1 + i),
      })
    }
    // Latin names (their words run together among the spellings), a short name equal to a
    // keyword (rank 0), a mixed name, a full-width one, a number of another shape with letters.
    await insertSupplier(h, {
      fullName: 'Zephyrine Voyages Co., Ltd.',
      status: 'ACTIVE',
      types: [{ typeCode: 'HOTEL', isPrimary: true }],
      createTime: t(20),
    })
    await insertSupplier(h, { fullName: 'Blue Zephyrine Travel Ltd.', createTime: t(21) })
    await insertSupplier(h, {
      fullName: '杭州文霞旅游有限公司',
      shortName: 'Wenxia',
      status: 'ACTIVE',
      createTime: t(22),
    })
    await insertSupplier(h, { fullName: 'ＷＥＮＸＩＡ Holdings', createTime: t(23) })
    await insertSupplier(h, { fullName: '苏州abcd旅游有限公司', createTime: t(24) })
    await insertSupplier(h, {
      fullName: '宁波嘉禾文化有限公司',
      supplierNo: 'XP2026wenxiab',
      status: 'FROZEN',
      createTime: t(25),
    })
    // Soft-deleted holders, and unrelated suppliers.
    await insertSupplier(h, { fullName: 'Zephyrine Gone Co., Ltd.', deletedAt: 'now' })
    await insertSupplier(h, { fullName: '杭州文霞酒店有限公司', deletedAt: 'now' })
    for (const name of ['杭州鸿翎物流有限公司', 'Northwind Travel Co., Ltd.']) {
      await insertSupplier(h, { fullName: name, createTime: t(40) })
    }

    await everyPageAsByPass(
      [
        'wenxia', // pinyin of two trade names, a short name equal to it, a full-width name, a number
        'WenXia', // any case
        'wen xia', // spaces dropped
        'enxi', // one sequence of four
        'hupan',
        'upa', // three letters
        'zephyrine', // a Latin name's word
        'rinevoy', // across two words of a name
        'zephyrinevoyages', // the words run together
        'bcd', // in a mixed name
        'wenxiab', // in a number of another shape only
        'xyzw', // none
      ],
      2,
    )
    // Not vacuous: the short name equal to the keyword ranks first, a pinyin's two readings and
    // a number of another shape are found, and the soft-deleted holders are not.
    const wenxia = (await pages('wenxia', 100)).ids
    const [equal] =
      await h.sql`SELECT supplier_id::text AS id FROM supplier WHERE short_name = 'Wenxia'`
    expect(wenxia[0]).toBe(equal.id)
    expect(wenxia).toHaveLength(1 + 1 + 3 + 3 + 1)
    expect((await pages('zephyrine', 100)).totals).toEqual([2])
    expect((await pages('rinevoy', 100)).totals).toEqual([1])
    expect((await pages('wenxiab', 100)).totals).toEqual([1])
    expect((await pages('xyzw', 100)).totals).toEqual([0])
  })

  it('happy: a rename that adds or drops a Latin word is found at once', async () => {
    const s = await insertSupplier(h, { fullName: '嘉兴蘅芷旅游有限公司', status: 'ACTIVE' })
    expect((await pages('quillon', 5)).totals).toEqual([0])
    await h.sql`UPDATE supplier_search SET spellings = spellings || chr(31) || 'quillonx'
                WHERE supplier_id = ${s.supplierId}`
    expect((await pages('quillon', 5)).ids).toEqual([s.supplierId])
    await h.sql`UPDATE supplier SET status = 'DRAFT', deleted_at = now()
                WHERE supplier_id = ${s.supplierId}`
    expect((await pages('quillon', 5)).totals).toEqual([0])
  })
})
