import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { createAdaptorServer } from '@hono/node-server'
import type { Logger } from 'pino'
import type postgres from 'postgres'
import { connect } from '../sql/db'
import { createApp, withDefaults } from './app'
import { startApprovalSweeper } from './domain/approval/reconcile'
import { startNameKeyBackfill } from './domain/supplier/name-keys'
import { startSupplierSearchBackfill } from './domain/supplier/search'
import { startKeywordKeeper } from './domain/supplier/kept-keywords'
import { startTaxNoBackfill } from './domain/supplier/tax-number'
import { stableRelayHolder, startEventRelay } from './domain/events/relay'
import { startQualificationReminders } from './domain/supplier/qualification-reminders'
import { ConfigError, loadConfig, type Config } from './config'
import { withDotEnv } from './dotenv'
import { createCipher } from './crypto/sensitive'
import { loadDemoData, loadReferenceData } from './db/seed'
import { DataDirInUseError, startEmbedded, type EmbeddedDatabase } from './db/embedded'
import { appliedMigrations, MigrationError, migrate, migrateWithLock } from './db/migrate'
import { sealLegacyRows } from './domain/audit/trail'
import { encryptPlaintextApproveNotes } from './domain/supplier/approve-note'
import { createLogger } from './logger'
import { startTracing } from './tracing'
import { createMetrics } from './metrics'
import { startReadRouting, type ReadRouter } from './db/replicas'
import { answerClientErrors } from './http/client-error'
import { SUCCESS_MESSAGE } from './http/envelope'
import { permissionLookupFor } from './ports/permission'

/** A start-up refusal whose message says it all (no stack trace is printed for it). */
class StartupError extends Error {}

/**
 * The answer while the service is still starting (database, migrations). Liveness is already
 * true: the process serves HTTP, and a probe that saw a 503 here would restart a healthy process
 * that is only waiting for its database. Everything else, readiness included, is 503.
 */
const starting = (req: Request) => {
  const url = new URL(req.url)
  const isRead = req.method === 'GET' || req.method === 'HEAD'
  if (isRead && url.pathname === '/healthz' && !url.search) {
    const up = { code: 200, message: SUCCESS_MESSAGE, success: true, data: { status: 'UP' } }
    return Response.json(up)
  }
  return Response.json(
    { code: 395039, message: 'the service is starting; retry shortly', success: false, data: null },
    { status: 503, headers: { 'retry-after': '1' } },
  )
}

/**
 * Binds HOST:PORT before anything else (the database, migrations), so a busy port is reported
 * at once. Until the app is ready the server answers 503.
 */
function listen(
  config: Config,
  fetch: (req: Request, env: unknown) => Response | Promise<Response>,
) {
  const server = createAdaptorServer({ fetch, hostname: config.host, port: config.port }) as Server
  return new Promise<Server>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      const where = `${config.host}:${config.port}`
      if (err.code === 'EADDRINUSE') {
        reject(
          new StartupError(
            `PORT ${config.port} is already in use on ${config.host}: stop the process holding it or set PORT to a free port`,
          ),
        )
      } else if (err.code === 'EACCES') {
        reject(new StartupError(`PORT ${config.port}: not allowed to listen on ${where}`))
      } else if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND') {
        reject(new StartupError(`HOST ${config.host} is not an address of this machine`))
      } else reject(err)
    })
    server.listen(config.port, config.host, () => resolve(server))
  })
}

let config: Config
try {
  config = loadConfig(withDotEnv(process.env))
} catch (err) {
  if (!(err instanceof ConfigError)) throw err
  console.error(`start-up failed: invalid configuration: ${err.problems.join('; ')}`)
  process.exit(78)
}
const logger: Logger = createLogger({
  level: config.logLevel,
  format: config.logFormat ?? (process.stdout.isTTY ? 'pretty' : 'json'),
  traceContext: config.tracing.enabled,
})
// Before anything runs that could be traced; undefined (and the API a no-op) unless configured.
const tracing = startTracing(config.tracing, logger)

