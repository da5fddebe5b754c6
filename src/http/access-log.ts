import type { Context, MiddlewareHandler } from 'hono'
import { matchedRoutes, routePath } from 'hono/route'
import type { Logger } from 'pino'
import type { Observer } from '../ports/observer'

/** Context variables the access log reads; the app's Env may declare more. */
export interface AccessLogVariables {
  requestId: string
  resultCode?: number
  adminId?: string
  contention?: { retries: number }
}

/**
 * The template of the route the request matched, also when a middleware answered before it (the
 * frame's 401 or query refusal): routes have a method, middlewares 'ALL'. Without a matching
 * route (a 404, say), the pattern of whatever answered.
 */
export function routeOf(c: Context): string {
  const routes = matchedRoutes(c)
  for (let i = routes.length - 1; i >= 0; i--) {
    if (routes[i].method !== 'ALL') return routes[i].path
  }
  return routePath(c)
}

/**
 * Hono middleware writing exactly one 'request' info line per request. It logs the route pattern
 * rather than the URL, and never bodies, query strings or headers, because ids, query values and
 * tokens there can be sensitive.
 */
export function accessLog(
  logger: Logger,
  observer?: Observer,
): MiddlewareHandler<{ Variables: AccessLogVariables }> {
  // The line below is made only of these eight scalars, none of them sensitive, so it skips the
  // redaction pass (91 wildcard paths, an eighth of a read's CPU); every other line keeps it.
  const lines = logger.child({}, { redact: [] })
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
      const ms = performance.now() - start
      const route = routeOf(c)
      const status = threw ? 500 : c.res.status
      const code = c.get('resultCode')
      lines.info(
        {
          requestId: c.get('requestId'),
          method: c.req.method,
          route,
          status,
          code,
          durationMs: Math.round(ms * 10) / 10,
          adminId: c.get('adminId'),
          // Only when a write was run again after a deadlock or serialization failure.
          lockRetries: c.get('contention')?.retries || undefined,
        },
        'request',
      )
      observer?.request({ method: c.req.method, route, status, code, seconds: ms / 1000 })
    }
  }
}
