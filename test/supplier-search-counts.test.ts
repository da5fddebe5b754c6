import { describe, expect, it } from 'vitest'
import { useHarness } from './harness'
import { insertSupplier } from './fixtures'
import { createDraft, keywordMatchesByPass, keywordPages, ok, update } from './client'
import { draftBody } from './supplier-data'

/*
 * A keyword of one or two characters is counted from supplier_term_count and its page walked in
 * the list's order (sql/supplier-read.ts keptMatches, migration 20261202000500) when that reads
 * fewer rows than its matches: here most of this file's suppliers hold the keyword, so small pages
 * are walked and the last ones come from the terms index. Whatever the path, every page, total,
 * rank and order is the one a pass over supplier_search gives, and the kept counts equal a recount
 * after inserts, renames, status changes, soft deletes and a write that failed.
 */

const h = useHarness()

/** The counts the triggers kept, and the same recounted from supplier_search. */
async function counts() {
  const kept = await h.sql`
    SELECT term, source, status, sum(n)::int AS n FROM supplier_term_count
    GROUP BY 1, 2, 3 HAVING sum(n) <> 0 ORDER BY 1, 2, 3`
  const recount = await h.sql`
    SELECT p.term, p.source, k.status, count(*)::int AS n
    FROM supplier_search k,
         LATERAL supplier_search_postings(k.full_fold, k.short_fold, k.spellings, k.supplier_no) p
    WHERE k.status IS NOT NULL AND k.version >= 2
    GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`
  return { kept: [...kept], recount: [...recount] }
}

/** The keyword's matches by a pass over supplier_search. */
const expected = (fold: string, status?: string, asc = false) =>
  keywordMatchesByPass(h, fold, { status, asc })

/** Every page of `size` of the keyword, with the total each page answered. */
const pages = (keyword: string, size: number, more = '') => keywordPages(h, keyword, size, more)

describe('list keyword of one or two characters: kept counts and the walk', () => {
  it('happy: every page, total, rank and order as a pass over the matches gives them', async () => {
    const t = (s: number) => `2026-03-01 08:00:${String(s).padStart(2, '0')}`
    // Rank 0: a short name equal to the keyword.
    await insertSupplier(h, { fullName: '思恒国际有限公司', shortName: 'SI', createTime: t(1) })
    // Rank 1: names containing it; two created within one second (id order decides).
    for (let i = 0; i < 10; i++) {
      await insertSupplier(h, {
        fullName: `Sino ${['Amber', 'Birch', 'Cedar', 'Dune', 'Elm'][i % 5]} ${i} Travel Co., Ltd.`,
        status: i % 3 === 0 ? 'ACTIVE' : 'DRAFT',
        createTime: t(i === 9 ? 8 : 2 + i),
      })
    }
    // Rank 2: the trade name's pinyin holds it (四海 sihai, 丝路 silu, 思源 siyuan).
    const cities = ['杭州', '苏州', '宁波', '温州', '嘉兴', '湖州', '金华', '台州', '丽水', '衢州']
    for (let i = 0; i < 10; i++) {
      await insertSupplier(h, {
        fullName: `${cities[i]}${['四海', '丝路', '思源'][i % 3]}旅游有限公司`,
        status: i % 2 === 0 ? 'ACTIVE' : 'FROZEN',
        createTime: t(20 + i),
      })
    }
    // Neither, and one soft-deleted holder.
    for (const name of ['杭州鸿翎物流有限公司', '苏州青鸾酒店有限公司', '宁波翠松旅游有限公司']) {
      await insertSupplier(h, { fullName: name, createTime: t(40) })
    }
    await insertSupplier(h, { fullName: 'Sino Gone Co., Ltd.', deletedAt: 'now' })

    for (const [keyword, fold] of [
      ['si', 'si'],
      ['S', 's'],
      ['司', '司'],
      ['丝路', '丝路'],
    ]) {
      const all = await expected(fold)
      expect(all.length).toBeGreaterThan(0)
      for (const size of [2, 3, 7, 100]) {
        expect(await pages(keyword, size), `${keyword} by ${size}`).toEqual({
          ids: all,
          totals: [all.length],
        })
      }
      const active = await expected(fold, 'ACTIVE')
      expect(await pages(keyword, 2, '&status=ACTIVE')).toEqual({
        ids: active,
        totals: [active.length],
      })
      const asc = await expected(fold, undefined, true)
      expect(await pages(keyword, 3, '&sortBy=createTime&sortDirection=ASC')).toEqual({
        ids: asc,
        totals: [asc.length],
      })
    }
    const c = await counts()
    expect(c.kept).toEqual(c.recount)
  })

  it('happy: renames, status changes and soft deletes keep the counts; a failed write changes none', async () => {
    const draft = await createDraft(h, draftBody({ fullName: '嘉兴蘅芷旅游有限公司' }))
    const before = (await pages('蘅', 5)).totals
    expect(before).toEqual([1])
    ok(
      await update(h, draft.supplierId, {
        fullName: '嘉兴葳蕤旅游有限公司',
        changeReason: 'renamed',
        expectedUpdateTime: draft.version,
      }),
    )
    expect((await pages('蘅', 5)).totals).toEqual([0])
    expect((await pages('葳', 5)).ids).toEqual([draft.supplierId])
    let c = await counts()
    expect(c.kept).toEqual(c.recount)

    await h.sql`UPDATE supplier SET status = 'ACTIVE', supplier_no = 'SP20260301000777'
                WHERE supplier_id = ${draft.supplierId}`
    expect((await pages('葳', 5, '&status=ACTIVE')).ids).toEqual([draft.supplierId])
    expect((await pages('77', 5)).ids).toEqual([draft.supplierId])
    c = await counts()
    expect(c.kept).toEqual(c.recount)

    // A write that fails after changing the search row and the supplier leaves no count changed.
    const kept = c.kept
    await expect(
      h.sql.begin(async (tx) => {
        await tx`UPDATE supplier_search SET full_fold = '嘉兴蘅芷旅游有限公司'
                 WHERE supplier_id = ${draft.supplierId}`
        await tx`UPDATE supplier SET status = 'FROZEN' WHERE supplier_id = ${draft.supplierId}`
        throw new Error('the write fails')
      }),
    ).rejects.toThrow('the write fails')
    c = await counts()
    expect(c.kept).toEqual(kept)

    await h.sql`UPDATE supplier SET status = 'DRAFT', supplier_no = NULL, deleted_at = now()
                WHERE supplier_id = ${draft.supplierId}`
    expect((await pages('葳', 5)).totals).toEqual([0])
    expect((await pages('77', 5)).totals).toEqual([0])
    c = await counts()
    expect(c.kept).toEqual(c.recount)
  })
})
