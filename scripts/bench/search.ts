import { readFileSync, writeFileSync } from 'node:fs'
import type postgres from 'postgres'
import { connect } from '../../sql/db'
import { changeLogPage, countChangeLogs, type ChangeLogFilter } from '../../sql/change-log-read'
import { countSuppliers, searchSuppliers, supplierListPage } from '../../sql/supplier-read'
import { backfillSupplierSearch, keywordTerms } from '../../src/domain/supplier/search'
import { KEEP_FROM, keepKeyword } from '../../src/domain/supplier/kept-keywords'
import { romanize } from '../../src/domain/supplier/company-name/dictionaries'
import { createLogger } from '../../src/logger'

/*
 * The search rows of `npm run bench -- --only-search` (docs/benchmarks.md, "Search and filters"):
 * on a seeded data set, the list's keyword in every spelling the list accepts and the approval
 * records' filters, each with its match count and its plan, measured under wrk at each client
 * count in the same run as list page 1 without a keyword, with the machine's load average.
 */

export interface Figures {
  requestsPerSecond: number
  p50: number
  p99: number
  failures: number
  requests?: number
}

export interface SearchHelpers<Started extends { port: number }> {
  wrk: (url: string, o: { connections?: number; seconds?: number }) => Promise<Figures>
  startService: (url: string, fleetPort: number, log: string) => Promise<Started>
  startFleet: (url: string, log: string) => Promise<Started>
  stop: (p: Started | undefined) => Promise<unknown>
  log: (...parts: unknown[]) => void
}

interface Probe {
  name: string
  title: string
  path: string
  /** What the route's verb sends for this request (the SQL module), for `via: 'sql'`. */
  call: (sql: postgres.Sql) => Promise<unknown>
  matches?: number
  plan?: string
  planMs?: number
}

/**
 * `clients` callers of `call`, each sending its next as soon as its last is answered, for
 * `seconds` after 2 s of warm-up, on a pool of `clients` connections: the SQL module's own time,
 * without HTTP (a data set whose service would first spend its start-up on backfills).
 */
async function callers(
  url: string,
  call: Probe['call'],
  clients: number,
  seconds: number,
): Promise<Figures> {
  const sql = connect({ url, max: clients, timezone: 'UTC' })
  const times: number[] = []
  let failures = 0
  const run = async (until: number, record: boolean) => {
    while (Date.now() < until) {
      const t = performance.now()
      try {
        await call(sql)
        if (record) times.push(performance.now() - t)
      } catch {
        if (record) failures++
      }
    }
  }
  try {
    const warm = Date.now() + 2000
    await Promise.all(Array.from({ length: clients }, () => run(warm, false)))
    const end = Date.now() + seconds * 1000
    await Promise.all(Array.from({ length: clients }, () => run(end, true)))
  } finally {
    await sql.end()
  }
  times.sort((a, b) => a - b)
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0
  return {
    requestsPerSecond: times.length / seconds,
    p50: at(0.5),
    p99: at(0.99),
    failures,
    requests: times.length,
  }
}

export interface SearchRow extends Figures {
  scenario: string
  title: string
  suppliers: number
  clients: number
  matches?: number
  plan?: string
  load: string
}

const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')

type PlanNode = Record<string, unknown> & { Plans?: PlanNode[] }
const walk = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(walk)]

/** The scans of a plan, in order: `Bitmap Index Scan supplier_search_terms`, `Seq Scan supplier`. */
function scans(plan: PlanNode) {
  return walk(plan)
    .filter((n) => String(n['Node Type']).includes('Scan') && n['Node Type'] !== 'CTE Scan')
    .map((n) => `${n['Node Type']} ${(n['Index Name'] ?? n['Relation Name']) as string}`)
    .filter((s, i, all) => all.indexOf(s) === i)
    .join(', ')
}

/** The first statement `run` sends (its matches or its count), explained with ANALYZE. */
async function planOf(url: string, run: (sql: postgres.Sql) => Promise<unknown>, pick = 0) {
  const sent: { query: string; params: unknown[] }[] = []
  const spy = connect({
    url,
    max: 1,
    timezone: 'UTC',
    debug: (_c, query, params) => void sent.push({ query, params: params as unknown[] }),
  })
  await spy`SELECT 1`
  sent.length = 0
  await run(spy)
  const statements = sent.filter((s) => !/^\s*(begin|commit|rollback)\b/i.test(s.query))
  const s = statements[pick]
  const [row] = await spy.unsafe(
    `EXPLAIN (ANALYZE, FORMAT JSON) ${s.query}`,
    s.params as postgres.ParameterOrJSON<never>[],
  )
  await spy.end()
  const [{ Plan, 'Execution Time': ms }] = row['QUERY PLAN'] as {
    Plan: PlanNode
    'Execution Time': number
  }[]
  return { plan: scans(Plan), ms }
}

