import type { ChildProcess } from 'node:child_process'
import { afterAll, describe, expect, it } from 'vitest'
import { grant } from '../sql/admin'
import { ALL_PERMISSIONS, createTestDatabase, type TestDatabase } from './harness'
import { devHeaders, freePort, startService } from './service'
import { draftBody, STORAGE } from './supplier-data'

/*
 * A crash between a submit's two transactions, for real: the service process is killed (-9)
 * while the decision is being recorded, and the next start reconciles the approval by itself.
 * Needs a real server: the embedded engine lives inside the process that is killed.
 */

const until = async (what: () => Promise<boolean>, ms: number) => {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (await what()) return true
    await new Promise((r) => setTimeout(r, 100))
  }
  return false
}

let db: TestDatabase | undefined
const children: ChildProcess[] = []
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL')
  if (!db) return
  await db.sql`DROP TRIGGER IF EXISTS hold_decision ON approval_log`.catch(() => {})
  await db.close()
})

describe.skipIf(!process.env.DATABASE_URL)('stuck approvals after a crash (PostgreSQL)', () => {
  it('a kill -9 between the two transactions leaves VETTING + SUBMITTED; the next start applies it', async () => {
    db = await createTestDatabase()
    const { sql } = db
    const admin = '9007199254990001'
    await grant(sql, admin, { permissions: ALL_PERMISSIONS, roles: ['ADMIN'] })
    const port = await freePort()
    const env = {
      DATABASE_URL: db.url,
      PORT: String(port),
      APPROVAL_RECONCILE_AFTER_SECONDS: '3600',
      APPROVAL_RECONCILE_INTERVAL_SECONDS: '0',
    }
    const first = await startService(env)
    children.push(first.child)
    await first.ready
    const headers = await devHeaders(admin)
    const base = `${first.base}/admin/supplier/items`
    const body = draftBody({ licenseImageUrl: `${STORAGE}license.png` })
    const created = await (
      await fetch(base, { method: 'POST', headers, body: JSON.stringify(body) })
    ).json()
    expect(created.code, JSON.stringify(created)).toBe(200)
    const { supplierId, updateTime } = created.data

    // The decision (the second transaction) blocks; the process dies while it waits. Only a
    // change of status is held: the submit's own transaction updates the row too (its seal).
    await sql.unsafe(`
      CREATE OR REPLACE FUNCTION hold_decision() RETURNS trigger LANGUAGE plpgsql AS
        $$ BEGIN PERFORM pg_sleep(30); RETURN NEW; END $$;
      CREATE TRIGGER hold_decision BEFORE UPDATE ON approval_log
        FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status)
        EXECUTE FUNCTION hold_decision();
    `)
    void fetch(`${base}/${supplierId}/submit`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ ...body, expectedUpdateTime: updateTime }),
    }).catch(() => {})
    const holding = await until(async () => {
      const [row] = await sql`
        SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND query LIKE '%UPDATE approval_log%' AND state = 'active' AND wait_event = 'PgSleep'`
      return row.n > 0
    }, 10_000)
    expect(holding).toBe(true)
    first.child.kill('SIGKILL')
    // The orphaned backend would finish its statement after the sleep; end it now.
    await sql`
      SELECT pg_terminate_backend(pid) FROM pg_stat_activity
      WHERE datname = current_database() AND pid <> pg_backend_pid()
        AND query LIKE '%UPDATE approval_log%'`
    await sql`DROP TRIGGER hold_decision ON approval_log`

    const stuck = await sql`
      SELECT s.status AS supplier, a.status AS approval FROM supplier s
      JOIN approval_log a ON a.supplier_id = s.supplier_id
      WHERE s.supplier_id = ${supplierId}`
    expect([...stuck]).toEqual([{ supplier: 'VETTING', approval: 'SUBMITTED' }])

    const second = await startService({ ...env, APPROVAL_RECONCILE_AFTER_SECONDS: '0' })
    children.push(second.child)
    await second.ready
    const applied = await until(async () => {
      const [row] = await sql`SELECT status FROM supplier WHERE supplier_id = ${supplierId}`
      return row.status === 'ACTIVE'
    }, 15_000)
    expect(applied, second.output()).toBe(true)
    const [approval] = await sql`
      SELECT status, apply_attempts FROM approval_log WHERE supplier_id = ${supplierId}`
    expect(approval).toEqual({ status: 'APPLIED', apply_attempts: 1 })
    expect(
      await until(async () => second.output().includes('stuck approvals reconciled'), 5000),
    ).toBe(true)
    second.child.kill('SIGTERM')
  }, 60_000)
})
