import { readFile, readdir } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { useHarness } from './harness'
import { draftBody } from './supplier-data'

const h = useHarness()

/** Tables that are evidence or infrastructure, not business records: no soft delete. */
const NO_SOFT_DELETE = new Set([
  'schema_migrations',
  'seed_run',
  'approval_log',
  'change_log',
  'audit_chain_head',
  'audit_trail_state',
  'sensitive_read_audit',
  'domain_event',
  'submit_guard',
  'idempotency_record',
  'job_lease',
  // how far an online backfill got: one row per job
  'backfill_progress',
  'qualification_reminder',
  // totals derived from the tables they count (rebuilt by list_count_rebuild())
  'list_count',
  'resource_settle_type',
  'resource_status',
  'resource_season',
  // company-name keys derived from the supplier's names (the probe joins the live supplier)
  'supplier_name_key',
  // the list keyword's spellings of a supplier, derived from it (the list joins the live supplier)
  'supplier_search',
  // change-log totals per category, derived from the log (rebuilt by change_log_count_rebuild())
  'change_log_count',
  // change-log totals per UTC day and month (rebuilt by change_log_day_count_rebuild())
  'change_log_day_count',
  // keyword totals per term, derived from supplier_search (rebuilt by supplier_term_count_rebuild())
  'supplier_term_count',
  // the kept keywords and their totals, derived from supplier_search (kept-keywords.ts)
  'supplier_keyword',
  'supplier_keyword_count',
])

describe('data model', () => {
  it('gives every business table a deleted_at column and no delete path to the evidence', async () => {
    const tables = await h.sql<{ table_name: string; has_deleted_at: boolean }[]>`
      SELECT t.table_name, EXISTS (
        SELECT 1 FROM information_schema.columns c
        WHERE c.table_schema = 'public' AND c.table_name = t.table_name AND c.column_name = 'deleted_at'
      ) AS has_deleted_at
      FROM information_schema.tables t
      WHERE t.table_schema = 'public' AND t.table_type = 'BASE TABLE'
    `
    expect(tables.length).toBeGreaterThan(20)
    for (const t of tables) {
      expect({ table: t.table_name, softDelete: t.has_deleted_at }).toEqual({
        table: t.table_name,
        softDelete: !NO_SOFT_DELETE.has(t.table_name),
      })
    }
    const created = await h.call('POST', '/admin/supplier/items', { body: draftBody() })
    const id = created.body.data.supplierId
    await expect(h.sql`DELETE FROM change_log WHERE supplier_id = ${id}`).rejects.toThrow(
      /append-only/,
    )
    await expect(
      h.sql`UPDATE change_log SET field_name = 'x' WHERE supplier_id = ${id}`,
    ).rejects.toThrow(/append-only/)
    await expect(h.sql`DELETE FROM supplier WHERE supplier_id = ${id}`).rejects.toThrow(
      /never deleted/,
    )
  })

  it('starts every identity above 2^53 so that number bugs show', async () => {
    const identities = await h.sql<{ table_name: string; start: string }[]>`
      SELECT c.table_name, c.identity_start AS start FROM information_schema.columns c
      WHERE c.table_schema = 'public' AND c.is_identity = 'YES'
    `
    expect(identities.length).toBeGreaterThan(20)
    for (const i of identities)
      expect({ table: i.table_name, start: BigInt(i.start) > 2n ** 53n }).toEqual({
        table: i.table_name,
        start: true,
      })
  })

  it('keeps db/schema.sql current with the migrations', async () => {
    const schema = await readFile(new URL('../db/schema.sql', import.meta.url), 'utf8')
    const dir = new URL('../db/migrations/', import.meta.url)
    for (const file of await readdir(dir)) {
      const version = file.split('_')[0]
      expect(schema, `db/schema.sql lacks migration ${file}: run npm run db:schema`).toContain(
        `('${version}')`,
      )
      const up = (await readFile(new URL(file, dir), 'utf8')).split('-- migrate:down')[0]
      for (const [, table] of up.matchAll(/CREATE TABLE (\w+)/g)) {
        expect(schema).toContain(`CREATE TABLE public.${table} (`)
      }
    }
  })
})
