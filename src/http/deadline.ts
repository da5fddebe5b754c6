import type { MiddlewareHandler } from 'hono'
import type { Logger } from 'pino'
import { RequestDeadline } from '../domain/deadline'
import { AppError, ERRORS } from '../errors'
import { bodyArriving } from './body-shape'
import { failure } from './envelope'
import type { AppEnv } from './types'

/**
 * How long a write that committed before the deadline may take to hand over its answer: the
 * write pipeline stops waiting for its outbound step at the deadline, so only the envelope is
 * left to build.
 */
const SETTLED_GRACE_MS = 100

const after = <T>(ms: number, value: T) => {
  let timer: ReturnType<typeof setTimeout> | undefined
  const promise = new Promise<T>((resolve) => (timer = setTimeout(() => resolve(value), ms)))
  return { promise, cancel: () => clearTimeout(timer) }
}

/**
 * One deadline per request (REQUEST_TIMEOUT_MS), whatever the database or a port does: a silent
 * network, a killed backend, a lock wait, a wait for a pool connection. At the deadline the
 * caller gets 395030 (retry later) or, while a COMMIT of the request is unanswered, 395033
 * (outcome unknown); a write that already committed answers what committed. The work goes on
 * without its caller, bounded by the pool's own bounds, and commits nothing any more.
 *
 * A request still waiting for its own body at the deadline (a client that trickles it) is the
 * client's delay, not the service's: HTTP 408 with code 400, and the connection closed, so that
 * the rest of the body is not waited for (`supplier_http_client_timeouts_total` in /metrics,
 * apart from the service's 395030).
 */
export function requestDeadline(
  ms: number,
  logger: Pick<Logger, 'warn'>,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const deadline = new RequestDeadline(ms)
    c.set('deadline', deadline)
    const work = next().then(() => 'answered' as const)
    const expiry = after(ms, 'expired' as const)
    const first = await Promise.race([work, expiry.promise])
    expiry.cancel()
    if (first === 'answered') return
    const state = deadline.expire()
    if (state === 'settled') {
      const grace = after(SETTLED_GRACE_MS, 'late' as const)
      const handed = await Promise.race([work, grace.promise])
      grace.cancel()
      if (handed === 'answered') return
    }
    // Still running: its failure, if any, is the mapper's to log; this answer is given now.
    work.catch(() => {})
    if (state === 'open' && bodyArriving(c)) {
      logger.warn({ requestId: c.get('requestId'), ms }, 'request body not received in time')
      c.header('Connection', 'close')
      return failure(c, ERRORS.BAD_REQUEST, {
        message: `request body not received within the request deadline of ${ms} ms`,
        status: 408,
      })
    }
    logger.warn({ requestId: c.get('requestId'), ms, state }, 'request deadline passed')
    throw state === 'open'
      ? new AppError(
          ERRORS.DATABASE_UNAVAILABLE,
          `no answer within the request deadline of ${ms} ms; retry later`,
        )
      : new AppError(ERRORS.WRITE_OUTCOME_UNKNOWN)
  }
}