/** Keywords drawn from the seeded names (scripts/bench/seed.ts: city + trade name + industry). */
async function keywords(db: postgres.Sql) {
  // A two-character trade name of a supplier in the middle, its three-character neighbour, the
  // words of a full name, a supplier number: as an administrator would type them.
  const [mid] = await db`
    SELECT full_name AS "fullName", supplier_no AS "supplierNo" FROM supplier
    WHERE deleted_at IS NULL AND supplier_no IS NOT NULL AND full_name ~ '^..[^ ]{2}(景区|餐饮|旅游|文化|酒店)'
    ORDER BY md5(supplier_id::text) LIMIT 1`
  const [three] = await db`
    SELECT substr(full_name, 3, 3) AS trade FROM supplier
    WHERE deleted_at IS NULL AND full_name ~ '^..[^ ]{3}(景区|餐饮|旅游|文化|酒店)'
    ORDER BY md5(supplier_id::text || 'three') LIMIT 1`
  const full = mid.fullName as string
  const trade = full.slice(2, 4)
  return [
    ['kw-1-common', '旅', 'one character, an industry word'],
    ['kw-1-rare', trade.slice(0, 1), 'one character of a trade name'],
    ['kw-2-industry', '旅游', 'two characters, an industry word'],
    ['kw-2-city', '杭州', 'two characters, a city'],
    ['kw-2-trade', trade, 'two characters, a trade name'],
    ['kw-3-trade', three.trade as string, 'three characters, a trade name'],
    ['kw-3-city', '张家界', 'three characters, a city'],
    ['kw-4-common', '有限公司', 'four characters, in nearly every name'],
    ['kw-5', full.slice(0, 5), 'five characters, city and trade name'],
    ['kw-traditional', '旅遊服務', 'an industry word in traditional characters'],
    ['kw-pinyin', romanize(trade), 'the trade name in pinyin'],
    ['kw-initials', [...trade].map((c) => romanize(c)[0]).join(''), "the trade name's initials"],
    ['kw-latin', 'zephyrine', "a Latin name's word"],
    ['kw-number', mid.supplierNo as string, 'a supplier number'],
    ['kw-typo', full.slice(0, 4) + '错字' + full.slice(6), 'a typo (no spelling contains it)'],
  ] as const
}

/** Twenty Latin-named suppliers (the seed writes Chinese names only), copies of seeded rows. */
async function addLatinNames(db: postgres.Sql) {
  await db`
    INSERT INTO supplier (full_name, short_name, tax_no_enc, tax_no_bidx, tax_no_mask,
                          contact_phone_enc, contact_phone_mask, main_cooperation, status,
                          create_time, update_time, created_by, updated_by)
    SELECT 'Zephyrine Voyages ' || s.supplier_id || ' Co., Ltd.', NULL, s.tax_no_enc,
           'benchlatin' || md5(s.supplier_id::text), s.tax_no_mask, s.contact_phone_enc,
           s.contact_phone_mask, s.main_cooperation, 'ACTIVE', s.create_time, s.update_time,
           s.created_by, s.updated_by
    FROM supplier s
    WHERE s.deleted_at IS NULL AND s.status = 'ACTIVE'
      AND NOT EXISTS (SELECT 1 FROM supplier l WHERE l.full_name LIKE 'Zephyrine Voyages %')
    ORDER BY s.supplier_id LIMIT 20`
}

