import type { ChildProcess } from 'node:child_process'
import { afterAll, describe, expect, it } from 'vitest'
import { grant } from '../sql/admin'
import { ALL_PERMISSIONS, createTestDatabase, type TestDatabase } from './harness'
import { listCountDrift } from './list-count'
import { devHeaders, freePort, startService } from './service'
import { draftBody, STORAGE } from './supplier-data'

/*
 * The list totals survive a crash of the service: kept in the writing transactions, they commit
 * or vanish with the writes. The service process is killed (-9) while registrations and status
 * changes are in flight; PostgreSQL ends their transactions when their connections drop. Needs a
 * real server: the embedded engine lives inside the process that is killed.
 */

let db: TestDatabase | undefined
const children: ChildProcess[] = []
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL')
  await db?.close()
})

describe.skipIf(!process.env.DATABASE_URL)('list totals after a kill -9 (PostgreSQL)', () => {
  it('equal count(*) once the transactions the crash cut off are gone', async () => {
    db = await createTestDatabase()
    const { sql } = db
    const admin = '9007199254990002'
    await grant(sql, admin, { permissions: ALL_PERMISSIONS, roles: ['ADMIN'] })
    const service = await startService({ DATABASE_URL: db.url, PORT: String(await freePort()) })
    children.push(service.child)
    await service.ready
    const headers = await devHeaders(admin)
    const items = `${service.base}/admin/supplier/items`
    const post = (path: string, body: unknown) =>
      fetch(`${items}${path}`, { method: 'POST', headers, body: JSON.stringify(body) })
        .then((r) => r.json())
        .catch(() => null)

    // Eight loops, each registering suppliers and suspending them, until the process dies.
    let stop = false
    let done = 0
    const loop = async () => {
      while (!stop) {
        const form = draftBody({ licenseImageUrl: `${STORAGE}license.png` })
        const created = await post('', form)
        if (!created?.success) continue
        const { supplierId, updateTime } = created.data
        const submitted = await post(`/${supplierId}/submit`, {
          ...form,
          expectedUpdateTime: updateTime,
        })
        if (!submitted?.success) continue
        const view = await fetch(`${items}/${supplierId}`, { headers })
          .then((r) => r.json())
          .catch(() => null)
        if (!view?.success) continue
        const moved = await post(`/${supplierId}/status`, {
          targetStatus: 'SUSPENDED',
          changeReason: 'crash test',
          expectedUpdateTime: view.data.updateTime,
        })
        if (moved?.success) done += 1
      }
    }
    const loops = Array.from({ length: 8 }, loop)
    const started = Date.now()
    while (done < 3 && Date.now() - started < 20_000) await new Promise((r) => setTimeout(r, 50))
    expect(done).toBeGreaterThan(0)
    service.child.kill('SIGKILL')
    stop = true
    await Promise.all(loops)

    // PostgreSQL rolls back a transaction whose client vanished once it notices; wait for that.
    const end = Date.now() + 15_000
    for (;;) {
      const [open] = await sql`
        SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()`
      if (open.n === 0 || Date.now() > end) break
      await new Promise((r) => setTimeout(r, 100))
    }
    const [written] = await sql`SELECT count(*)::int AS n FROM supplier`
    expect(written.n).toBeGreaterThan(3)
    expect(await listCountDrift(sql)).toEqual([])
  }, 60_000)
})
