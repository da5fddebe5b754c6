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
