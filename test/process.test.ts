import { execFile, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { promisify } from 'node:util'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { connect } from '../sql/db'
import { startEmbedded } from '../src/db/embedded'
import { MIGRATIONS_DIR } from '../src/db/migrate'
import { expectWholeAuditTrail } from './harness'
import { devHeaders, freePort, startService } from './service'
import { draftBody } from './supplier-data'

/** The real entry point, `npm start`'s command, on the embedded database. */

/**
 * `npm start` as it is: the service's own defaults (demo data on the embedded database), and no
 * NODE_ENV, which `npm start` sets to development itself.
 */
const start = (env: Record<string, string>) =>
  startService({ DEMO_DATA: undefined, NODE_ENV: undefined, ...env })

/** The environment of a shell where nothing is set: no NODE_ENV (vitest sets `test`). */
const { NODE_ENV: _vitest, ...shell } = process.env

const run = promisify(execFile)

const lastLine = (output: string) => output.trimEnd().split('\n').pop()

const running: ChildProcess[] = []
const dirs: string[] = []
afterAll(async () => {
  for (const c of running) c.kill('SIGKILL')
  for (const d of dirs) await rm(d, { recursive: true, force: true })
})

describe('the service process', () => {
  it('starts on the embedded database with demo data, stops cleanly on SIGTERM and keeps data', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'supplier-main-'))
    dirs.push(dataDir)
    const port = await freePort()
    const env = { DATA_DIR: dataDir, PORT: String(port) }
    const headers = await devHeaders('10001')
    const base = `http://127.0.0.1:${port}`

    const first = await start(env)
    running.push(first.child)
    await first.ready
    const types = await (await fetch(`${base}/admin/dict/data/supplier_type`, { headers })).json()
    expect(types.data).toHaveLength(15)
    const created = await (
      await fetch(`${base}/admin/supplier/items`, {
        method: 'POST',
        headers,
        body: JSON.stringify(draftBody()),
      })
    ).json()
    expect(created).toMatchObject({ code: 200, success: true })
    // The README works as it reads: `npm run demo` and the curl walk-through, as pasted, both
    // finding the service by the one variable the README names, with NODE_ENV unset, as in a
    // new terminal: `npm start`, `npm run token` and `npm run demo` default it to development.
    const address = { ...shell, BASE_URL: base }
    const demo = await run('npm', ['run', '-s', 'demo'], { env: address })
    expect(demo.stdout).toMatch(/went DRAFT → VETTING → ACTIVE as SP\d+/)
    const readme = await readFile('README.md', 'utf8')
    const walkthrough = /The same journey by hand[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)![1]
    // The demo's supplier has the same name: the walk-through meets it as a near duplicate
    // (395006) and confirms it, as a second paste would.
    const pasted = await run('bash', ['-euo', 'pipefail', '-c', walkthrough], { env: address })
    expect(pasted.stdout).toMatch(/^ACTIVE SP\d+$/m)
    expect(pasted.stdout).toMatch(/^\d+ change-log rows$/m)

    // Piped stdout: JSON lines, one per applied migration.
    const records = first
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg: string; migration?: string })
    const migrations = (await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql')).sort()
    expect(records.filter((r) => r.msg === 'migration applied').map((r) => r.migration)).toEqual(
      migrations,
    )
    first.child.kill('SIGTERM')
    expect(await first.exited).toBe(0)
    expect(first.output()).toContain('stopped cleanly')

    const second = await start(env)
    running.push(second.child)
    await second.ready
    const detail = await (
      await fetch(`${base}/admin/supplier/items/${created.data.supplierId}`, { headers })
    ).json()
    expect(detail).toMatchObject({
      code: 200,
      data: { supplierId: created.data.supplierId, status: 'DRAFT' },
    })
    expect(second.output()).not.toContain('demo data loaded')
    second.child.kill('SIGINT')
    expect(await second.exited).toBe(0)

    // What the demo, the walk-through and the create wrote sealed its audit trail whole, as the
    // trail of every test database is checked when it is closed.
    const db = await startEmbedded({ dataDir: join(dataDir, 'pgdata') })
    const sql = connect({ url: db.url, max: 1, timezone: 'Asia/Shanghai' })
    try {
      const [{ n }] = await sql`SELECT count(*)::int AS n FROM change_log`
      expect(n).toBeGreaterThan(0)
      await expectWholeAuditTrail(sql, undefined, 'the audit trail of the process')
    } finally {
      await sql.end({ timeout: 5 })
      await db.stop()
    }
  }, 240_000)

  it('refuses a second process on the same DATA_DIR; the first keeps serving and unlocks on stop', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'supplier-main-'))
    dirs.push(dataDir)
    const port = await freePort()
    const first = await start({ DATA_DIR: dataDir, PORT: String(port) })
    running.push(first.child)
    await first.ready

    const second = await start({ DATA_DIR: dataDir, PORT: String(await freePort()) })
    running.push(second.child)
    expect(await second.exited).not.toBe(0)
    expect(second.output()).toContain(
      `data directory ${join(dataDir, 'pgdata')} is in use by process ${first.child.pid}; ` +
        'stop it or use another DATA_DIR',
    )
    expect(second.output()).not.toMatch(/\n\s+at /) // no stack trace
    expect(second.output()).not.toContain('supplier-admin serving')

    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200)
    first.child.kill('SIGTERM')
    expect(await first.exited).toBe(0)
    expect(existsSync(join(dataDir, 'pgdata', '.lock'))).toBe(false)

    // MIGRATE_ON_START=false starts without running dbmate (the schema is there already).
    // LOG_FORMAT=pretty: coloured lines with a readable time instead of JSON.
    const third = await start({
      DATA_DIR: dataDir,
      PORT: String(port),
      MIGRATE_ON_START: 'false',
      LOG_FORMAT: 'pretty',
    })
    running.push(third.child)
    await third.ready
    // eslint-disable-next-line no-control-regex
    const plain = third.output().replace(/\u001b\[\d+m/g, '')
    expect(plain).toMatch(
      /^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}\] INFO: migrations skipped \(MIGRATE_ON_START=false\)/m,
    )
    expect(third.output()).not.toContain('{"level"')
    third.child.kill('SIGTERM')
    expect(await third.exited, third.output()).toBe(0)
  }, 120_000)

  it('a failed migration exits non-zero without ever printing the database password', async () => {
    const failed = await start({
      DATABASE_URL: 'postgres://app:S3cretPassw0rd@127.0.0.1:1/x?sslmode=disable',
      PORT: String(await freePort()),
      // dbmate waits up to a minute for a starting server by default; nothing listens on port 1.
      DBMATE_WAIT_TIMEOUT: '1s',
    })
    running.push(failed.child)
    expect(await failed.exited).not.toBe(0)
    expect(failed.output()).toContain('connection refused')
    expect(failed.output()).not.toContain('S3cretPassw0rd')
    expect(lastLine(failed.output())).toMatch(
      /^start-up failed: dbmate wait failed: .*connection refused/,
    )
  }, 60_000)

  it('a busy PORT fails at once with one line naming PORT, before the database or any migration', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'supplier-main-'))
    dirs.push(dataDir)
    const holder = createServer()
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve))
    const port = (holder.address() as { port: number }).port
    try {
      const busy = await start({ DATA_DIR: dataDir, PORT: String(port) })
      running.push(busy.child)
      expect(await busy.exited).toBe(1)
      expect(busy.output().trim()).toBe(
        `start-up failed: PORT ${port} is already in use on 127.0.0.1: stop the process holding it or set PORT to a free port`,
      )
      // Nothing was started or migrated: the data directory is untouched.
      expect(await readdir(dataDir)).toEqual([])
    } finally {
      holder.close()
    }
  }, 60_000)

  it('an invalid configuration is one line naming the variable, exit 78', async () => {
    const bad = await start({ PORT: 'eighty' })
    running.push(bad.child)
    expect(await bad.exited).toBe(78)
    expect(bad.output().trim()).toMatch(/^start-up failed: invalid configuration: PORT: [^\n]+$/)
  }, 60_000)
})
