import { z } from 'zod'
import { maybeOne, none, type Sql } from './db'

const Held = z.object({ holder: z.string() })

/**
 * Takes `job` for `seconds` unless another holder's lease is still running; true when taken.
 * One statement, so two replicas asking at once cannot both get it.
 */
export async function takeLease(
  sql: Sql,
  job: string,
  holder: string,
  seconds: number,
): Promise<boolean> {
  const taken = await maybeOne(
    sql`
      INSERT INTO job_lease AS l (job, holder, expires_at)
      VALUES (${job}, ${holder}, now() + make_interval(secs => ${seconds}))
      ON CONFLICT (job) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
      WHERE l.expires_at <= now() OR l.holder = excluded.holder
      RETURNING l.holder
    `,
    Held,
  )
  return taken !== null
}

/** Ends `holder`'s lease on `job` now; a lease taken over by another holder is left alone. */
export function releaseLease(sql: Sql, job: string, holder: string) {
  return none(sql`
    UPDATE job_lease SET expires_at = now() WHERE job = ${job} AND holder = ${holder}
  `)
}
