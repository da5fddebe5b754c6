import { spawn } from 'node:child_process'
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import { request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, inject, it } from 'vitest'
import { ConfigError, loadConfig } from '../src/config'
import { startEmbedded } from '../src/db/embedded'
import { createTestDatabase, type TestDatabase } from './harness'
import { startService, type Service } from './service'

/** Start-up and transport edges: a restart after kill -9, one TLS setting, oversize headers. */

const embedded = inject('database').kind === 'embedded'
const dirs: string[] = []
const services: Service[] = []
afterAll(async () => {
  for (const s of services) await s.stop()
  for (const d of dirs) await rm(d, { recursive: true, force: true })
})
const tempDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'supplier-hardening-'))
  dirs.push(dir)
  return dir
}

/** Polls until `probe` gives a value; the test's own timeout bounds the wait. */
const until = async <T>(probe: () => Promise<T | undefined>): Promise<T> => {
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    await new Promise((r) => setTimeout(r, 20))
  }
}
const stat = async (pid: number) => {
  const text = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '')
  // pid (comm) state ppid …: comm may hold spaces and parentheses, so split after the last ')'
  const close = text.lastIndexOf(')')
  if (close < 0) return undefined
  const [state, ppid] = text.slice(close + 2).split(' ')
  return { comm: text.slice(text.indexOf('(') + 1, close), state, ppid: Number(ppid) }
}
const processName = async (pid: number) => (await stat(pid))?.comm
const processState = async (pid: number) => (await stat(pid))?.state
const childOf = async (parent: number) => {
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    if ((await stat(Number(entry)))?.ppid === parent) return Number(entry)
  }
  return undefined
}

describe('the data-directory lock after kill -9', () => {
  it('takes over a lock whose owner was killed but not yet reaped (a zombie)', async () => {
    const dataDir = await tempDir()
    // A shell that starts a child and then becomes `sleep`, which never reaps it: once killed,
    // the child stays a zombie, which signal 0 still reports as existing. The child is killed
    // only once the shell has become `sleep`: a shell still running may reap it first.
    const parent = spawn('sh', ['-c', 'sleep 60 & exec sleep 60'])
    try {
      const pid = await until(async () =>
        (await processName(parent.pid!)) === 'sleep' ? await childOf(parent.pid!) : undefined,
      )
      process.kill(pid, 'SIGKILL')
      await until(async () => ((await processState(pid)) === 'Z' ? true : undefined))
      expect(() => process.kill(pid, 0)).not.toThrow() // still in the process table
      await writeFile(join(dataDir, '.lock'), `${pid}\n`)
      const db = await startEmbedded({ dataDir })
      await db.stop()
      expect(await readdir(dataDir)).not.toContain('.lock')
    } finally {
      parent.kill('SIGKILL')
    }
  }, 60_000)

  it('the service starts again at once after kill -9 on the same DATA_DIR', async () => {
    const dataDir = await tempDir()
    const first = await startService({ DATA_DIR: dataDir })
    services.push(first)
    await first.ready
    first.child.kill('SIGKILL')
    await first.exited
    const second = await startService({ DATA_DIR: dataDir })
    services.push(second)
    await second.ready
    expect(second.output()).not.toContain('in use by process')
    expect((await fetch(`${second.base}/readyz`)).status).toBe(200)
  }, 120_000)
})

