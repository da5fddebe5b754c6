import { existsSync, readFileSync } from 'node:fs'
import { mkdir, open, readFile, rm } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { PGlite } from '@electric-sql/pglite'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import { PGLiteSocketServer } from '@electric-sql/pglite-socket'

export interface EmbeddedDatabase {
  url: string
  stop(): Promise<void>
  /** A gzip dump of the data directory, loadable with `loadDataDir`. */
  dump(): Promise<Blob>
}

/** Another live process (or this one) has the data directory open. */
export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(`data directory ${dataDir} is in use by process ${pid}; stop it or use another DATA_DIR`)
    this.name = 'DataDirInUseError'
  }
}

/** Lock files this process holds (absolute paths): a second start in-process is refused too. */
const held = new Set<string>()

/**
 * Whether `pid` is a running process. A zombie (killed, not yet reaped by its parent) still
 * answers signal 0, but it will never touch the directory again: on Linux its state in
 * /proc/<pid>/stat tells it apart, so a restart right after `kill -9` is not refused.
 */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (err) {
    // EPERM: the process exists but belongs to another user.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  if (!existsSync('/proc/self/stat')) return true // not Linux: signal 0 is all we have
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // "pid (comm) S …": the state follows the last ')' (comm may itself contain ')').
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3)
    return state !== 'Z' && state !== 'X'
  } catch {
    return false // gone since signal 0
  }
}

/** The pid in a lock file; waits briefly while it is empty (its owner is still writing it). */
async function lockOwner(path: string): Promise<number | undefined> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const text = await readFile(path, 'utf8').catch(() => undefined)
    if (text === undefined) return undefined // removed meanwhile: try to take it again
    const pid = Number.parseInt(text.trim(), 10)
    if (pid > 0) return pid
    await sleep(50)
  }
  return undefined
}

/**
 * Takes `<dataDir>/.lock` (created exclusively, holding our pid): PGlite has no lock of its own,
 * and two processes on one directory both serve while only one survives a restart. A lock left
 * by a process that is gone (crash, SIGKILL) is taken over; so is one naming our own pid that we
 * do not hold (a container restarted with the same pid). Returns the release function.
 */
async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const path = join(dataDir, '.lock')
  const key = resolve(path)
  if (held.has(key)) throw new DataDirInUseError(dataDir, process.pid)
  for (let attempt = 0; ; attempt++) {
    try {
      const file = await open(path, 'wx')
      try {
        await file.writeFile(`${process.pid}\n`)
      } finally {
        await file.close()
      }
      held.add(key)
      let released = false
      return async () => {
        if (released) return // never remove a lock another process took after us
        released = true
        held.delete(key)
        await rm(path, { force: true })
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 3) throw err
    }
    const pid = await lockOwner(path)
    if (pid !== undefined && pid !== process.pid && isAlive(pid)) {
      throw new DataDirInUseError(dataDir, pid)
    }
    // Stale. (Two processes taking over the same stale lock at the same instant can still race.)
    await rm(path, { force: true })
  }
}

/**
 * PGlite behind a loopback Postgres socket, so the app, dbmate and psql all speak the
 * ordinary wire protocol to it. `dataDir` persists, locked against a second process;
 * `loadDataDir` starts from a dump (tests).
 */
export async function startEmbedded(options: {
  dataDir?: string
  loadDataDir?: Blob
  port?: number
  /** pglite-socket ignores the client's TimeZone parameter, so the session gets it here. */
  timezone?: string
}): Promise<EmbeddedDatabase> {
  let unlock: (() => Promise<void>) | undefined
  if (options.dataDir) {
    await mkdir(options.dataDir, { recursive: true })
    unlock = await lockDataDir(options.dataDir)
  }
  let db: PGlite | undefined
  try {
    db = await PGlite.create({
      dataDir: options.dataDir,
      loadDataDir: options.loadDataDir,
      extensions: { pg_trgm },
    })
    // Two slots, not one: dbmate closes one connection and opens the next at once, and the
    // server may not have released the first slot yet. The app itself uses one connection.
    const server = new PGLiteSocketServer({
      db,
      host: '127.0.0.1',
      port: options.port ?? 0,
      maxConnections: 2,
    })
    if (options.timezone)
      await db.query(`SELECT set_config('TimeZone', $1, false)`, [options.timezone])
    await server.start()
    const started = db
    return {
      url: `postgres://postgres@${server.getServerConn()}/postgres?sslmode=disable`,
      async stop() {
        try {
          await server.stop()
          await started.close()
        } finally {
          await unlock?.()
        }
      },
      dump: () => started.dumpDataDir('gzip') as Promise<Blob>,
    }
  } catch (err) {
    await db?.close().catch(() => {})
    await unlock?.()
    throw err
  }
}
