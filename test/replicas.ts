import { execFile } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { appendFile, chown, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import postgres from 'postgres'
import { freePort } from './service'

/**
 * PostgreSQL clusters of a test's own: a primary and standbys streaming from it (made with
 * `pg_basebackup -R`), on free ports in a temporary directory, torn down by `stop()`. The
 * machine's PostgreSQL is never touched: a synchronous_standby_names there would hold every
 * other test's commits.
 */

const run = promisify(execFile)

/** The server binaries: PG_BINDIR, else the newest /usr/lib/postgresql/<version>/bin. */
export function postgresBinaries(): string | undefined {
  if (process.env.PG_BINDIR) return process.env.PG_BINDIR
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a))
  return versions.length ? join(root, versions[0], 'bin') : undefined
}

/** PostgreSQL refuses to run as root: as root, the tools run as the `postgres` user. */
const asRoot = userInfo().uid === 0

async function tool(bin: string, name: string, args: string[]) {
  const [file, argv] = asRoot
    ? ['runuser', ['-u', 'postgres', '--', join(bin, name), ...args]]
    : [join(bin, name), args]
  try {
    return await run(file, argv, { timeout: 120_000 })
  } catch (err) {
    const e = err as { stderr?: string; stdout?: string; message: string }
    throw new Error(`${name} ${args.join(' ')}: ${e.stderr || e.stdout || e.message}`, {
      cause: err,
    })
  }
}

export interface Cluster {
  readonly name: string
  readonly port: number
  readonly dataDir: string
  /** A single-host URL of `database` on this cluster. */
  url(database?: string): string
  /** `pg_ctl stop` in `mode` ('immediate': as a crash, no shutdown checkpoint). */
  stop(mode?: 'fast' | 'immediate'): Promise<void>
  /** One connection as the superuser, for the test's own statements. */
  admin(database?: string): postgres.Sql
}

export interface ReplicaSet {
  primary: Cluster
  standbys: Cluster[]
  /** `host:port,host:port` of the primary then the standbys, as DATABASE_URL names them. */
  hosts: string
  /** Makes every commit on the primary wait for a standby (or, with `''`, for none). */
  synchronous(names: string, level?: 'on' | 'remote_apply'): Promise<void>
  /**
   * Brings `old` (a primary that crashed after `primary` was promoted) back as a standby of
   * `primary`: pg_rewind (crash recovery first, then rewinding what diverged), a recovery
   * configuration (`-R`), and a start.
   */
  demote(old: Cluster, primary: Cluster): Promise<void>
  /** Until `standby` has replayed everything the primary has written so far. */
  caughtUp(standby: Cluster): Promise<void>
  /** Stops every cluster (immediately) and removes their directory. */
  stop(): Promise<void>
}

function cluster(bin: string, root: string, name: string, port: number): Cluster {
  const dataDir = join(root, name)
  const admins: postgres.Sql[] = []
  const self: Cluster = {
    name,
    port,
    dataDir,
    url: (database = 'postgres') =>
      `postgres://postgres@127.0.0.1:${port}/${database}?sslmode=disable`,
    async stop(mode = 'fast') {
      await Promise.all(admins.splice(0).map((a) => a.end({ timeout: 0 }).catch(() => {})))
      if (existsSync(join(dataDir, 'postmaster.pid')))
        await tool(bin, 'pg_ctl', ['stop', '-D', dataDir, '-m', mode, '-w']).catch(() => {})
    },
    admin(database = 'postgres') {
      const sql = postgres(self.url(database), { max: 1, onnotice: () => {}, connect_timeout: 5 })
      admins.push(sql)
      return sql
    },
  }
  return self
}

const start = (bin: string, c: Cluster) =>
  tool(bin, 'pg_ctl', ['start', '-D', c.dataDir, '-w', '-t', '60', '-l', `${c.dataDir}.log`])

/**
 * A primary with `database` created in it, and `standbys` streaming standbys of it (asynchronous
 * until `synchronous()` says otherwise). Durability settings are PostgreSQL's defaults: a
 * failover test must not measure a primary that acknowledges before its WAL is flushed.
 */
