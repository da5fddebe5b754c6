import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { createWriteStream, mkdirSync, readFileSync, writeFileSync, readdirSync } from 'node:fs'
import { cpus, totalmem } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { sign } from 'hono/jwt'
import type postgres from 'postgres'
import { connect, type Sql } from '../../sql/db'
import { countUnkeyedSuppliers, suppliersSharingNameKeys } from '../../sql/supplier'
import {
  backfillNameKeys,
  findNearDuplicates,
  PROBE_LIMIT,
  probeKeysOf,
} from '../../src/domain/supplier/name-keys'
import { searchSuppliers } from '../../sql/supplier-read'
import { backfillSupplierSearch, keywordTerms } from '../../src/domain/supplier/search'
import { backfillTaxNumbers } from '../../src/domain/supplier/tax-number'
import { createApp } from '../../src/app'
import { loadConfig } from '../../src/config'
import { createCipher } from '../../src/crypto/sensitive'
import { createLogger } from '../../src/logger'
import { migrate } from '../../src/db/migrate'
import { sweepQualificationReminders } from '../../src/domain/supplier/qualification-reminders'
import { httpFleetResources, type FleetResources } from '../../src/ports/fleet'
import { sqlPermissionLookup } from '../../src/ports/permission'
import { sampleSum } from '../../test/metrics-page'
import { registrationName, registrationNamesLua } from './names'
import { registrationForm as formOf } from './registration-form'
import { latencyChart } from './chart'
import {
  percentile,
  pgbenchScript,
  replayWrite,
  writeScript,
  type Recorded,
  type Statement,
} from './statements'

/*
 * npm run bench: the service against the database's own floors, on seeded data (bench:seed).
 * For each read scenario, in the same run and at the same concurrency: the service (its real
 * entry point, in its own process, with a fleet service in another) under wrk; the handler floor
 * (a bare Hono route running the same statements); the driver floor (postgres.js alone); the
 * database floor (pgbench -M prepared on the same statements). Then registration, a status
 * change (the write figures that show what the audit trail costs), two instances against one
 * database, the detail read with tracing off and on (spans exported to a collector stand-in),
 * the scaling run on a small data set (start-up is `npm run bench:startup`). Writes
 * docs/bench/results.json, docs/bench/latency-vs-size.svg and the figures
 * section of docs/benchmarks.md.
 */

const { values: opts } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '16' },
    pool: { type: 'string', default: '16' },
    small: { type: 'string', default: '10000' },
    full: { type: 'string', default: '1000000' },
    // Client counts of the scaling scenarios, run at both sizes.
    clients: { type: 'string', default: '1,16' },
    reseed: { type: 'boolean', default: false },
    /** Only the tracing cost of the detail read, on the small data set; figures to stdout. */
    'only-tracing': { type: 'boolean', default: false },
    /**
     * Only registration and the near-duplicate check at both sizes and every client count (and
     * the name-key backfill where a data set has unkeyed suppliers); its own section of --out.
     */
    'only-registration': { type: 'boolean', default: false },
    /**
     * Only the list keyword and the approval records' filters (scripts/bench/search.ts) at each
     * size of --search-sizes and every client count; a markdown table per size to stdout.
     */
    'only-search': { type: 'boolean', default: false },
    'search-sizes': { type: 'string', default: '10000' },
    /** `sql`: the search rows call the SQL module itself, without the service and HTTP. */
    'search-via': { type: 'string', default: 'http' },
    /**
     * Only the event relay against the write path (scripts/bench/relay.ts): --connections
     * writers for --seconds on a database of its own; a table row per run to stdout.
     */
    'only-relay': { type: 'boolean', default: false },
    /**
     * Only the replica figures, on clusters of the run's own (a primary and a streaming standby,
     * test/replicas.ts) seeded with --small suppliers: reads with and without the standby,
     * registration with asynchronous and synchronous replication, and `--failover-runs` runs of
     * test/failover.test.ts. Markdown tables to stdout, figures to docs/bench/replicas.json.
     */
    'only-replicas': { type: 'boolean', default: false },
    'failover-runs': { type: 'string', default: '5' },
    out: { type: 'string', default: 'docs/benchmarks.md' },
    /** Seconds of registration load on a freshly started service before its rows are measured. */
    'warm-up': { type: 'string', default: '60' },
    /**
     * Rounds of the registration rows, taken in turn (1, 16, 1, 16, …) on one service: a row's
     * figures are its median round's. One 10 s window drifts from the next by more than the
     * 16-to-1 target's margin (131 to 161 a second at 16 clients in three runs of 15 s,
     * each on a service started afresh).
     */
    rounds: { type: 'string', default: '3' },
    /**
     * The registration run's service as this many `node:cluster` workers on one port, each with
     * a pool of `--pool` (scripts/bench/cluster.ts): an experiment, the service has no such mode.
     */
    workers: { type: 'string', default: '1' },
  },
})
const SECONDS = Number(opts.seconds)
const CONNECTIONS = Number(opts.connections)
const POOL = Number(opts.pool)
const WARM_UP = Number(opts['warm-up'])
const CLIENTS = opts.clients!.split(',').map(Number)
const ROUNDS = Number(opts.rounds)
if (!Number.isInteger(ROUNDS) || ROUNDS < 1)
  throw new Error(`--rounds ${opts.rounds}: a whole number ≥ 1`)
const WORKERS = Number(opts.workers)
if (!Number.isInteger(WORKERS) || WORKERS < 1)
  throw new Error(`--workers ${opts.workers}: a whole number ≥ 1`)
const BASE_URL =
  process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable'
const WORK = '.bench'
mkdirSync(WORK, { recursive: true })
/** The wrk script of registration (create a draft, then submit it). */
const REGISTRATION_LUA = 'scripts/bench/wrk/registration.lua'
/** The name parts of scripts/bench/names.ts, as registration.lua reads them. */
const NAMES_LUA = join(WORK, 'names.lua')
writeFileSync(NAMES_LUA, registrationNamesLua())
const FLEET_TOKEN = 'bench-fleet-internal-token'

for (const tool of opts['only-relay'] ? [] : ['wrk', 'pgbench']) {
  if (spawnSync('which', [tool]).status !== 0) {
    console.error(
      `${tool} is not installed: apt-get install ${tool === 'wrk' ? 'wrk' : 'postgresql-client'}`,
    )
    process.exit(2)
  }
}

const log = (...parts: unknown[]) =>
  console.log(`[${new Date().toISOString().slice(11, 19)}]`, ...parts)

function databaseUrl(name: string) {
  const u = new URL(BASE_URL)
  u.pathname = `/${name}`
  return u.toString()
}

/** bench:seed of `suppliers` suppliers into the database of `url`, made afresh. */
function seedInto(url: string, suppliers: number) {
  const seed = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      'scripts/bench/seed.ts',
      '--suppliers',
      String(suppliers),
      '--reset',
      '--force',
      '--out',
      join(WORK, `seed-${suppliers}.json`),
      '--fleet-out',
      join(WORK, `fleet-vehicles-${suppliers}.json`),
    ],
    { env: { ...process.env, NODE_ENV: 'development', DATABASE_URL: url }, stdio: 'inherit' },
  )
  if (seed.status !== 0) throw new Error(`bench:seed failed for ${url}`)
}

/** The name-key backfill's timing per data set, where `settleBackfills` found suppliers to key. */
const keyBackfills = new Map<string, { suppliers: number; seconds: number; keyed: number }>()

/**
 * The service's start-up backfills run to their end before anything is measured, else the service
 * would run them meanwhile: the company-name keys (timed), the search rows, the tax numbers' pass.
 */
async function settleBackfills(url: string) {
  const silent = createLogger({ level: 'silent' })
  const db = connect({ url, max: 2, timezone: 'UTC' })
  try {
    const pending = await countUnkeyedSuppliers(db)
    if (pending) {
      log(`name keys: backfilling ${pending.toLocaleString('en')} suppliers`)
      const t0 = performance.now()
      const outcome = await backfillNameKeys({ sql: db, logger: silent }, { batch: 1000 })
      const seconds = (performance.now() - t0) / 1000
      keyBackfills.set(url, { suppliers: pending, seconds, keyed: outcome.keyed })
      log(`name keys: ${outcome.keyed.toLocaleString('en')} keyed in ${seconds.toFixed(1)} s`)
    }
    const search = await backfillSupplierSearch({ sql: db, logger: silent }, { batch: 2000 })
    if (search.written) log(`search rows: ${search.written.toLocaleString('en')} written`)
    const taxNumbers = await backfillTaxNumbers(
      { sql: db, cipher: await createCipher(config.crypto) },
      { batch: 1000 },
    )
    if (taxNumbers.ran) log(`tax numbers: ${taxNumbers.read.toLocaleString('en')} read`)
  } finally {
    await db.end()
  }
}

/**
 * The database of `suppliers` seeded suppliers: made by bench:seed unless already there, its
 * backfills run to their end.
 */
