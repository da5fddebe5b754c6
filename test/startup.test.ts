import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { afterAll, describe, expect, it } from 'vitest'
import { DataDirInUseError, startEmbedded } from '../src/db/embedded'
import {
  MIGRATIONS_DIR,
  MigrationError,
  migrate,
  migrateWithLock,
  redactPasswords,
} from '../src/db/migrate'

/** Start-up guards: masked database passwords, the data-directory lock, the migration lock. */

const dirs: string[] = []
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true })
})
const tempDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'supplier-startup-'))
  dirs.push(dir)
  return dir
}

describe('database passwords in migration errors', () => {
  it('redactPasswords masks user:password@ in every URL, and the known password anywhere', () => {
    expect(
      redactPasswords('dial postgres://app:S3cret@db:5432/x and postgresql://u:p%40ss@h/y failed'),
    ).toBe('dial postgres://app:***@db:5432/x and postgresql://u:***@h/y failed')
    expect(redactPasswords('postgres://app@db/x has no password')).toBe(
      'postgres://app@db/x has no password',
    )
    expect(
      redactPasswords('parse "postgres://app:Pa ss@[::1" failed', 'postgres://app:Pa%20ss@h/x'),
    ).toBe('parse "postgres://app:***@[::1" failed')
  })

  it('a failed dbmate run throws a MigrationError with its stderr and without the password', async () => {
    const url = 'postgres://app:S3cretPassw0rd@127.0.0.1:1/x?sslmode=disable'
    const err = await migrate(url).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(MigrationError)
    const message = (err as Error).message
    expect(message).toMatch(/connection refused/)
    expect(message).not.toContain('S3cretPassw0rd')
    expect(message).not.toContain('Command failed')
  })
})

describe('the data-directory lock', () => {
  it('refuses a second start on the same directory and removes the lock on stop', async () => {
    const dataDir = join(await tempDir(), 'pgdata')
    const first = await startEmbedded({ dataDir })
    try {
      expect((await readFile(join(dataDir, '.lock'), 'utf8')).trim()).toBe(String(process.pid))
      const err = await startEmbedded({ dataDir }).catch((e: unknown) => e)
      expect(err).toBeInstanceOf(DataDirInUseError)
      expect((err as Error).message).toBe(
        `data directory ${dataDir} is in use by process ${process.pid}; stop it or use another DATA_DIR`,
      )
    } finally {
      await first.stop()
    }
    expect(existsSync(join(dataDir, '.lock'))).toBe(false)
  }, 60_000)

  it('refuses a directory locked by another live process, naming its pid', async () => {
    const dataDir = await tempDir()
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'])
    try {
      await writeFile(join(dataDir, '.lock'), `${other.pid}\n`)
      await expect(startEmbedded({ dataDir })).rejects.toThrow(
        `data directory ${dataDir} is in use by process ${other.pid}`,
      )
      // Refused before PGlite touched the directory.
      expect(await readdir(dataDir)).toEqual(['.lock'])
    } finally {
      other.kill('SIGKILL')
    }
  })

  it('takes over a stale lock left by a process that is gone', async () => {
    const dataDir = await tempDir()
    const gone = spawn(process.execPath, ['-e', ''])
    await new Promise((resolve) => gone.once('exit', resolve))
    await writeFile(join(dataDir, '.lock'), `${gone.pid}\n`)
    const db = await startEmbedded({ dataDir })
    expect((await readFile(join(dataDir, '.lock'), 'utf8')).trim()).toBe(String(process.pid))
    await db.stop()
    expect(existsSync(join(dataDir, '.lock'))).toBe(false)
  }, 60_000)
})

/**
 * Two concurrent `migrateWithLock` runs on a fresh database: both succeed and every migration
 * is recorded once (without the lock, dbmate races on CREATE EXTENSION and schema_migrations).
 */
async function concurrentMigrations(serverUrl: string) {
  const name = `supplier_migrate_lock_${process.pid}_${Date.now()}`
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} })
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`)
    try {
      const url = new URL(serverUrl)
      url.pathname = `/${name}`
      const outputs = await Promise.all([
        migrateWithLock(url.toString()),
        migrateWithLock(url.toString()),
      ])
      // One run applied everything; the other waited for the lock and found nothing pending.
      expect(outputs.filter((o) => o.includes('Applying')).length).toBe(1)
      const db = postgres(url.toString(), { max: 1, onnotice: () => {} })
      try {
        const rows = await db<{ version: string }[]>`
          SELECT version FROM schema_migrations ORDER BY version`
        const files = (await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql')).sort()
        expect(rows.map((r) => r.version)).toEqual(files.map((f) => f.split('_')[0]))
        const [{ held }] = await db<{ held: number }[]>`
          SELECT count(*)::int AS held FROM pg_locks WHERE locktype = 'advisory'`
        expect(held).toBe(0)
      } finally {
        await db.end()
      }
    } finally {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    }
  } finally {
    await admin.end()
  }
}

describe.runIf(!!process.env.DATABASE_URL)('the migration lock on DATABASE_URL', () => {
  it('serializes two concurrent migrations of a fresh database', async () => {
    await concurrentMigrations(process.env.DATABASE_URL!)
  }, 60_000)
})

describe('the migration lock on the local PostgreSQL', () => {
  const LOCAL = 'postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable'

  it('serializes two concurrent migrations of a fresh database', async (ctx) => {
    const probe = postgres(LOCAL, { max: 1, onnotice: () => {}, connect_timeout: 3 })
    const reachable = await probe`SELECT 1`.then(
      () => true,
      () => false,
    )
    await probe.end({ timeout: 1 })
    if (!reachable) ctx.skip(`no PostgreSQL at ${LOCAL}`)
    await concurrentMigrations(LOCAL)
  }, 60_000)
})
