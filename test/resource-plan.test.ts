import postgres from 'postgres'
import { beforeAll, describe, expect, it } from 'vitest'
import { liveResources, relationPage } from '../sql/resource'
import { useHarness } from './harness'

/** Every node of an EXPLAIN (FORMAT JSON) plan. */
function nodes(plan: any): any[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)]
}

describe('query plans of the resource-information page on a few thousand rows', () => {
  const h = useHarness()
  let target: string

  beforeAll(async () => {
    // 3 000 suppliers, 200 of them with 25 relations over all ten modules (some deleted), 5 000
    // hotels, a third of them deleted.
    await h.sql`
      INSERT INTO supplier (full_name, tax_no_enc, tax_no_bidx, tax_no_mask, main_cooperation, status,
                            supplier_no, created_by, updated_by)
      SELECT 'Plan supplier ' || g, 'enc', 'bidx-plan-' || g, '91****0000', 'x', 'ACTIVE',
             'SPPLAN' || g, 1, 1
      FROM generate_series(1, 3000) g
    `
    await h.sql`
      INSERT INTO resource_hotel (name, status_code, deleted_at)
      SELECT 'Plan hotel ' || g, 'ON_SALE', CASE WHEN g % 3 = 0 THEN now() END
      FROM generate_series(1, 5000) g
    `
    await h.sql`
      INSERT INTO supplier_resource_relation (supplier_id, resource_module, resource_id, update_time,
                                              created_by, updated_by, deleted_at)
      SELECT s.supplier_id,
             (ARRAY['SCENIC','RESTAURANT','SUPPLIES','SUPPLIES_COMBO','ACTIVITY','HOTEL','SERVICE',
                    'COST_ITEM','STAFF','VEHICLE'])[1 + (g % 10)],
             9007199254740993 + s.rn * 100 + g,
             now() - (g || ' minutes')::interval, 1, 1,
             CASE WHEN g % 7 = 0 THEN now() END
      FROM (SELECT supplier_id, row_number() OVER (ORDER BY supplier_id) AS rn
            FROM supplier WHERE full_name LIKE 'Plan supplier %' LIMIT 200) s,
           generate_series(1, 25) g
    `
    for (const table of ['supplier', 'supplier_resource_relation', 'resource_hotel']) {
      await h.sql`ANALYZE ${h.sql(table)}`
    }
    const [row] = await h.sql`
      SELECT supplier_id::text AS id FROM supplier WHERE supplier_no = 'SPPLAN100'
    `
    target = row.id
  })

  /** The plan of the statement `run` sends, explained with the same parameters. */
  async function planOf(run: (sql: postgres.Sql) => Promise<unknown>) {
    const sent: { query: string; params: unknown[] }[] = []
    const spy = postgres(h.db.url, {
      max: 1,
      onnotice: () => {},
      debug: (_c, query, params) => void sent.push({ query, params: params as unknown[] }),
    })
    try {
      await spy`SELECT 1`
      sent.length = 0
      await run(spy)
    } finally {
      await spy.end()
    }
    expect(sent).toHaveLength(1)
    const [{ query, params }] = sent
    const [explained] = await h.sql.unsafe(
      `EXPLAIN (FORMAT JSON) ${query}`,
      params as postgres.ParameterOrJSON<never>[],
    )
    const plan = (explained['QUERY PLAN'] as any[])[0].Plan
    return nodes(plan)
  }

  /** Node types that read `table` (a Bitmap Index Scan names only its index). */
  const scansOf = (plan: any[], table: string) =>
    plan.filter((n) => n['Relation Name'] === table).map((n) => n['Node Type'] as string)
  const indexesOf = (plan: any[]) => plan.map((n) => n['Index Name']).filter(Boolean)

  it('the relations frame reads the supplier and its relations through indexes (no sequential scan)', async () => {
    const plan = await planOf((sql) =>
      relationPage(sql, { supplierId: target, limit: 20, offset: 0 }),
    )
    const relationScans = scansOf(plan, 'supplier_resource_relation')
    expect(relationScans.length).toBeGreaterThan(0)
    expect(relationScans).not.toContain('Seq Scan')
    // Either supplier-leading index serves it; which one is the planner's choice.
    expect(indexesOf(plan).join()).toMatch(/supplier_resource_relation_supplier/)
    expect(scansOf(plan, 'supplier')).not.toContain('Seq Scan')
    // The existence check: by primary key, or index-only by the live (supplier_id) index.
    expect(indexesOf(plan).join()).toMatch(/supplier_pkey|supplier_live_status/)
  })

  it('a deep page of a large supplier is read from the index in order, index-only (no sort)', async () => {
    // 4 000 live relations for one supplier, vacuumed as autovacuum leaves a settled table.
    const [{ id: large }] = await h.sql`
      INSERT INTO supplier (full_name, tax_no_enc, tax_no_bidx, tax_no_mask, main_cooperation,
                            status, supplier_no, created_by, updated_by)
      VALUES ('Plan large supplier', 'enc', 'bidx-plan-large', '91****0000', 'x', 'ACTIVE',
              'SPPLANLARGE', 1, 1)
      RETURNING supplier_id::text AS id
    `
    await h.sql`
      INSERT INTO supplier_resource_relation (supplier_id, resource_module, resource_id, update_time,
                                              created_by, updated_by)
      SELECT ${large}, (ARRAY['SCENIC','HOTEL','VEHICLE','STAFF'])[1 + (g % 4)],
             9107199254740993 + g, now() - (g || ' seconds')::interval, 1, 1
      FROM generate_series(1, 4000) g
    `
    await h.sql`VACUUM ANALYZE supplier_resource_relation`
    for (const resourceModule of [undefined, 'HOTEL'] as const) {
      const plan = await planOf((sql) =>
        relationPage(sql, { supplierId: large, resourceModule, limit: 20, offset: 900 }),
      )
      const what = `page 46 (offset 900)${resourceModule ? ` of ${resourceModule}` : ''}`
      expect(
        plan.map((n) => n['Node Type']),
        what,
      ).not.toContain('Sort')
      const pageScan = plan.find(
        (n) =>
          n['Relation Name'] === 'supplier_resource_relation' &&
          n['Node Type'] === 'Index Only Scan' &&
          /supplier_resource_relation_supplier/.test(n['Index Name']),
      )
      expect(pageScan, `${what}: ${JSON.stringify(plan.map((n) => n['Node Type']))}`).toBeDefined()
    }
  })

  it('with a module filter it uses the (supplier, module, order) index', async () => {
    const plan = await planOf((sql) =>
      relationPage(sql, { supplierId: target, resourceModule: 'HOTEL', limit: 20, offset: 0 }),
    )
    expect(scansOf(plan, 'supplier_resource_relation')).not.toContain('Seq Scan')
    expect(indexesOf(plan)).toContain('supplier_resource_relation_supplier_module')
  })

  it('a module query reads its resources by primary key and their tags and seasons by index', async () => {
    const ids = (
      await h.sql`SELECT id::text FROM resource_hotel ORDER BY id LIMIT 20 OFFSET 1000`
    ).map((r) => r.id as string)
    const plan = await planOf((sql) => liveResources(sql, 'HOTEL', ids, 'Asia/Shanghai'))
    expect(scansOf(plan, 'resource_hotel')).not.toContain('Seq Scan')
    expect(indexesOf(plan)).toContain('resource_hotel_pkey')
    expect(scansOf(plan, 'resource_tag_link')).not.toContain('Seq Scan')
    expect(scansOf(plan, 'resource_season_link')).not.toContain('Seq Scan')
  })
})