async function seeded(suppliers: number): Promise<string> {
  const name = `supplier_bench_${suppliers}`
  const url = databaseUrl(name)
  const admin = connect({ url: BASE_URL, max: 1, timezone: 'UTC' })
  const [exists] = await admin`SELECT 1 FROM pg_database WHERE datname = ${name}`
  if (exists && opts.reseed) await admin.unsafe(`DROP DATABASE ${name} WITH (FORCE)`)
  if (!exists || opts.reseed) await admin.unsafe(`CREATE DATABASE ${name}`)
  await admin.end()
  let have = 0
  if (exists && !opts.reseed) {
    const db = connect({ url, max: 1, timezone: 'UTC' })
    have = await db`SELECT count(*)::int AS n FROM supplier WHERE deleted_at IS NULL`
      .then(([r]) => r.n as number)
      .catch(() => 0)
    await db.end()
  }
  if (have < suppliers * 0.9) {
    log(`seeding ${name} with ${suppliers} suppliers (npm run bench:seed)`)
    seedInto(url, suppliers)
  }
  // A data set seeded before the latest migrations gets them (new indexes) before it is measured.
  await migrate(url)
  const db = connect({ url, max: 1, timezone: 'UTC' })
  await recordDueReminders(db)
  await settleBackfills(url)
  // VACUUM too: the visibility map a settled database has (autovacuum) makes index-only scans pay.
  // Then a checkpoint, so that the pages the vacuum dirtied are not written during a measurement.
  await db`VACUUM ANALYZE`
  await db`CHECKPOINT`
  await db.end()
  return url
}

/**
 * The qualification reminders due today, recorded as a running service records them. A service
 * sweeps them when it starts; on a freshly seeded data set that is a backlog (191,733 at
 * 1,000,000 suppliers), and its batches, 0.4-0.5 s of a backend each there, took minutes and ran
 * through the measured rows (one-client p99 762 ms). Recorded here, the measured service's
 * start-up sweep finds nothing.
 */
async function recordDueReminders(sql: postgres.Sql) {
  const swept = await sweepQualificationReminders({
    sql,
    logger: createLogger({ level: 'silent' }),
    config: { timezone: config.timezone },
  })
  if (!swept.ran) log('qualification reminders: another sweep holds the lease; not swept here')
  else if (swept.expiring + swept.expired)
    log(`qualification reminders: ${swept.expiring + swept.expired} due, recorded`)
}

interface Started {
  child: ChildProcess
  port: number
}

/** A child process whose stdout's first JSON line with a port says it is listening. */
function startListening(args: string[], env: NodeJS.ProcessEnv, logFile: string): Promise<Started> {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env } })
  const out = createWriteStream(logFile)
  child.stderr!.pipe(out)
  return new Promise((resolve, reject) => {
    let buffered = ''
    const onData = (chunk: Buffer) => {
      out.write(chunk)
      buffered += chunk.toString()
      const match = buffered.match(/"port":(\d+)/) ?? buffered.match(/"url":"http:\/\/[^"]*:(\d+)"/)
      if (match) {
        child.stdout!.off('data', onData)
        child.stdout!.pipe(out)
        resolve({ child, port: Number(match[1]) })
      }
    }
    child.stdout!.on('data', onData)
    child.once('exit', (code) =>
      reject(new Error(`${args.join(' ')} exited ${code}: see ${logFile}`)),
    )
  })
}

const stop = (p: Started | undefined) =>
  new Promise<void>((resolve) => {
    if (!p || p.child.exitCode !== null) return resolve()
    p.child.once('exit', () => resolve())
    p.child.kill('SIGTERM')
  })

interface Figures {
  requestsPerSecond: number
  p50: number
  p99: number
  failures: number
  requests?: number
  registered?: number
  /** Creates answered 395006 and sent again with the confirm token (registration). */
  confirmed?: number
  /** Status changes made (the status-change scenario). */
  moved?: number
}

function wrk(
  url: string,
  options: {
    script?: string
    threads?: number
    headers?: boolean
    connections?: number
    seconds?: number
  } = {},
) {
  const threads = options.threads ?? 1
  const args = [
    `-t${threads}`,
    `-c${options.connections ?? CONNECTIONS}`,
    `-d${options.seconds ?? SECONDS}s`,
    '--latency',
    '--timeout',
    '10s',
    '-s',
    options.script ?? 'scripts/bench/wrk/envelope.lua',
    ...(options.headers === false
      ? []
      : ['-H', `Authorization: Bearer ${token}`, '-H', `X-Admin-Id: ${ADMIN}`]),
    '-H',
    'Content-Type: application/json',
    url,
  ]
  return new Promise<Figures>((resolve, reject) => {
    const child = spawn('wrk', args, {
      env: { ...process.env, BENCH_RUN: String(Date.now() % 1e6), BENCH_NAMES: NAMES_LUA },
    })
    let out = ''
    child.stdout.on('data', (c: Buffer) => (out += c.toString()))
    child.stderr.on('data', (c: Buffer) => (out += c.toString()))
    child.on('exit', () => {
      const line = out.split('\n').find((l) => l.startsWith('BENCH_JSON '))
      if (!line) return reject(new Error(`wrk printed no figures:\n${out}`))
      const r = JSON.parse(line.slice('BENCH_JSON '.length)) as {
        requests: number
        seconds: number
        p50: number
        p99: number
        failures: number
        socketErrors: number
        registered?: number
        confirmed?: number
        moved?: number
        sample: string
      }
      if (r.failures + r.socketErrors > 0)
        log(`  ${r.failures + r.socketErrors} failures, e.g. ${r.sample}`)
      resolve({
        requestsPerSecond: r.requests / r.seconds,
        p50: r.p50,
        p99: r.p99,
        failures: r.failures + r.socketErrors,
        requests: r.requests,
        registered: r.registered,
        confirmed: r.confirmed,
        moved: r.moved,
      })
    })
  })
}

/** pgbench -M prepared on the scenario's statements, latency percentiles from its per-transaction log. */
function pgbench(url: string, name: string, statements: Statement[]): Figures {
  const dir = join(WORK, `pgbench-${name}`)
  mkdirSync(dir, { recursive: true })
  for (const f of readdirSync(dir)) writeFileSync(join(dir, f), '')
  const { script, variables } = pgbenchScript(statements)
  writeFileSync(join(dir, 'script.sql'), script)
  const run = spawnSync(
    'pgbench',
    [
      '-n',
      '-M',
      'prepared',
      '-c',
      String(CONNECTIONS),
      '-j',
      '2',
      '-T',
      String(SECONDS),
      '-l',
      `--log-prefix=${join(dir, 'log')}`,
      '-f',
      join(dir, 'script.sql'),
      ...variables.flatMap((v) => ['-D', v]),
      url,
    ],
    { encoding: 'utf8' },
  )
  if (run.status !== 0) throw new Error(`pgbench failed for ${name}:\n${run.stderr}\n${run.stdout}`)
  const tps = Number(run.stdout.match(/tps = ([\d.]+)/)?.[1])
  const failed = Number(run.stdout.match(/number of failed transactions: (\d+)/)?.[1] ?? 0)
  const latencies = readdirSync(dir)
    .filter((f) => f.startsWith('log'))
    .flatMap((f) =>
      readFileSync(join(dir, f), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => Number(l.split(' ')[2]) / 1000),
    )
    .sort((a, b) => a - b)
  return {
    requestsPerSecond: tps,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    failures: failed,
  }
}

function driver(url: string, file: string, name: string, concurrency = CONNECTIONS): Figures {
  const run = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      'scripts/bench/driver.ts',
      file,
      name,
      String(concurrency),
      String(SECONDS),
      String(POOL),
    ],
    { env: { ...process.env, DATABASE_URL: url }, encoding: 'utf8' },
  )
  if (run.status !== 0) throw new Error(`driver floor failed for ${name}:\n${run.stderr}`)
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Figures
}

const config = loadConfig({
  NODE_ENV: 'development',
  LOG_LEVEL: 'silent',
  FLEET_BASE_URL: 'http://127.0.0.1:1',
  FLEET_INTERNAL_TOKEN: FLEET_TOKEN,
  ...(process.env.DEMO_ADMIN_ID && { DEMO_ADMIN_ID: process.env.DEMO_ADMIN_ID }),
})
/** bench:seed grants the demo administrator every permission and the ADMIN role. */
const ADMIN = config.demoAdminId
const now = Math.floor(Date.now() / 1000)
const token = await sign(
  { sub: ADMIN, iat: now, exp: now + 6 * 3600 },
  config.auth.jwtSecret!,
  'HS256',
)

/** The service's environment for the benchmark: JSON logs at info, as in production. */
const serviceEnv = (url: string, fleetPort: number): NodeJS.ProcessEnv => ({
  // The benchmark signs with the development secret, which only development takes.
  NODE_ENV: 'development',
  DATABASE_URL: url,
  DATABASE_POOL_MAX: String(POOL),
  FLEET_BASE_URL: `http://127.0.0.1:${fleetPort}`,
  FLEET_INTERNAL_TOKEN: FLEET_TOKEN,
  PORT: '0',
  LOG_LEVEL: 'info',
  LOG_FORMAT: 'json',
  DEMO_DATA: 'false',
})

/** The fleet service on the seeded vehicles of `url`, logging to .bench/<log>. */
const startFleet = (url: string, log: string) =>
  startListening(
    ['--import', 'tsx', 'scripts/bench/fleet.ts', '0'],
    { DATABASE_URL: url, FLEET_INTERNAL_TOKEN: FLEET_TOKEN },
    join(WORK, log),
  )

