import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { resolveBinary } from 'dbmate'

const run = promisify(execFile)
export const MIGRATIONS_DIR = fileURLToPath(new URL('../../db/migrations', import.meta.url))

/**
 * Runs `dbmate migrate` (never `up`: the database exists already, and pglite-socket takes one
 * connection at a time). Asynchronous on purpose: the embedded server lives in this process.
 */
export async function migrate(url: string, { wait = false } = {}): Promise<string> {
  // `--wait` opens a probe connection of its own: only for a real server that may be starting.
  const args = ['--url', url, '--migrations-dir', MIGRATIONS_DIR, '--no-dump-schema']
  const { stdout } = await run(resolveBinary(), [...args, ...(wait ? ['--wait'] : []), 'migrate'])
  return stdout
}
