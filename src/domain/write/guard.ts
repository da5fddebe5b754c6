import { claimSubmitWindow } from '../../../sql/submit-guard'
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