/**
 * The service (its real entry point, or `entry`) on `url`, with `env` over serviceEnv, and the
 * V8 flag of `npm run start:prod` (docs/operations.md).
 */
const startService = (
  url: string,
  fleetPort: number,
  log: string,
  env: NodeJS.ProcessEnv = {},
  entry = 'src/main.ts',
) =>
  startListening(
    ['--max-semi-space-size=64', '--import', 'tsx', entry],
    { ...serviceEnv(url, fleetPort), ...env },
    join(WORK, log),
  )

/** A collector stand-in that accepts every OTLP export (scripts/bench/otlp-sink.ts). */
const startOtlpSink = (log: string) =>
  startListening(['--import', 'tsx', 'scripts/bench/otlp-sink.ts', '0'], {}, join(WORK, log))

/**
 * The supplier detail read of a service with tracing off (no OTEL_* set), on with every request
 * sampled (the default sampler: each span exported, over OTLP/HTTP protobuf, the default), and on
 * with none sampled (OTEL_TRACES_SAMPLER=always_off: the instrumentation without the export), one
 * after the other on the same database. The services stop before the next starts; the sink's
 * counts, read after the sampled run's SIGTERM (which exports what is left), show that its spans
 * were exported.
 */
async function tracingCost(url: string, fleetPort: number, detail: string) {
  const sink = await startOtlpSink('otlp-sink.log')
  const endpoint = `http://127.0.0.1:${sink.port}`
  const measure = async (name: string, env: NodeJS.ProcessEnv) => {
    const service = await startService(url, fleetPort, `service-${name}.log`, env)
    try {
      await wrk(`http://127.0.0.1:${service.port}${detail}`).catch(() => undefined) // warm-up run
      return await wrk(`http://127.0.0.1:${service.port}${detail}`)
    } finally {
      await stop(service)
    }
  }
  try {
    log('supplier detail, tracing off')
    const off = await measure('tracing-off', {})
    log('supplier detail, tracing on, every request sampled and exported')
    const sampled = await measure('tracing-on', { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint })
    const res = await fetch(`${endpoint}/counts`)
    const exported = (await res.json()) as { exports: number; bytes: number }
    log('supplier detail, tracing on, no request sampled')
    const unsampled = await measure('tracing-unsampled', {
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_TRACES_SAMPLER: 'always_off',
    })
    if (exported.exports === 0) throw new Error('tracing on: the sink received no export')
    return { off, sampled, unsampled, exported }
  } finally {
    await stop(sink)
  }
}

const tracingLine = (t: Awaited<ReturnType<typeof tracingCost>>) => {
  const f1 = (n: number) => n.toFixed(1)
  const f0 = (n: number) => Math.round(n).toLocaleString('en')
  const of = (x: Figures) =>
    `${f0(x.requestsPerSecond)} req/s (${(x.requestsPerSecond / t.off.requestsPerSecond).toFixed(2)} of off), p50 ${f1(x.p50)} ms, p99 ${f1(x.p99)} ms, ${x.failures} errors`
  return `Supplier detail with tracing (OpenTelemetry, run one after the other): off ${f0(t.off.requestsPerSecond)} req/s, p50 ${f1(t.off.p50)} ms, p99 ${f1(t.off.p99)} ms, ${t.off.failures} errors; on, every request sampled and exported (OTLP/HTTP protobuf to a local sink, ${t.exported.exports} exports, ${f0(t.exported.bytes / 1024)} KiB) ${of(t.sampled)}; on, none sampled (\`OTEL_TRACES_SAMPLER=always_off\`) ${of(t.unsampled)}.`
}

interface Scenario {
  name: string
  title: string
  path: string
}

interface Answer {
  success: boolean
  message: string
  data?: unknown
}

/** The registration form of scripts/bench/wrk/registration.lua, unique by `key`. */
const registrationForm = (key: string) => {
  const word = (n: number) =>
    Array.from({ length: 9 }, (_, i) => 'abcdefghijklmnopqrstuvwxyz'[(n * 7 + i * 11) % 26]).join(
      '',
    )
  return formOf(`${word(Number(key))}${key} ${word(Number(key) + 3)} 旅游服务有限公司`, key)
}

/**
 * The statements the service issues for each scenario's request, recorded from an in-process app
 * on the same database (after one warm-up request, so connection set-up is not counted), and
 * the vehicle ids the page asked the fleet for.
 */
