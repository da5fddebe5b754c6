import { describe, expect, it } from 'vitest'
import { create, createDraft, update, detail } from './client'
import { useHarness } from './harness'
import { expectRefused } from './supplier-create-data'
import { draftBody, uniqueTaxNo } from './supplier-data'
import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { compareCompanies } from '../src/domain/supplier/company-name'
import { backfillNameKeys, nameKeysOf, probeKeysOf } from '../src/domain/supplier/name-keys'
import { CORPUS_PATH, type Pair } from './fixtures/company-name-pairs.gen'
import { setNameKeys, unkeyedSuppliers } from '../sql/supplier'

/*
 * The near-duplicate check probes the company-name keys stored with each supplier
 * (table supplier_name_key, migration 20261126120000): keys written with every name change, rows written before the keys
 * keyed by an online backfill, what the check sees meanwhile, and who may see the candidates.
 */

const METRICS_TOKEN = 'metrics-token-name-keys-0123'
const h = useHarness({ env: { METRICS_TOKEN } })
const scrape = () =>
  h.call('GET', '/metrics', {
    admin: null,
    headers: { authorization: `Bearer ${METRICS_TOKEN}` },
  })

/**
 * Han characters rare in company names, four at a time: two tests never draw the same trade name
 * nor two one character apart (which the check reads as one name mistyped).
 */
const RARE = '琰琮璟瑭珩琨璞瑄玥琬瑜璠瑾璇珏琦璐瑗瑛琳玳珈琪瑶璋琛瑢瑀璘玙珣琇瑨璿瓘珝琤璩瑱琂'
const tradeName = () =>
  Array.from({ length: 4 }, () => RARE[Math.floor(Math.random() * RARE.length)]).join('')
const nameOf = (trade: string, region = '苏州') => `${region}${trade}旅游服务有限公司`

const keysOf = async (supplierId: string) => {
  const [row] = await h.sql`SELECT keys FROM supplier_name_key WHERE supplier_id = ${supplierId}`
  return (row?.keys as string[] | undefined) ?? null
}

describe('name keys: written with the names', () => {
  it('a draft is keyed on create, and re-keyed in the same write when renamed', async () => {
    const trade = tradeName()
    const created = await createDraft(h, draftBody({ fullName: nameOf(trade), shortName: null }))
    expect(await keysOf(created.supplierId)).toEqual(nameKeysOf(nameOf(trade), null))

    const other = tradeName()
    const read = await detail(h, created.supplierId)
    const renamed = await update(h, created.supplierId, {
      fullName: nameOf(other),
      shortName: `${other}旅游`,
      changeReason: 'typo in the name',
      expectedUpdateTime: read.body.data.updateTime,
    })
    expect(renamed.body.code).toBe(200)
    expect(await keysOf(created.supplierId)).toEqual(nameKeysOf(nameOf(other), `${other}旅游`))
    // The old name no longer finds it; the new one does.
    expect((await create(h, draftBody({ fullName: nameOf(trade) }))).body.code).toBe(200)
    await expectRefused(h, draftBody({ fullName: nameOf(other) }), 395006)
  })
})

