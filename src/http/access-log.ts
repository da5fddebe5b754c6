import type { MiddlewareHandler } from 'hono'
import { routePath } from 'hono/route'
import type { Logger } from 'pino'

/** Context variables the access log reads; the app's Env may declare more. */
export interface AccessLogVariables {
  requestId: string
  resultCode?: number
  adminId?: string
}

/**
 * Hono middleware writing exactly one 'request' info line per request. It logs the route pattern
 * rather than the URL, and never bodies, query strings or headers, because ids, query values and
 * tokens there can be sensitive.
 */
export function accessLog(
  logger: Pick<Logger, 'info'>,
): MiddlewareHandler<{ Variables: AccessLogVariables }> {
  return async (c, next) => {
    const start = performance.now()
    let threw = false
    try {
      await next()
    } catch (err) {
      // Hono normally turns errors into responses before they get here; if one escapes, the
      // outer layer answers with a 500, so log that rather than the untouched default response.
      threw = true
      throw err
    } finally {
      logger.info(
        {
          requestId: c.get('requestId'),
          method: c.req.method,
          // After next() the route index points at the handler (or middleware) that answered.
          route: routePath(c),
          status: threw ? 500 : c.res.status,
          code: c.get('resultCode'),
          durationMs: Math.round((performance.now() - start) * 10) / 10,
          adminId: c.get('adminId'),
        },
        'request',
      )
    }
  }
}
