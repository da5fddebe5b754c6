import { Hono } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { HTTPException } from 'hono/http-exception'
import { requestId } from 'hono/request-id'
import { assertCatalog, AppError, ERRORS } from './errors'
import { accessLog } from './logger'
import { authenticate } from './http/auth'
import { failure } from './http/envelope'
import type { AppEnv, Deps } from './http/types'
import { dictRoutes } from './routes/dict'
import { systemRoutes } from './routes/system'

/**
 * The whole HTTP surface. Entry points (Node, tests) build the dependencies; nothing here
 * reads the environment.
 */
export function createApp(deps: Deps) {
  assertCatalog()
  const { config, logger } = deps
  const app = new Hono<AppEnv>()

  app.use(requestId())
  app.use(accessLog(logger))
  app.use(
    bodyLimit({
      maxSize: config.bodyLimitBytes,
      onError: (c) =>
        failure(
          c,
          ERRORS.BAD_REQUEST,
          `request body exceeds ${config.bodyLimitBytes} bytes`,
          null,
          400,
        ),
    }),
  )
  app.use('/admin/*', authenticate(config.auth))

  app.route('/admin/dict/data', dictRoutes(deps))

  app.notFound((c) =>
    failure(c, ERRORS.NOT_FOUND, `no route for ${c.req.method} ${c.req.path}`, null, 404),
  )
  app.onError((err, c) => {
    if (err instanceof AppError) return failure(c, err.entry, err.message, err.data)
    if (err instanceof HTTPException && err.status < 500) {
      // Hono's validator raises these for a body that is not JSON at all.
      return failure(c, ERRORS.BAD_REQUEST, err.message || 'malformed request', null, 400)
    }
    logger.error({ requestId: c.get('requestId'), err }, 'unexpected fault')
    return failure(
      c,
      ERRORS.INTERNAL,
      `internal error (request id ${c.get('requestId')})`,
      { requestId: c.get('requestId') },
      500,
    )
  })

  app.route('/', systemRoutes(deps, app))
  return app
}