describe('request headers over Node’s limit', () => {
  it('get the JSON envelope (HTTP 431, code 400) with a request id, not a bare status line', async () => {
    const service = await startService({ DATA_DIR: await tempDir() })
    services.push(service)
    await service.ready
    const answer = await new Promise<{ status: number; headers: any; body: string }>(
      (resolve, reject) => {
        const req = httpRequest(`${service.base}/admin/supplier/items`, {
          headers: { 'x-padding': 'x'.repeat(20_000), authorization: 'Bearer a.b.c' },
        })
        req.on('response', (res) => {
          let body = ''
          res.on('data', (d) => (body += d))
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }))
        })
        req.on('error', reject)
        req.end()
      },
    )
    expect(answer.status).toBe(431)
    expect(answer.headers['content-type']).toMatch(/^application\/json/)
    expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
    expect(JSON.parse(answer.body)).toEqual({
      code: 400,
      message: expect.stringContaining('request headers exceed'),
      success: false,
      data: null,
    })
    // The service goes on serving.
    expect((await fetch(`${service.base}/healthz`)).status).toBe(200)
  }, 120_000)
})

describe('one TLS setting (sslmode) for dbmate and the service client', () => {
  it('a DATABASE_URL without sslmode gets libpq’s default, prefer, for both clients', () => {
    expect(
      loadConfig({ NODE_ENV: 'test', DATABASE_URL: 'postgres://u@db.internal:5432/x' }).databaseUrl,
    ).toBe('postgres://u@db.internal:5432/x?sslmode=prefer')
    expect(
      loadConfig({ NODE_ENV: 'test', DATABASE_URL: 'postgres://u@h/x?application_name=a' })
        .databaseUrl,
    ).toBe('postgres://u@h/x?application_name=a&sslmode=prefer')
    expect(
      loadConfig({ NODE_ENV: 'test', DATABASE_URL: 'postgres://u@h/x?sslmode=verify-full' })
        .databaseUrl,
    ).toBe('postgres://u@h/x?sslmode=verify-full')
  })

  it('an sslmode the two clients would read differently is refused, naming the variable', () => {
    for (const mode of ['allow', 'bogus']) {
      const err = (() => {
        try {
          loadConfig({ NODE_ENV: 'test', DATABASE_URL: `postgres://u:S3cret@h/x?sslmode=${mode}` })
        } catch (e) {
          return e
        }
      })()
      expect(err).toBeInstanceOf(ConfigError)
      expect((err as Error).message).toContain('DATABASE_URL: sslmode must be one of disable')
      expect((err as Error).message).not.toContain('S3cret')
    }
  })

  describe('against the PostgreSQL server', () => {
    let db: TestDatabase
    let tlsOn = false
    afterAll(async () => {
      await db?.close()
    })
    const ready = async () => {
      if (db) return
      db = await createTestDatabase()
      const [{ ssl }] = await db.sql`SHOW ssl`
      tlsOn = ssl === 'on'
    }
    const withoutSslmode = () => {
      const url = new URL(db.url)
      url.searchParams.delete('sslmode')
      return url.toString().replace(/\?$/, '')
    }

    it('a DATABASE_URL without sslmode starts the service, migrations included (no 60 s wait)', async (ctx) => {
      if (embedded) ctx.skip('needs a PostgreSQL server (the embedded database has no TLS layer)')
      await ready()
      const started = Date.now()
      const service = await startService({ DATABASE_URL: withoutSslmode() })
      services.push(service)
      await service.ready
      expect(Date.now() - started).toBeLessThan(30_000)
      expect((await fetch(`${service.base}/readyz`)).status).toBe(200)
    }, 60_000)

    it('sslmode=require against a server without TLS fails fast, saying so', async (ctx) => {
      if (embedded) ctx.skip('needs a PostgreSQL server (the embedded database has no TLS layer)')
      await ready()
      if (tlsOn) ctx.skip('this PostgreSQL server offers TLS: require would connect')
      const started = Date.now()
      const service = await startService({
        DATABASE_URL: `${withoutSslmode()}?sslmode=require`,
      })
      services.push(service)
      const code = await service.exited
      expect(code).not.toBe(0)
      expect(Date.now() - started).toBeLessThan(15_000)
      expect(service.output()).toContain('sslmode=require')
      expect(service.output()).toContain('disagree about TLS')
      expect(service.output()).not.toMatch(/\n\s+at /)
    }, 60_000)
  })
})
