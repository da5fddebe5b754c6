import type postgres from 'postgres'
import { isDatabaseUnavailable, withinDeadline } from '../../sql/db'
import { primaryFlushPosition, standbyReplayPosition } from '../../sql/replication'
import type { Deps, ReadRouting, ReadTarget } from './deps'

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
  deps: Deps,
  adminId: string | undefined,
  read: (sql: postgres.Sql) => Promise<T>,
): Promise<T> {
  if (!deps.reads) return read(deps.sql)
  const target = await deps.reads.pick(adminId)
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

/**
 * Read routing for one request of the edge build, which has no timer to poll with and no writes
 * of its own to remember (the administrator's writes went through a Node instance). On the
 * request's first read it asks, at once, the primary for its flushed WAL position and the standby
 * how far it has replayed: the standby serves the request's reads only when it has replayed all of
 * it, so a read there sees every write acknowledged before the request began (read-your-writes for
 * every administrator, whichever instance took the write). A standby that is behind, down, slow to
 * answer or promoted leaves the reads to the primary; a primary that does not answer fails the
 * read as it would without a standby. `connect` opens the standby's client only when asked.
 */
export function requestReadRouting({
  primary,
  standby,
  timeoutMs = 1_000,
}: {
  primary: postgres.Sql
  standby: { name: string; connect: () => postgres.Sql }
  timeoutMs?: number
}): ReadRouting {
  let decided: Promise<ReadTarget> | undefined
  let failed = false
  const decide = async (): Promise<ReadTarget> => {
    const standbySql = standby.connect()
    const [flushed, replay] = await Promise.all([
      withinDeadline(primaryFlushPosition(primary), timeoutMs, 'primary'),
      withinDeadline(standbyReplayPosition(standbySql), timeoutMs, `standby ${standby.name}`).catch(
        () => undefined,
      ),
    ])
    if (!replay?.standby || replay.replayed === null) return { reason: 'down' }
    if (replay.replayed < flushed) return { reason: 'lagging' }
    return { name: standby.name, sql: standbySql }
  }
  return {
    pick: () => (failed ? { reason: 'standby-failed' } : (decided ??= decide())),
    failed() {
      failed = true
    },
    // Nothing to remember: the next request asks the servers again.
    wrote: async () => {},
  }
}
