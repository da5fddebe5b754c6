import { execFile, type ChildProcess } from 'node:child_process'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from './harness'
import { startService } from './service'

/*
 * The two ways plaintext approve notes (written before migration 20261123000100) leave the
 * database, for real: the service's start-up pass before it serves, and the DBA's
 * `npm run approve-notes` (and its `decrypt` for a rollback). Needs a real server: the embedded
 * engine serves only the process that owns it (test/approve-note-at-rest.test.ts drives the same
 * functions on both engines).
 */

const run = promisify(execFile)

const ENV = { ...process.env, NODE_ENV: 'development', LOG_LEVEL: 'info', DEMO_DATA: 'false' }

let db: TestDatabase | undefined
const children: ChildProcess[] = []
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL')
  await db?.close()
})

describe.skipIf(!process.env.DATABASE_URL)(
  'approve notes at rest, by the processes (PostgreSQL)',
  () => {
    it('the service encrypts plaintext notes before it serves; npm run approve-notes does it on demand and undoes it for a rollback', async () => {
      db = await createTestDatabase()
      const { sql } = db
      const note = (n: number) => `plaintext approve note ${n} ${Date.now()}`
      const notes = [note(1), note(2)]
      await sql`
      INSERT INTO supplier (full_name, tax_no_enc, tax_no_bidx, tax_no_mask, main_cooperation,
                            approve_note, created_by, updated_by, deleted_at)
      VALUES ('Legacy one', 'v1.x', md5(random()::text), '91****0001', 'tours', ${notes[0]}, 1, 1, NULL),
             ('Legacy two', 'v1.x', md5(random()::text), '91****0002', 'tours', ${notes[1]}, 1, 1, now())
    `
      const plaintext = async () =>
        (await sql`SELECT count(*)::int AS n FROM supplier WHERE approve_note IS NOT NULL`)[0].n
      const decryptable = async () => {
        const rows =
          await sql`SELECT approve_note_enc FROM supplier WHERE approve_note_enc IS NOT NULL`
        return rows.length
      }

      const service = await startService({
        DATABASE_URL: db.url,
        APPROVAL_RECONCILE_INTERVAL_SECONDS: '0',
      })
      children.push(service.child)
      await service.ready
      const output = service.output()
      // Done before serving: the log says so, and nothing is left.
      const lines = output.split('\n').filter(Boolean)
      const encrypted = lines.findIndex((l) => l.includes('plaintext approve notes encrypted'))
      const serving = lines.findIndex((l) => l.includes('supplier-admin serving'))
      expect(encrypted, output).toBeGreaterThanOrEqual(0)
      expect(encrypted).toBeLessThan(serving)
      expect(JSON.parse(lines[encrypted])).toMatchObject({ count: 2 })
      expect(await plaintext()).toBe(0)
      expect(await decryptable()).toBe(2)
      for (const n of notes) expect(service.output()).not.toContain(n)
      await service.stop()

      const script = (...args: string[]) =>
        run(process.execPath, ['--import', 'tsx', 'scripts/approve-notes.ts', ...args], {
          env: { ...ENV, DATABASE_URL: db!.url },
        })
      const back = await script('decrypt')
      expect(back.stdout).toContain('decrypt: 2 approve note(s) moved')
      const rows =
        await sql`SELECT approve_note FROM supplier WHERE approve_note IS NOT NULL ORDER BY 1`
      expect(rows.map((r) => r.approve_note)).toEqual([...notes].sort())
      const forth = await script()
      expect(forth.stdout).toContain('encrypt: 2 approve note(s) moved')
      expect(await plaintext()).toBe(0)
      expect((await script('encrypt')).stdout).toContain('encrypt: 0 approve note(s) moved')
      await expect(script('sideways')).rejects.toMatchObject({ code: 2 })
    }, 90_000)
  },
)
