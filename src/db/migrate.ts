import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { createRequire } from 'node:module'

const run = promisify(execFile)

/**
 * The dbmate binary: DBMATE_BIN, else the platform package installed from npm
 * (@dbmate/linux-x64 is the one this project's registry serves), else `dbmate` on PATH.
 */
export function dbmateBinary(): string {
  if (process.env.DBMATE_BIN) return process.env.DBMATE_BIN
  const ext = process.platform === 'win32' ? '.exe' : ''
  try {
    return createRequire(import.meta.url).resolve(
      `@dbmate/${process.platform}-${process.arch}/bin/dbmate${ext}`,
    )
  } catch {
    return 'dbmate'
  }
}
export const MIGRATIONS_DIR = fileURLToPath(new URL('../../db/migrations', import.meta.url))

/**
 * Runs `dbmate migrate` (never `up`: the database exists already, and pglite-socket takes one
 * connection at a time). Asynchronous on purpose: the embedded server lives in this process.
 */
export async function migrate(url: string, { wait = false } = {}): Promise<string> {
  // `--wait` opens a probe connection of its own: only for a real server that may be starting.
  const args = ['--url', url, '--migrations-dir', MIGRATIONS_DIR, '--no-dump-schema']
  const { stdout } = await run(dbmateBinary(), [...args, ...(wait ? ['--wait'] : []), 'migrate'])
  return stdout
}
