import type { Context } from 'hono'
import { z } from 'zod'
import { canonicalJson, type WriteContext } from '../domain/context'
import { ok, type DeclaredData } from './envelope'
import { AppError, ERRORS } from '../errors'
import type { AppEnv } from './types'
import type { Deps } from '../domain/deps'

const IdempotencyKey = z.string().regex(/^[A-Za-z0-9_.:-]{1,255}$/)

/**
 * The identity of a write for the duplicate-submit guard; the body is kept only as an HMAC. The
 * write is named by its route's operationId (set by `authorize`), the one name the reference,
 * the permissions and the kept Idempotency-Key answers share.
 */
export async function writeContext<E extends AppEnv>(
  c: Context<E>,
  deps: Deps,
  target: string,
  body: unknown,
): Promise<WriteContext> {
  const operation = c.get('operationId')
  if (!operation) throw new Error('a write route must be authorized with its operationId')
  const contention = { retries: 0 }
  c.set('contention', contention)
  return {
    adminId: c.get('adminId'),
    requestId: c.get('requestId'),
    operation,
    target,
    fingerprint: await deps.cipher.blindIndex(canonicalJson(body ?? null), 'submitGuard'),
    idempotencyKey: idempotencyKey(c),
    deadline: c.get('deadline'),
    heldCodes: c.get('heldCodes') ?? [],
    contention,
  }
}

/** The optional Idempotency-Key header, validated. */
export function idempotencyKey<E extends AppEnv>(c: Context<E>): string | undefined {
  const key = c.req.header('idempotency-key')
  if (key === undefined) return undefined
  if (!IdempotencyKey.safeParse(key).success) {
    throw new AppError(
      ERRORS.BAD_REQUEST,
      'Idempotency-Key: 1..255 characters of A-Z a-z 0-9 _ . : -',
    )
  }
  return key
}

/**
 * The tail of every write route: identify the write (who, what, which body, which
 * Idempotency-Key), run the domain verb (which goes through the write pipeline), and answer
 * with the envelope.
 */
export async function answerWrite<E extends AppEnv>(
  c: Context<E>,
  deps: Deps,
  write: { target: string; body: unknown },
  run: (ctx: WriteContext) => Promise<DeclaredData<E>>,
) {
  const ctx = await writeContext(c, deps, write.target, write.body)
  return ok(c, await run(ctx))
}