async function recordStatements(url: string, fleetPort: number, scenarios: Scenario[]) {
  let recording: Statement[] | undefined
  // A statement sent before any query settled since the previous one was sent went out while
  // that one was still running (the list's page and count under Promise.all, the resource page's
  // module reads): it is marked, so the floors send it concurrently too.
  let settled = 0
  let settledAtLastSend = -1
  const pool = connect({
    url,
    max: 4,
    timezone: config.timezone,
    debug: (_c, text, parameters) => {
      const concurrent = settled === settledAtLastSend
      settledAtLastSend = settled
      recording?.push({ text, parameters: [...parameters], concurrent })
    },
  })
  // Counts the queries that settle, on the pool and in transactions opened from it.
  const watch = <S extends postgres.Sql | postgres.TransactionSql>(db: S): S =>
    new Proxy(db, {
      apply(target, self, args: unknown[]) {
        const query = Reflect.apply(target, self, args) as postgres.PendingQuery<postgres.Row[]>
        // sql(row), sql.json(…): helpers, not queries.
        if (typeof query?.then !== 'function') return query
        const then = query.then.bind(query)
        query.then = ((ok?: (v: unknown) => unknown, fail?: (e: unknown) => unknown) => {
          return then(
            (v) => {
              settled += 1
              keepRows(v as postgres.RowList<postgres.Row[]>)
              return ok ? ok(v) : v
            },
            (e) => {
              settled += 1
              if (fail) return fail(e)
              throw e
            },
          )
        }) as never
        return query
      },
      get(target, property, receiver) {
        if (property !== 'begin') return Reflect.get(target, property, receiver)
        return (...args: unknown[]) => {
          const work = args.pop() as (tx: postgres.TransactionSql) => unknown
          return (target as postgres.Sql).begin(...(args as [string]), (tx) => work(watch(tx)))
        }
      },
    })
  // A write's later statements reuse what its earlier ones answered (writeScript): the rows are
  // kept on the recorded statement they answer (the first of that text still without them).
  const keepRows = (result: postgres.RowList<postgres.Row[]>) => {
    const text = (result as unknown as { statement?: { string?: string } }).statement?.string
    const s = recording?.find((r) => r.text === text && r.rows === undefined)
    if (s) s.rows = result.map((row) => ({ ...row }))
  }
  const sql = watch(pool)
  const httpFleet = httpFleetResources({
    baseUrl: `http://127.0.0.1:${fleetPort}`,
    token: FLEET_TOKEN,
    timeoutMs: 3000,
  })
  let fleetIds: string[] | undefined
  const fleet: FleetResources = {
    supplierResourceInfo(ids, db) {
      fleetIds = [...ids]
      return httpFleet.supplierResourceInfo(ids, db)
    },
  }
  const app = createApp({
    config,
    sql,
    logger: createLogger({ level: 'silent' }),
    cipher: await createCipher(config.crypto),
    permissions: sqlPermissionLookup(sql),
    fleet,
  })
  const headers = { authorization: `Bearer ${token}`, 'x-admin-id': ADMIN }
  const out: Record<string, Recorded> = {}

  // Registration as scripts/bench/wrk/registration.lua does it (create, then submit with the
  // version the create answered), recorded twice on different forms to make it replayable.
  const registration = async (key: string) => {
    const form = registrationForm(key)
    const post = (path: string, body: unknown) =>
      app.request(path, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    recording = []
    const created = (await (await post('/admin/supplier/items', form)).json()) as Answer
    if (!created.success) throw new Error(`registration: create answered ${created.message}`)
    const { supplierId, updateTime } = created.data as { supplierId: string; updateTime: string }
    const submitted = (await (
      await post(`/admin/supplier/items/${supplierId}/submit`, {
        ...form,
        expectedUpdateTime: updateTime,
      })
    ).json()) as Answer
    if (!submitted.success) throw new Error(`registration: submit answered ${submitted.message}`)
    const statements = recording
    recording = undefined
    return { statements, supplierId }
  }
  const run = Date.now() % 1e6
  await registration(`${run}0`) // warm-up
  const a = await registration(`${run}1`)
  const b = await registration(`${run}2`)
  const write = writeScript(a.statements, b.statements)
  // One replay, checked: the supplier it creates ends ACTIVE, as the service's registration does.
  const replayed = await replayWrite(pool, write, run, 0)
  const [check] = await pool`
    SELECT status FROM supplier WHERE supplier_id = ${replayed(a.supplierId)} AND deleted_at IS NULL`
  if (check?.status !== 'ACTIVE') {
    throw new Error(
      `the registration replay left supplier ${replayed(a.supplierId)} ${check?.status}`,
    )
  }
  out.registration = { statements: a.statements, write }

  for (const s of scenarios) {
    await app.request(s.path, { headers })
    recording = []
    fleetIds = undefined
    const res = await app.request(s.path, { headers })
    const body = (await res.json()) as Answer
    if (!body.success) throw new Error(`${s.name}: ${s.path} answered ${body.message}`)
    // Assigned by the fleet wrapper during the request (TypeScript cannot see that).
    const asked = fleetIds as string[] | undefined
    out[s.name] = asked
      ? { statements: recording, fleetVehicleIds: asked }
      : { statements: recording }
    recording = undefined
  }
  await pool.end()
  return out
}

interface Row extends Figures {
  scenario: string
  title: string
  statements?: number
  handler?: Figures
  driver?: Figures
  database?: Figures
  fleetCallsPerPage?: number
}

async function fleetCalls(port: number) {
  const res = await fetch(`http://127.0.0.1:${port}/calls`)
  return ((await res.json()) as { calls: number }).calls
}

/** Ids the scenarios need, read from the seeded data. */
async function pick(url: string) {
  const db = connect({ url, max: 1, timezone: 'UTC' })
  const [large] = await db`
    SELECT r.supplier_id::text AS id, count(*)::int AS n
    FROM supplier_resource_relation r JOIN supplier s ON s.supplier_id = r.supplier_id
    WHERE r.deleted_at IS NULL AND s.deleted_at IS NULL
    GROUP BY r.supplier_id ORDER BY count(*) DESC LIMIT 1`
  // The middle one of the live ACTIVE suppliers with a short name and a contact; an
  // administrator looking for it types its short name (the keyword scenario).
  const [ordinary] = await db`
    WITH candidates AS (
      SELECT s.supplier_id FROM supplier s
    WHERE s.deleted_at IS NULL AND s.status = 'ACTIVE' AND s.short_name IS NOT NULL
      AND EXISTS (
        SELECT 1 FROM supplier_contact c WHERE c.supplier_id = s.supplier_id AND c.deleted_at IS NULL
      )
    )
    SELECT s.supplier_id::text AS id, s.short_name AS keyword
    FROM supplier s
    WHERE s.deleted_at IS NULL AND s.supplier_id = (
      SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY supplier_id) FROM candidates
    )`
  await db.end()
  return {
    large: large.id as string,
    relations: large.n as number,
    ordinary: ordinary.id as string,
    keyword: process.env.BENCH_KEYWORD ?? (ordinary.keyword as string),
  }
}

const scenariosFor = (ids: { large: string; ordinary: string }, keyword: string): Scenario[] => [
  {
    name: 'list',
    title: 'list, page 1 (20, default order)',
    path: '/admin/supplier/items?page=1&pageSize=20',
  },
  {
    name: 'keyword',
    title: `list, keyword "${keyword}"`,
    path: `/admin/supplier/items?keyword=${encodeURIComponent(keyword)}&page=1&pageSize=20`,
  },
  { name: 'detail', title: 'supplier detail', path: `/admin/supplier/items/${ids.ordinary}` },
  {
    name: 'page1',
    title: 'resource page 1, all modules (large supplier)',
    path: `/admin/supplier/items/${ids.large}/resource-info/page?page=1&pageSize=20`,
  },
  {
    name: 'page400',
    title: 'resource page 400, all modules',
    path: `/admin/supplier/items/${ids.large}/resource-info/page?page=400&pageSize=20`,
  },
  {
    name: 'vehicle',
    title: 'resource page 1, VEHICLE only',
    path: `/admin/supplier/items/${ids.large}/resource-info/page?page=1&pageSize=20&resourceModule=VEHICLE`,
  },
]

/** Every read scenario with its three floors, then registration and two instances. */
async function fullRun(url: string) {
  const ids = await pick(url)
  log(`large supplier ${ids.large} (${ids.relations} relations), detail of ${ids.ordinary}`)
  const fleet = await startFleet(url, 'fleet.log')
  const scenarios = scenariosFor(ids, ids.keyword)
  const recorded = await recordStatements(url, fleet.port, scenarios)
  const file = join(WORK, 'statements.json')
  writeFileSync(file, JSON.stringify(recorded, null, 1))
  const service = await startService(url, fleet.port, 'service.log')
  const floor = await startListening(
    ['--import', 'tsx', 'scripts/bench/floor.ts', file, String(POOL)],
    {
      DATABASE_URL: url,
      FLEET_BASE_URL: `http://127.0.0.1:${fleet.port}`,
      FLEET_INTERNAL_TOKEN: FLEET_TOKEN,
    },
    join(WORK, 'floor.log'),
  )
  const rows: Row[] = []
  try {
    for (const s of scenarios) {
      log(`${s.title}: service`)
      await wrk(`http://127.0.0.1:${service.port}${s.path}`, { script: undefined }) // warm-up run
        .catch(() => undefined)
      const before = await fleetCalls(fleet.port)
      const svc = await wrk(`http://127.0.0.1:${service.port}${s.path}`)
      const calls = (await fleetCalls(fleet.port)) - before
      log(`${s.title}: handler, driver and database floors`)
      const handler = await wrk(`http://127.0.0.1:${floor.port}/floor/${s.name}`, {
        headers: false,
      })
      const drv = driver(url, file, s.name)
      const database = pgbench(url, s.name, recorded[s.name].statements)
      rows.push({
        scenario: s.name,
        title: s.title,
        ...svc,
        statements: recorded[s.name].statements.length,
        handler,
        driver: drv,
        database,
        fleetCallsPerPage: recorded[s.name].fleetVehicleIds
          ? calls / (svc.requests ?? 1)
          : undefined,
      })
    }
    log('registration: create draft, then submit')
    const registration = await wrk(`http://127.0.0.1:${service.port}/`, {
      script: REGISTRATION_LUA,
      threads: CONNECTIONS,
    })
    // Its floor: the statements of one registration (create, submit, the LOCAL_AUTO decision and
    // apply), replayed by postgres.js in as many loops, each replay a new supplier (writeScript).
    // pgbench cannot replay it: each statement reuses ids the previous ones answered.
    log('registration: driver floor (the same statements replayed)')
    rows.push({
      scenario: 'registration',
      title: 'registration (create draft, then submit)',
      statements: recorded.registration.statements.length,
      ...registration,
      driver: driver(url, file, 'registration'),
    })
    // Writes pay for the audit trail (a chain head lock and a seal per transaction that logs):
    // this and registration are the write figures to compare with a run before it.
    log('status change: read detail, then suspend or resume')
    const statusChange = await wrk(`http://127.0.0.1:${service.port}/`, {
      script: 'scripts/bench/wrk/status-change.lua',
      threads: CONNECTIONS,
    })
    rows.push({
      scenario: 'status-change',
      title: 'status change (read detail, then suspend or resume)',
      ...statusChange,
    })

    log('two instances against one database: supplier detail')
    const second = await startService(url, fleet.port, 'service-2.log')
    const detail = scenarios.find((s) => s.name === 'detail')!.path
    const both = await Promise.all([
      wrk(`http://127.0.0.1:${service.port}${detail}`),
      wrk(`http://127.0.0.1:${second.port}${detail}`),
    ])
    await stop(second)
    const one = rows.find((r) => r.scenario === 'detail')!

    // The figures above remember a granted read for PERMISSION_READ_CACHE_SECONDS (the default);
    // this is the detail read of a service that asks the permission tables on every request.
    log('supplier detail, every read asking its permission (PERMISSION_READ_CACHE_SECONDS=0)')
    const asking = await startService(url, fleet.port, 'service-asking.log', {
      PERMISSION_READ_CACHE_SECONDS: '0',
    })
    await wrk(`http://127.0.0.1:${asking.port}${detail}`).catch(() => undefined) // warm-up run
    const everyReadAsks = await wrk(`http://127.0.0.1:${asking.port}${detail}`)
    await stop(asking)
    // Alone on the machine: the services above have stopped (the first one stays idle).
    const tracing = await tracingCost(url, fleet.port, detail)
    return { ids, rows, twoInstances: { one, both }, everyReadAsks, tracing }
  } finally {
    await Promise.all([stop(service), stop(floor), stop(fleet)])
  }
}

/**
 * The scenarios whose cost may grow with the data: the supplier list (page 1, filtered by status
 * and by type, a keyword, page 400), the approval records (page 1 and 400 of all suppliers, page
 * 1 of the supplier with about 10,000 change-log rows) and the resource page, each measured at
 * both sizes and at every client count of --clients.
 */
const scalingScenarios = (ids: { large: string }, keywords: Keywords): Scenario[] => [
  {
    name: 'list',
    title: 'list, page 1',
    path: '/admin/supplier/items?page=1&pageSize=20',
  },
  {
    name: 'list-active',
    title: 'list, page 1, status ACTIVE',
    path: '/admin/supplier/items?page=1&pageSize=20&status=ACTIVE',
  },
  {
    name: 'list-type',
    title: 'list, page 1, type HOTEL',
    path: '/admin/supplier/items?page=1&pageSize=20&typeCode=HOTEL',
  },
  {
    name: 'keyword',
    title: `list, keyword "${keywords.frequent}"`,
    path: `/admin/supplier/items?keyword=${encodeURIComponent(keywords.frequent)}&page=1&pageSize=20`,
  },
  {
    name: 'keyword-one',
    title: `list, keyword "${keywords.distinctive}"`,
    path: `/admin/supplier/items?keyword=${encodeURIComponent(keywords.distinctive)}&page=1&pageSize=20`,
  },
  {
    name: 'list-deep',
    title: 'list, page 400',
    path: '/admin/supplier/items?page=400&pageSize=20',
  },
  {
    name: 'records',
    title: 'approval records, page 1 (all suppliers)',
    path: '/admin/supplier/approval-records?page=1&pageSize=20',
  },
  {
    name: 'records-deep',
    title: 'approval records, page 400 (all suppliers)',
    path: '/admin/supplier/approval-records?page=400&pageSize=20',
  },
  {
    name: 'records-large',
    title: 'approval records, page 1 of the large supplier',
    path: `/admin/supplier/approval-records?page=1&pageSize=20&supplierId=${ids.large}`,
  },
  {
    name: 'page1',
    title: 'resource page 1, all modules (large supplier)',
    path: `/admin/supplier/items/${ids.large}/resource-info/page?page=1&pageSize=20`,
  },
]

/**
 * The keywords of the scaling run: one drawn from the seeded names, whose matches grow with the
 * data (the seed composes short names from two of 30 words), and the large supplier's short name, which one
 * supplier has at either size, as a distinctive name has.
 */
interface Keywords {
  frequent: string
  distinctive: string
}

interface ScalingRow extends Row {
  suppliers: number
  clients: number
  changeLogRows?: number
  /** Live suppliers a keyword scenario's keyword finds (its total). */
  matches?: number
}

/**
 * The scaling scenarios on one data set, at each client count (a 3 s warm-up run before each).
 * The data set is vacuumed first, so both sizes are measured as bench:seed leaves them: the full
 * run's write scenarios have just written the newest suppliers and change-log rows of the large
 * one, the first entries of every list's order, and index-only scans fetch from the heap until
 * (auto)vacuum sets their visibility bits again; the small one had no writes.
 */
async function scalingRun(url: string, suppliers: number, frequent: string) {
  const ids = await pick(url)
  const db = connect({ url, max: 1, timezone: 'UTC' })
  await db`VACUUM ANALYZE`
  const [{ n: changeLogRows }] = await db`
    SELECT count(*)::int AS n FROM change_log WHERE supplier_id = ${ids.large}`
  const [{ name: distinctive }] = await db`
    SELECT short_name AS name FROM supplier WHERE supplier_id = ${ids.large}`
  const keywords: Keywords = { frequent, distinctive }
  const matches: Record<string, number> = {}
  for (const [scenario, keyword] of [
    ['keyword', frequent],
    ['keyword-one', distinctive],
  ]) {
    // The service's own search, similarity off: the suppliers that contain the keyword.
    const search = {
      keyword,
      ...keywordTerms(keyword),
      similarity: 0,
      limit: 1,
      offset: 0,
      timezone: 'UTC',
    }
    matches[scenario] = (await searchSuppliers(db, search)).total
  }
  await db.end()
  const fleet = await startFleet(url, `fleet-${suppliers}.log`)
  const service = await startService(url, fleet.port, `service-${suppliers}.log`)
  const rows: ScalingRow[] = []
  try {
    for (const clients of CLIENTS) {
      for (const s of scalingScenarios(ids, keywords)) {
        log(`${s.title} (${suppliers.toLocaleString('en')} suppliers, ${clients} clients)`)
        const target = `http://127.0.0.1:${service.port}${s.path}`
        await wrk(target, { connections: clients, seconds: 3 }).catch(() => undefined)
        rows.push({
          scenario: s.name,
          title: s.title,
          suppliers,
          clients,
          ...(s.name === 'records-large' && { changeLogRows }),
          ...(s.name in matches && { matches: matches[s.name] }),
          ...(await wrk(target, { connections: clients })),
        })
      }
    }
  } finally {
    await Promise.all([stop(service), stop(fleet)])
  }
  return rows
}

/** Percentiles of a list of milliseconds. */
const spread = (ms: number[]) => {
  const sorted = [...ms].sort((a, b) => a - b)
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) }
}

