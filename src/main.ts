import type { Server } from 'node:http'
import { join } from 'node:path'
import { serve } from '@hono/node-server'
import { connect } from '../sql/db'
import { createApp, domainDeps } from './app'
import { startApprovalSweeper } from './domain/approval/reconcile'
import { ConfigError, loadConfig } from './config'
import { createCipher } from './crypto/sensitive'
import { loadDemoData, loadReferenceData } from './db/seed'
import { DataDirInUseError, startEmbedded, type EmbeddedDatabase } from './db/embedded'
import { MigrationError, migrate, migrateWithLock } from './db/migrate'
import { encryptPlaintextApproveNotes } from './domain/supplier/approve-note'
import { createLogger } from './logger'
import { answerClientErrors } from './http/client-error'
import { permissionLookupFor } from './ports/permission'

let config
try {
  config = loadConfig()
} catch (err) {
  if (!(err instanceof ConfigError)) throw err
  console.error(err.message)
  process.exit(78)
}
const logger = createLogger({ level: config.logLevel })

let embedded: EmbeddedDatabase | undefined
let databaseUrl: string
try {
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
  databaseUrl = config.databaseUrl ?? embedded!.url

  if (config.migrateOnStart) {
    // On a real server replicas may start together: they migrate one at a time under a lock.
    const migrated = embedded
      ? await migrate(databaseUrl)
      : await migrateWithLock(databaseUrl, { wait: true })
    logger.info({ applied: migrated.trim() || 'none pending' }, 'migrations')
  } else {
    logger.info('migrations skipped (MIGRATE_ON_START=false)')
  }
} catch (err) {
  // Expected start-up refusals: their message says it all (passwords already masked), no stack.
  if (!(err instanceof DataDirInUseError || err instanceof MigrationError)) throw err
  await embedded?.stop().catch(() => {})
  console.error(err.message)
  process.exit(1)
}
const sql = connect({ url: databaseUrl, max: embedded ? 1 : 10, timezone: config.timezone })
await loadReferenceData(sql)
if (config.demoData && (await loadDemoData(sql, config.demoAdminId))) {
  logger.info({ demoAdminId: config.demoAdminId }, 'demo data loaded')
}
const cipher = await createCipher(config.crypto)
// Notes written in plaintext before migration 20261123000100 are encrypted before serving.
const encryptedNotes = await encryptPlaintextApproveNotes(sql, cipher)
if (encryptedNotes) logger.info({ count: encryptedNotes }, 'plaintext approve notes encrypted')

const permissions = permissionLookupFor(config, sql)
const deps = { config, sql, logger, cipher, permissions }
const app = createApp(deps)
const stopSweeper = startApprovalSweeper(domainDeps(deps))

const server = serve({ fetch: app.fetch, hostname: config.host, port: config.port }, (info) => {
  logger.info(
    { url: `http://${info.address}:${info.port}`, embedded: Boolean(embedded) },
    'supplier-admin serving',
  )
})
answerClientErrors(server as Server, logger)

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
  server.close(async () => {
    await stopSweeper()
    await sql.end({ timeout: 5 })
    await embedded?.stop()
    logger.info('stopped cleanly')
    process.exit(0)
  })
}
process.on('SIGINT', () => shutdown('SIGINT'))
process.on('SIGTERM', () => shutdown('SIGTERM'))