export async function startReplicaSet({
  standbys = 1,
  database = 'test',
}: { standbys?: number; database?: string } = {}): Promise<ReplicaSet> {
  const bin = postgresBinaries()
  if (!bin) throw new Error('no PostgreSQL server binaries (set PG_BINDIR)')
  const root = await mkdtemp(join(tmpdir(), 'replicas-'))
  if (asRoot) await run('chown', ['postgres:postgres', root])
  else await chown(root, userInfo().uid, userInfo().gid)
  const all: Cluster[] = []
  const stopAll = async () => {
    for (const c of all.reverse()) await c.stop('immediate')
    await rm(root, { recursive: true, force: true })
  }
  try {
    await tool(bin, 'initdb', ['-D', join(root, 'primary'), '-U', 'postgres', '-A', 'trust'])
    const primary = cluster(bin, root, 'primary', await freePort())
    all.push(primary)
    await appendFile(
      join(primary.dataDir, 'postgresql.conf'),
      [
        '',
        `port = ${primary.port}`,
        "listen_addresses = '127.0.0.1'",
        `unix_socket_directories = '${root}'`,
        'wal_level = replica',
        'max_wal_senders = 10',
        'max_replication_slots = 10',
        'hot_standby = on',
        'hot_standby_feedback = on',
        // pg_rewind needs it to bring a crashed primary back as a standby (demote).
        'wal_log_hints = on',
        // Each log says who connected: a test can see the service tried a host.
        'log_connections = on',
        'wal_receiver_status_interval = 1s',
        'max_connections = 60',
        'shared_buffers = 32MB',
        "log_min_messages = 'warning'",
        '',
      ].join('\n'),
    )
    await start(bin, primary)
    const admin = primary.admin()
    await admin.unsafe(`CREATE DATABASE ${database}`)
    for (let i = 0; i < standbys; i++) {
      const standby = cluster(bin, root, `standby${i + 1}`, await freePort())
      all.push(standby)
      await tool(bin, 'pg_basebackup', [
        '-h',
        '127.0.0.1',
        '-p',
        String(primary.port),
        '-U',
        'postgres',
        '-D',
        standby.dataDir,
        '-R',
        '-X',
        'stream',
        '-c',
        'fast',
      ])
      await appendFile(
        join(standby.dataDir, 'postgresql.conf'),
        // cluster_name is the standby's name on the primary (pg_stat_replication,
        // synchronous_standby_names): the primary_conninfo `-R` wrote names no application.
        `\nport = ${standby.port}\ncluster_name = '${standby.name}'\n`,
      )
      await start(bin, standby)
    }
    const set: ReplicaSet = {
      primary,
      standbys: all.slice(1),
      hosts: all.map((c) => `127.0.0.1:${c.port}`).join(','),
      async synchronous(names, level = 'on') {
        await admin.unsafe(`ALTER SYSTEM SET synchronous_standby_names = '${names}'`)
        await admin.unsafe(`ALTER SYSTEM SET synchronous_commit = '${level}'`)
        await admin`SELECT pg_reload_conf()`
        // Until the primary says so: commits from here on wait for that standby.
        const until = Date.now() + 30_000
        for (;;) {
          const rows = await admin`
            SELECT 1 FROM pg_stat_replication WHERE sync_state = ${names ? 'sync' : 'async'}`
          if (rows.length) break
          if (Date.now() > until) throw new Error(`replication did not become ${names || 'async'}`)
          await new Promise((r) => setTimeout(r, 100))
        }
      },
      async demote(old, primary) {
        await old.stop('immediate')
        await tool(bin, 'pg_rewind', [
          '-D',
          old.dataDir,
          '--source-server',
          `host=127.0.0.1 port=${primary.port} user=postgres dbname=postgres`,
          '-R',
        ])
        // pg_rewind copied the source's configuration files: its port among them.
        await appendFile(
          join(old.dataDir, 'postgresql.conf'),
          `\nport = ${old.port}\ncluster_name = '${old.name}'\n`,
        )
        await start(bin, old)
      },
      async caughtUp(standby) {
        const [{ lsn }] = await admin<{ lsn: string }[]>`SELECT pg_current_wal_lsn()::text AS lsn`
        const probe = standby.admin()
        const until = Date.now() + 60_000
        for (;;) {
          const [{ done }] = await probe<{ done: boolean }[]>`
            SELECT coalesce(pg_last_wal_replay_lsn() >= ${lsn}::pg_lsn, false) AS done`
          if (done) break
          if (Date.now() > until) throw new Error(`${standby.name} did not replay up to ${lsn}`)
          await new Promise((r) => setTimeout(r, 50))
        }
        await probe.end()
      },
      stop: stopAll,
    }
    // Every standby streams before the set is handed out.
    const until = Date.now() + 60_000
    for (;;) {
      const rows = await admin`SELECT 1 FROM pg_stat_replication WHERE state = 'streaming'`
      if (rows.length === standbys) break
      if (Date.now() > until) throw new Error('the standbys did not start streaming')
      await new Promise((r) => setTimeout(r, 100))
    }
    return set
  } catch (err) {
    await stopAll()
    throw err
  }
}
