import { z } from 'zod'
import { maybeOne, none, type Sql } from './db'

/*
 * The write pipeline's claims, each kept in the transaction of the write it guards:
 * - Idempotency-Key records: the kept response of a write, replayed to a retry of the same
 *   request by the same administrator until it expires;
 * - the duplicate-submit window: the same body of the same operation on the same target by the
 *   same administrator, refused while an earlier claim is fresh.
 */

const Claimed = z.object({ id: z.string() })

export const IdempotencyRow = z.object({
  requestHash: z.string(),
  operation: z.string(),
  response: z.unknown(),
})
export type IdempotencyRow = z.output<typeof IdempotencyRow>

/** The committed, unexpired record of an Idempotency-Key, if any. */
export function findIdempotencyRecord(sql: Sql, adminId: string, idempotencyKey: string) {
  return maybeOne(
    sql`
      SELECT request_hash AS "requestHash", operation, response
      FROM idempotency_record
      WHERE admin_id = ${adminId} AND idempotency_key = ${idempotencyKey} AND status = 'DONE'
        AND expires_at > now()
    `,
    IdempotencyRow,
  )
}

/**
 * Claims an Idempotency-Key inside the business transaction, so the claim, the work and the
 * kept response commit together or not at all. A concurrent request with the same key waits on
 * the unique index until this transaction ends, then finds the key taken (false) and replays
 * what committed. An expired record is taken over.
 */
export async function claimIdempotencyKey(
  sql: Sql,
  key: { adminId: string; idempotencyKey: string; operation: string; requestHash: string },
) {
  const claimed = await maybeOne(
    sql`
      INSERT INTO idempotency_record (admin_id, idempotency_key, operation, request_hash, status, expires_at)
      VALUES (${key.adminId}, ${key.idempotencyKey}, ${key.operation}, ${key.requestHash}, 'IN_PROGRESS', now())
      ON CONFLICT (admin_id, idempotency_key) DO UPDATE
        SET operation = EXCLUDED.operation, request_hash = EXCLUDED.request_hash, status = 'IN_PROGRESS',
            response = NULL, expires_at = EXCLUDED.expires_at, create_time = now()
        WHERE idempotency_record.expires_at <= now()
      RETURNING id::text AS id
    `,
    Claimed,
  )
  return claimed !== null
}

/** Keeps the response for `ttlHours`, in the same transaction as the write it answers. */
export function completeIdempotencyKey(
  sql: Sql,
  {
    adminId,
    idempotencyKey,
    response,
    ttlHours,
  }: { adminId: string; idempotencyKey: string; response: unknown; ttlHours: number },
) {
  return none(sql`
    UPDATE idempotency_record
    SET status = 'DONE', response = ${sql.json(response as never)},
        expires_at = now() + make_interval(hours => ${ttlHours})
    WHERE admin_id = ${adminId} AND idempotency_key = ${idempotencyKey} AND status = 'IN_PROGRESS'
  `)
}

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
