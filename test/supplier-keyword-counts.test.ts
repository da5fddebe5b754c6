import postgres from 'postgres'
import { describe, expect, inject, it, vi } from 'vitest'
import { useHarness, type Harness } from './harness'
import { insertSupplier } from './fixtures'
import { createDraft, keywordPages, ok, update } from './client'
import { draftBody } from './supplier-data'
import { KEEP_FROM, keepKeyword, startKeywordKeeper } from '../src/domain/supplier/kept-keywords'
import { keywordTerms } from '../src/domain/supplier/search'
import { connect } from '../sql/db'
import { abandonKeywordBuild, finishKeywordBuild, startKeywordBuild } from '../sql/supplier-keyword'
import { searchSuppliers } from '../sql/supplier-read'
import { listSuppliers } from '../src/domain/supplier/reads'

/*
 * A keyword of three or more characters, once kept (src/domain/supplier/kept-keywords.ts,
 * migration 20261202000700), is counted from supplier_keyword_count and its page walked in the
 * list's order (sql/supplier-read.ts keptMatches), as a one-character term is. Whatever the path,
 * every page, total, rank and order is the one a pass over supplier_search gives, the kept counts
 * equal a recount after every kind of write, a failed write changes none, a writer open across
 * the build is counted once, and no more keywords are kept than the bound.
 */

const h = useHarness()
const embedded = inject('database').kind === 'embedded'
const keep = (fold: string, o: Parameters<typeof keepKeyword>[2] = {}) =>
  keepKeyword(h.deps, fold, { minMatches: 1, pollMs: 10, ...o })

/** Where a row holds the keyword, as spellingMatches ranks it (LIKE, not the migration's strpos). */
const source = (k: postgres.Fragment) => h.sql`
  CASE WHEN s.full_fold LIKE '%' || ${k} || '%' OR s.short_fold LIKE '%' || ${k} || '%' THEN 1
       WHEN s.spellings LIKE '%' || ${k} || '%'
            OR coalesce(supplier_no_fold(s.supplier_no), '') LIKE '%' || ${k} || '%' THEN 2 END`

/** The counts of the ready keywords as kept, and the same recounted from supplier_search. */
async function counts() {
  const kept = await h.sql`
    SELECT c.keyword, c.source, c.status, sum(c.n)::int AS n FROM supplier_keyword_count c
    JOIN supplier_keyword k ON k.keyword = c.keyword AND k.state = 'ready'
    GROUP BY 1, 2, 3 HAVING sum(c.n) <> 0 ORDER BY 1, 2, 3`
  const recount = await h.sql`
    SELECT k.keyword, m.source, s.status, count(*)::int AS n
    FROM supplier_keyword k CROSS JOIN supplier_search s,
         LATERAL (SELECT ${source(h.sql`k.keyword`)} AS source) m
    WHERE k.state = 'ready' AND s.status IS NOT NULL AND s.version >= 2 AND m.source IS NOT NULL
    GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`
  return { kept: [...kept], recount: [...recount] }
}

/** The keyword's matches by a pass over supplier_search: rank, then the default order. */
async function expected(fold: string, status?: string) {
  const rows = await h.sql`
    SELECT s.supplier_id::text AS id FROM supplier_search s
    WHERE s.status IS NOT NULL ${status ? h.sql`AND s.status = ${status}` : h.sql``}
      AND ${source(h.sql`${fold}::text`)} IS NOT NULL
    ORDER BY CASE WHEN s.full_fold = ${fold} OR s.short_fold = ${fold} THEN 0
                  ELSE ${source(h.sql`${fold}::text`)} END,
             date_trunc('second', s.create_time AT TIME ZONE 'UTC') DESC, s.supplier_id DESC`
  return rows.map((r) => r.id as string)
}

/** Every page of `size` of the keyword, with the total each page answered. */
const pages = (keyword: string, size: number, more = '') => keywordPages(h, keyword, size, more)