/**
 * Names to check against a data set, drawn as real ones are: half the seeded suppliers' own names
 * with the region spelled out (苏州 → 苏州市) or another legal form (the same company written
 * differently, so the probe finds and scores the suppliers of that trade name), half new names
 * drawn as the registration script draws them (scripts/bench/names.ts).
 */
async function probeNames(db: postgres.Sql, count: number): Promise<string[]> {
  const seeded = await db`
    SELECT full_name AS name FROM supplier WHERE deleted_at IS NULL ORDER BY random() LIMIT ${count / 2}`
  const variants = seeded.map((r, i) =>
    i % 2
      ? (r.name as string).replace(/^(\p{Script=Han}{2})/u, '$1市')
      : (r.name as string).replace(/有限公司$/, '有限责任公司'),
  )
  const fresh = Array.from({ length: count - variants.length }, () => registrationName())
  return [...variants, ...fresh]
}

/** One measurement of a registration row: wrk's figures and what the row cost. */
interface RegistrationRound {
  registration: Figures
  /**
   * CPU time per registration (ms) of the service's process (all its threads) and of every
   * PostgreSQL process (backends, WAL writer, checkpointer, autovacuum) during the measured run.
   */
  cpu?: { service: number; database: number }
  /** WAL written per registration during the measured run: KB, and full-page images. */
  wal?: { kb: number; fullPages: number }
  /** File pages read again after the kernel had dropped them from its cache, per registration. */
  refaults?: number
  /** The share of the machine's CPU time left idle during the measured run. */
  idle?: number
  /**
   * The service's main thread per registration (ms): on a CPU, and runnable but waiting for one.
   * Their sum is the most registrations a second it can take (1000 / sum) as it is scheduled.
   */
  mainThread?: { running: number; waiting: number }
  /**
   * How many times the row was measured: a row in which PostgreSQL started a checkpoint is
   * measured again, up to CHECKPOINT_ATTEMPTS times; `checkpointed` when the last one met one too.
   */
  attempts?: number
  checkpointed?: boolean
}

/** A row of the registration table: its median round (by registrations a second), and every round. */
interface RegistrationRow extends RegistrationRound {
  suppliers: number
  clients: number
  /** Every round of the row, in the order taken (`--rounds`). */
  rounds: RegistrationRound[]
  /** The near-duplicate statement alone (the key probe), and the whole check with its scoring. */
  statement: { p50: number; p99: number }
  check: { p50: number; p99: number; candidates: number }
}

