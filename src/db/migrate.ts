import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { createRequire } from 'node:module'
import postgres from 'postgres'
import { databaseHosts, withHost } from '../config'

const run = promisify(execFile)

/**
 * The dbmate binary: DBMATE_BIN, else the platform package installed from npm
 * (@dbmate/linux-x64 is the one this project's registry serves), else `dbmate` on PATH.
 */
export function dbmateBinary(): string {
  if (process.env.DBMATE_BIN) return process.env.DBMATE_BIN
  const ext = process.platform === 'win32' ? '.exe' : ''
  try {
    return createRequire(import.meta.url).resolve(
      `@dbmate/${process.platform}-${process.arch}/bin/dbmate${ext}`,
    )
  } catch {
    return 'dbmate'
  }
}
// Relative to this file and to the production bundle `dist/node/main.js`: both sit two folders
// below the repository root.
export const MIGRATIONS_DIR = fileURLToPath(new URL('../../db/migrations', import.meta.url))

/**
 * Key of the PostgreSQL session advisory lock held around `dbmate migrate` on a real server, so
 * that replicas starting together migrate one after the other. A fixed, arbitrary bigint chosen
 * for this service ("395" is its error-code prefix); any other user of advisory locks on the same
 * database must not use it.
 */
export const MIGRATION_LOCK_KEY = '3950000000000000001'

/** A failed migration; the message is dbmate's stderr with every URL password masked. */
export class MigrationError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'MigrationError'
  }
}

/**
 * Masks passwords: `scheme://user:password@` becomes `scheme://user:***@`, and when `url` is
 * given its password (raw or percent-decoded) is masked wherever else it appears.
 */
export function redactPasswords(text: string, url?: string): string {
  let out = text.replace(/\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*):[^\s/@]*@/gi, '$1:***@')
  const raw = url ? /^[^:]+:\/\/[^:/@]*:([^/@]*)@/.exec(url)?.[1] : undefined
  if (raw) {
    let decoded = raw
    try {
      decoded = decodeURIComponent(raw)
    } catch {
      // not valid percent-encoding: mask the raw form only
    }
    // Very short passwords would mask ordinary words; the URL form above still covers them.
    for (const secret of new Set([raw, decoded])) {
      if (secret.length >= 4) out = out.split(secret).join('***')
    }
  }
  return out
}

/**
 * Runs dbmate with the URL in its environment (DATABASE_URL), never on its command line where
 * `ps` and execFile's "Command failed: …" message would show the password.
 */
async function dbmate(url: string, command: string[]): Promise<string> {
  const args = ['--migrations-dir', MIGRATIONS_DIR, '--no-dump-schema', ...command]
  try {
    const { stdout } = await run(dbmateBinary(), args, {
      env: { ...process.env, DATABASE_URL: url },
    })
    return stdout
  } catch (err) {
    const e = err as { stderr?: string; message?: string }
    const detail = e.stderr?.trim() || e.message || String(err)
    throw new MigrationError(`dbmate ${command.join(' ')} failed: ${redactPasswords(detail, url)}`)
  }
}

/**
 * The migrations a `dbmate migrate` run applied, from its report (`Applied: <file> in <time>`),
 * so that each can be logged on a line of its own.
 */
export function appliedMigrations(output: string): { migration: string; duration: string }[] {
  return [...output.matchAll(/^Applied: (\S+) in (\S+)\s*$/gm)].map(([, migration, duration]) => ({
    migration,
    duration,
  }))
}

/**
 * Runs `dbmate migrate` (never `up`: the database exists already, and pglite-socket takes one
 * connection at a time). Asynchronous on purpose: the embedded server lives in this process.
 * No lock: for the embedded database, or for one-off runs; replicas use `migrateWithLock`.
 */
export async function migrate(url: string): Promise<string> {
  return dbmate(url, ['migrate'])
}

/** Errors of a server that is not up yet: dbmate's wait is for those. */
const NOT_UP_YET = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ETIMEDOUT',
  'CONNECT_TIMEOUT',
  '57P03', // the database system is starting up
])

