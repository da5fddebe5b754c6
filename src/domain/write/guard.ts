import {
  claimIdempotencyKey,
  claimSubmitWindow,
  completeIdempotencyKey,
  releaseIdempotencyKey,
} from '../../../sql/audit'
import type { Sql } from '../../../sql/db'
import { fail } from '../../errors'
import type { DomainDeps, WriteContext } from '../context'

/**
 * Step 4 of the write order, inside the business transaction: the same administrator sending
 * the same body to the same target within the window is refused, and nothing is written.
 */
export async function guardDuplicateSubmit(
  tx: Sql,
  deps: Pick<DomainDeps, 'config'>,
  ctx: WriteContext,
) {
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

/**
 * `Idempotency-Key` in the manner of payment APIs: the first request with a key runs and its
 * successful result is kept for the TTL; the same key and body replay that result without
 * writing; the same key with another body or operation is refused. A failed request releases
 * the key, since it wrote nothing.
 */
export async function withIdempotency<T>(
  deps: Pick<DomainDeps, 'config' | 'sql'>,
  ctx: WriteContext,
  idempotencyKey: string | undefined,
  run: () => Promise<T>,
): Promise<T> {
  if (!idempotencyKey) return run()
  const key = { adminId: ctx.adminId, idempotencyKey }
  const claim = await claimIdempotencyKey(deps.sql, {
    ...key,
    operation: `${ctx.operation} ${ctx.target}`,
    requestHash: ctx.fingerprint,
  })
  if (!claim.claimed) {
    const { existing } = claim
    if (
      existing.operation !== `${ctx.operation} ${ctx.target}` ||
      existing.requestHash !== ctx.fingerprint
    ) {
      fail('IDEMPOTENCY_KEY_REUSED')
    }
    if (existing.status === 'IN_PROGRESS') fail('IDEMPOTENCY_IN_PROGRESS')
    return existing.response as T
  }
  let result: T
  try {
    result = await run()
  } catch (err) {
    await releaseIdempotencyKey(deps.sql, ctx.adminId, idempotencyKey)
    throw err
  }
  await completeIdempotencyKey(
    deps.sql,
    ctx.adminId,
    idempotencyKey,
    result,
    deps.config.idempotencyTtlHours,
  )
  return result
}