let handler: (req: Request, env: unknown) => Response | Promise<Response> = starting
let server: Server | undefined
let embedded: EmbeddedDatabase | undefined
let sql: postgres.Sql | undefined
let standbys: postgres.Sql[] = []
let reads: ReadRouter | undefined
let startupSql: postgres.Sql | undefined
let stopSweeper: () => Promise<void> = async () => {}
let stopBackfill: () => Promise<void> = async () => {}
let stopSearchBackfill: () => Promise<void> = async () => {}
let stopKeywordKeeper: () => Promise<void> = async () => {}
let stopTaxNoBackfill: () => Promise<void> = async () => {}
let stopRelay: () => Promise<void> = async () => {}
let stopReminders: () => Promise<void> = async () => {}
let serving: { url: string; embedded: boolean } | undefined

/** Every start-up failure ends the same way: cleanup, one line on stderr, a non-zero exit. */
async function failStartup(err: unknown): Promise<never> {
  const known =
    err instanceof StartupError || err instanceof DataDirInUseError || err instanceof MigrationError
  // The unexpected ones keep their stack in the log; the last line is the same for all.
  if (!known) logger.error({ err }, 'start-up failed')
  server?.close()
  await startupSql?.end({ timeout: 1 }).catch(() => {})
  await sql?.end({ timeout: 1 }).catch(() => {})
  await reads?.stop().catch(() => {})
  for (const standby of standbys) await standby.end({ timeout: 1 }).catch(() => {})
  await embedded?.stop().catch(() => {})
  await tracing?.shutdown().catch(() => {})
  const message = err instanceof Error ? err.message : String(err)
  console.error(`start-up failed: ${message.replace(/\s*\n\s*/g, ' | ')}`)
  process.exit(1)
}

