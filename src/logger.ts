import type { MiddlewareHandler } from 'hono'
import { routePath } from 'hono/route'
import { pino, type DestinationStream, type Logger } from 'pino'

/** Keys whose values are sensitive wherever they appear in a logged object. */
const SENSITIVE_KEYS = [
  'taxNo',
  'contactPhone',
  'accountNo',
  'confirmAccountNo',
  'certNo',
  'opinion',
  'authorization',
  'cookie',
  'token',
  'duplicateConfirmToken',
  'password',
  'secret',
] as const

/** Arrays of child records in request bodies, with the sensitive keys their items carry. */
const SENSITIVE_LISTS = {
  contacts: ['contactPhone', 'certNo'],
  initialAccounts: ['accountNo', 'confirmAccountNo'],
  accounts: ['accountNo', 'confirmAccountNo'],
} as const

// Redact wildcards match exactly one level (array indexes included), so each depth is listed.
// Five levels covers e.g. { req: { body: { accounts: [{ accountNo }] } } } (accountNo at depth 4).
const DEPTHS = ['', '*.', '*.*.', '*.*.*.', '*.*.*.*.']

/** Every pino redact path; values at these paths are logged as '[REDACTED]'. */
export const REDACT_PATHS: readonly string[] = [
  ...SENSITIVE_KEYS.flatMap((key) => DEPTHS.map((depth) => `${depth}${key}`)),
  // Header names with hyphens need bracket syntax; covered on the usual header containers only.
  ...['headers', '*.headers', '*.*.headers'].map((h) => `${h}["x-internal-token"]`),
  // Explicit list paths mirror the body shapes even though the wildcards above already match them.
  ...Object.entries(SENSITIVE_LISTS).flatMap(([list, keys]) =>
    DEPTHS.slice(0, 3).flatMap((depth) => keys.map((key) => `${depth}${list}[*].${key}`)),
  ),
]

/**
 * Builds the service logger with sensitive-field redaction always on.
 * @param options.level pino level name ('info', 'debug', 'silent', ...)
 * @param options.destination where lines go (defaults to stdout); tests pass an in-memory stream
 */
export function createLogger(options: { level: string; destination?: DestinationStream }): Logger {
  const opts = {
    level: options.level,
    redact: { paths: [...REDACT_PATHS], censor: '[REDACTED]' },
  }
  return options.destination ? pino(opts, options.destination) : pino(opts)
}

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
export function accessLog(logger: Logger): MiddlewareHandler<{ Variables: AccessLogVariables }> {
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