/** A file of a process under /proc (Linux), or undefined once the process is gone. */
function procFile(pid: number | string, name: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${name}`, 'utf8')
  } catch {
    return undefined
  }
}

/** The fields of /proc/<pid>/stat after the command name (state, parent, …), if still there. */
const statFields = (pid: number | string) => procFile(pid, 'stat')?.split(') ')[1].split(' ')

/** The processes on this machine that `test` accepts. */
const processesWhere = (test: (pid: string) => boolean) =>
  readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter(test)
    .map(Number)

/** User and system CPU time (ms) of these processes so far, read from /proc (Linux). */
function cpuMsOf(pids: number[]): number {
  let ticks = 0
  for (const pid of pids) {
    // A process gone meanwhile (a backend that ended): its time is not counted.
    const fields = statFields(pid)
    if (fields) ticks += Number(fields[11]) + Number(fields[12])
  }
  return ticks * 10 // USER_HZ is 100 on Linux
}

/**
 * Checkpoints PostgreSQL has started so far (the counters move when one starts). Under the load
 * of the benchmark PostgreSQL starts one about every minute at 1,000,000 suppliers (max_wal_size
 * reached), and the rows one fell in or just after showed 20–24 ms of the database's CPU a
 * registration against 5–6 in others. So each row begins with a CHECKPOINT of its own, and a row
 * in which PostgreSQL starts another is measured again.
 */
const CHECKPOINT_ATTEMPTS = 3
const checkpointsStarted = async (db: Sql) =>
  (
    await db<{ n: number }[]>`
      SELECT (checkpoints_timed + checkpoints_req)::int AS n FROM pg_stat_bgwriter
    `
  )[0].n
const walWritten = async (db: Sql) =>
  (
    await db<{ bytes: number; fpi: number }[]>`
      SELECT wal_bytes::float8 AS bytes, wal_fpi::float8 AS fpi FROM pg_stat_wal
    `
  )[0]

/**
 * File pages the kernel has read again after dropping them from its page cache (Linux). A data
 * set that does not stay cached is partly read from disk while it is measured: on a VM
 * whose kernel pages out what was not touched for a minute (DAMON, below), 77,539 pages were read
 * again in 50 s of one-client registrations at 1,000,000 suppliers, and about 1 % of the requests
 * took 0.1 to 1.4 s, in the identity probe's statement.
 */
function pageRefaults(): number {
  try {
    const line = readFileSync('/proc/vmstat', 'utf8').match(/^workingset_refault_file (\d+)$/m)
    return line ? Number(line[1]) : NaN
  } catch {
    return NaN
  }
}

/** The machine's CPU time so far (/proc/stat, in clock ticks): all of it, and idle (iowait too). */
function machineTicks(): { total: number; idle: number } {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0].split(/\s+/).slice(1).map(Number)
    return { total: cpu.slice(0, 8).reduce((a, b) => a + b, 0), idle: cpu[3] + cpu[4] }
  } catch {
    return { total: NaN, idle: NaN }
  }
}

/**
 * A thread's time so far, ms: on a CPU, and runnable but waiting for one (/proc/…/schedstat).
 * Read for the service's main thread (its tid is the process id), the serial stage of the service.
 */
function threadTimes(pid: number): { running: number; waiting: number } {
  const [running, waiting] = (procFile(pid, `task/${pid}/schedstat`) ?? 'NaN NaN')
    .split(' ')
    .map(Number)
  return { running: running / 1e6, waiting: waiting / 1e6 }
}

/** Whether the kernel's DAMON pages out memory left untouched (a VM host's memory policy). */
function damonPageout(): boolean {
  const root = '/sys/kernel/mm/damon/admin/kdamonds'
  try {
    return readdirSync(root)
      .filter((d) => /^\d+$/.test(d))
      .some((d) => {
        if (readFileSync(`${root}/${d}/state`, 'utf8').trim() !== 'on') return false
        const schemes = `${root}/${d}/contexts/0/schemes`
        return readdirSync(schemes)
          .filter((x) => /^\d+$/.test(x))
          .some((x) => readFileSync(`${schemes}/${x}/action`, 'utf8').trim() === 'pageout')
      })
  } catch {
    return false
  }
}

/** Every PostgreSQL server process on this machine (the benchmark's server is local). */
const postgresPids = () => processesWhere((pid) => procFile(pid, 'comm')?.trim() === 'postgres')

/** The processes whose parent is `parent` (the workers of scripts/bench/cluster.ts). */
const childrenOf = (parent: number) =>
  processesWhere((pid) => statFields(pid)?.[1] === String(parent))

/**
 * Registration and its near-duplicate check on one data set (its backfills run by `seeded`), at
 * every client count: the check's statement in process (`clients` concurrent loops over 400 probe
 * names, a pool of as many connections), then registration under wrk (create, then submit; a
 * 395006 confirmed with its token) against the service.
 */
async function registrationRun(url: string, suppliers: number) {
  const backfill = keyBackfills.get(url)
  const db = connect({ url, max: 1, timezone: 'UTC' })
  try {
    await db`VACUUM ANALYZE supplier`
    // The vacuum's dirty pages written now, not by a checkpoint during the measured run (at
    // 1,000,000 suppliers that write cost PostgreSQL about 20 ms of CPU per registration on top
    // of the registrations' own).
    await db`CHECKPOINT`
  } finally {
    await db.end()
  }
  const rows: RegistrationRow[] = []
  for (const clients of CLIENTS) {
    const pool = connect({ url, max: clients, timezone: 'UTC' })
    try {
      const names = await probeNames(pool, 400)
      const threshold = loadConfig({ NODE_ENV: 'development' }).duplicateNameThreshold
      const statementMs: number[] = []
      const checkMs: number[] = []
      let candidates = 0
      const queue = [...names, ...names] // the first round warms the caches
      let done = 0
      await Promise.all(
        Array.from({ length: clients }, async () => {
          for (let name = queue.shift(); name; name = queue.shift()) {
            const measured = done++ >= names.length
            const t0 = performance.now()
            await suppliersSharingNameKeys(
              pool,
              probeKeysOf({ fullName: name }, threshold),
              null,
              PROBE_LIMIT,
            )
            const t1 = performance.now()
            const found = await findNearDuplicates(pool, { fullName: name }, threshold, null)
            const t2 = performance.now()
            if (measured) {
              statementMs.push(t1 - t0)
              checkMs.push(t2 - t1)
              candidates += found.length
            }
          }
        }),
      )
      rows.push({
        suppliers,
        clients,
        statement: spread(statementMs),
        check: { ...spread(checkMs), candidates: candidates / checkMs.length },
        registration: undefined as unknown as Figures,
        rounds: [],
      })
    } finally {
      await pool.end()
    }
  }
  const fleet = await startFleet(url, `fleet-registration-${suppliers}.log`)
  const service = await startService(
    url,
    fleet.port,
    `service-registration-${suppliers}.log`,
    WORKERS === 1 ? {} : { BENCH_WORKERS: String(WORKERS) },
    WORKERS === 1 ? undefined : 'scripts/bench/cluster.ts',
  )
  // With workers, the service's CPU is theirs (and the primary's); the main thread is one's.
  const servicePids = WORKERS === 1 ? [] : childrenOf(service.child.pid!)
  const stats = connect({ url, max: 1, timezone: 'UTC' })
  /** What a row is measured by, read before and after it. */
  const counters = async () => {
    const wal = await walWritten(stats)
    return {
      service: cpuMsOf([service.child.pid!, ...servicePids]),
      database: cpuMsOf(postgresPids()),
      walBytes: wal.bytes,
      fullPages: wal.fpi,
      refaults: pageRefaults(),
      machine: machineTicks(),
      mainThread: WORKERS === 1 ? threadTimes(service.child.pid!) : { running: NaN, waiting: NaN },
    }
  }
  try {
    // A service answers its first minute's requests in code V8 has not optimized yet, and runs
    // its start-up sweeps (qualification reminders, the audit seal, approve notes) meanwhile: 17
    // against 14 ms of the service's CPU a registration after 3 s and after 60 s of load. A
    // running service is measured, so the load comes first, then each row's own 3 s warm-up.
    log(`registration: ${WARM_UP} s of load before measuring`)
    const target = `http://127.0.0.1:${service.port}/`
    await wrk(target, {
      script: REGISTRATION_LUA,
      threads: Math.max(...CLIENTS),
      connections: Math.max(...CLIENTS),
      seconds: WARM_UP,
    })
    for (let round = 1; round <= ROUNDS; round++) {
      for (const row of rows) {
        log(
          `registration (${suppliers.toLocaleString('en')} suppliers, ${row.clients} clients, round ${round} of ${ROUNDS})`,
        )
        const script = REGISTRATION_LUA
        const clients = row.clients
        for (let attempt = 1; attempt <= CHECKPOINT_ATTEMPTS; attempt++) {
          // Every row starts just after a checkpoint, so that each starts in the same state.
          await stats`CHECKPOINT`
          const checkpoints = await checkpointsStarted(stats)
          await wrk(target, { script, threads: clients, connections: clients, seconds: 3 })
          const before = await counters()
          const registration = await wrk(target, { script, threads: clients, connections: clients })
          const after = await counters()
          const registered = registration.registered || NaN
          const per = (f: (c: typeof after) => number) => (f(after) - f(before)) / registered
          const checkpointed = (await checkpointsStarted(stats)) !== checkpoints
          if (!checkpointed || attempt === CHECKPOINT_ATTEMPTS) {
            row.rounds.push({
              registration,
              cpu: { service: per((c) => c.service), database: per((c) => c.database) },
              wal: { kb: per((c) => c.walBytes) / 1024, fullPages: per((c) => c.fullPages) },
              refaults: per((c) => c.refaults),
              idle:
                (after.machine.idle - before.machine.idle) /
                (after.machine.total - before.machine.total),
              mainThread: {
                running: per((c) => c.mainThread.running),
                waiting: per((c) => c.mainThread.waiting),
              },
              attempts: attempt,
              checkpointed,
            })
            break
          }
          log(`  PostgreSQL started a checkpoint during attempt ${attempt}`)
        }
      }
    }
    for (const row of rows) Object.assign(row, medianRound(row.rounds))
  } finally {
    await Promise.all([stop(service), stop(fleet), stats.end()])
  }
  return { backfill, rows }
}

/** The round with the median registrations a second (the lower middle one of an even count). */
function medianRound(rounds: RegistrationRound[]): RegistrationRound {
  const rate = (r: RegistrationRound) => r.registration.registered ?? 0
  const sorted = [...rounds].sort((a, b) => rate(a) - rate(b))
  return sorted[Math.floor((sorted.length - 1) / 2)]
}

/**
 * Prose as every doc in docs/ has it: wrapped at 100 columns, never before a word that would
 * start a list, quote, heading or table row on its line.
 */