describe('name keys: the online backfill', () => {
  it('keys rows written before the keys; until then the check does not see them, and says how many', async () => {
    const trade = tradeName()
    const old = await createDraft(h, draftBody({ fullName: nameOf(trade) }))
    // As a supplier written before the keys is.
    await h.sql`DELETE FROM supplier_name_key WHERE supplier_id = ${old.supplierId}`
    const [{ update_time: before }] =
      await h.sql`SELECT update_time FROM supplier WHERE supplier_id = ${old.supplierId}`

    const metrics = await scrape()
    const pending = Number(/^supplier_name_keys_pending (\d+)$/m.exec(metrics.body)?.[1])
    expect(pending).toBeGreaterThanOrEqual(1)

    // Not keyed: the same name is not found (the check covers keyed suppliers only).
    const twin = await create(h, draftBody({ fullName: nameOf(trade) }))
    expect(twin.body.code).toBe(200)

    const outcome = await backfillNameKeys(h.deps, { batch: 2 })
    expect(outcome.ran).toBe(true)
    expect(outcome.keyed).toBeGreaterThanOrEqual(1)
    expect(await keysOf(old.supplierId)).toEqual(nameKeysOf(nameOf(trade), null))
    // Derived data, not a change: the version an administrator holds stays valid.
    const [{ update_time: after }] =
      await h.sql`SELECT update_time FROM supplier WHERE supplier_id = ${old.supplierId}`
    expect(after).toEqual(before)
    expect(await unkeyedSuppliers(h.sql, '0', 10)).toEqual([])

    // Now both are found.
    const refused = await expectRefused(h, draftBody({ fullName: nameOf(trade) }), 395006)
    const ids = refused.body.data.candidates.map((c: { supplierId: string }) => c.supplierId)
    expect(ids).toEqual(expect.arrayContaining([old.supplierId, twin.body.data.supplierId]))
    const again = await scrape()
    expect(again.body).toMatch(/^supplier_name_keys_pending 0$/m)
  })

  it('never overwrites keys a rename wrote after the backfill read the row', async () => {
    const trade = tradeName()
    const row = await createDraft(h, draftBody({ fullName: nameOf(trade) }))
    await h.sql`DELETE FROM supplier_name_key WHERE supplier_id = ${row.supplierId}`
    const [read] = await unkeyedSuppliers(h.sql, String(BigInt(row.supplierId) - 1n), 1)
    expect(read.supplierId).toBe(row.supplierId)
    // Renamed (and keyed) between the backfill's read and its write.
    const seen = await detail(h, row.supplierId)
    const renamed = nameOf(tradeName())
    await update(h, row.supplierId, {
      fullName: renamed,
      changeReason: 'renamed',
      expectedUpdateTime: seen.body.data.updateTime,
    })
    const stale = { ...read, keys: nameKeysOf(read.fullName, read.shortName) }
    expect(await setNameKeys(h.sql, [stale])).toBe(0)
    expect(await keysOf(row.supplierId)).toEqual(nameKeysOf(renamed, null))
  })

  it('one replica at a time: a second backfill while the lease is held does nothing', async () => {
    const rows = []
    for (let i = 0; i < 3; i++) rows.push(await createDraft(h, draftBody()))
    await h.sql`DELETE FROM supplier_name_key WHERE supplier_id IN ${h.sql(rows.map((r) => r.supplierId))}`
    const [first, second] = await Promise.all([
      backfillNameKeys(h.deps, { batch: 1, pauseMs: 50 }),
      backfillNameKeys(h.deps, { batch: 1, pauseMs: 50 }),
    ])
    expect([first.ran, second.ran].sort()).toEqual([false, true])
    expect(first.keyed + second.keyed).toBe(3)
    for (const r of rows) expect(await keysOf(r.supplierId)).not.toBeNull()
  })
})

describe('near-duplicate check: short names', () => {
  it('a short name is compared with short names, not with every full name of its trade name', async () => {
    const trade = tradeName()
    // Another company of the same trade name, in another city and line of business.
    await createDraft(h, draftBody({ fullName: `杭州${trade}科技有限公司`, shortName: null }))
    // A short name names no place nor line: against full names it would agree with them all.
    const ours = draftBody({ fullName: nameOf(tradeName()), shortName: `${trade}旅游` })
    expect((await create(h, ours)).body.code).toBe(200)
    // Against another short name it counts.
    const again = draftBody({ fullName: nameOf(tradeName()), shortName: `${trade}旅游` })
    await expectRefused(h, again, 395006)
  })
})

