import { connect } from '../sql/db'
import { loadConfig } from '../src/config'
import { createCipher } from '../src/crypto/sensitive'
import { findTaxNoCollisions } from '../src/domain/supplier/tax-number'

/*
 * For an administrator: the live suppliers that share one tax number once look-alike characters
 * are folded (a zero-width space, a hyphen, a Cyrillic А written into a number another supplier
 * holds). Read-only: it lists them, masked, and changes nothing; which supplier keeps the number
 * is the administrator's decision (deactivate or delete the other through the API).
 *   npm run tax-no:collisions            one block per shared number
 *   npm run tax-no:collisions -- --json  the same as JSON
 * Exit status 0 when none collide, 3 when some do, 2 on a usage or configuration error.
 * Needs DATABASE_URL and the service's DATA_ENCRYPTION_KEYS and BLIND_INDEX_KEY.
 */
const json = process.argv.includes('--json')
if (process.argv.slice(2).some((a) => a !== '--json')) {
  console.error('usage: npm run tax-no:collisions [-- --json]')
  process.exit(2)
}
const config = loadConfig()
if (!config.databaseUrl) {
  console.error('DATABASE_URL is required')
  process.exit(2)
}
const sql = connect({ url: config.databaseUrl, max: 1, timezone: config.timezone })
try {
  const cipher = await createCipher(config.crypto)
  const collisions = await findTaxNoCollisions({ sql, cipher })
  if (json) console.log(JSON.stringify(collisions, null, 2))
  else if (!collisions.length) console.log('no two live suppliers share a tax number')
  else
    for (const c of collisions) {
      console.log(`${c.taxNoMask}: ${c.suppliers.length} live suppliers`)
      for (const s of c.suppliers)
        console.log(
          `  supplierId ${s.supplierId}  ${s.supplierNo ?? '(no supplierNo)'}  ${s.status}  ${s.fullName}` +
            (s.storedAsWritten ? '  (stored with look-alike characters)' : ''),
        )
    }
  process.exitCode = collisions.length ? 3 : 0
} finally {
  await sql.end({ timeout: 5 })
}
