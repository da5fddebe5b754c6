import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { changeLogPage, countChangeLogs, type ChangeLogFilter } from '../sql/change-log-read'
import { countExpiringQualifications, expiringQualificationPage } from '../sql/compliance'
import { connect } from '../sql/db'
import { relationPage } from '../sql/resource'
import {
  countSuppliers,
  searchSuppliers,
  supplierDetail,
  supplierListPage,
  type SupplierListFilter,
} from '../sql/supplier-read'
import { supplierAccountInfo } from '../sql/account'
import { probeIdentity, registrationClashes } from '../sql/supplier'
import { lockChainHead, sealApprovalRowTakingIds } from '../sql/audit-trail'
import { SUPPLIER_SORT_KEYS } from '../src/vocabulary'
import { createTestDatabase, type TestDatabase } from './harness'
import { backfillSupplierSearch, keywordTerms } from '../src/domain/supplier/search'
import { keepKeyword } from '../src/domain/supplier/kept-keywords'
import { createLogger } from '../src/logger'
import { BUSY, LARGE, loadPlanData } from './plans-data'

/*
 * Query plans of the hot read paths on a database big enough for the planner to care: every
 * statement the SQL modules really send (captured through postgres.js's `debug` hook while the
 * real functions run, with their parameters) is explained, and no table loaded in bulk below may
 * be read by a sequential scan. Small dictionary tables (dict_*, qualification_rule, resource_*
 * reference tables) may be.
 */

const TIMEZONE = 'Asia/Shanghai'
interface Sent {
  query: string
  params: unknown[]
}

interface Finding {
  table: string
  alias: string | undefined
  node: string
  where: string
  rows: number
  filter: string | undefined
}

/** A sequential scan that is the right plan: one table, in the statements matching `statement`. */
interface Allowance {
  table: string
  statement: RegExp
  /** Why, for the reader of the test. */
  reason: string
}

type PlanNode = Record<string, unknown> & { Plans?: PlanNode[] }

/** Every node of a plan with where it sits (init plan, sub plan, inner or outer side). */
function walk(node: PlanNode, path: string[] = []): { node: PlanNode; path: string[] }[] {
  const here = [
    ...path,
    `${node['Node Type']}${node['Subplan Name'] ? ` (${node['Subplan Name']})` : ''}`,
  ]
  return [{ node, path: here }, ...(node.Plans ?? []).flatMap((child) => walk(child, here))]
}

/** Sequential scans of large tables in a JSON plan. */
export function seqScansOfLargeTables(plan: PlanNode): Finding[] {
  return walk(plan)
    .filter(
      ({ node }) => node['Node Type'] === 'Seq Scan' && LARGE.has(node['Relation Name'] as string),
    )
    .map(({ node, path }) => ({
      table: node['Relation Name'] as string,
      alias: node.Alias as string | undefined,
      node: node['Parallel Aware'] ? 'Parallel Seq Scan' : 'Seq Scan',
      where: path.join(' > '),
      rows: node['Plan Rows'] as number,
      filter: node.Filter as string | undefined,
    }))
}

/** Every index named anywhere in a plan. */
const indexesOf = (plan: PlanNode) =>
  walk(plan)
    .map(({ node }) => node['Index Name'] as string | undefined)
    .filter((x): x is string => x !== undefined)

/**
 * How the rows a page keeps are chosen: the subtree under the statement's LIMIT. A page read in
 * order from an index has no Sort there, and OFFSET then skips index entries, not sorted rows.
 */
function pageChoice(plan: PlanNode) {
  const limits = walk(plan).filter(({ node }) => node['Node Type'] === 'Limit')
  expect(limits, 'one LIMIT in the page statement').toHaveLength(1)
  const under = walk(limits[0].node).map(({ node }) => node)
  return {
    sorts: under.filter((n) => n['Node Type'] === 'Sort').length,
    /** `Index Only Scan using <index>` for each scan under the LIMIT. */
    scans: under
      .filter((n) => String(n['Node Type']).includes('Scan'))
      .map((n) => `${n['Node Type']}${n['Index Name'] ? ` using ${n['Index Name']}` : ''}`),
  }
}

/** The tables a plan reads. */
const tablesOf = (plan: PlanNode) =>
  walk(plan)
    .map(({ node }) => node['Relation Name'] as string | undefined)
    .filter((x): x is string => x !== undefined)

class RolledBack extends Error {
  constructor(
    readonly findings: Finding[],
    readonly text: string,
  ) {
    super('rolled back')
  }
}

const oneLine = (query: string) => query.replace(/\s+/g, ' ').trim()

