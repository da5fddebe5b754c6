import {
  claimIdempotencyKey,
  claimSubmitWindow,
  completeIdempotencyKey,
  findIdempotencyRecord,
} from '../../../sql/idempotency'
import type { Sql } from '../../../sql/db'
import { fail } from '../../errors'
import type { Deps } from '../deps'
import type { WriteContext } from '../context'
import { mapConstraintViolation } from './constraints'
import { settledValues, transaction } from './transaction'

/**
 * One write of the supplier aggregate, in the spec's write order. The pipeline owns the order;
 * a command supplies only its own steps.
 */
export interface WriteCommand<Seen, Result, Answer = Result> {
  /**
   * Steps 2 and 3, before any lock: existence, ownership, status, version, uniqueness and field
   * rules. Cheap refusals happen here, on the pool.
   */
  precheck(sql: Sql): Promise<Seen>
  /**
   * Steps 4 and 5, inside the one transaction after the duplicate-submit claim: lock and re-read,
   * re-check status and version, the work, change log, pending events. Returns the answer, built
   * here so that it is exactly what committed.
   */
  run(tx: Sql, seen: Seen): Promise<Result>
  /**
   * The answer to what `run` wrote, kept for the Idempotency-Key (default: `run`'s result as it
   * is; an approval command answers the ApprovalCommandResultVO of the approval it opened).
   */
  answer?(result: Result): Answer
  /**
   * Step 6, after commit: outbound ports, given the answer and what `run` wrote. It may improve
   * the answer (an applied approval) but never turns it into a failure: what committed is
   * reported, what is left is reconciled.
   */
  afterCommit?(answer: Answer, result: Result): Promise<Answer>
  /** How a kept answer is replayed for a repeated Idempotency-Key (default: as kept). */
  replay?(kept: Answer): Promise<Answer>
}

/** A concurrent request with the same Idempotency-Key committed first: replay its answer. */
class KeyTaken extends Error {}

/**
 * Runs a write: replay of a kept Idempotency-Key answer → pre-checks → one transaction holding
 * the key claim, the duplicate-submit claim, the command's work and the kept answer → outbound
 * ports. Constraint violations become their catalog errors. The transaction commits only within
 * the request's deadline, and a COMMIT left unanswered is WRITE_OUTCOME_UNKNOWN (`transaction`).
 */
export async function runWrite<Seen, Result, Answer = Result>(
  deps: Deps,
  ctx: WriteContext,
  command: WriteCommand<Seen, Result, Answer>,
): Promise<Answer> {
  const kept = await keptAnswer(deps, ctx, command)
  if (kept.found) return kept.answer
  let seen: Seen
  try {
    seen = await command.precheck(deps.sql)
  } catch (err) {
    // A twin with the same key may have committed while this one was checking (its draft then
    // looks like a near-duplicate, say): its answer is this request's answer.
    const twin = await keptAnswer(deps, ctx, command)
    if (twin.found) return twin.answer
    throw err
  }
  let committed: { result: Result; answer: Answer }
  try {
    committed = await transaction(deps, ctx, async (tx) => {
      await claimKey(tx, ctx)
      // The claim goes out with the command's first statement, not a round trip ahead of it:
      // the connection runs them in the order sent, so the claim still comes first (a twin
      // waits on its unique index before anything of the command runs), and it is judged
      // first, once both have settled: no statement of the command is still on its way when a
      // refused claim rolls the transaction back.
      const [, result] = settledValues(
        await Promise.allSettled([guardDuplicateSubmit(tx, deps, ctx), command.run(tx, seen)]),
      )
      const answer = command.answer ? command.answer(result) : (result as unknown as Answer)
      if (ctx.idempotencyKey) {
        await completeIdempotencyKey(tx, {
          adminId: ctx.adminId,
          idempotencyKey: ctx.idempotencyKey,
          response: answer,
          ttlHours: deps.config.idempotencyTtlHours,
        })
      }
      return { result, answer }
    })
  } catch (err) {
    if (err instanceof KeyTaken) {
      const again = await keptAnswer(deps, ctx, command)
      if (again.found) return again.answer
      fail('IDEMPOTENCY_IN_PROGRESS')
    }
    throw mapConstraintViolation(err)
  }
  ctx.deadline?.settle()
  const { result, answer } = committed
  if (!command.afterCommit) return answer
  const improved = command.afterCommit(answer, result).catch((err: unknown) => {
    deps.logger.error(
      { requestId: ctx.requestId, operation: ctx.operation, err: (err as Error).message },
      'write committed; its outbound step failed and is left to reconciliation',
    )
    return answer
  })
  if (!ctx.deadline) return improved
  // At the deadline the caller gets what committed; the outbound step goes on without it, and
  // whatever it leaves undone is reconciled.
  return Promise.race([improved, ctx.deadline.whenPassed().then(() => answer)])
}

const keyOperation = (ctx: WriteContext) => `${ctx.operation} ${ctx.target}`

async function keptAnswer<Answer>(
  deps: Deps,
  ctx: WriteContext,
  command: Pick<WriteCommand<unknown, unknown, Answer>, 'replay'>,
): Promise<{ found: true; answer: Answer } | { found: false }> {
  if (!ctx.idempotencyKey) return { found: false }
  const record = await findIdempotencyRecord(deps.sql, ctx.adminId, ctx.idempotencyKey)
  if (!record) return { found: false }
  if (record.operation !== keyOperation(ctx) || record.requestHash !== ctx.fingerprint) {
    fail('IDEMPOTENCY_KEY_REUSED')
  }
  const answer = record.response as Answer
  return { found: true, answer: command.replay ? await command.replay(answer) : answer }
}

async function claimKey(tx: Sql, ctx: WriteContext) {
  if (!ctx.idempotencyKey) return
  const claimed = await claimIdempotencyKey(tx, {
    adminId: ctx.adminId,
    idempotencyKey: ctx.idempotencyKey,
    operation: keyOperation(ctx),
    requestHash: ctx.fingerprint,
  })
  if (!claimed) throw new KeyTaken()
}

/**
 * Step 4 of the write order, inside the business transaction: the same administrator sending
 * the same body to the same target within the window is refused, and nothing is written.
 */
export async function guardDuplicateSubmit(tx: Sql, deps: Deps, ctx: WriteContext) {
  if (deps.config.duplicateSubmitWindowSeconds === 0) return
  const fresh = await claimSubmitWindow(
    tx,
    {
      adminId: ctx.adminId,
      operation: ctx.operation,
      target: ctx.target,
      fingerprint: ctx.fingerprint,
    },
    deps.config.duplicateSubmitWindowSeconds,
  )
  if (!fresh) fail('DUPLICATE_SUBMIT')
}
