import { describe, expect, it } from 'vitest'
import { useHarness } from './harness'
import { insertSupplier } from './fixtures'
import { keywordPages } from './client'
import { searchFold } from '../src/domain/supplier/search'

/*
 * A keyword with a digit, such as a supplier number or a part of one, is looked up by the numbers
 * holding it and by the rows whose names or other spellings hold a digit or whose number has
 * another shape (sql/supplier-read.ts numberMatches, migration 20261203000700), not by the terms.
 * Whatever it holds, every page, total, rank and order is the one a pass over supplier_search
 * gives: a name holding a number-like text still matches, ranked as a name, and a number of
 * another shape holding the keyword anywhere still matches. The typo fallback is off: a keyword
 * none holds answers none.
 */

const h = useHarness({ env: { KEYWORD_SIMILARITY_THRESHOLD: '0' } })

interface Filter {
  status?: string
  typeCode?: string
  asc?: boolean
}

/** The keyword's matches by a pass over supplier_search: rank, then the createTime order. */
async function expected(fold: string, { status, typeCode, asc }: Filter = {}) {
  const like = `%${fold}%`
  const dir = asc ? h.sql`ASC` : h.sql`DESC`
  const rows = await h.sql`
    SELECT s.supplier_id::text AS id FROM supplier_search s
    WHERE s.status IS NOT NULL ${status ? h.sql`AND s.status = ${status}` : h.sql``}
      ${
        typeCode
          ? h.sql`AND EXISTS (SELECT 1 FROM supplier_type t WHERE t.supplier_id = s.supplier_id
                              AND t.type_code = ${typeCode} AND t.deleted_at IS NULL)`
          : h.sql``
      }
      AND (s.full_fold LIKE ${like} OR s.short_fold LIKE ${like} OR s.spellings LIKE ${like}
           OR coalesce(supplier_no_fold(s.supplier_no), '') LIKE ${like})
    ORDER BY CASE WHEN s.full_fold = ${fold} OR s.short_fold = ${fold} THEN 0
                  WHEN s.full_fold LIKE ${like} OR s.short_fold LIKE ${like} THEN 1 ELSE 2 END,
             date_trunc('second', s.create_time AT TIME ZONE 'UTC') ${dir}, s.supplier_id ${dir}`
  return rows.map((r) => r.id as string)
}

/** Every page of `size` of the keyword, with the total each page answered. */
function pages(keyword: string, size: number, { status, typeCode, asc }: Filter = {}) {
  const more =
    (status ? `&status=${status}` : '') +
    (typeCode ? `&typeCode=${typeCode}` : '') +
    (asc ? '&sortBy=createTime&sortDirection=ASC' : '')
  return keywordPages(h, keyword, size, more)
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

    for (const keyword of [
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
    ]) {
      const fold = searchFold(keyword)
      for (const filter of [{}, { status: 'ACTIVE' }, { typeCode: 'HOTEL' }, { asc: true }]) {
        const all = await expected(fold, filter)
        for (const size of [3, 100]) {
          expect(
            await pages(keyword, size, filter),
            `${keyword} ${JSON.stringify(filter)}`,
          ).toEqual({ ids: all, totals: [all.length] })
        }
      }
    }
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