function wrap(text: string, width = 100): string {
  const opens = (word: string) => /^([-+*>#|]|\d+[.)])$/.test(word)
  const lines: string[][] = [[]]
  const length = (words: string[]) => [...words.join(' ')].length
  for (const word of text.split(' ')) {
    const line = lines[lines.length - 1]
    if (line.length === 0 || length([...line, word]) <= width) line.push(word)
    else if (opens(word) && line.length > 1) lines.push([line.pop()!, word])
    else lines.push([word])
  }
  return lines.map((words) => words.join(' ')).join('\n')
}

/** The registration section of docs/benchmarks.md: the registration targets against the figures. */
function renderRegistration(
  runs: Awaited<ReturnType<typeof registrationRun>>[],
  date: Date,
  machine: string,
): string {
  const f1 = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? '–' : n.toFixed(1))
  const f2 = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? '–' : n.toFixed(2))
  const rows = runs.flatMap((r) => r.rows)
  const measured = (x: RegistrationRow) =>
    `${x.attempts === 1 ? 'once' : `${x.attempts} times`}${x.checkpointed ? ', a checkpoint in each' : ''}`
  const perSecond = (x: RegistrationRound) => (x.registration.registered ?? 0) / SECONDS
  const at = (suppliers: number, clients: number) =>
    rows.find((x) => x.suppliers === suppliers && x.clients === clients)
  const small = Number(opts.small)
  const full = Number(opts.full)
  const most = Math.max(...CLIENTS)
  const one = Math.min(...CLIENTS)
  const lines = [
    wrap(
      `Run of ${date.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machine}; \`DUPLICATE_NAME_THRESHOLD\` ${loadConfig({ NODE_ENV: 'development' }).duplicateNameThreshold}; ${WARM_UP} s of registrations, then ${ROUNDS} rounds of ${SECONDS} s a row, a pool of ${POOL}; every figure: [registration.json](bench/registration.json).${WORKERS > 1 ? ` The service ran as ${WORKERS} \`node:cluster\` workers on one port, each with that pool (\`--workers\`, an experiment: the service has no such mode); its CPU is theirs.` : ''}`,
    ),
    '',
    '| suppliers | clients | registrations/s (median round) | p99 ms | errors | CPU per registration ms: service / database | CPU idle | service main thread per registration ms: running / waiting | near-duplicate statement p50 ms | measured |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (x) =>
        `| ${x.suppliers.toLocaleString('en')} | ${x.clients} | ${f1(perSecond(x))} | ${f1(x.registration.p99)} | ${x.registration.failures} | ${f1(x.cpu?.service)} / ${f1(x.cpu?.database)} | ${x.idle === undefined ? '–' : `${Math.round(x.idle * 100)} %`} | ${f2(x.mainThread?.running)} / ${f2(x.mainThread?.waiting)} | ${f2(x.statement.p50)} | ${measured(x)} |`,
    ),
  ]
  const big1 = at(full, one)
  const big16 = at(full, most)
  const met = (ok: boolean) => (ok ? '**met**' : '**not met**')
  const counts = [...new Set([one, most])]
  const growth = counts.map(
    (clients) =>
      (at(full, clients)?.statement.p50 ?? NaN) / (at(small, clients)?.statement.p50 ?? NaN),
  )
  if (big1 && big16) {
    lines.push(
      '',
      '| target | figure | |',
      '|---|---|---|',
      `| registrations at ${most} clients ≥ 2 × at ${one}, at ${full.toLocaleString('en')} (medians; round by round ${big16.rounds.map((r, i) => f2(perSecond(r) / perSecond(big1.rounds[i]))).join(', ')}) | ${f2(perSecond(big16) / perSecond(big1))} × | ${big1.checkpointed || big16.checkpointed ? '**not judged**: a checkpoint fell in a row' : met(perSecond(big1) > 0 && perSecond(big16) >= 2 * perSecond(big1))} |`,
      `| ≥ 100 registrations/s at ${full.toLocaleString('en')}, ${most} clients | ${f1(perSecond(big16))} | ${met(perSecond(big16) >= 100)} |`,
      `| p99 < 300 ms at ${full.toLocaleString('en')}, ${most} clients | ${f1(big16.registration.p99)} ms | ${met(big16.registration.p99 < 300)} |`,
      `| near-duplicate statement p50 at ${full.toLocaleString('en')} ≤ 1.5 × at ${small.toLocaleString('en')}, ${counts.join(' · ')} clients | ${growth.map(f2).join(' · ')} | ${met(growth.every((g) => g <= 1.5))} |`,
    )
  }
  return lines.join('\n')
}

async function writeRegistrationSection(
  runs: Awaited<ReturnType<typeof registrationRun>>[],
  date: Date,
) {
  const pg = spawnSync('psql', [databaseUrl('postgres'), '-Atc', 'SHOW server_version'], {
    encoding: 'utf8',
  }).stdout.trim()
  const machine = `${cpus().length} × ${cpus()[0].model}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, PostgreSQL ${pg}`
  const doc = readFileSync(opts.out!, 'utf8')
  const BEGIN = '<!-- registration figures: written by npm run bench -->'
  const END = '<!-- end of registration figures -->'
  const section = `${BEGIN}\n${renderRegistration(runs, date, machine)}\n${END}`
  writeFileSync(
    opts.out!,
    doc.includes(BEGIN)
      ? doc.replace(new RegExp(`${BEGIN}[\\s\\S]*${END}`), section)
      : `${doc}\n${section}\n`,
  )
  writeFileSync(
    'docs/bench/registration.json',
    JSON.stringify({ date, machine, pageout: damonPageout(), runs }, null, 2) + '\n',
  )
  log(`registration figures written to ${opts.out} and docs/bench/registration.json`)
}

if (opts['only-relay']) {
  const { relayBench, relayRow, relayServiceBench, serviceRelayRow } = await import('./relay')
  for (let round = 0; round < Number(opts.rounds); round++) {
    const f = await relayBench({
      baseUrl: BASE_URL,
      seconds: Number(opts.seconds),
      clients: Number(opts.connections),
      batch: process.env.EVENTS_RELAY_BATCH ? Number(process.env.EVENTS_RELAY_BATCH) : undefined,
    })
    log(JSON.stringify(f))
    console.log(relayRow(f))
  }
  // Then through the service, at the registration benchmark's load.
  for (let round = 0; round < Number(opts.rounds); round++) {
    const f = await relayServiceBench({
      baseUrl: BASE_URL,
      seconds: Number(opts.seconds),
      clients: Number(opts.connections),
    })
    log(JSON.stringify(f))
    console.log(serviceRelayRow(f))
  }
  process.exit(0)
}

if (opts['only-registration']) {
  const date = new Date()
  const full = await seeded(Number(opts.full))
  const small = await seeded(Number(opts.small))
  const runs = [
    await registrationRun(small, Number(opts.small)),
    await registrationRun(full, Number(opts.full)),
  ]
  await writeRegistrationSection(runs, date)
  process.exit(0)
}

if (opts['only-search']) {
  const { searchRun, searchTable } = await import('./search')
  for (const suppliers of opts['search-sizes']!.split(',').map(Number)) {
    const url = await seeded(suppliers)
    const helpers = { wrk, startService, startFleet, stop, log }
    const via = opts['search-via'] === 'sql' ? 'sql' : 'http'
    const { probes, rows } = await searchRun(url, suppliers, CLIENTS, SECONDS, helpers, via)
    console.log(
      `\n${suppliers.toLocaleString('en')} suppliers\n\n${searchTable(probes, rows, CLIENTS)}\n`,
    )
  }
  process.exit(0)
}

/** The standby-served reads a service has counted (its /metrics). */
async function standbyReads(port: number) {
  const page = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
  return sampleSum(page, 'supplier_db_reads_total', { target: 'standby' })
}

async function replicasRun() {
  const { startReplicaSet } = await import('../../test/replicas')
  const suppliers = Number(opts.small)
  const set = await startReplicaSet({ database: 'bench' })
  const reads: Record<string, unknown>[] = []
  const writes: Record<string, unknown>[] = []
  try {
    const primary = set.primary.url('bench')
    const standby = set.standbys[0].url('bench')
    log(`replicas: seeding the primary with ${suppliers} suppliers`)
    seedInto(primary, suppliers)
    await migrate(primary)
    const db = connect({ url: primary, max: 1, timezone: 'UTC' })
    await db`VACUUM ANALYZE`
    await db.end()
    await set.caughtUp(set.standbys[0])
    const ids = await pick(primary)
    const fleet = await startFleet(primary, 'fleet-replicas.log')
    try {
      const routes = {
        detail: `/admin/supplier/items/${ids.ordinary}`,
        list: '/admin/supplier/items?page=1&pageSize=20',
      }
      for (const [target, env] of [
        ['primary', {}],
        ['standby', { DATABASE_READ_URL: standby }],
      ] as const) {
        const service = await startService(
          primary,
          fleet.port,
          `service-replicas-${target}.log`,
          env,
        )
        try {
          for (const clients of CLIENTS) {
            for (const [route, path] of Object.entries(routes)) {
              log(`replicas: ${route} read, ${target}, ${clients} clients`)
              const url = `http://127.0.0.1:${service.port}${path}`
              await wrk(url, { connections: clients, seconds: 3 })
              const before = await standbyReads(service.port)
              const f = await wrk(url, { connections: clients })
              const onStandby = (await standbyReads(service.port)) - before
              reads.push({ route, target, clients, ...f, standbyShare: onStandby / f.requests! })
            }
          }
        } finally {
          await stop(service)
        }
      }
      for (const mode of ['asynchronous', 'synchronous'] as const) {
        await set.synchronous(mode === 'synchronous' ? 'standby1' : '', 'on')
        const service = await startService(primary, fleet.port, `service-replicas-${mode}.log`)
        try {
          for (const clients of CLIENTS) {
            log(`replicas: registration, ${mode} commit, ${clients} clients`)
            const target = `http://127.0.0.1:${service.port}/`
            const script = REGISTRATION_LUA
            await wrk(target, { script, threads: clients, connections: clients, seconds: 3 })
            const f = await wrk(target, { script, threads: clients, connections: clients })
            writes.push({ mode, clients, ...f })
          }
        } finally {
          await stop(service)
        }
      }
    } finally {
      await stop(fleet)
    }
  } finally {
    await set.stop()
  }
  const failovers: string[] = []
  for (let run = 1; run <= Number(opts['failover-runs']); run++) {
    log(`replicas: failover run ${run}`)
    const test = spawnSync('npx', ['vitest', 'run', 'test/failover.test.ts'], {
      env: { ...process.env, DATABASE_URL: databaseUrl('test') },
      encoding: 'utf8',
    })
    const lines = test.stdout.split('\n').filter((l) => l.startsWith('failover: '))
    if (test.status !== 0 || lines.length !== 2)
      throw new Error(`failover run ${run}:\n${test.stdout}`)
    failovers.push(...lines.map((l) => `run ${run}: ${l}`))
  }
  return { suppliers, reads, writes, failovers }
}

