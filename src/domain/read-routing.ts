import type postgres from 'postgres'
import { isDatabaseUnavailable } from '../../sql/db'
import type { Deps } from './deps'

/**
 * A standby ended the statement because replay needed what it read (a recovery conflict:
 * 40001, or 40P01 for a buffer pin): the primary has no such conflict.
 */
const RECOVERY_CONFLICT = new Set(['40001', '40P01'])

/**
 * `read` on a standby when one is fit for `adminId` (DATABASE_READ_URL), else on the primary. A
 * standby that fails for want of the server, or cancels the read for a recovery conflict, is
 * taken out of rotation and the read runs again on the primary: a standby never fails a request.
 * `read` must only read: the standby refuses writes, and a read inside a write belongs to the
 * write's transaction on the primary.
 */
export async function readOnly<T>(
  deps: Pick<Deps, 'sql' | 'reads' | 'observer'>,
  adminId: string | undefined,
  read: (sql: postgres.Sql) => Promise<T>,
): Promise<T> {
  if (!deps.reads) return read(deps.sql)
  const target = deps.reads.pick(adminId)
  if (target.name === undefined) {
    deps.observer?.databaseRead?.('primary', target.reason)
    return read(deps.sql)
  }
  try {
    const result = await read(target.sql)
    deps.observer?.databaseRead?.('standby', 'caught-up')
    return result
  } catch (err) {
    const code = (err as { code?: unknown }).code
    if (!isDatabaseUnavailable(err) && !RECOVERY_CONFLICT.has(String(code))) throw err
    deps.reads.failed(target.name)
    deps.observer?.databaseRead?.('primary', 'standby-failed')
    return read(deps.sql)
  }
}