const kept = async () =>
  (await h.sql`SELECT keyword, state FROM supplier_keyword ORDER BY keyword`).map(
    (r) => `${r.keyword as string}:${r.state as string}`,
  )

const t = (s: number) =>
  `2026-03-01 08:${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`

async function load() {
  // Rank 0: a short name equal to the keyword.
  await insertSupplier(h, { fullName: '思恒国际有限公司', shortName: 'SIHAI', createTime: t(1) })
  // Rank 1: names containing it; two created within one second (id order decides).
  for (let i = 0; i < 10; i++) {
    await insertSupplier(h, {
      fullName: `Sihai ${['Amber', 'Birch', 'Cedar', 'Dune', 'Elm'][i % 5]} ${i} 旅遊服務 Co., Ltd.`,
      status: i % 3 === 0 ? 'ACTIVE' : 'DRAFT',
      createTime: t(i === 9 ? 8 : 2 + i),
    })
  }
  // Rank 2: the trade name's pinyin holds it (四海 sihai), or the supplier number (SIHAI in it).
  const cities = ['杭州', '苏州', '宁波', '温州', '嘉兴', '湖州', '金华', '台州']
  for (let i = 0; i < 8; i++) {
    await insertSupplier(h, {
      fullName: `${cities[i]}四海旅游服务有限公司`,
      status: i % 2 === 0 ? 'ACTIVE' : 'FROZEN',
      createTime: t(20 + i),
    })
  }
  await insertSupplier(h, {
    fullName: '宁波翠松酒店有限公司',
    supplierNo: 'SP-SIHAI-0001',
    status: 'ACTIVE',
    createTime: t(30),
  })
  // Neither, and a soft-deleted holder.
  for (const name of ['杭州鸿翎物流有限公司', '苏州青鸾酒店有限公司', '宁波翠松旅行社有限公司']) {
    await insertSupplier(h, { fullName: name, createTime: t(40) })
  }
  await insertSupplier(h, { fullName: 'Sihai Gone 旅遊服務 Co., Ltd.', deletedAt: 'now' })
}