if (opts['only-replicas']) {
  const date = new Date()
  const r = await replicasRun()
  const f1 = (n: unknown) => (n as number).toFixed(1)
  writeFileSync(
    'docs/bench/replicas.json',
    JSON.stringify({ date, machine: `${cpus().length} × ${cpus()[0].model}`, ...r }, null, 2) +
      '\n',
  )
  console.log(
    [
      `Replicas run of ${date.toISOString().slice(0, 16).replace('T', ' ')} UTC, ${r.suppliers.toLocaleString('en')} suppliers, ${SECONDS} s per figure.`,
      '',
      '| read | served by | clients | req/s | p50 ms | p99 ms | errors | read on the standby |',
      '|---|---|---|---|---|---|---|---|',
      ...r.reads.map(
        (x) =>
          `| ${x.route} | ${x.target} | ${x.clients} | ${f1(x.requestsPerSecond)} | ${f1(x.p50)} | ${f1(x.p99)} | ${x.failures} | ${Math.round((x.standbyShare as number) * 100)} % |`,
      ),
      '',
      '| commit | clients | registrations/s | p50 ms | p99 ms | errors |',
      '|---|---|---|---|---|---|',
      ...r.writes.map(
        (x) =>
          `| ${x.mode} | ${x.clients} | ${f1((x.registered as number) / SECONDS)} | ${f1(x.p50)} | ${f1(x.p99)} | ${x.failures} |`,
      ),
      '',
      ...r.failovers,
    ].join('\n'),
  )
  process.exit(0)
}

if (opts['only-tracing']) {
  const url = await seeded(Number(opts.small))
  const ids = await pick(url)
  const fleet = await startFleet(url, 'fleet-tracing.log')
  try {
    const tracing = await tracingCost(url, fleet.port, `/admin/supplier/items/${ids.ordinary}`)
    console.log(JSON.stringify(tracing))
    console.log(tracingLine(tracing))
  } finally {
    await stop(fleet)
  }
  process.exit(0)
}

const started = new Date()
const full = await seeded(Number(opts.full))
const small = await seeded(Number(opts.small))
const main = await fullRun(full)
const scaling = [
  ...(await scalingRun(small, Number(opts.small), main.ids.keyword)),
  ...(await scalingRun(full, Number(opts.full), main.ids.keyword)),
]
await writeRegistrationSection(
  [
    await registrationRun(small, Number(opts.small)),
    await registrationRun(full, Number(opts.full)),
  ],
  started,
)
const pg = spawnSync('psql', [full, '-Atc', 'SHOW server_version'], {
  encoding: 'utf8',
}).stdout.trim()
const results = {
  date: started.toISOString(),
  machine: `${cpus().length} × ${cpus()[0].model}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, PostgreSQL ${pg}`,
  settings: {
    seconds: SECONDS,
    connections: CONNECTIONS,
    pool: POOL,
    small: Number(opts.small),
    full: Number(opts.full),
    clients: CLIENTS,
  },
  ...main,
  scaling,
}
mkdirSync('docs/bench', { recursive: true })
writeFileSync('docs/bench/results.json', JSON.stringify(results, null, 2) + '\n')
writeFileSync(
  'docs/bench/latency-vs-size.svg',
  latencyChart(
    // One line per scenario at the most clients: p50 at each size.
    scaling
      .filter((r) => r.suppliers === Number(opts.small) && r.clients === Math.max(...CLIENTS))
      .map((r) => ({
        title: `${r.title} (${r.clients} clients)`,
        points: scaling
          .filter((x) => x.scenario === r.scenario && x.clients === r.clients)
          .map((x) => ({ size: x.suppliers, p50: x.p50 })),
      })),
  ),
)
const doc = readFileSync(opts.out!, 'utf8')
const BEGIN = '<!-- figures: written by npm run bench -->'
const END = '<!-- end of figures -->'
const section = `${BEGIN}\n${renderFigures(results)}\n${END}`
writeFileSync(
  opts.out!,
  doc.includes(BEGIN)
    ? doc.replace(new RegExp(`${BEGIN}[\\s\\S]*${END}`), section)
    : `${doc}\n${section}\n`,
)
log(`figures written to ${opts.out}, docs/bench/results.json and docs/bench/latency-vs-size.svg`)

function renderFigures(r: typeof results): string {
  const f1 = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? '–' : n.toFixed(1))
  const f0 = (n: number | undefined) => (n === undefined ? '–' : Math.round(n).toLocaleString('en'))
  const ratio = (a: number, b?: number) => (b ? (a / b).toFixed(2) : '–')
  const met = (ok: boolean) => (ok ? '**met**' : '**not met**')
  const { small, full, clients, connections } = r.settings
  const row = (x: (typeof r.rows)[number]) =>
    `| ${x.title} | ${f0(x.requestsPerSecond)} | ${f1(x.p50)} | ${x.failures} | ${f0(x.handler?.requestsPerSecond)} | ${x.handler ? `${ratio(x.requestsPerSecond, x.handler.requestsPerSecond)} ${met(x.requestsPerSecond >= 0.7 * x.handler.requestsPerSecond)}` : '–'} | ${x.fleetCallsPerPage === undefined ? '–' : x.fleetCallsPerPage.toFixed(2)} |`
  const scenario = (name: string) => r.rows.find((x) => x.scenario === name)!
  const both = r.twoInstances.both
  const page1 = scenario('page1')
  const page400 = scenario('page400')
  const at = (scenario: string, suppliers: number, clients: number) =>
    r.scaling.find(
      (x) => x.scenario === scenario && x.suppliers === suppliers && x.clients === clients,
    )
  // The scaling rows a target judges: p50 at the full size against the small, or a deep page
  // against the first page of its list at each size.
  const growth: Record<string, number> = {
    list: 1.5,
    'list-active': 1.5,
    'list-type': 1.5,
    records: 1.5,
    'records-large': 1.5,
  }
  const deep: Record<string, string> = { 'list-deep': 'list', 'records-deep': 'records' }
  const large = r.scaling.find((x) => x.changeLogRows !== undefined)
  const p50s = (scenario: string, suppliers: number) =>
    clients.map((c) => f1(at(scenario, suppliers, c)?.p50)).join(' · ')
  const scalingRow = (s: (typeof r.scaling)[number]) => {
    const ratios =
      s.scenario in deep
        ? [small, full].map((n) =>
            clients.map(
              (c) => (at(s.scenario, n, c)?.p50 ?? NaN) / (at(deep[s.scenario], n, c)?.p50 ?? NaN),
            ),
          )
        : [
            clients.map(
              (c) => (at(s.scenario, full, c)?.p50 ?? NaN) / (at(s.scenario, small, c)?.p50 ?? NaN),
            ),
          ]
    const limit = s.scenario in deep ? 2 : growth[s.scenario]
    const errors = r.scaling
      .filter((x) => x.scenario === s.scenario)
      .reduce((a, x) => a + x.failures, 0)
    return `| ${s.title} | ${p50s(s.scenario, small)} | ${p50s(s.scenario, full)} | ${ratios.map((x) => x.map((y) => y.toFixed(2)).join(' · ')).join('; ')} | ${s.scenario in deep ? `≤ ${limit} × page 1` : `≤ ${limit} × at ${small.toLocaleString('en')}`}: ${met(ratios.flat().every((x) => x <= limit))} | ${errors} |`
  }
  return [
    wrap(
      `Run of ${r.date.slice(0, 16).replace('T', ' ')} UTC on ${r.machine}; ${full.toLocaleString('en')} suppliers; wrk with ${connections} connections for ${r.settings.seconds} s a scenario, pools of ${r.settings.pool}; every figure, floors included: [results.json](bench/results.json).`,
    ),
    '',
    '| scenario | service req/s | p50 ms | errors | handler floor req/s | ÷ handler (target ≥ 0.7) | fleet calls per page (target 1) |',
    '|---|---|---|---|---|---|---|',
    row(scenario('detail')),
    `| supplier detail, two instances (${connections} connections each) | ${f0(both.reduce((a, b) => a + b.requestsPerSecond, 0))} (${both.map((b) => f0(b.requestsPerSecond)).join(' + ')}) | – | ${both.reduce((a, b) => a + b.failures, 0)} | – | – | – |`,
    ...['page1', 'page400', 'vehicle'].map((name) => row(scenario(name))),
    '',
    wrap(
      `Resource page 400 p50 ÷ page 1: ${ratio(page400.p50, page1.p50)} (≤ 2: ${met(page400.p50 <= 2 * page1.p50)}). Scaling at ${clients.join(' · ')} clients, a service per data set ([chart](bench/latency-vs-size.svg)); the large supplier: ${large?.changeLogRows?.toLocaleString('en') ?? '–'} change-log rows.`,
    ),
    '',
    `| scenario | p50 ms at ${small.toLocaleString('en')} | at ${full.toLocaleString('en')} | ratio | target | errors |`,
    '|---|---|---|---|---|---|',
    ...r.scaling
      .filter((x) => x.suppliers === small && x.clients === clients[0])
      .filter((x) => x.scenario in growth || x.scenario in deep)
      .map(scalingRow),
  ].join('\n')
}
