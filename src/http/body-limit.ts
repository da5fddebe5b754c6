import type { MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { HTTPException } from 'hono/http-exception'
import { matchedRoutes } from 'hono/route'
import { AppError, ERRORS } from '../errors'
import { failure } from './envelope'
import { READ_METHODS } from './auth'

export const KiB = 1024
export const MiB = 1024 * KiB

/**
 * The size a route's body may have: a number of bytes, or `large` for the routes whose schema
 * holds a 16 MiB `approveNote` or `remark` (the spec's bound), which take the configured
 * BODY_LIMIT_BYTES (48 MiB: both notes and the rest of the form). A number is derived, beside
 * the route, from its schema's largest legal body written as a client's JSON encoder may write
 * it: every character of a bounded text escaped as `\uXXXX` (6 bytes, Python's default), every
 * list at its bound; the configured limit caps it too.
 */
export type BodySize = number | 'large'

const NO_BODY = '(body): this operation takes no body'

const declared = new WeakMap<object, BodySize>()

/** Records on a route's body validator how large its body may be; returns the validator. */
export function declareBody<M extends object>(validator: M, size: BodySize): M {
  declared.set(validator, size)
  return validator
}

/**
 * The body limit of each route, enforced before the body is read: the size its body validator
 * declares, and no body at all on a route without one (a DELETE, the archive command): a body
 * sent there would be ignored, so it is refused (400, before authentication, nothing written).
 * A path no route serves keeps the configured limit, and its 404 or 405.
 */
export function limitBodies(configured: number): MiddlewareHandler {
  const tooLarge = (limit: number) =>
    bodyLimit({
      maxSize: limit,
      onError: (c) =>
        failure(c, ERRORS.BAD_REQUEST, `request body exceeds ${limit} bytes`, null, 400),
    })
  const large = tooLarge(configured)
  const bySize = new Map<number, MiddlewareHandler>()
  const refuseAny = bodyLimit({
    maxSize: 0,
    onError: () => {
      throw new AppError(ERRORS.BAD_REQUEST, NO_BODY)
    },
  })
  return async (c, next) => {
    const route = matchedRoutes(c).filter((r) => r.method !== 'ALL')
    if (READ_METHODS.has(c.req.method)) {
      // Node drops the body of a read before Hono sees it: its headers are what announce one.
      const length = Number(c.req.header('content-length') ?? 0)
      // HTTP 400, as a malformed request: some reads answer a document, not the envelope.
      if (route.length && (length > 0 || c.req.header('transfer-encoding'))) {
        throw new HTTPException(400, { message: NO_BODY })
      }
      return next()
    }
    if (!route.length) return large(c, next)
    const size = route.map((r) => declared.get(r.handler)).find((s) => s !== undefined)
    if (size === undefined) return refuseAny(c, next)
    if (size === 'large' || size >= configured) return large(c, next)
    let limit = bySize.get(size)
    if (!limit) bySize.set(size, (limit = tooLarge(size)))
    return limit(c, next)
  }
}