/** One measured row per probe and client count; returns them with the probes' counts and plans. */
export async function searchRun<Started extends { port: number }>(
  url: string,
  suppliers: number,
  clients: number[],
  seconds: number,
  x: SearchHelpers<Started>,
  via: 'http' | 'sql' = 'http',
) {
  const db = connect({ url, max: 1, timezone: 'UTC' })
  await addLatinNames(db)
  const logger = createLogger({ level: 'silent' })
  const started = Date.now()
  const backfill = await backfillSupplierSearch({ sql: db, logger }, { batch: 2000 })
  x.log(`search backfill: ${backfill.written} rows in ${Date.now() - started} ms`)
  await db`VACUUM ANALYZE`
  const tz = 'UTC'
  const probes: Probe[] = [
    {
      name: 'list',
      title: 'list, page 1, no keyword',
      path: '/admin/supplier/items?page=1&pageSize=20',
      call: (sql) => {
        const f = { limit: 20, offset: 0, timezone: tz }
        return Promise.all([supplierListPage(sql, f), countSuppliers(sql, f)])
      },
    },
  ]
  for (const [name, keyword, what] of await keywords(db)) {
    const f = {
      keyword,
      ...keywordTerms(keyword),
      similarity: 0.5,
      limit: 20,
      offset: 0,
      timezone: tz,
    }
    const { total } = await searchSuppliers(db, f)
    // As the service's keeper does after such an answer (src/domain/supplier/kept-keywords.ts).
    if (total >= KEEP_FROM) x.log(`keyword ${keyword}: ${await keepKeyword({ sql: db }, f.fold)}`)
    const { plan, ms } = await planOf(url, (sql) => searchSuppliers(sql, f))
    probes.push({
      name,
      title: `keyword "${keyword}" (${what})`,
      path: `/admin/supplier/items?keyword=${encodeURIComponent(keyword)}&page=1&pageSize=20`,
      call: (sql) => searchSuppliers(sql, f),
      matches: total,
      plan,
      planMs: ms,
    })
  }
  const [{ id: busy }] = await db`
    SELECT supplier_id::text AS id FROM change_log GROUP BY supplier_id ORDER BY count(*) DESC LIMIT 1`
  const [{ d: day }] = await db`
    SELECT to_char(max(create_time) - interval '30 days', 'YYYY-MM-DD HH24:MI:SS') AS d FROM change_log`
  const filters: [string, string, Omit<ChangeLogFilter, 'limit' | 'offset' | 'timezone'>][] = [
    ['records', 'records, no filter', {}],
    ['records-op', 'records, operationType=STATUS_CHANGE', { operationType: 'STATUS_CHANGE' }],
    ['records-field', 'records, fieldName=status', { fieldName: 'status' }],
    ['records-target', 'records, targetType=ACCOUNT', { targetType: 'ACCOUNT' }],
    ['records-status', 'records, status=APPLIED', { status: 'APPLIED' }],
    [
      'records-combo',
      'records, operationType=REGISTRATION_APPLY&fieldName=status',
      { operationType: 'REGISTRATION_APPLY', fieldName: 'status' },
    ],
    [
      'records-supplier',
      'records, supplierId (the busiest)&fieldName=status',
      { supplierId: busy, fieldName: 'status' },
    ],
    ['records-range', 'records, the last 30 days', { createTimeFrom: day }],
    [
      'records-range-field',
      'records, the last 30 days&fieldName=status',
      { createTimeFrom: day, fieldName: 'status' },
    ],
  ]
  for (const [name, title, filter] of filters) {
    const f = { ...filter, limit: 20, offset: 0, timezone: tz }
    const total = await countChangeLogs(db, f)
    const page = await planOf(url, (sql) => changeLogPage(sql, f))
    const count = await planOf(url, (sql) => countChangeLogs(sql, f))
    const query = new URLSearchParams({
      ...(filter as Record<string, string>),
      page: '1',
      pageSize: '20',
    })
    probes.push({
      name,
      title,
      path: `/admin/supplier/approval-records?${query}`,
      call: (sql) => Promise.all([changeLogPage(sql, f), countChangeLogs(sql, f)]),
      matches: total,
      plan: `page: ${page.plan}; total: ${count.plan}`,
      planMs: page.ms + count.ms,
    })
  }
  await db.end()

  const fleet =
    via === 'http' ? await x.startFleet(url, `fleet-search-${suppliers}.log`) : undefined
  const service = fleet
    ? await x.startService(url, fleet.port, `service-search-${suppliers}.log`)
    : undefined
  const measure = async (p: Probe, c: number) => {
    if (!service) return callers(url, p.call, c, seconds)
    const target = `http://127.0.0.1:${service.port}${p.path}`
    await x.wrk(target, { connections: c, seconds: 2 }).catch(() => undefined)
    return x.wrk(target, { connections: c, seconds })
  }
  const rows: SearchRow[] = []
  try {
    for (const c of clients) {
      for (const p of probes) {
        x.log(`${p.title} (${suppliers.toLocaleString('en')} suppliers, ${c} clients, ${via})`)
        const load = loadAverage()
        const figures = await measure(p, c)
        rows.push({
          scenario: p.name,
          title: p.title,
          suppliers,
          clients: c,
          matches: p.matches,
          plan: p.plan,
          load,
          ...figures,
        })
      }
    }
  } finally {
    await Promise.all([x.stop(service), x.stop(fleet)])
  }
  writeFileSync(
    `.bench/search-${suppliers}-${via}.json`,
    JSON.stringify({ probes: probes.map(({ call: _, ...p }) => p), rows }, null, 2),
  )
  return { probes, rows }
}

/** The rows as a markdown table: p50 and p99 at each client count, matches, load, plan. */
export function searchTable(probes: Probe[], rows: SearchRow[], clients: number[]) {
  const list = (c: number) => rows.find((r) => r.scenario === 'list' && r.clients === c)!
  const lines = [
    `| request | matches | ${clients.map((c) => `${c} client${c > 1 ? 's' : ''}: p50 / p99 (× list p50) · load`).join(' | ')} | plan (EXPLAIN ANALYZE, ms) |`,
    `|---|---|${clients.map(() => '---').join('|')}|---|`,
  ]
  for (const p of probes) {
    const cells = clients.map((c) => {
      const r = rows.find((x) => x.scenario === p.name && x.clients === c)
      if (!r) return '–'
      const ratio = r.p50 / list(c).p50
      const fail = r.failures ? `, ${r.failures} failed` : ''
      return `${r.p50.toFixed(1)} / ${r.p99.toFixed(1)} ms (${ratio.toFixed(1)} ×${fail}) · ${r.load.split(' ')[0]}`
    })
    lines.push(
      `| ${p.title} | ${p.matches?.toLocaleString('en') ?? '–'} | ${cells.join(' | ')} | ${p.plan ? `${p.plan} (${p.planMs?.toFixed(1)})` : '–'} |`,
    )
  }
  return lines.join('\n')
}
