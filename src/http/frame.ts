import { Hono, type MiddlewareHandler } from 'hono'
import { cors } from 'hono/cors'
import { HTTPException } from 'hono/http-exception'
import type { Logger } from 'pino'
import type { Config } from '../config'
import { AppError, ERRORS } from '../errors'
import { fleetResourcesFor } from '../ports/fleet'
import { grantMemory, withDeadline } from '../ports/permission'
import { observeLookupFailures, type Observer } from '../ports/observer'
import { isDatabaseUnavailable } from '../../sql/db'
import { accessLog } from './access-log'
import { limitBodies } from './body-limit'
import { authenticate, READ_METHODS } from './auth'
import { requestDeadline } from './deadline'
import { serverSpans } from './trace'
import { failure } from './envelope'
import { shownName } from './refusal'
import type { Deps } from '../domain/deps'
import type { AppEnv, AppOptions } from './types'

/**
 * What every request passes through before its route, for the Node app and the edge app
 * alike: request id, its server span when tracing is on, one access-log line, the request
 * deadline, the body limit, and authentication of /admin/*.
 */
export function useFrame(
  app: Hono<AppEnv>,
  {
    config,
    logger,
    observer,
    tracing,
  }: { config: Config; logger: Logger; observer?: Observer; tracing?: boolean },
) {
  // Our own id for every request: a caller's X-Request-Id is not trusted, since the id is
  // written into the change log and the sensitive-read audit.
  app.use(async (c, next) => {
    const id = crypto.randomUUID()
    c.set('requestId', id)
    c.header('X-Request-Id', id)
    await next()
  })
  // Before the access log, whose line is then written inside the span (with the trace id).
  if (tracing) app.use(serverSpans())
  app.use(accessLog(logger, observer))
  app.use(requestDeadline(config.deadline.requestTimeoutMs, logger))
  // Cross-origin browser calls from the configured origins only (none by default). Before
  // authentication: a preflight carries no token, and is answered here.
  if (config.corsOrigins.length) app.use(corsFor(config.corsOrigins))
  // Each route's own body limit (declared by its body validator), no body on a route without
  // one; asking a Node read for its body builds a whole WHATWG Request (a twentieth of a read's
  // CPU), so reads are judged by their headers.
  app.use(limitBodies(config.bodyLimitBytes))
  // Writes take their input in the body: a query string on one is refused before anything runs,
  // so that no value (a tax number, say) rides in a URL that proxies and browsers keep.
  app.use(async (c, next) => {
    if (!READ_METHODS.has(c.req.method)) {
      const [name] = Object.keys(c.req.queries())
      if (name !== undefined) {
        // Only a name spelled like a field is echoed; values never are.
        const shown = shownName(name, '(query string)')
        throw new AppError(
          ERRORS.BAD_REQUEST,
          `${shown}: unknown query parameter (writes take a body)`,
        )
      }
    }
    await next()
  })
  app.use('/admin/*', authenticate(config.auth))
}

/** CORS for a list of origins: the headers this API reads and the one it adds for callers. */
const corsFor = (origins: string[]): MiddlewareHandler => {
  const allow = cors({
    origin: origins,
    allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'],
    allowHeaders: ['Authorization', 'Content-Type', 'X-Admin-Id', 'Idempotency-Key'],
    exposeHeaders: ['X-Request-Id'],
    maxAge: 600,
  })
  return async (c, next) => {
    // A preflight is answered here (already with Vary: Origin); anything else goes on.
    const preflight = await allow(c, next)
    if (preflight) return preflight
    // The answer depends on Origin: a shared cache must not serve one origin's to another.
    if (c.req.header('origin')) c.res.headers.append('Vary', 'Origin')
  }
}

/**
 * Every answer is an envelope: unknown routes 404, malformed requests 400, business failures
 * their catalog code (HTTP 200), the database unreachable or dropping the connection anywhere in
 * the request DATABASE_UNAVAILABLE (retry), anything unexpected a 500 carrying only the request id.
 */
