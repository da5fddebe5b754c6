import type postgres from 'postgres'
import type { Logger } from 'pino'
import { DatabaseUnavailableError, isServerRefusal, type Sql } from '../../../sql/db'
import { AppError, ERRORS } from '../../errors'
import type { RequestDeadline } from '../deadline'

/**
 * `work` in one transaction that commits only within the request's deadline. Past it the
 * transaction rolls back instead of sending COMMIT, so the "retry later" the caller was given
 * at the deadline stays true: nothing was written. A COMMIT that was sent and then answered
 * by no ErrorResponse (the connection was lost, went silent, or its session was ended) may have
 * committed: WRITE_OUTCOME_UNKNOWN, which a retry with the same Idempotency-Key resolves, since
 * the key's answer is kept in the same transaction as the write.
 */
export async function transaction<T>(
  deps: { sql: postgres.Sql; logger: Pick<Logger, 'warn'> },
  ctx: { requestId: string; deadline?: RequestDeadline },
  work: (tx: Sql) => Promise<T>,
): Promise<T> {
  const { deadline } = ctx
  const tooLate = () =>
    new DatabaseUnavailableError(
      `the request deadline of ${deadline!.ms} ms passed before COMMIT: rolled back`,
    )
  if (deadline?.passed) throw tooLate()
  let committing = false
  try {
    return (await deps.sql.begin(async (tx) => {
      const result = await work(tx)
      if (deadline && !deadline.beginCommit()) throw tooLate()
      committing = true
      return result
    })) as T
  } catch (err) {
    if (!committing || isServerRefusal(err)) throw err
    deps.logger.warn(
      { requestId: ctx.requestId, err: (err as Error).message },
      'COMMIT sent without an answer: outcome unknown',
    )
    throw new AppError(ERRORS.WRITE_OUTCOME_UNKNOWN)
  } finally {
    if (committing) deadline?.endCommit()
  }
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
  const settled = await Promise.allSettled(parts)
  const failed = settled.find((p): p is PromiseRejectedResult => p.status === 'rejected')
  if (failed) throw failed.reason
  return settled.map((p) => (p as PromiseFulfilledResult<unknown>).value) as unknown as T
}
