import type { Logger } from 'pino'
import { releaseLease, takeLease } from '../../sql/lease'
import type { Sql } from '../../sql/db'

/*
 * The online backfills of derived data (company-name keys, search rows, tax numbers in their one
 * form): one replica at a time under a lease row, in small batches in id order while the service
 * serves, started in the background and run again while work is left. Each backfill supplies its
 * batch; the lease, the pauses and the retries are written here once.
 */

/** How long a batch's holder keeps the lease; it is renewed after every batch. */
const LEASE_SECONDS = 120

/**
 * Runs `batch(after)` from cursor `from` until it answers null (nothing left) or the lease or the
 * signal is lost, each batch returning the cursor to go on from, under the lease named `job`,
 * with `pauseMs` between batches so that requests keep the database. False when another replica
 * held the lease; a replica that dies leaves the rest to the next holder.
 */
export async function inBatches(
  sql: Sql,
  job: string,
  { from = '0', pauseMs, signal }: { from?: string; pauseMs?: number; signal?: AbortSignal },
  batch: (after: string) => Promise<string | null>,
): Promise<boolean> {
  const holder = crypto.randomUUID()
  if (!(await takeLease(sql, job, holder, LEASE_SECONDS))) return false
  try {
    let after: string | null = from
    while (!signal?.aborted) {
      after = await batch(after)
      if (after === null) break
      if (!(await takeLease(sql, job, holder, LEASE_SECONDS))) break
      if (pauseMs) await new Promise((resolve) => setTimeout(resolve, pauseMs))
    }
  } finally {
    await releaseLease(sql, job, holder)
  }
  return true
}

/**
 * Runs `round` in the background once the service serves, and again every `retrySeconds` while
 * it answers that work is left (another replica held the lease and stopped, say). A failed round
 * is logged as `what: backfill failed`. Returns the function that stops it and waits for it.
 */
export function inBackground(
  logger: Pick<Logger, 'warn'>,
  what: string,
  retrySeconds: number,
  round: (signal: AbortSignal) => Promise<'done' | 'again'>,
) {
  const abort = new AbortController()
  let timer: NodeJS.Timeout | undefined
  const run = (): Promise<void> =>
    round(abort.signal).then(
      (next) => {
        if (next === 'again' && !abort.signal.aborted) {
          timer = setTimeout(() => void (running = run()), retrySeconds * 1000)
          timer.unref()
        }
      },
      (err: unknown) => logger.warn({ err: (err as Error).message }, `${what}: backfill failed`),
    )
  let running = run()
  return async () => {
    abort.abort()
    clearTimeout(timer)
    await running
  }
}
