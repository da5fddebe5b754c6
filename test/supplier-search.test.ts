import { describe, expect, it } from 'vitest'
import { useHarness } from './harness'
import { insertSupplier } from './fixtures'
import { createDraft, ok, update } from './client'
import { draftBody } from './supplier-data'
import { backfillSupplierSearch, SEARCH_VERSION } from '../src/domain/supplier/search'

/*
 * The list's keyword (SUP-ADM-001) finds a company by any spelling: its names in traditional or
 * simplified characters, full- or half-width, with invisible characters; its trade name's pinyin
 * and initials; a Latin name's distinctive words; its supplier number. Keywords of one and two
 * Han characters are looked up like any other. Exact and substring matches of a name rank first,
 * then the other spellings, each rank in the order asked for. Each file has its own database, so
 * the totals below are exact.
 */

const h = useHarness()
const list = (query: string) => h.call('GET', `/admin/supplier/items?${query}`)
const search = async (keyword: string, more = '') => {
  const res = await list(`keyword=${encodeURIComponent(keyword)}&pageSize=100${more}`)
  expect(res.body.code, JSON.stringify(res.body)).toBe(200)
  return res.body.data as { total: number; records: { supplierId: string }[] }
}
const idsOf = (data: { records: { supplierId: string }[] }) => data.records.map((r) => r.supplierId)