describe('list keyword of three or more characters: kept counts', () => {
  it('happy: once kept, every page, total, rank and order as a pass over the matches', async () => {
    await load()
    // Not kept yet: the terms index answers, the same.
    const before = await expected('sihai')
    expect(await pages('sihai', 3)).toEqual({ ids: before, totals: [before.length] })
    expect(await keep('sihai')).toBe('kept')
    expect(await keep('旅游服务')).toBe('kept')
    expect(await keep('旅游服务')).toBe('used')
    expect(await kept()).toEqual(['sihai:ready', '旅游服务:ready'])
    for (const [keyword, fold] of [
      ['sihai', 'sihai'],
      ['SIHAI', 'sihai'],
      ['旅遊服務', '旅游服务'],
    ]) {
      const all = await expected(fold)
      expect(all.length).toBeGreaterThan(5)
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
    }
    const c = await counts()
    expect(c.kept.length).toBeGreaterThan(2)
    expect(c.kept).toEqual(c.recount)
  })

  it('happy: the first page of a kept keyword reads its kept counts and walks, no terms index', async () => {
    const sent: string[] = []
    const spy = connect({
      url: h.db.url,
      max: 1,
      timezone: 'Asia/Shanghai',
      debug: (_c, query) => void sent.push(query),
    })
    try {
      const f = { limit: 2, offset: 0, timezone: 'Asia/Shanghai', keyword: 'sihai' }
      const { total, kept } = await searchSuppliers(spy, { ...f, ...keywordTerms('sihai') })
      expect(kept).toBe(true)
      expect(total).toBe((await expected('sihai')).length)
      expect(sent.some((q) => q.includes('supplier_keyword_count'))).toBe(true)
      expect(sent.some((q) => q.includes('terms @>'))).toBe(false)
      // A keyword that is not kept is counted from the terms index.
      sent.length = 0
      await searchSuppliers(spy, { ...f, keyword: '旅游有限', ...keywordTerms('旅游有限') })
      expect(sent.some((q) => q.includes('terms @>'))).toBe(true)
    } finally {
      await spy.end({ timeout: 5 })
    }
  })

  it('happy: a building keyword is never read', async () => {
    await h.sql`INSERT INTO supplier_keyword (keyword, state) VALUES ('翠松酒', 'building')`
    await h.sql`INSERT INTO supplier_keyword_count (keyword, source, status, n)
                VALUES ('翠松酒', 1, 'DRAFT', 1000)`
    const all = await expected('翠松酒')
    expect(await pages('翠松酒', 2)).toEqual({ ids: all, totals: [all.length] })
    // Its next build forgets the unfinished one and counts from scratch.
    expect(await keep('翠松酒')).toBe('kept')
    const c = await counts()
    expect(c.kept).toEqual(c.recount)
    expect(await pages('翠松酒', 2)).toEqual({ ids: all, totals: [all.length] })
  })

  it('happy: renames, status changes, a drawn number, soft deletes and a rewrite keep the counts; a failed write changes none', async () => {
    expect(await keep('蘅芷旅', { minMatches: 0 })).toBe('kept')
    expect(await keep('葳蕤旅', { minMatches: 0 })).toBe('kept')
    expect(await keep('0777', { minMatches: 0 })).toBe('kept')
    const draft = await createDraft(h, draftBody({ fullName: '嘉兴蘅芷旅游有限公司' }))
    expect((await pages('蘅芷旅', 5)).ids).toEqual([draft.supplierId])
    ok(
      await update(h, draft.supplierId, {
        fullName: '嘉兴葳蕤旅游有限公司',
        changeReason: 'renamed',
        expectedUpdateTime: draft.version,
      }),
    )
    expect((await pages('蘅芷旅', 5)).totals).toEqual([0])
    expect((await pages('葳蕤旅', 5)).ids).toEqual([draft.supplierId])
    let c = await counts()
    expect(c.kept).toEqual(c.recount)

    await h.sql`UPDATE supplier SET status = 'ACTIVE', supplier_no = 'SP20260301000777'
                WHERE supplier_id = ${draft.supplierId}`
    expect((await pages('葳蕤旅', 5, '&status=ACTIVE')).ids).toEqual([draft.supplierId])
    expect((await pages('0777', 5)).ids).toEqual([draft.supplierId])
    c = await counts()
    expect(c.kept).toEqual(c.recount)

    // A write that fails after changing the search row and the supplier leaves no count changed.
    const before = c.kept
    await expect(
      h.sql.begin(async (tx) => {
        await tx`UPDATE supplier_search SET full_fold = '嘉兴蘅芷旅游有限公司'
                 WHERE supplier_id = ${draft.supplierId}`
        await tx`UPDATE supplier SET status = 'FROZEN' WHERE supplier_id = ${draft.supplierId}`
        throw new Error('the write fails')
      }),
    ).rejects.toThrow('the write fails')
    c = await counts()
    expect(c.kept).toEqual(before)

    // A backfill of a newer derivation rewrites every row (one statement): the counts follow.
    await h.sql`UPDATE supplier_search SET version = version + 1,
                  spellings = CASE WHEN full_fold LIKE '%四海%' THEN spellings || chr(31) || 'x0777'
                                   ELSE spellings END`
    c = await counts()
    expect(c.kept).toEqual(c.recount)
    expect((await pages('0777', 100)).totals).toEqual([(await expected('0777')).length])

    await h.sql`UPDATE supplier SET status = 'DRAFT', supplier_no = NULL, deleted_at = now()
                WHERE supplier_id = ${draft.supplierId}`
    expect((await pages('葳蕤旅', 5)).totals).toEqual([0])
    c = await counts()
    expect(c.kept).toEqual(c.recount)
    await h.sql`DELETE FROM supplier_search WHERE supplier_id IN (
                  SELECT supplier_id FROM supplier_search WHERE full_fold LIKE '%四海%' LIMIT 2)`
    c = await counts()
    expect(c.kept).toEqual(c.recount)
  })

  it('happy: no more keywords than the bound are kept, the least recently used leaving', async () => {
    const max = (await h.sql`SELECT count(*)::int AS n FROM supplier_keyword`)[0].n as number
    expect(max).toBeGreaterThan(2)
    const oldest = (
      await h.sql`SELECT keyword FROM supplier_keyword ORDER BY used_at, keyword LIMIT 2`
    ).map((r) => r.keyword as string)
    // The oldest is used again: the second oldest leaves instead.
    expect(await keep(oldest[0], { max })).toBe('used')
    expect(await keep('有限公', { max })).toBe('kept')
    const now = await kept()
    expect(now).toHaveLength(max)
    expect(now).toContain(`${oldest[0]}:ready`)
    expect(now).toContain('有限公:ready')
    expect(now).not.toContain(`${oldest[1]}:ready`)
    // A build that turns out rare makes no room: every kept keyword stays.
    expect(await keep('青鸾酒', { max, minMatches: 2 })).toBe('rare')
    expect(await kept()).toEqual(now)
    expect(
      (
        await h.sql`SELECT count(*)::int AS n FROM supplier_keyword_count WHERE keyword = ${oldest[1]}`
      )[0].n,
    ).toBe(0)
    const c = await counts()
    expect(c.kept).toEqual(c.recount)
    // The one that left is answered by the terms index, the same.
    const all = await expected(oldest[1])
    expect(await pages(oldest[1], 2)).toEqual({ ids: all, totals: [all.length] })
  })

  it('happy: a keyword noted after its answer is kept in the background', async () => {
    const keeper = startKeywordKeeper(h.deps, { minMatches: 1 })
    try {
      keeper.note('旅游服', true)
      keeper.note('ab', true) // too short: a term, counted already
      await vi.waitFor(async () => expect(await kept()).toContain('旅游服:ready'), {
        timeout: 10_000,
      })
    } finally {
      await keeper.stop()
    }
    const c = await counts()
    expect(c.kept).toEqual(c.recount)
  })

  it('happy: a kept keyword asked with a status that leaves few matches is marked as used, a rare one not kept', async () => {
    expect(['kept', 'used']).toContain(await keep('旅游服'))
    await h.sql`UPDATE supplier_keyword SET used_at = now() - interval '1 day' WHERE keyword = '旅游服'`
    const usedAt = async () =>
      (
        await h.sql`SELECT keyword, used_at > now() - interval '1 minute' AS fresh FROM supplier_keyword
                    WHERE keyword IN ('旅游服', '青鸾酒')
                    ORDER BY keyword`
      ).map((r) => `${r.keyword}:${r.fresh}`)
    const keeper = startKeywordKeeper(h.deps)
    try {
      const deps = { ...h.deps, keywordKeeper: keeper }
      const few = await listSuppliers(deps, {
        keyword: '旅遊服',
        status: 'FROZEN',
        page: 1,
        pageSize: 20,
      })
      expect(few.total).toBeLessThan(KEEP_FROM)
      await listSuppliers(deps, { keyword: '青鸾酒', page: 1, pageSize: 20 })
      await vi.waitFor(async () => expect(await usedAt()).toEqual(['旅游服:true']))
    } finally {
      await keeper.stop()
    }
  })

  it('sad: a rare keyword is not kept', async () => {
    expect(await keep('青鸾酒', { minMatches: 2 })).toBe('rare')
    expect(await kept()).not.toContain('青鸾酒:ready')
    expect(
      (
        await h.sql`SELECT count(*)::int AS n FROM supplier_keyword_count WHERE keyword = '青鸾酒'`
      )[0].n,
    ).toBe(0)
  })
})

