import { Hono } from 'hono'
import { assertCatalog } from './errors'
import { mapErrors, useFrame } from './http/frame'
import type { AppEnv, Deps } from './http/types'
import { dictRoutes } from './routes/dict'
import { qualificationRuleRoutes } from './routes/qualification-rules'
import { supplierReadRoutes } from './routes/supplier-reads'
import { systemRoutes } from './routes/system'
import { supplierWriteRoutes } from './routes/suppliers'
import { internalRoutes } from './routes/internal'
import { localAutoProvider } from './ports/approval-provider'
import { withDeadline } from './ports/permission'

/**
 * The whole HTTP surface. Entry points (Node, tests) build the dependencies; nothing here
 * reads the environment.
 */
export function createApp(deps: Deps) {
  assertCatalog()
  const { logger } = deps
  deps = { ...deps, permissions: withDeadline(deps.permissions, deps.config.permissions.timeoutMs) }
  const domain = { ...deps, approvalProvider: deps.approvalProvider ?? localAutoProvider }
  const app = new Hono<AppEnv>()

  useFrame(app, deps)

  app.route('/admin/dict/data', dictRoutes(deps))
  app.route('/admin/supplier', supplierReadRoutes(deps))
  app.route('/admin/supplier', qualificationRuleRoutes(deps))
  app.route('/admin/supplier', supplierWriteRoutes(domain))
  app.route('/internal/supplier', internalRoutes(domain))

  mapErrors(app, logger)
  app.route('/', systemRoutes(deps, app))
  return app
}