describe('near-duplicate candidates: who may see them', () => {
  it('a caller without supplier:view gets the count and the token, not the suppliers', async () => {
    const trade = tradeName()
    const first = await createDraft(h, draftBody({ fullName: nameOf(trade) }))
    const creator = await h.admin(['supplier:create'])
    const body = draftBody({ fullName: nameOf(trade, '苏州市') })
    const refused = await expectRefused(h, body, 395006, { admin: creator })
    expect(Object.keys(refused.body.data).sort()).toEqual([
      'candidateCount',
      'duplicateConfirmToken',
      'expiresAt',
    ])
    expect(refused.body.data.candidateCount).toBe(1)
    const text = JSON.stringify(refused.body)
    expect(text).not.toContain(first.supplierId)
    expect(text).not.toContain(trade)
    // The token works all the same.
    const confirmed = await create(
      h,
      { ...body, duplicateConfirmToken: refused.body.data.duplicateConfirmToken },
      { admin: creator },
    )
    expect(confirmed.body.code).toBe(200)

    // A viewer sees who and why.
    const viewer = await h.admin(['supplier:create', 'supplier:view'])
    const seen = await expectRefused(h, draftBody({ fullName: nameOf(trade) }), 395006, {
      admin: viewer,
    })
    expect(seen.body.data.candidateCount).toBe(2)
    const mine = seen.body.data.candidates.find(
      (c: { supplierId: string }) => c.supplierId === first.supplierId,
    )
    expect(mine).toMatchObject({
      fullName: nameOf(trade),
      status: 'DRAFT',
      reason: expect.any(String),
      explanation: expect.any(String),
    })
    expect(mine.similarity).toBeGreaterThan(0)
  })

  it('the tax number is never echoed in a near-duplicate answer', async () => {
    const trade = tradeName()
    const taxNo = uniqueTaxNo()
    await createDraft(h, draftBody({ fullName: nameOf(trade), taxNo }))
    const refused = await expectRefused(h, draftBody({ fullName: nameOf(trade) }), 395006)
    expect(JSON.stringify(refused.body)).not.toContain(taxNo)
  })
})

describe('name keys: the filings find what the score accepts', () => {
  // A probe reads a key only where a reading of the new name places it (its provinces, and the
  // placeless readings) or nationwide: every stored name that the score accepts must be filed
  // there, under a key of the probe, whatever the threshold.
  const found = (ours: string, theirs: string, threshold: number) => {
    const stored = new Set(nameKeysOf(theirs, null))
    return probeKeysOf({ fullName: ours }, threshold).some((k) => stored.has(k))
  }
  const THRESHOLDS = [0.95, 0.8, 0.7, 0.55]
  const missedPairs = (pairs: { a: string; b: string }[]) =>
    pairs.flatMap((p) =>
      THRESHOLDS.flatMap((t) =>
        [
          [p.a, p.b],
          [p.b, p.a],
        ]
          .filter(([x, y]) => compareCompanies(x, y).score >= t && !found(x, y, t))
          .map(([x, y]) => ({ probe: x, stored: y, threshold: t })),
      ),
    )

  it('on the labelled corpus, both ways, at every threshold', () => {
    const pairs = JSON.parse(readFileSync(CORPUS_PATH, 'utf8')) as Pair[]
    expect(missedPairs(pairs)).toEqual([])
  })

  it('for places written every way a name writes them, and trade names one character apart', () => {
    // Places with and without their suffix, in front or in brackets, a city that can also begin
    // a trade name (东方), a province, none; trade names edited by one character.
    const place = fc.constantFrom('苏州', '苏州市', '江苏', '江苏省苏州市', '杭州', '东方', '')
    const trade = fc.string({
      unit: fc.constantFrom(...'云栖金桥明珠锦江星辰'),
      minLength: 2,
      maxLength: 5,
    })
    const industry = fc.constantFrom('旅游服务', '酒店管理', '')
    const form = fc.constantFrom('有限公司', '股份有限公司')
    const write = (p: string, t: string, i: string, f: string, bracketed: boolean) =>
      bracketed && p ? `${t}${i}（${p}）${f}` : `${p}${t}${i}${f}`
    fc.assert(
      fc.property(
        fc.tuple(place, trade, industry, form, fc.boolean()),
        fc.tuple(place, fc.nat(), fc.constantFrom(...'云溪湾'), industry, form, fc.boolean()),
        ([p1, t, i1, f1, b1], [p2, at, c, i2, f2, b2]) => {
          const chars = [...t]
          const edited = [...chars]
          edited[at % chars.length] = c
          const a = write(p1, t, i1, f1, b1)
          const b = write(p2, at % 3 === 0 ? t : edited.join(''), i2, f2, b2)
          return missedPairs([{ a, b }]).length === 0
        },
      ),
      { numRuns: 2000 },
    )
  })
})