/** `insertSupplier` inside another connection's open transaction. */
const writerOf = (tx: postgres.TransactionSql) => ({ ...h, sql: tx }) as unknown as Harness

/**
 * Holds supplier_search locked in a transaction of `other` until `release`, which waits for that
 * transaction to end (and may be called again).
 */
async function lockSupplierSearch(other: postgres.Sql) {
  let open!: () => void
  const gate = new Promise<void>((resolve) => (open = resolve))
  let locked!: () => void
  const held = new Promise<void>((resolve) => (locked = resolve))
  const lock = other.begin(async (tx) => {
    await tx`LOCK TABLE supplier_search IN ACCESS EXCLUSIVE MODE`
    locked()
    await gate
  })
  await Promise.race([held, lock])
  return {
    release() {
      open()
      return lock
    },
  }
}

describe.skipIf(embedded)('a build with writers open across it (two connections)', () => {
  it('happy: a writer open before the build and one during it are each counted once', async () => {
    const other = postgres(h.db.url, { max: 2, onnotice: () => {} })
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    let wroteFirst!: () => void
    const first = new Promise<void>((resolve) => (wroteFirst = resolve))
    try {
      // Inserted before the build starts: its trigger sees no keyword, so it records no delta.
      const before = other.begin(async (tx) => {
        await insertSupplier(writerOf(tx), {
          fullName: '台州澜沧旅游服务有限公司',
          status: 'ACTIVE',
        })
        wroteFirst()
        await gate
      })
      await first
      const build = keep('澜沧旅', { waitMs: 20_000 })
      await vi.waitFor(async () => expect(await kept()).toContain('澜沧旅:building'))
      // Inserted while the build waits: its trigger records a delta.
      const during = other.begin(async (tx) => {
        await insertSupplier(writerOf(tx), { fullName: '丽水澜沧旅行社有限公司', status: 'DRAFT' })
        await gate
      })
      await new Promise((resolve) => setTimeout(resolve, 300))
      expect(await kept()).toContain('澜沧旅:building')
      release()
      await Promise.all([before, during])
      expect(await build).toBe('kept')
      const c = await counts()
      expect(c.kept).toEqual(c.recount)
      const all = await expected('澜沧旅')
      expect(all).toHaveLength(2)
      expect(await pages('澜沧旅', 1)).toEqual({ ids: all, totals: [2] })
    } finally {
      release()
      await other.end({ timeout: 5 })
    }
  })

  it('happy: a keyword whose search ran past the statement timeout is noted to be kept', async () => {
    // A session that holds supplier_search locked makes the search wait past its timeout.
    const other = postgres(h.db.url, { max: 1, onnotice: () => {} })
    const timed = postgres(h.db.url, {
      max: 1,
      onnotice: () => {},
      connection: { statement_timeout: 300 },
    })
    const noted: string[] = []
    let lock: Awaited<ReturnType<typeof lockSupplierSearch>> | undefined
    try {
      lock = await lockSupplierSearch(other)
      const query = { keyword: '旅遊服務社', page: 1, pageSize: 20 }
      const keywordKeeper = { note: (f: string, common: boolean) => noted.push(`${f}:${common}`) }
      const deps = { ...h.deps, sql: timed, keywordKeeper }
      await expect(listSuppliers(deps, query)).rejects.toMatchObject({ code: '57014' })
      expect(noted).toEqual(['旅游服务社:true'])
      await lock.release()
      // Answered by the names similar to it, which are not its matches: nothing more is noted.
      await expect(listSuppliers(deps, query)).resolves.toMatchObject({ total: 0 })
      expect(noted).toEqual(['旅游服务社:true'])
    } finally {
      await lock?.release()
      await Promise.all([other.end({ timeout: 5 }), timed.end({ timeout: 5 })])
    }
  })

  it('happy: a SERIALIZABLE writer whose snapshot predates the build is waited for, counted once', async () => {
    const other = postgres(h.db.url, { max: 1, onnotice: () => {} })
    let write!: () => void
    const writing = new Promise<void>((resolve) => (write = resolve))
    let snapshot!: () => void
    const taken = new Promise<void>((resolve) => (snapshot = resolve))
    try {
      // Its snapshot is taken before the build starts, its transaction id only when it writes:
      // after the build's id, with a trigger that cannot see the keyword.
      const writer = other.begin('ISOLATION LEVEL SERIALIZABLE', async (tx) => {
        await tx`SELECT 1`
        snapshot()
        await writing
        await insertSupplier(writerOf(tx), { fullName: '湖州澜沧客栈有限公司', status: 'ACTIVE' })
      })
      await taken
      const build = keep('澜沧客', { waitMs: 20_000 })
      await vi.waitFor(async () => expect(await kept()).toContain('澜沧客:building'))
      await new Promise((resolve) => setTimeout(resolve, 300))
      expect(await kept()).toContain('澜沧客:building')
      write()
      await writer
      expect(await build).toBe('kept')
      const c = await counts()
      expect(c.kept).toEqual(c.recount)
      expect(await pages('澜沧客', 5)).toEqual({ ids: await expected('澜沧客'), totals: [1] })
    } finally {
      write()
      await other.end({ timeout: 5 })
    }
  })

  it('happy: a transaction of another database open across the build is not waited for', async () => {
    const source = inject('database')
    if (source.kind === 'embedded') throw new Error('a server engine only')
    // A dump or a bulk load elsewhere in the cluster: an id and a snapshot older than the build.
    const elsewhere = postgres(source.adminUrl, { max: 1, onnotice: () => {} })
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    let opened!: () => void
    const open = new Promise<void>((resolve) => (opened = resolve))
    try {
      const held = elsewhere.begin('ISOLATION LEVEL REPEATABLE READ', async (tx) => {
        await tx`SELECT txid_current()`
        opened()
        await gate
      })
      await open
      expect(new URL(source.adminUrl).pathname).not.toBe(new URL(h.db.url).pathname)
      await insertSupplier(h, { fullName: '丽水澜沧民宿有限公司', status: 'ACTIVE' })
      // Meanwhile this database serves list reads, one always open, whose snapshots' xmin is the
      // other transaction's id: only those open when the build takes its id are waited for.
      const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
      let reading = true
      const reads: Promise<unknown>[] = []
      const reader = (async () => {
        while (reading) {
          reads.push(
            h.sql.begin('ISOLATION LEVEL REPEATABLE READ READ ONLY', async (tx) => {
              await tx`SELECT count(*) FROM supplier_search`
              await sleep(150)
            }),
          )
          await sleep(50)
        }
      })()
      await sleep(200)
      const outcome = await keep('澜沧民', { waitMs: 3_000 }).finally(() => (reading = false))
      await reader
      await Promise.all(reads)
      expect(outcome).toBe('kept')
      expect(await pages('澜沧民', 5)).toEqual({ ids: await expected('澜沧民'), totals: [1] })
      release()
      await held
    } finally {
      release()
      await elsewhere.end({ timeout: 5 })
    }
  })

  it("happy: a keeper without pg_read_all_stats waits for another role's writer open before the build", async () => {
    const source = inject('database')
    if (source.kind === 'embedded') throw new Error('a server engine only')
    // Such a role sees no backend_type of other roles' sessions; a direct connection, as the
    // role is not the pooler's.
    const role = `keeper_${Math.random().toString(36).slice(2, 10)}`
    const database = new URL(h.db.url).pathname.slice(1)
    await h.sql.unsafe(`CREATE ROLE ${role} LOGIN NOSUPERUSER`)
    await h.sql.unsafe(`GRANT USAGE ON SCHEMA public TO ${role};
      GRANT ALL ON ALL TABLES IN SCHEMA public TO ${role};
      GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO ${role}`)
    const url = new URL(source.adminUrl)
    url.pathname = `/${database}`
    url.username = role
    url.password = ''
    const keeper = connect({ url: url.toString(), max: 2, timezone: 'UTC' })
    const other = postgres(h.db.url, { max: 1, onnotice: () => {} })
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    let wrote!: () => void
    const written = new Promise<void>((resolve) => (wrote = resolve))
    try {
      const [{ hidden }] = await keeper`
        SELECT count(*) FILTER (WHERE backend_type IS NULL AND usesysid IS NOT NULL) > 0 AS hidden
        FROM pg_stat_activity WHERE pid <> pg_backend_pid()`
      expect(hidden).toBe(true)
      const before = other.begin(async (tx) => {
        await insertSupplier(writerOf(tx), { fullName: '金华澜沧客舍有限公司', status: 'ACTIVE' })
        wrote()
        await gate
      })
      await written
      const build = keepKeyword({ sql: keeper }, '澜沧客舍', { minMatches: 1, pollMs: 10 })
      await vi.waitFor(async () => expect(await kept()).toContain('澜沧客舍:building'))
      await new Promise((resolve) => setTimeout(resolve, 300))
      expect(await kept()).toContain('澜沧客舍:building')
      release()
      await before
      expect(await build).toBe('kept')
      const c = await counts()
      expect(c.kept).toEqual(c.recount)
      expect(await pages('澜沧客舍', 5)).toEqual({ ids: await expected('澜沧客舍'), totals: [1] })
    } finally {
      release()
      await Promise.all([other.end({ timeout: 5 }), keeper.end({ timeout: 5 })])
      await h.sql.unsafe(`DROP OWNED BY ${role}; DROP ROLE ${role}`)
    }
  })

  it('sad: a build stopped while it counts cancels the count, leaving no count', async () => {
    // The count waits behind a lock on supplier_search: stopping must not wait for it.
    const other = postgres(h.db.url, { max: 1, onnotice: () => {} })
    const builder = crypto.randomUUID()
    const stopping = new AbortController()
    let lock: Awaited<ReturnType<typeof lockSupplierSearch>> | undefined
    try {
      expect(await startKeywordBuild(h.sql, '澜沧驿', builder)).toBe(true)
      lock = await lockSupplierSearch(other)
      const build = finishKeywordBuild(h.sql, {
        fold: '澜沧驿',
        pairs: keywordTerms('澜沧驿').terms,
        builder,
        minMatches: 1,
        signal: stopping.signal,
      })
      await vi.waitFor(async () => {
        const [{ waiting }] = await h.sql`
          SELECT count(*)::int AS waiting FROM pg_stat_activity
          WHERE wait_event_type = 'Lock' AND query LIKE '%supplier_keyword_source%'`
        expect(waiting).toBe(1)
      })
      const started = Date.now()
      stopping.abort()
      await expect(build).rejects.toMatchObject({ code: '57014' })
      expect(Date.now() - started).toBeLessThan(5_000)
      await lock.release()
      await abandonKeywordBuild(h.sql, '澜沧驿', builder)
      expect(await kept()).not.toContain('澜沧驿:building')
      const [{ n }] = await h.sql`
        SELECT count(*)::int AS n FROM supplier_keyword_count WHERE keyword = '澜沧驿'`
      expect(n).toBe(0)
    } finally {
      await lock?.release()
      await other.end({ timeout: 5 })
    }
  })

  it('sad: a transaction open past the wait abandons the build, leaving nothing', async () => {
    const other = postgres(h.db.url, { max: 1, onnotice: () => {} })
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    let wrote!: () => void
    const written = new Promise<void>((resolve) => (wrote = resolve))
    try {
      const open = other.begin(async (tx) => {
        await insertSupplier(writerOf(tx), { fullName: '衢州澜沧酒店有限公司' })
        wrote()
        await gate
      })
      await written
      expect(await keep('澜沧酒', { waitMs: 300 })).toBe('abandoned')
      expect(await kept()).not.toContain('澜沧酒:building')
      expect(
        (
          await h.sql`SELECT count(*)::int AS n FROM supplier_keyword_count WHERE keyword = '澜沧酒'`
        )[0].n,
      ).toBe(0)
      release()
      await open
      expect(await keep('澜沧酒')).toBe('kept')
      const c = await counts()
      expect(c.kept).toEqual(c.recount)
    } finally {
      release()
      await other.end({ timeout: 5 })
    }
  })
})
