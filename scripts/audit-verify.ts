import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { connect } from '../sql/db'
import { loadConfig } from '../src/config'
import { AuditKey } from '../src/crypto/audit'
import { startEmbedded, type EmbeddedDatabase } from '../src/db/embedded'
import { sealUnsealedRows } from '../src/domain/audit/trail'
import { markLegacyRowsSealed } from '../sql/audit-trail'
import { describeFinding, verifyAuditTrail } from '../src/domain/audit/verify'

/*
 * The audit trail's verifier (docs/audit-trail.md), for an auditor or a DBA:
 *   npm run audit:verify              walk every chain; exit 1 naming, per broken chain, the
 *                                     first row whose content, order or absence breaks it
 *   npm run audit:verify -- --seal    first seal every row that has no seal yet (rows written
 *                                     before the audit trail, which the service also seals once
 *                                     at its next start; rows written around the service: only
 *                                     after you have looked at them)
 * Needs the service's AUDIT_HMAC_KEY, and DATABASE_URL, or else the embedded database in
 * DATA_DIR (stop the service first: the embedded database serves one process); no other secret.
 * Exit status: 0 whole, 1 broken, 2 cannot run.
 */
const { values: opts } = parseArgs({ options: { seal: { type: 'boolean', default: false } } })

/**
 * The secrets this tool does not use, replaced by throwaway values whatever the environment
 * holds, so that a DBA is asked only for the database and the audit key (and no key the service
 * encrypts with or signs tokens with need be handed to the tool).
 */
const unused = () => {
  const key = () => randomBytes(32).toString('base64')
  return {
    AUTH_JWT_SECRET: randomBytes(32).toString('hex'),
    AUTH_JWKS_URL: undefined,
    DATA_ENCRYPTION_KEYS: `unused:${key()}`,
    DATA_ENCRYPTION_KEY_ID: undefined,
    BLIND_INDEX_KEY: key(),
    INTERNAL_TOKEN: randomBytes(32).toString('hex'),
  }
}

let config: ReturnType<typeof loadConfig>
try {
  config = loadConfig({ ...process.env, ...unused() })
} catch (err) {
  console.error(`audit:verify cannot run: ${(err as Error).message}`)
  process.exit(2)
}
let embedded: EmbeddedDatabase | undefined
let url = config.databaseUrl
if (!url) {
  const dataDir = join(config.dataDir, 'pgdata')
  if (!existsSync(dataDir)) {
    console.error(`no embedded database in ${dataDir}: set DATABASE_URL or DATA_DIR`)
    process.exit(2)
  }
  embedded = await startEmbedded({ dataDir, timezone: config.timezone })
  url = embedded.url
}
const sql = connect({ url, max: 1, timezone: config.timezone })
let status = 2
try {
  const key = await AuditKey.create(config.crypto.auditKey)
  if (opts.seal) {
    const sealed = await sealUnsealedRows(sql, key)
    await markLegacyRowsSealed(sql)
    process.stdout.write(`sealed ${sealed} row(s) that had no seal\n`)
  }
  const report = await verifyAuditTrail(sql, key)
  process.stdout.write(`checked ${report.rows} row(s) in ${report.chains} chain(s)\n`)
  if (report.problems === 0) {
    process.stdout.write('the audit trail is whole\n')
    status = 0
  } else {
    for (const f of report.findings) console.error(describeFinding(f))
    if (report.problems > report.findings.length) {
      console.error(`… and ${report.problems - report.findings.length} more`)
    }
    console.error(`the audit trail is broken: ${report.problems} problem(s)`)
    status = 1
  }
} catch (err) {
  console.error(`audit:verify failed: ${(err as Error).message}`)
} finally {
  await sql.end({ timeout: 5 })
  await embedded?.stop()
}
process.exit(status)
