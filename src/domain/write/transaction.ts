import type postgres from 'postgres'
import type { Logger } from 'pino'
import { DatabaseUnavailableError, isServerRefusal, type Sql } from '../../../sql/db'
import { AppError, ERRORS } from '../../errors'
import type { Observer } from '../../ports/observer'
import type { RequestDeadline } from '../deadline'

/** How often a write runs when the server keeps ending it to break a lock cycle. */
export const WRITE_ATTEMPTS = 4

/**
 * The SQLSTATEs of a transaction the server rolled back to break a deadlock (40P01) or a
 * serialization conflict (40001): nothing of it was written, so it may simply run again.
 */
const RETRYABLE = new Set(['40P01', '40001'])

/** What a request counts of its writes' lock conflicts, for its access-log line. */
export interface Contention {
  retries: number
}

/**
 * A write the server kept ending as a lock or serialization conflict, `WRITE_ATTEMPTS` times or
 * until the deadline: the concurrency conflict (395014), with nothing written.
 */
export class ContentionError extends AppError {
  constructor(readonly sqlState: string) {
    super(
      ERRORS.CONCURRENT_MODIFICATION,
      'the supplier is being written by other requests at the same time; nothing was written: retry',
    )
  }
}

type TransactionDeps = {
  sql: postgres.Sql
  logger: Pick<Logger, 'warn'>
  observer?: Pick<Observer, 'writeConflict'>
}
type TransactionCtx = { requestId: string; deadline?: RequestDeadline; contention?: Contention }

/**
 * `work` in one transaction that commits only within the request's deadline. Past it the
 * transaction rolls back instead of sending COMMIT, so the "retry later" the caller was given
 * at the deadline stays true: nothing was written. A COMMIT that was sent and then answered
 * by no ErrorResponse (the connection was lost, went silent, or its session was ended) may have
 * committed: WRITE_OUTCOME_UNKNOWN, which a retry with the same Idempotency-Key resolves, since
 * the key's answer is kept in the same transaction as the write.
 *
 * A transaction the server ended as a deadlock or serialization failure wrote nothing and is run
 * again, with a short random pause, up to `WRITE_ATTEMPTS` times while the deadline allows; then
 * it is a ContentionError. The service's own writes take their locks in one order
 * (docs/architecture.md, "Lock order"), so these come from outside it: an operator's session, a
 * write of another aggregate, the server's own choices.
 */
export async function transaction<T>(
  deps: TransactionDeps,
  ctx: TransactionCtx,
  work: (tx: Sql) => Promise<T>,
): Promise<T> {
  const { deadline } = ctx
  const tooLate = () =>
    new DatabaseUnavailableError(
      `the request deadline of ${deadline!.ms} ms passed before COMMIT: rolled back`,
    )
  for (let attempt = 1; ; attempt++) {
    if (deadline?.passed) throw tooLate()
    let committing = false
    try {
      try {
        return (await deps.sql.begin(async (tx) => {
          const result = await work(tx)
          if (deadline && !deadline.beginCommit()) throw tooLate()
          committing = true
          return result
        })) as T
      } finally {
        if (committing) deadline?.endCommit()
      }
    } catch (err) {
      if (committing && !isServerRefusal(err)) {
        deps.logger.warn(
          { requestId: ctx.requestId, err: (err as Error).message },
          'COMMIT sent without an answer: outcome unknown',
        )
        throw new AppError(ERRORS.WRITE_OUTCOME_UNKNOWN)
      }
      const state = retryableState(err)
      if (!state) throw err
      const last = attempt >= WRITE_ATTEMPTS || ctx.deadline?.passed
      deps.observer?.writeConflict(state, last ? 'refused' : 'retried')
      if (last) {
        deps.logger.warn(
          { requestId: ctx.requestId, sqlState: state, attempts: attempt },
          'write ended by the server as a lock conflict each time: answered as 395014',
        )
        throw new ContentionError(state)
      }
      if (ctx.contention) ctx.contention.retries++
      // Apart, so that the same transactions do not meet again at once.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt))
    }
  }
}

/** The SQLSTATE of a failure that rolled the transaction back and may be run again. */
function retryableState(err: unknown): string | undefined {
  const code = isServerRefusal(err) ? (err as postgres.PostgresError).code : undefined
  return code !== undefined && RETRYABLE.has(code) ? code : undefined
}

/**
 * Promise.all for statements sent together and judged in order: waits until every part has
 * settled, then fails with the first failure in the parts' order (the write order's, where the
 * parts are checks). Promise.all would answer at the first failure while the other parts went on:
 * inside a transaction, a statement they sent after its ROLLBACK would run outside it, on a
 * connection back in the pool.
 */
export async function allSettled<T extends readonly unknown[]>(
  parts: readonly [...{ [K in keyof T]: Promise<T[K]> }],
): Promise<T> {
  return settledValues<T>(await Promise.allSettled(parts))
}

/**
 * What `allSettled` answers, for a caller that awaits `Promise.allSettled` itself: the values of
 * the parts, or the first failure in the parts' order.
 */
export function settledValues<T extends readonly unknown[]>(settled: {
  [K in keyof T]: PromiseSettledResult<T[K]>
}): T {
  const all = settled as readonly PromiseSettledResult<unknown>[]
  const failed = all.find((p): p is PromiseRejectedResult => p.status === 'rejected')
  if (failed) throw failed.reason
  return all.map((p) => (p as PromiseFulfilledResult<unknown>).value) as unknown as T
}
