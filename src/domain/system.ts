import { withinDeadline, type Sql } from '../../sql/db'
import { ping } from '../../sql/monitoring'

/**
 * Readiness: whether the database answers within `timeoutMs`. A host that does not answer at all
 * is as unready as one that refuses, so every failure is `false`, never a thrown fault.
 */
export async function databaseReady(sql: Sql, timeoutMs: number): Promise<boolean> {
  try {
    await withinDeadline(ping(sql), timeoutMs, 'readiness')
    return true
  } catch {
    return false
  }
}