try {
  server = await listen(config, (req, env) => handler(req, env))
  answerClientErrors(server, logger)
  if (!config.databaseUrl) {
    embedded = await startEmbedded({
      dataDir: join(config.dataDir, 'pgdata'),
      port: config.embeddedDbPort,
      timezone: config.timezone,
    })
    logger.info(
      { url: embedded.url, dataDir: config.dataDir },
      'embedded PGlite listening on loopback',
    )
  }
  const databaseUrl = config.databaseUrl ?? embedded!.url

  if (config.migrateOnStart) {
    // On a real server replicas may start together: they migrate one at a time under a lock.
    const output = embedded
      ? await migrate(databaseUrl)
      : await migrateWithLock(databaseUrl, { wait: true })
    const applied = appliedMigrations(output)
    for (const migration of applied) logger.info(migration, 'migration applied')
    if (!applied.length) logger.info('migrations: none pending')
  } else {
    logger.info('migrations skipped (MIGRATE_ON_START=false)')
  }

  const database = {
    url: databaseUrl,
    timezone: config.timezone,
    pooler: config.databasePooler,
    // Per process, so /metrics can tell this pool's connections from other replicas'.
    applicationName: `supplier-admin ${hostname()}:${process.pid}`.slice(0, 63),
  }
  // Start-up work may take longer than any request: one connection of its own, without the
  // request bounds, closed before the service pool opens.
  startupSql = connect({ ...database, max: 1 })
  await loadReferenceData(startupSql)
  if (config.demoData && (await loadDemoData(startupSql, config.demoAdminId))) {
    logger.info({ demoAdminId: config.demoAdminId }, 'demo data loaded')
  }

  const cipher = await createCipher(config.crypto)
  // Notes written in plaintext before migration 20261123000100 are encrypted before serving.
  const encryptedNotes = await encryptPlaintextApproveNotes(startupSql, cipher)
  if (encryptedNotes) logger.info({ count: encryptedNotes }, 'plaintext approve notes encrypted')
  // Rows written before the audit trail (migration 20261125000100) are chained before serving.
  const sealedRows = await sealLegacyRows(startupSql, cipher.audit)
  if (sealedRows) logger.info({ count: sealedRows }, 'audit trail: earlier rows sealed')
  await startupSql.end({ timeout: 5 })
  startupSql = undefined

  sql = connect({ ...database, max: config.databasePoolMax, bounds: config.deadline })

  const permissions = permissionLookupFor(config, sql)
  // One set of metrics for the app and the reconciliation sweeper, so /metrics sees both.
  const metrics = createMetrics({ sql, config, logger })
  if (config.readReplicas) {
    // A pool per standby (DATABASE_READ_URL), each as large as the primary's.
    const pools = config.readReplicas.urls.map((url) => ({
      name: new URL(url).host,
      sql: connect({ ...database, url, max: config.databasePoolMax, bounds: config.deadline }),
    }))
    standbys = pools.map((p) => p.sql)
    reads = startReadRouting({
      primary: sql,
      standbys: pools,
      maxLagMs: config.readReplicas.maxLagMs,
      observer: metrics.observer,
      logger,
    })
  }
  // Common list keywords get kept totals, built in the background on the primary.
  const keywordKeeper = startKeywordKeeper({ sql, logger })
  stopKeywordKeeper = keywordKeeper.stop
  const deps = withDefaults({
    config,
    sql,
    logger,
    cipher,
    permissions,
    observer: metrics.observer,
    reads,
    keywordKeeper,
  })
  const app = createApp({ ...deps, tracing: Boolean(tracing), metrics })
  stopSweeper = startApprovalSweeper(deps)
  // Suppliers written before the name keys existed are keyed while the service serves.
  stopBackfill = startNameKeyBackfill(deps)
  // Likewise the list keyword's spellings of suppliers written before they existed.
  stopSearchBackfill = startSupplierSearchBackfill(deps)
  // Tax numbers written before look-alike characters were folded are rewritten in their new form.
  stopTaxNoBackfill = startTaxNoBackfill(deps)
  // Off (nothing runs, events stay PENDING) unless EVENTS_NATS_URL is set.
  // Its lease holder is this host and port: a restarted instance takes its lease back at once.
  stopRelay = startEventRelay({
    ...deps,
    holder: stableRelayHolder((server.address() as AddressInfo).port),
  })
  stopReminders = startQualificationReminders(deps)
  handler = (req, env) => app.fetch(req, env)
  const { address, port } = server.address() as AddressInfo
  serving = {
    url: `http://${address.includes(':') ? `[${address}]` : address}:${port}`,
    embedded: Boolean(embedded),
  }
} catch (err) {
  await failStartup(err)
}

let stopping = false
const shutdown = (signal: string) => {
  if (stopping) return
  stopping = true
  logger.info({ signal }, 'draining requests')
  const force = setTimeout(() => {
    logger.error('shutdown took longer than 15 s: exiting')
    process.exit(1)
  }, 15_000)
  force.unref()
  // close() stops accepting and resolves once in-flight requests have finished.
  server!.close(async () => {
    await stopSweeper()
    await stopBackfill()
    await stopSearchBackfill()
    await stopKeywordKeeper()
    await stopTaxNoBackfill()
    await reads?.stop()
    await stopReminders()
    await stopRelay()
    await sql!.end({ timeout: 5 })
    for (const standby of standbys) await standby.end({ timeout: 5 })
    await embedded?.stop()
    // The spans of the last requests, exported before the process goes.
    await tracing?.shutdown().catch(() => {})
    logger.info('stopped cleanly')
    process.exit(0)
  })
}
process.on('SIGINT', () => shutdown('SIGINT'))
process.on('SIGTERM', () => shutdown('SIGTERM'))
// Said only once a SIGTERM drains: whoever stops the service as soon as it serves (a supervisor,
// a test) must not meet Node's default action, which kills it mid-request.
logger.info(serving, 'supplier-admin serving')