export function mapErrors(app: Hono<AppEnv>, logger: Pick<Logger, 'error' | 'warn'>) {
  const allowedAt = methodsByPath(app)
  app.notFound((c) => {
    const allowed = allowedAt(c.req.path)
    // A served method reaching here is a route's own "no such item" (an unknown asset name).
    // The path is not repeated: it is the client's own text (an id, a tax number, anything).
    const method = shownName(c.req.method, 'this method')
    if (!allowed.length || allowed.includes(c.req.method)) {
      return failure(c, ERRORS.NOT_FOUND, {
        message: `no route for ${method} at this path`,
        status: 404,
      })
    }
    c.header('Allow', allowed.join(', '))
    const message = `${method} is not served at this path; allowed: ${allowed.join(', ')}`
    return failure(c, ERRORS.METHOD_NOT_ALLOWED, { message, status: 405 })
  })
  app.onError((err, c) => {
    if (err instanceof AppError)
      return failure(c, err.entry, { message: err.message, data: err.data })
    if (err instanceof HTTPException && err.status === 415) {
      return failure(c, ERRORS.UNSUPPORTED_MEDIA_TYPE, { message: err.message, status: 415 })
    }
    if (err instanceof HTTPException && err.status < 500) {
      // Hono's validator raises these for a body that is not JSON at all.
      return failure(c, ERRORS.BAD_REQUEST, {
        message: err.message || 'malformed request',
        status: 400,
      })
    }
    const id = c.get('requestId')
    if (isDatabaseUnavailable(err)) {
      logger.warn({ requestId: id, err: (err as Error).message }, 'database unavailable')
      return failure(c, ERRORS.DATABASE_UNAVAILABLE)
    }
    logger.error({ requestId: id, err }, 'unexpected fault')
    return failure(c, ERRORS.INTERNAL, {
      message: `internal error (request id ${id})`,
      data: { requestId: id },
      status: 500,
    })
  })
}

/** A Hono route path (`/items/:supplierId`, `/docs/*`) as a regular expression. */
const routePattern = (path: string) =>
  new RegExp(
    `^${path
      .split(/(:\w+|\*)/)
      .map((part, i) =>
        i % 2 === 0 ? part.replace(/[.+?^$()|[\]\\]/g, '\\$&') : part === '*' ? '.*' : '[^/]+',
      )
      .join('')}$`,
  )

/**
 * The methods the app serves at a path, from its own route list (read on first use, when every
 * route is registered); HEAD comes with GET, as Hono answers it.
 */
function methodsByPath(app: Hono<AppEnv>) {
  let routes: { method: string; pattern: RegExp }[] | undefined
  return (path: string): string[] => {
    routes ??= app.routes
      .filter((r) => r.method !== 'ALL')
      .map((r) => ({ method: r.method, pattern: routePattern(r.path) }))
    const methods = new Set(routes.filter((r) => r.pattern.test(path)).map((r) => r.method))
    if (methods.has('GET')) methods.add('HEAD')
    return [...methods].sort()
  }
}

/**
 * One app, assembled the same way for the Node entry and the edge entry: permission lookups
 * bounded by the configured deadline, the frame, the caller's routes (`mount`, given the
 * wrapped deps), the error mapping, and the system routes last, since the OpenAPI document
 * is built from `app.routes` and must see everything mounted before it. The entry passes the
 * system routes in, so that the frame (http/) imports no route module.
 */
export function buildApp(
  deps: Deps & AppOptions,
  mount: (app: Hono<AppEnv>, deps: Deps & AppOptions) => void,
  system: (deps: Deps & AppOptions, app: Hono<AppEnv>) => Hono<AppEnv>,
): Hono<AppEnv> {
  const { timeoutMs, readCacheSeconds } = deps.config.permissions
  const bounded = withDeadline(deps.permissions, timeoutMs)
  const observed = observeLookupFailures(bounded, deps.observer)
  deps = {
    ...deps,
    permissions:
      readCacheSeconds > 0 ? { ...observed, readGrants: grantMemory(readCacheSeconds) } : observed,
    fleet: deps.fleet ?? fleetResourcesFor(deps.config),
  }
  const app = new Hono<AppEnv>()
  useFrame(app, deps)
  mount(app, deps)
  mapErrors(app, deps.logger)
  app.route('/', system(deps, app))
  return app
}
