import { z } from 'zod'
import { maybeOne, type Sql } from './db'

const Claimed = z.object({ id: z.string() })

/**
 * Short-window duplicate-submit guard. Claims (admin, operation, target, fingerprint) until
 * `windowSeconds` from now; returns false while an earlier claim is still fresh. Runs inside the
 * business transaction, so a failed write leaves no claim and a concurrent twin waits on the
 * unique index, then sees the claim.
 */
export async function claimSubmitWindow(
  sql: Sql,
  key: { adminId: string; operation: string; target: string; fingerprint: string },
  windowSeconds: number,
) {
  const row = await maybeOne(
    sql`
      INSERT INTO submit_guard (admin_id, operation, target, fingerprint, expires_at)
      VALUES (${key.adminId}, ${key.operation}, ${key.target}, ${key.fingerprint},
              now() + make_interval(secs => ${windowSeconds}))
      ON CONFLICT (admin_id, operation, target, fingerprint) DO UPDATE
        SET expires_at = EXCLUDED.expires_at, create_time = now()
        WHERE submit_guard.expires_at <= now()
      RETURNING id::text AS id
    `,
    Claimed,
  )
  return row !== null
}
