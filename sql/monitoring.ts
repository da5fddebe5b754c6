import { z } from 'zod'
import { many, none, one, type Sql } from './db'

/*
 * Cheap queries run at each /metrics scrape. `approval_log` has no deleted_at (evidence is never
 * deleted); the partial index approval_log_unfinished keeps the stuck count to the unfinished
 * rows.
 */

const Count = z.object({ count: z.number().int() })

/** Approvals still SUBMITTED or APPROVED (not applied, rejected or failed) after `ageSeconds`. */
export async function countStuckApprovals(sql: Sql, ageSeconds: number): Promise<number> {
  const row = await one(
    sql`
      SELECT count(*)::int AS count
      FROM approval_log a
      WHERE a.status IN ('SUBMITTED', 'APPROVED')
        AND a.submitted_at < now() - make_interval(secs => ${ageSeconds})
    `,
    Count,
  )
  return row.count
}

const PoolState = z.object({ state: z.string(), count: z.number().int() })

/**
 * This process's connections as the server sees them (same database and application_name as the
 * connection running this query), by state. The scrape's own connection counts as idle: that is
 * what it is between scrapes.
 */
export function poolConnections(sql: Sql) {
  return many(
    sql`
      SELECT CASE WHEN a.pid = pg_backend_pid() THEN 'idle' ELSE coalesce(a.state, 'unknown') END AS state,
             count(*)::int AS count
      FROM pg_stat_activity a
      WHERE a.datname = current_database()
        AND a.application_name = current_setting('application_name')
      GROUP BY 1
    `,
    PoolState,
  )
}

/** The cheapest round trip: readiness asks only whether the database answers. */
export async function ping(sql: Sql): Promise<void> {
  await none(sql`SELECT 1`)
}