/**
 * One connection attempt with the service's own client, before `dbmate wait`. A server that is
 * not up yet is left to dbmate's wait; anything else (TLS offered or required against the
 * server's will, authentication, a missing database) fails at once with a clear message, instead
 * of dbmate retrying it for DBMATE_WAIT_TIMEOUT (a minute) and then failing.
 */
export async function probeDatabase(url: string): Promise<void> {
  const probe = postgres(url, {
    max: 1,
    onnotice: () => {},
    connect_timeout: 10,
    fetch_types: false,
    connection: { application_name: 'supplier-admin probe' },
  })
  try {
    await probe`SELECT 1`
  } catch (err) {
    const { code, message } = err as { code?: string; message?: string }
    const tls = /\b(TLS|SSL)\b/.test(message ?? '')
    if (code && NOT_UP_YET.has(code) && !tls) return
    if (code === 'ECONNRESET' && !tls) return
    const sslmode = new URL(url).searchParams.get('sslmode')
    throw new MigrationError(
      `cannot connect to DATABASE_URL (sslmode=${sslmode}): ` +
        redactPasswords(message ?? String(err), url) +
        (tls
          ? '; the server and sslmode disagree about TLS: set sslmode=disable or prefer for a ' +
            'server without TLS, require or verify-full for one with it'
          : ''),
    )
  } finally {
    await probe.end({ timeout: 1 })
  }
}

/**
 * The primary of a URL naming several hosts (a primary and its standbys), as a single-host URL:
 * dbmate (lib/pq) reads one host, and migrations must run where writes go. The first host not in
 * recovery wins; none (a failover under way) is retried for `waitMs`. A single-host URL is
 * returned as it is.
 */
export async function primaryOf(url: string, { waitMs = 0 } = {}): Promise<string> {
  const hosts = databaseHosts(url)
  if (hosts.length === 1) return url
  const until = Date.now() + waitMs
  for (;;) {
    for (const host of hosts) {
      const one = withHost(url, host)
      const probe = postgres(one, { max: 1, onnotice: () => {}, connect_timeout: 5 })
      try {
        const [{ standby }] = await probe<{ standby: boolean }[]>`
          SELECT pg_is_in_recovery() AS standby`
        if (!standby) return one
      } catch {
        // down or refusing: another host may be the primary
      } finally {
        await probe.end({ timeout: 1 })
      }
    }
    if (Date.now() >= until) {
      throw new MigrationError(`no primary among the hosts of DATABASE_URL (${hosts.join(', ')})`)
    }
    await new Promise((r) => setTimeout(r, 1_000))
  }
}

/**
 * `dbmate migrate` on a real PostgreSQL server, under the session advisory lock
 * MIGRATION_LOCK_KEY held on a dedicated connection: concurrent callers (replicas starting
 * together) wait for each other, and each later one finds nothing pending. Needs a session
 * connection (not a transaction-pooling PgBouncer). `wait` first waits for the server to accept
 * connections (`dbmate wait`, up to DBMATE_WAIT_TIMEOUT, default 1 minute).
 */
export async function migrateWithLock(named: string, { wait = false } = {}): Promise<string> {
  const url = await primaryOf(named, { waitMs: wait ? 60_000 : 0 })
  if (wait) {
    await probeDatabase(url)
    await dbmate(url, ['wait'])
  }
  const lock = postgres(url, {
    max: 1,
    onnotice: () => {},
    connect_timeout: 10,
    // The lock lives as long as this one session: never recycle the connection while dbmate runs.
    max_lifetime: 0,
    idle_timeout: 0,
    connection: { application_name: 'supplier-admin migrate lock' },
  })
  let locked = false
  try {
    try {
      await lock`SELECT pg_advisory_lock(${MIGRATION_LOCK_KEY}::bigint)`
      locked = true
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err)
      throw new MigrationError(`cannot take the migration lock: ${redactPasswords(message, url)}`)
    }
    return await migrate(url)
  } finally {
    if (locked) await lock`SELECT pg_advisory_unlock(${MIGRATION_LOCK_KEY}::bigint)`.catch(() => {})
    // Closing the session releases the lock in any case.
    await lock.end({ timeout: 5 })
  }
}
