import { execFile, spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from './harness'

/*
 * The two ways plaintext approve notes (written before migration 20261123000100) leave the
 * database, for real: the service's start-up pass before it serves, and the DBA's
 * `npm run approve-notes` (and its `decrypt` for a rollback). Needs a real server: the embedded
 * engine serves only the process that owns it (test/approve-note-at-rest.test.ts drives the same
 * functions on both engines).
 */

const run = promisify(execFile)

const freePort = () =>
  new Promise<number>((resolve) => {
    const srv = createServer()
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number }
      srv.close(() => resolve(port))
    })
  })

const ENV = { ...process.env, NODE_ENV: 'development', LOG_LEVEL: 'info', DEMO_DATA: 'false' }

let db: TestDatabase | undefined
const children: ReturnType<typeof spawn>[] = []
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

      const port = await freePort()
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        env: {
          ...ENV,
          DATABASE_URL: db.url,
          PORT: String(port),
          APPROVAL_RECONCILE_INTERVAL_SECONDS: '0',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      children.push(child)
      let output = ''
      child.stdout!.on('data', (d) => (output += d))
      child.stderr!.on('data', (d) => (output += d))
      await new Promise<void>((resolve, reject) => {
        const timer = setInterval(() => {
          if (output.includes('supplier-admin serving')) {
            clearInterval(timer)
            resolve()
          }
        }, 50)
        child.once('exit', (code) => {
          clearInterval(timer)
          reject(new Error(`exited ${code}: ${output}`))
        })
      })
      // Done before serving: the log says so, and nothing is left.
      const lines = output.split('\n').filter(Boolean)
      const encrypted = lines.findIndex((l) => l.includes('plaintext approve notes encrypted'))
      const serving = lines.findIndex((l) => l.includes('supplier-admin serving'))
      expect(encrypted, output).toBeGreaterThanOrEqual(0)
      expect(encrypted).toBeLessThan(serving)
      expect(JSON.parse(lines[encrypted])).toMatchObject({ count: 2 })
      expect(await plaintext()).toBe(0)
      expect(await decryptable()).toBe(2)
      for (const n of notes) expect(output).not.toContain(n)
      child.kill('SIGTERM')
      await new Promise((resolve) => child.once('exit', resolve))

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