describe('query plans of the read paths on a loaded database', () => {
  let db: TestDatabase
  /** The connection the SQL functions run on; its debug hook records what they send. */
  let spy: postgres.Sql
  let recording: Sent[] | null = null
  const id = { busy: '', typical: '', deleted: '' }

  beforeAll(async () => {
    // The load writes its change-log and approval rows with SQL, around the service: unsealed
    // by design, so its trail is not expected whole.
    db = await createTestDatabase(TIMEZONE, undefined, { auditTrail: 'tampered' })
    const nth = await loadPlanData(db.sql)
    // The keyword's spellings of the loaded suppliers, as the service's backfill writes them.
    const logger = createLogger({ level: 'silent' })
    await backfillSupplierSearch({ sql: db.sql, logger }, { batch: 5000 })
    await db.sql`ANALYZE supplier_search`
    await db.sql`ANALYZE supplier_term_count`
    id.busy = nth(BUSY)
    id.typical = nth(777)
    id.deleted = nth(19_902) // a DRAFT, soft-deleted (g % 100 < 10, g % 3 = 0)
    spy = connect({
      url: db.url,
      max: 1,
      timezone: TIMEZONE,
      applicationName: 'plan-check',
      debug: (_connection, query, parameters) => {
        recording?.push({ query, params: parameters as unknown[] })
      },
    })
    await spy`SELECT 1` // the connection's own start-up queries are not recorded
  }, 300_000)

  afterAll(async () => {
    await spy?.end({ timeout: 5 })
    await db?.close()
  })

  /** The statements `run` sends through the spy connection, in order. */
  async function capture(run: (sql: postgres.Sql) => Promise<unknown>): Promise<Sent[]> {
    recording = []
    try {
      await run(spy)
      return recording
    } finally {
      recording = null
    }
  }

  async function explain(sql: postgres.Sql | postgres.TransactionSql, sent: Sent) {
    const params = sent.params as postgres.ParameterOrJSON<never>[]
    const [row] = await sql.unsafe(`EXPLAIN (FORMAT JSON) ${sent.query}`, params)
    return (row['QUERY PLAN'] as { Plan: PlanNode }[])[0].Plan
  }

  /** The plan as run (actual rows), with the same parameters. */
  async function analyzed(sent: Sent) {
    const params = sent.params as postgres.ParameterOrJSON<never>[]
    const [row] = await db.sql.unsafe(`EXPLAIN (ANALYZE, FORMAT JSON) ${sent.query}`, params)
    return (row['QUERY PLAN'] as { Plan: PlanNode }[])[0].Plan
  }

  /** A report a DBA can act on: what is scanned, where in the plan, the statement, the plan. */
  async function report(
    sql: postgres.Sql | postgres.TransactionSql,
    what: string,
    sent: Sent,
    findings: Finding[],
  ) {
    const text = await sql.unsafe(
      `EXPLAIN ${sent.query}`,
      sent.params as postgres.ParameterOrJSON<never>[],
    )
    return [
      `${what}: sequential scan of a large table`,
      ...findings.map(
        (f) =>
          `  ${f.node} on ${f.table}${f.alias && f.alias !== f.table ? ` ${f.alias}` : ''}` +
          ` (~${f.rows} rows${f.filter ? `, Filter: ${f.filter}` : ''})\n    at ${f.where}`,
      ),
      `statement: ${oneLine(sent.query)}`,
      `parameters: ${JSON.stringify(sent.params)}`,
      'plan:',
      ...text.map((r) => `  ${r['QUERY PLAN']}`),
    ].join('\n')
  }

  /**
   * Runs `run` (real SQL-module functions), explains every statement it sent with the same
   * parameters, and fails with a report if any plan reads a large table sequentially. Returns
   * the plans for further assertions.
   */
  async function checkPlans(
    what: string,
    run: (sql: postgres.Sql) => Promise<unknown>,
    allow: Allowance[] = [],
  ) {
    // Transaction control and the keyword search's SET LOCAL have no plan.
    const sent = (await capture(run)).filter(
      (s) => !/^\s*(begin|commit|rollback)\b/i.test(s.query) && !s.query.includes('set_config('),
    )
    expect(sent.length, `${what}: no statement captured`).toBeGreaterThan(0)
    const plans: PlanNode[] = []
    const reports: string[] = []
    for (const s of sent) {
      const plan = await explain(db.sql, s)
      plans.push(plan)
      const findings = seqScansOfLargeTables(plan).filter(
        (f) => !allow.some((a) => a.table === f.table && a.statement.test(oneLine(s.query))),
      )
      if (findings.length > 0) reports.push(await report(db.sql, what, s, findings))
    }
    if (reports.length > 0) expect.fail(reports.join('\n\n'))
    return plans
  }

  const list = (f: Partial<SupplierListFilter>): SupplierListFilter => ({
    limit: 20,
    offset: 0,
    timezone: TIMEZONE,
    ...f,
  })

  describe('supplier list (SUP-ADM-001)', () => {
    it('default order', async () => {
      await checkPlans('supplier list, default order', (sql) => supplierListPage(sql, list({})))
    })

    // The page's ids come from the order index alone, in order, however deep the page; only
    // those 20 rows are then read and decorated. (A deep page of a rare status is rather a sort
    // of that status's few rows, which is right too.)
    for (const [filter, offset] of [
      [{}, 0],
      [{}, 4000],
      [{ status: 'ACTIVE' }, 0],
      [{ status: 'ACTIVE' }, 4000],
      [{ status: 'FROZEN' }, 0],
    ] as const) {
      it(`page ids from the order index alone: ${JSON.stringify(filter)} @${offset}`, async () => {
        const [plan] = await checkPlans('supplier list ids', (sql) =>
          supplierListPage(sql, list({ ...filter, offset })),
        )
        expect(pageChoice(plan)).toEqual({
          sorts: 0,
          scans: ['Index Only Scan using supplier_list_order'],
        })
      })
    }

    // A type's page walks that type's rows alone, in order, and probes each supplier by its key
    // (both index-only); other types' rows are never read, at any depth or direction.
    for (const [filter, offset] of [
      [{ typeCode: 'HOTEL' }, 0],
      // About a fourth of HOTEL's 3,800 live rows here; at 4,000, past its end, the planner
      // rightly reads them all (a hash join and a sort).
      [{ typeCode: 'HOTEL' }, 1000],
      [{ typeCode: 'HOTEL', sortBy: 'createTime', sortDirection: 'ASC' }, 0],
      [{ typeCode: 'HOTEL', status: 'ACTIVE' }, 0],
    ] as const) {
      it(`page ids of a type from supplier_type_list_order: ${JSON.stringify(filter)} @${offset}`, async () => {
        const [plan] = await checkPlans('supplier list ids, typeCode', (sql) =>
          supplierListPage(sql, list({ ...filter, offset })),
        )
        expect(pageChoice(plan)).toEqual({
          sorts: 0,
          scans: [
            'Index Only Scan using supplier_type_list_order',
            'Index Only Scan using supplier_live_status',
          ],
        })
      })
    }

    for (const filter of [
      {},
      { status: 'ACTIVE' },
      { typeCode: 'HOTEL' },
      { status: 'FROZEN', typeCode: 'FLEET' },
    ]) {
      it(`total without a keyword reads list_count only: ${JSON.stringify(filter)}`, async () => {
        const plans = await checkPlans('supplier total', (sql) => countSuppliers(sql, list(filter)))
        expect(plans.flatMap(tablesOf)).toEqual(['list_count'])
      })
    }

    for (const sortBy of SUPPLIER_SORT_KEYS) {
      for (const sortDirection of ['ASC', 'DESC'] as const) {
        it(`sorted by ${sortBy} ${sortDirection}`, async () => {
          await checkPlans(`supplier list by ${sortBy} ${sortDirection}`, (sql) =>
            supplierListPage(sql, list({ sortBy, sortDirection })),
          )
        })
      }
    }

    for (const filter of [
      { status: 'ACTIVE' },
      { status: 'SUSPENDED' },
      { typeCode: 'HOTEL' },
      { status: 'FROZEN', typeCode: 'FLEET' },
      { status: 'ACTIVE', sortBy: 'fullName' as const, sortDirection: 'ASC' as const },
      { typeCode: 'SCENIC', sortBy: 'updateTime' as const, sortDirection: 'DESC' as const },
    ]) {
      it(`filtered: ${JSON.stringify(filter)}`, async () => {
        await checkPlans(`supplier list ${JSON.stringify(filter)}`, async (sql) => {
          await supplierListPage(sql, list(filter))
          await countSuppliers(sql, list(filter))
        })
      })
    }
  })

  describe('keyword search', () => {
    // A keyword finds its matches through supplier_search alone, and supplier is read by key for
    // the page's rows only. A keyword no spelling contains (the Han ones here, a typo) then reads
    // the trigram indexes for similar names.
    // A keyword of one or two characters is one index term: its total is read from
    // supplier_term_count and, when it is common enough, its page walks supplier_search in the
    // list's order (no sort of its matches); the Han ones match nothing and then look for similar
    // names.
    for (const [keyword, similar] of [
      ['l', false],
      ['li', false],
      ['湖', true],
      ['湖畔', true],
    ] as const) {
      it(`"${keyword}" is counted from supplier_term_count and walked in order`, async () => {
        const plans = await checkPlans(`keyword "${keyword}"`, (sql) =>
          searchSuppliers(sql, { ...list({}), keyword, ...keywordTerms(keyword), similarity: 0.5 }),
        )
        expect(tablesOf(plans[0])).not.toContain('supplier')
        expect(indexesOf(plans[0])).toEqual(
          expect.arrayContaining([
            'supplier_term_count_key',
            'supplier_search_uncounted',
            'supplier_search_full_fold',
          ]),
        )
        if (similar) {
          expect(plans).toHaveLength(2)
          expect(indexesOf(plans[1])).toEqual(
            expect.arrayContaining(['supplier_full_name_trgm', 'supplier_short_name_trgm']),
          )
          return
        }
        expect(plans).toHaveLength(3)
        expect(pageChoice(plans[1])).toEqual({
          sorts: 0,
          scans: ['Index Scan using supplier_search_list_order'],
        })
        expect(indexesOf(plans[2]).filter((i) => i.endsWith('_trgm'))).toEqual([])
      })
    }

    // Longer keywords not kept, and any with a type or another order, read a GIN index once
    // supplier_keyword says the keyword is not kept: one of letters a-z alone (pinyin, a Latin
    // word) its sequences of letters (supplier_search_latin), any other the terms.
    for (const [keyword, matchStatements, rows, index] of [
      ['lingxiu', 1, 1, 'supplier_search_latin'],
      ['Lingxiu Travel', 1, 1, 'supplier_search_latin'],
      ['ningbo jinhong', 2, 0, 'supplier_search_latin'],
      ['xiu', 1, 1, 'supplier_search_latin'],
      ['湖畔旅游', 2, 0, 'supplier_search_terms'],
    ] as const) {
      it(`"${keyword}" reads ${index}, and supplier by key only`, async () => {
        const [kept, ...plans] = await checkPlans(`keyword "${keyword}"`, (sql) =>
          searchSuppliers(sql, {
            ...list({}),
            keyword,
            ...keywordTerms(keyword),
            similarity: 0.5,
          }),
        )
        expect(indexesOf(kept)).toContain('supplier_keyword_pkey')
        expect(plans).toHaveLength(matchStatements + rows)
        // The matches come from supplier_search alone (by its index, unless every name matches).
        expect(tablesOf(plans[0])).not.toContain('supplier')
        expect(indexesOf(plans[0])).toContain(index)
        expect(indexesOf(plans[0])).not.toContain(
          index === 'supplier_search_terms' ? 'supplier_search_latin' : 'supplier_search_terms',
        )
        for (const plan of plans.slice(1, matchStatements)) {
          expect(indexesOf(plan)).toEqual(
            expect.arrayContaining(['supplier_full_name_trgm', 'supplier_short_name_trgm']),
          )
        }
        for (const plan of plans.slice(matchStatements)) {
          expect(indexesOf(plan).filter((i) => i.endsWith('_trgm'))).toEqual([])
        }
      })
    }

    // A kept keyword of three or more characters ("travel": a tenth of the suppliers) is served
    // as one character is: its total from supplier_keyword_count, its page walked in order.
    for (const filter of [{}, { status: 'ACTIVE' }]) {
      it(`a kept keyword's total reads supplier_keyword_count, its page walks the list order: ${JSON.stringify(filter)}`, async () => {
        expect(['kept', 'used']).toContain(
          await keepKeyword({ sql: db.sql }, 'travel', { minMatches: 1 }),
        )
        await db.sql`ANALYZE supplier_keyword_count`
        const plans = await checkPlans(`kept keyword "travel"`, (sql) =>
          searchSuppliers(sql, { ...list(filter), keyword: 'Travel', ...keywordTerms('Travel') }),
        )
        expect(plans).toHaveLength(3)
        expect(tablesOf(plans[0])).not.toContain('supplier')
        // (A few rows here: read whole, by supplier_keyword_count_key once it holds many keys.)
        expect(tablesOf(plans[0])).toContain('supplier_keyword_count')
        expect(indexesOf(plans[0])).toContain('supplier_keyword_pkey')
        expect(plans.flatMap(indexesOf)).not.toContain('supplier_search_terms')
        expect(pageChoice(plans[1])).toEqual({
          sorts: 0,
          scans: ['Index Scan using supplier_search_list_order'],
        })
      })
    }

    // A keyword with a digit (a supplier number, whole or a part) is looked up by the numbers
    // holding it (the range of supplier_search_number it starts, or the trigrams of
    // supplier_search_number_trgm for digits alone) and the rows whose names hold a digit
    // (supplier_search_digits, empty here), never by the terms, whose pairs of digits most rows'
    // numbers hold: no sequential read of supplier or supplier_search.
    for (const [keyword, filter, numbers] of [
      ['SP112345', {}, ['supplier_search_number']],
      ['sp112', {}, ['supplier_search_number']],
      ['P1123', { status: 'ACTIVE' }, ['supplier_search_number']],
      ['SP1123', { typeCode: 'HOTEL', sortBy: 'supplierNo' as const }, ['supplier_search_number']],
      ['12345', {}, ['supplier_search_number_trgm']],
      ['li9', {}, []],
    ] as const) {
      it(`"${keyword}" ${JSON.stringify(filter)} reads the number indexes, not the terms`, async () => {
        const plans = await checkPlans(`keyword "${keyword}"`, (sql) =>
          searchSuppliers(sql, {
            ...list(filter),
            keyword,
            ...keywordTerms(keyword),
            similarity: 0.5,
          }),
        )
        const indexes = plans.flatMap(indexesOf)
        expect(indexes).toEqual(expect.arrayContaining(['supplier_search_digits', ...numbers]))
        expect(indexes).not.toContain('supplier_search_terms')
        // (After the kept counts, which hold no such keyword here.)
        const matches = plans.find((p) => indexesOf(p).includes('supplier_search_digits'))
        expect(tablesOf(matches!)).not.toContain('supplier')
      })
    }

    for (const filter of [
      { status: 'ACTIVE' },
      { typeCode: 'HOTEL' },
      { sortBy: 'fullName' as const, sortDirection: 'ASC' as const },
      { sortBy: 'supplierNo' as const, sortDirection: 'DESC' as const },
    ]) {
      it(`"li" with ${JSON.stringify(filter)}`, async () => {
        await checkPlans(`keyword "li" ${JSON.stringify(filter)}`, (sql) =>
          searchSuppliers(sql, { ...list(filter), keyword: 'li', ...keywordTerms('li') }),
        )
      })
    }
  })

  describe('supplier detail', () => {
    it('basic information and account information', async () => {
      for (const supplierId of [id.typical, id.busy, id.deleted]) {
        await checkPlans(`supplier detail ${supplierId}`, async (sql) => {
          await supplierDetail(sql, supplierId, TIMEZONE)
          await supplierAccountInfo(sql, supplierId, TIMEZONE)
        })
      }
    })
  })

  describe('resource-information relations', () => {
    for (const resourceModule of [undefined, 'HOTEL'] as const) {
      for (const offset of [0, 4000]) {
        it(`module ${resourceModule ?? 'all'}, offset ${offset}`, async () => {
          await checkPlans(`relation page ${resourceModule ?? 'all'} @${offset}`, (sql) =>
            relationPage(sql, { supplierId: id.busy, resourceModule, limit: 20, offset }),
          )
        })
      }
    }
  })

  describe('change log (approval records)', () => {
    const f = { limit: 20, offset: 0, timezone: TIMEZONE }
    for (const who of ['busy', 'typical', 'unfiltered'] as const) {
      it(`${who}`, async () => {
        const supplierId = who === 'unfiltered' ? undefined : id[who]
        await checkPlans(`change log ${who}`, async (sql) => {
          await changeLogPage(sql, { ...f, supplierId })
          await countChangeLogs(sql, { ...f, supplierId })
        })
      })
    }

    // Ordered by the second a row is shown at (an expression index), the page's ids are read
    // from the index alone, in order, for one supplier and for all, at any depth; the unfiltered
    // total is kept in list_count.
    for (const [who, index] of [
      ['busy', 'change_log_supplier'],
      ['unfiltered', 'change_log_order'],
    ] as const) {
      for (const offset of [0, 2000]) {
        it(`page ids from ${index} alone: ${who} @${offset}`, async () => {
          const supplierId = who === 'unfiltered' ? undefined : id[who]
          const [page, total] = await checkPlans(`change log ids ${who}`, async (sql) => {
            await changeLogPage(sql, { ...f, supplierId, offset })
            await countChangeLogs(sql, { ...f, supplierId })
          })
          expect(pageChoice(page)).toEqual({ sorts: 0, scans: [`Index Only Scan using ${index}`] })
          if (!supplierId) expect(tablesOf(total)).toEqual(['list_count'])
        })
      }
    }

    // Every filter of SUP-ADM-012 and combinations of them: the page and the exact total read
    // indexes only (each categorical filter has its index in the list's order), never change_log
    // whole, for common values (a third of the rows) as for rare ones.
    const range = { createTimeFrom: '2026-01-01 00:00:00', createTimeTo: '2026-01-31 23:59:59' }
    for (const filter of [
      { operationType: 'DRAFT_CREATE' },
      { operationType: 'ACCOUNT_CREATE' },
      { fieldName: 'status' },
      { fieldName: 'bankAccount' },
      { targetType: 'SUPPLIER' },
      { targetType: 'ACCOUNT' },
      { status: 'APPLIED' },
      { approvalLogId: 'first' },
      { operationType: 'REGISTRATION_SUBMIT', fieldName: 'status' },
      { operationType: 'DRAFT_UPDATE', status: 'APPLIED', targetType: 'SUPPLIER' },
      { fieldName: 'status', ...range },
      { operationType: 'ACCOUNT_CREATE', supplierId: 'busy' },
      { fieldName: 'status', supplierId: 'busy', ...range },
    ]) {
      it(`filtered: ${JSON.stringify(filter)}`, async () => {
        const [approval] = await db.sql`
          SELECT approval_log_id::text AS id FROM approval_log ORDER BY approval_log_id LIMIT 1`
        const g = {
          ...filter,
          ...(filter.supplierId && { supplierId: id.busy }),
          ...(filter.approvalLogId && { approvalLogId: approval.id as string }),
        }
        await checkPlans(`change log ${JSON.stringify(filter)}`, async (sql) => {
          await changeLogPage(sql, { ...f, ...g })
          await changeLogPage(sql, { ...f, ...g, offset: 400 })
          await countChangeLogs(sql, { ...f, ...g })
        })
      })
    }

    /** Rows each scan of `index` returned in a plan as run, all loops together. */
    const rowsFrom = (plan: PlanNode, index: string) =>
      walk(plan)
        .filter(({ node }) => node['Index Name'] === index)
        .reduce(
          (n, { node }) => n + (node['Actual Rows'] as number) * (node['Actual Loops'] as number),
          0,
        )

    /** The most rows any Sort of a plan as run was given. */
    const largestSort = (plan: PlanNode) =>
      Math.max(
        0,
        ...walk(plan)
          .filter(({ node }) => node['Node Type'] === 'Sort')
          .map(({ node }) =>
            (node.Plans ?? []).reduce(
              (n, c) => n + (c['Actual Rows'] as number) * (c['Actual Loops'] as number),
              0,
            ),
          ),
      )

    /** The log's category keys (change_log_count) a filter matches. */
    const keysMatching = async (filter: Partial<ChangeLogFilter>) => {
      const [row] = await db.sql`
        SELECT count(DISTINCT (operation_type, target_type, field_name, status))::int AS n
        FROM change_log_count
        WHERE (${filter.operationType ?? null}::text IS NULL OR operation_type = ${filter.operationType ?? null})
          AND (${filter.targetType ?? null}::text IS NULL OR target_type = ${filter.targetType ?? null})
          AND (${filter.fieldName ?? null}::text IS NULL OR field_name = ${filter.fieldName ?? null})
          AND (${filter.status ?? null}::text IS NULL OR status = ${filter.status ?? null})`
      return row.n as number
    }

    // Two categories or more, or a category within a supplier: the page is the first rows of each
    // category key the filter matches, each a range of change_log_key (change_log_supplier_key)
    // in the list's order, merged: what is sorted is at most offset + limit rows per key, never
    // the matches, and no other category's index is walked and filtered. The total is
    // change_log_count's, or the supplier's key ranges counted.
    for (const [filter, index] of [
      [{ operationType: 'REGISTRATION_SUBMIT', fieldName: 'status' }, 'change_log_key'],
      [{ targetType: 'SUPPLIER', status: 'APPLIED' }, 'change_log_key'],
      [
        { operationType: 'DRAFT_UPDATE', targetType: 'SUPPLIER', fieldName: 'address' },
        'change_log_key',
      ],
      [{ supplierId: 'busy', fieldName: 'status' }, 'change_log_supplier_key'],
      [{ supplierId: 'busy', operationType: 'ACCOUNT_CREATE' }, 'change_log_supplier_key'],
    ] as const) {
      for (const offset of [0, 400]) {
        it(`page of each category key from ${index}: ${JSON.stringify(filter)} @${offset}`, async () => {
          const g = { ...filter, ...('supplierId' in filter && { supplierId: id.busy }) }
          const sent = await capture(async (sql) => {
            await changeLogPage(sql, { ...f, ...g, offset })
            await countChangeLogs(sql, { ...f, ...g })
          })
          const [page, total] = await Promise.all(sent.map(analyzed))
          const scans = walk(page)
            .filter(({ node }) => node['Relation Name'] === 'change_log')
            .map(({ node }) => `${node['Node Type']} using ${node['Index Name']}`)
          expect(new Set(scans)).toEqual(
            new Set([`Index Only Scan using ${index}`, 'Index Scan using change_log_pkey']),
          )
          const keys = await keysMatching(filter)
          expect(keys).toBeGreaterThan(0)
          expect(largestSort(page)).toBeLessThanOrEqual((offset + f.limit) * keys)
          if ('supplierId' in filter) {
            expect(indexesOf(total).filter((i) => i !== 'change_log_count_key')).toEqual([index])
            expect(largestSort(total)).toBeLessThanOrEqual(keys)
          } else {
            expect(tablesOf(total)).toEqual(['change_log_count'])
          }
        })
      }
    }

    // A time range's page is a range of the order index (of one category's index), and its total
    // the kept rows of its whole days and months (change_log_day_count) plus the rows of its two
    // partial days at the ends, counted from an index: not every row of the range.
    for (const filter of [
      {},
      { fieldName: 'status' },
      { operationType: 'DRAFT_CREATE', targetType: 'SUPPLIER' },
    ]) {
      it(`a time range: page in order, total from kept days: ${JSON.stringify(filter)}`, async () => {
        const [bounds] = await db.sql`
          SELECT to_char(now() AT TIME ZONE ${TIMEZONE} - interval '40 days 3 hours', 'YYYY-MM-DD HH24:MI:SS') AS "from",
                 to_char(now() AT TIME ZONE ${TIMEZONE} - interval '9 days 5 hours', 'YYYY-MM-DD HH24:MI:SS') AS "to"`
        const range = { createTimeFrom: bounds.from as string, createTimeTo: bounds.to as string }
        const sent = await capture(async (sql) => {
          await changeLogPage(sql, { ...f, ...filter, ...range })
          await countChangeLogs(sql, { ...f, ...filter, ...range })
        })
        await checkPlans('change log time range', async (sql) => {
          await changeLogPage(sql, { ...f, ...filter, ...range })
          await countChangeLogs(sql, { ...f, ...filter, ...range })
        })
        const [page, total] = await Promise.all(sent.map(analyzed))
        const counted = await countChangeLogs(db.sql, { ...f, ...filter, ...range })
        expect(counted).toBeGreaterThan(5000)
        const order = {
          '{}': 'change_log_order',
          '{"fieldName":"status"}': 'change_log_field',
        }[JSON.stringify(filter)]
        if (order) {
          expect(pageChoice(page)).toEqual({ sorts: 0, scans: [`Index Only Scan using ${order}`] })
        } else {
          expect(largestSort(page)).toBeLessThanOrEqual(f.limit * (await keysMatching(filter)))
        }
        const edges = Object.keys(filter).length === 0 ? 'change_log_order' : 'change_log_key'
        // (change_log_count_key: the filter's category keys)
        expect(new Set(indexesOf(total).filter((i) => i !== 'change_log_count_key'))).toEqual(
          new Set(['change_log_day_count_key', edges]),
        )
        // Two partial days of about 620 rows each (a supplier every 7 minutes, three rows each).
        expect(rowsFrom(total, edges)).toBeLessThan(1300)
        expect(rowsFrom(total, edges)).toBeGreaterThan(0)
      })
    }
  })

  describe('the list totals kept by triggers', () => {
    it('a status change, a type added and a type removed scan no large table', async () => {
      // What the triggers read (the supplier's live types, the supplier FOR SHARE, the rows of
      // list_count) is not sent by the SQL modules; the transaction's own scan counters show it.
      // PostgreSQL 15 and later show, in pg_stat_xact_*, the counts of the connection's earlier
      // transactions that are not yet flushed (at most once a second): a pooled connection that
      // scanned `supplier` just before would show it here. So the counters are read before and after.
      const tables = [...LARGE, 'qualification_rule']
      const seqScans = async (tx: postgres.TransactionSql) =>
        new Map(
          (
            await tx`
              SELECT relname, seq_scan::int AS n FROM pg_stat_xact_user_tables
              WHERE relname = ANY(${tables}::text[])`
          ).map((r) => [r.relname as string, r.n as number]),
        )
      const scans = await db.sql
        .begin(async (tx) => {
          // A whole read of `supplier` before the counters are first read stands for such a
          // connection: it must not count.
          await tx`SELECT count(remark) FROM supplier`
          const before = await seqScans(tx)
          await tx`UPDATE supplier SET status = 'SUSPENDED' WHERE supplier_id = ${id.typical}`
          await tx`INSERT INTO supplier_type (supplier_id, type_code) VALUES (${id.typical}, 'RENTAL')`
          await tx`
            UPDATE supplier_type SET deleted_at = now()
            WHERE supplier_id = ${id.typical} AND type_code = 'RENTAL' AND deleted_at IS NULL`
          const rows = [...(await seqScans(tx))]
            .map(([relname, n]) => ({ relname, seq_scan: n - (before.get(relname) ?? 0) }))
            .filter((r) => r.seq_scan > 0)
          // The counters do count on this engine: a small table read whole shows.
          await tx`SELECT count(*) FROM qualification_rule`
          const after = await seqScans(tx)
          expect(after.get('qualification_rule')! - (before.get('qualification_rule') ?? 0)).toBe(1)
          throw new RolledBack([], JSON.stringify(rows))
        })
        .catch((err: unknown) => {
          if (!(err instanceof RolledBack)) throw err
          return JSON.parse(err.text) as unknown[]
        })
      expect(scans).toEqual([])
    })
  })

  describe('plans kept across executions', () => {
    it("the registration rules' reads run on their generic plan, not one planned at every execution", async () => {
      // Twice a registration, 0.5-0.7 ms to plan afresh against 0.07 ms to run (docs/duplicates.md).
      const check = { typeCodes: ['HOTEL', 'SCENIC'], today: '2026-11-27', accountNoBidxs: ['x'] }
      const [sent] = await capture((sql) => registrationClashes(sql, id.typical, check))
      for (let i = 0; i < 7; i++) await registrationClashes(spy, id.typical, check)
      // PostgreSQL plans the first five executions afresh, then compares. The embedded engine
      // serves every connection in one session, so other connections' statements are listed too.
      const plans = await spy`
        SELECT generic_plans::int AS generic FROM pg_prepared_statements
        WHERE statement = ${sent.query}
      `
      expect(Math.max(0, ...plans.map((p) => p.generic as number))).toBeGreaterThanOrEqual(3)
    })

    it("the identity probe and the audit chain's head keep their generic plans too", async () => {
      // Keys for the probe to estimate from: the planner reads a literal array against the keys'
      // statistics and prices that custom plan below the generic one, so it planned the probe
      // afresh at every execution (0.1 ms of planning, twice a registration); the same for the
      // head's generate_series(1, n), exact when n is known and 1,000 rows when it is not.
      await db.sql`
        INSERT INTO supplier_name_key (supplier_id, keys)
        SELECT supplier_id, ARRAY['t:' || supplier_id % 4000 || '@32', 't:' || supplier_id % 4000 || '@*']
        FROM supplier ON CONFLICT (supplier_id) DO NOTHING
      `
      await db.sql`ANALYZE supplier_name_key`
      const probe = {
        taxNoBidx: 'no-such-index',
        keys: ['t:17@32', 't:17@', 't:18@32', 't:18@'],
        exceptSupplierId: null,
        limit: 500,
      }
      const chain = `supplier:${id.typical}`
      // A registration's uses, rolled back: n change-log ids taken by the head or by the seal.
      const once = async (sql: postgres.Sql, n: number) => {
        await probeIdentity(sql, probe)
        await sql
          .begin(async (tx) => {
            const head = await lockChainHead(tx, chain, n)
            const seal = { id: '0', chain, seq: head.seq, prev: head.hash, hash: head.hash }
            await sealApprovalRowTakingIds(tx, { ...seal, vacated: null }, n + 1)
            throw new RolledBack([], '')
          })
          .catch((err: unknown) => (err instanceof RolledBack ? null : Promise.reject(err)))
      }
      const sent = await capture((sql) => once(sql, 1))
      const texts = sent.map((s) => s.query).filter((q) => !/^\s*(begin|rollback)\s*$/i.test(q))
      expect(texts).toHaveLength(3)
      for (let n = 2; n <= 8; n++) await once(spy, n)
      for (const text of texts) {
        const plans = await spy`
          SELECT generic_plans::int AS generic FROM pg_prepared_statements WHERE statement = ${text}
        `
        expect(
          Math.max(0, ...plans.map((p) => p.generic as number)),
          oneLine(text).slice(0, 80),
        ).toBeGreaterThanOrEqual(3)
      }
    })
  })

  describe('the check itself', () => {
    it('reports a sequential scan, naming the table, when the index a query needs is missing', async () => {
      const sent = await capture((sql) =>
        relationPage(sql, { supplierId: id.busy, limit: 20, offset: 0 }),
      )
      expect(sent).toHaveLength(1)
      // The indexes that lead with supplier_id are dropped in a transaction that is rolled back.
      const message = await db.sql
        .begin(async (tx) => {
          await tx.unsafe('DROP INDEX supplier_resource_relation_supplier')
          await tx.unsafe('DROP INDEX supplier_resource_relation_supplier_module')
          const findings = seqScansOfLargeTables(await explain(tx, sent[0]))
          const text = await report(tx, 'relation page without its index', sent[0], findings)
          throw new RolledBack(findings, text)
        })
        .catch((err: unknown) => {
          if (!(err instanceof RolledBack)) throw err
          expect(err.findings.map((f) => f.table)).toContain('supplier_resource_relation')
          return err.text
        })
      expect(message).toMatch(/Seq Scan on supplier_resource_relation r \(~\d+ rows, Filter: /)
      expect(message).toContain('statement: SELECT EXISTS')
      expect(message).toContain(`parameters: ["${id.busy}"`)
      const [still] = await db.sql`
        SELECT count(*)::int AS n FROM pg_indexes
        WHERE indexname IN ('supplier_resource_relation_supplier',
                            'supplier_resource_relation_supplier_module')
      `
      expect(still.n).toBe(2)
    })
  })

  describe('expiring qualifications', () => {
    for (const filter of [{}, { withinDays: 30 }, { typeCode: 'HOTEL' }]) {
      it(`${JSON.stringify(filter)}`, async () => {
        await checkPlans(`expiring ${JSON.stringify(filter)}`, async (sql) => {
          await expiringQualificationPage(sql, { limit: 20, offset: 0, ...filter })
          await countExpiringQualifications(sql, { limit: 20, offset: 0, ...filter })
        })
      })
    }
  })
})