describe('list keyword: any spelling finds the company', () => {
  it('happy: one- and two-character Han keywords, traditional and simplified, exact totals', async () => {
    const a = await insertSupplier(h, {
      fullName: '杭州湖畔旅游服务有限公司',
      shortName: '湖畔旅游',
    })
    const b = await insertSupplier(h, { fullName: '苏州湖畔酒店管理有限公司' })
    const c = await insertSupplier(h, { fullName: '臺北湖畔貿易有限公司' })
    const other = await insertSupplier(h, { fullName: '杭州山岚旅游服务有限公司' })

    const two = await search('湖畔')
    expect(idsOf(two).sort()).toEqual([a, b, c].map((s) => s.supplierId).sort())
    expect(two.total).toBe(3)
    // Traditional in the keyword finds simplified names, and the other way round.
    expect(idsOf(await search('湖畔貿易'))).toEqual([c.supplierId])
    expect(idsOf(await search('台北湖畔贸易'))).toEqual([c.supplierId])
    expect(idsOf(await search('旅遊服務')).sort()).toEqual(
      [a, other].map((s) => s.supplierId).sort(),
    )
    // One character.
    const one = await search('岚')
    expect(idsOf(one)).toEqual([other.supplierId])
    expect((await search('畔')).total).toBe(3)
  })

  it('happy: full-width, spaces, brackets and invisible characters are ignored', async () => {
    const latin = await insertSupplier(h, { fullName: 'Zephyrine Voyages Co., Ltd.' })
    const han = await insertSupplier(h, { fullName: '宁波（北仑）鸿翎国际物流有限公司' })
    expect(idsOf(await search('ＺＥＰＨＹＲＩＮＥ'))).toEqual([latin.supplierId])
    expect(idsOf(await search('zephyrine\u200b voyages'))).toEqual([latin.supplierId])
    expect(idsOf(await search('鸿\u200b翎'))).toEqual([han.supplierId])
    expect(idsOf(await search('北仑)鸿翎'))).toEqual([han.supplierId])
  })

  it('happy: the trade name by its toneless pinyin and its initials, a Latin name by its words', async () => {
    const s = await insertSupplier(h, { fullName: '绍兴翠松旅游服务有限公司' })
    const latin = await insertSupplier(h, {
      fullName: 'The Quillfeather Blue Travel Company Limited',
    })
    expect(idsOf(await search('cuisong'))).toContain(s.supplierId)
    expect(idsOf(await search('CuiSong'))).toContain(s.supplierId)
    expect(idsOf(await search('cs'))).toContain(s.supplierId)
    expect(idsOf(await search('quillfeather blue'))).toEqual([latin.supplierId])
    expect(idsOf(await search('quillfeatherblue'))).toEqual([latin.supplierId])
  })

  it('happy: the supplier number, whole or in part, in any case', async () => {
    const s = await insertSupplier(h, {
      fullName: '衢州棠樾旅游有限公司',
      status: 'ACTIVE',
      supplierNo: 'SP20261202777901',
    })
    expect(idsOf(await search('SP20261202777901'))).toEqual([s.supplierId])
    expect(idsOf(await search('sp20261202777901'))).toEqual([s.supplierId])
    expect(idsOf(await search('777901'))).toEqual([s.supplierId])
  })

  it('happy: names equal to the keyword first, then names containing it, then other spellings', async () => {
    // Created oldest first: the default order alone would list them the other way round.
    const t = '2026-01-01 10:00:0'
    const pinyin = await insertSupplier(h, { fullName: 'Yunxiao Holdings', createTime: `${t}1` })
    const contains = await insertSupplier(h, {
      fullName: '丽水云霄旅游有限公司',
      createTime: `${t}2`,
    })
    const containsNewer = await insertSupplier(h, {
      fullName: '温州云霄酒店有限公司',
      createTime: `${t}3`,
    })
    const initials = await insertSupplier(h, {
      fullName: '台州银星旅游有限公司',
      createTime: `${t}4`,
    })
    const exact = await insertSupplier(h, {
      fullName: '云霄国际',
      shortName: 'YUNXIAO',
      createTime: `${t}0`,
    })
    // 云霄 → yunxiao: the Latin name contains it; 云霄's pinyin is it; the short name equals it.
    const data = await search('yunxiao')
    expect(idsOf(data)).toEqual([
      exact.supplierId,
      pinyin.supplierId,
      containsNewer.supplierId,
      contains.supplierId,
    ])
    // yx: the initials of 云霄 and 银星 only.
    expect(idsOf(await search('yx'))).toEqual([
      initials.supplierId,
      containsNewer.supplierId,
      contains.supplierId,
      exact.supplierId,
    ])
    // The rank comes first whatever order is asked for, which then applies within each rank.
    const asc = await search('云霄', '&sortBy=createTime&sortDirection=ASC')
    expect(idsOf(asc)).toEqual([exact.supplierId, contains.supplierId, containsNewer.supplierId])
    const byName = await search('yunxiao', '&sortBy=fullName&sortDirection=ASC')
    expect(idsOf(byName)).toEqual([
      exact.supplierId,
      pinyin.supplierId,
      contains.supplierId,
      containsNewer.supplierId,
    ])
    // Paging keeps the order and the total.
    const page2 = await list(`keyword=yunxiao&pageSize=2&page=2`)
    expect(page2.body.data.total).toBe(4)
    expect(idsOf(page2.body.data)).toEqual([containsNewer.supplierId, contains.supplierId])
  })

  it('happy: status and type filters and soft-deleted suppliers with a keyword', async () => {
    const live = await insertSupplier(h, { fullName: '舟山鹭汀旅游有限公司', status: 'ACTIVE' })
    await insertSupplier(h, { fullName: '舟山鹭汀酒店有限公司', status: 'FROZEN' })
    await insertSupplier(h, { fullName: '舟山鹭汀物流有限公司', deletedAt: 'now' })
    expect((await search('鹭汀')).total).toBe(2)
    expect(idsOf(await search('鹭汀', '&status=ACTIVE'))).toEqual([live.supplierId])
    expect((await search('鹭汀', '&typeCode=HOTEL')).total).toBe(0)
  })

  it('happy: a status change, a number drawn or a soft delete is followed at once', async () => {
    const draft = await createDraft(h, draftBody({ fullName: '丽水篁岭旅游有限公司' }))
    expect(idsOf(await search('篁岭', '&status=DRAFT'))).toEqual([draft.supplierId])
    // As the lifecycle's guarded update writes them (any statement of supplier is followed).
    await h.sql`UPDATE supplier SET status = 'ACTIVE', supplier_no = 'SP20261202999901'
                WHERE supplier_id = ${draft.supplierId}`
    expect((await search('篁岭', '&status=DRAFT')).total).toBe(0)
    expect(idsOf(await search('篁岭', '&status=ACTIVE'))).toEqual([draft.supplierId])
    expect(idsOf(await search('999901'))).toEqual([draft.supplierId])
    await h.sql`UPDATE supplier SET status = 'DRAFT', supplier_no = NULL, deleted_at = now()
                WHERE supplier_id = ${draft.supplierId}`
    expect((await search('篁岭')).total).toBe(0)
    expect((await search('999901')).total).toBe(0)
  })

  it('happy: a write finds the supplier by its new name at once, never by its old one', async () => {
    const draft = await createDraft(h, draftBody({ fullName: '嘉兴蘅芷旅游有限公司' }))
    expect(idsOf(await search('蘅芷'))).toEqual([draft.supplierId])
    expect(idsOf(await search('hengzhi'))).toEqual([draft.supplierId])
    ok(
      await update(h, draft.supplierId, {
        fullName: '嘉兴葳蕤旅游有限公司',
        changeReason: 'renamed',
        expectedUpdateTime: draft.version,
      }),
    )
    expect((await search('蘅芷')).total).toBe(0)
    expect(idsOf(await search('葳蕤'))).toEqual([draft.supplierId])
  })

  it('happy: suppliers written before the search existed are found once the backfill ran', async () => {
    const s = await insertSupplier(h, { fullName: '湖州栎阳旅游有限公司' })
    await h.sql`DELETE FROM supplier_search WHERE supplier_id = ${s.supplierId}`
    // An older derivation is rewritten too.
    const old = await insertSupplier(h, { fullName: '湖州栎阳酒店有限公司' })
    await h.sql`UPDATE supplier_search SET version = ${SEARCH_VERSION - 1}, spellings = ''
                WHERE supplier_id = ${old.supplierId}`
    expect(idsOf(await search('栎阳'))).toEqual([old.supplierId])
    expect((await search('liyang')).total).toBe(0)
    const outcome = await backfillSupplierSearch(h.deps, { batch: 1 })
    expect(outcome).toMatchObject({ ran: true, written: 2 })
    expect(idsOf(await search('栎阳')).sort()).toEqual([s.supplierId, old.supplierId].sort())
    expect((await search('liyang')).total).toBe(2)
    // Nothing left: a second run writes nothing.
    expect(await backfillSupplierSearch(h.deps)).toMatchObject({ written: 0 })
  })

  it('happy: a typo still falls back to similar names when no spelling contains it', async () => {
    const s = await insertSupplier(h, { fullName: '金华婺城青鸾旅游服务有限公司' })
    expect(idsOf(await search('金华婺城青鸾旅行服务有限公司'))).toContain(s.supplierId)
  })
})
