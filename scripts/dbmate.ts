import { spawnSync } from 'node:child_process'
import { dbmateBinary, MIGRATIONS_DIR } from '../src/db/migrate'

/** `npm run dbmate -- <args>`: the project's dbmate, pointed at db/migrations. */
const result = spawnSync(
  dbmateBinary(),
  ['--migrations-dir', MIGRATIONS_DIR, ...process.argv.slice(2)],
  {
    stdio: 'inherit',
  },
)
process.exit(result.status ?? 1)
