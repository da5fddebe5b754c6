import { connect } from '../sql/db'
import { loadConfig } from '../src/config'
import { createCipher } from '../src/crypto/sensitive'
import {
  decryptApproveNotesForRollback,
  encryptPlaintextApproveNotes,
} from '../src/domain/supplier/approve-note'

/*
 * approveNote at rest (migration 20261123000100), for a DBA:
 *   npm run approve-notes              encrypt every note still in plaintext (the service also
 *                                      does this at each start); idempotent
 *   npm run approve-notes -- decrypt   before rolling that migration back only: every note back
 *                                      in plaintext for the older release
 * Needs DATABASE_URL and the service's DATA_ENCRYPTION_KEYS (and DATA_ENCRYPTION_KEY_ID).
 */
const mode = process.argv[2] ?? 'encrypt'
if (mode !== 'encrypt' && mode !== 'decrypt') {
  console.error('usage: npm run approve-notes [-- encrypt|decrypt]')
  process.exit(2)
}
const config = loadConfig()
if (!config.databaseUrl) {
  console.error('DATABASE_URL is required (the embedded database does this itself at start-up)')
  process.exit(2)
}
const sql = connect({ url: config.databaseUrl, max: 1, timezone: config.timezone })
try {
  const cipher = await createCipher(config.crypto)
  const moved =
    mode === 'encrypt'
      ? await encryptPlaintextApproveNotes(sql, cipher)
      : await decryptApproveNotesForRollback(sql, cipher)
  console.log(`${mode}: ${moved} approve note(s) moved`)
} finally {
  await sql.end({ timeout: 5 })
}
