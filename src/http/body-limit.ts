import type { MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { HTTPException } from 'hono/http-exception'
import { matchedRoutes } from 'hono/route'
import { AppError, ERRORS } from '../errors'
import { failure } from './envelope'
import { READ_METHODS } from './auth'
import { declaredBodySize } from './body-shape'

const NO_BODY = '(body): this operation takes no body'

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
    const size = route.map((r) => declaredBodySize(r.handler)).find((s) => s !== undefined)
    if (size === undefined) return refuseAny(c, next)
    if (size === 'large' || size >= configured) return large(c, next)
    let limit = bySize.get(size)
    if (!limit) bySize.set(size, (limit = tooLarge(size)))
    return limit(c, next)
  }
}
