import type { Context, MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { HTTPException } from 'hono/http-exception'
import { matchedRoutes } from 'hono/route'
import { AppError, ERRORS } from '../errors'
import { failure } from './envelope'
import { READ_METHODS } from './auth'
import { declaredBodySize, limitBody } from './body-shape'

const NO_BODY = '(body): this operation takes no body'

/**
 * The body limit of each route, enforced before the body is read: the size its body validator
 * declares, and no body at all on a route without one (a DELETE, the archive command): a body
 * sent there would be ignored, so it is refused (400, before authentication, nothing written).
 * A path no route serves keeps the configured limit, and its 404 or 405; its body is never read.
 *
 * Only headers are read here, before authentication. A body that announces no size (chunked) is
 * given its limit and read by its route's validator, after authentication and authorization,
 * counted against the limit as it arrives: an anonymous client's body is never read or kept (it
 * gets its 401 at once, and @hono/node-server drains the unread body for half a second or 64 MiB,
 * then closes the connection).
 */
export function limitBodies(configured: number): MiddlewareHandler {
  const refuse = (c: Context, limit: number) =>
    failure(c, ERRORS.BAD_REQUEST, {
      message: `request body exceeds ${limit} bytes`,
      status: 400,
    })
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
    // No route reads this body: only an announced length over the configured limit is refused.
    if (!route.length) return announcedLength(c) > configured ? refuse(c, configured) : next()
    const size = route.map((r) => declaredBodySize(r.handler)).find((s) => s !== undefined)
    if (size === undefined) return refuseAny(c, next)
    const limit = size === 'large' ? configured : Math.min(size, configured)
    // As Hono's bodyLimit reads the headers: a length without a transfer coding is the size.
    const length = c.req.header('content-length')
    if (length !== undefined && !c.req.header('transfer-encoding')) {
      const announced = Number.parseInt(length, 10)
      limitBody(c, limit, announced)
      return announced > limit ? refuse(c, limit) : next()
    }
    limitBody(c, limit)
    return next()
  }
}

/** The length a request announces without a transfer coding; 0 when it announces none. */
const announcedLength = (c: Context) =>
  c.req.header('transfer-encoding')
    ? 0
    : Number.parseInt(c.req.header('content-length') ?? '0', 10) || 0
