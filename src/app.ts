import { assertCatalog } from './errors'
import { buildApp } from './http/frame'
import type { AppDeps as Deps } from './http/types'
import type { DomainDeps } from './domain/deps'
import { dictRoutes } from './routes/dict'
import { qualificationRuleRoutes } from './routes/qualification-rules'
import { qualificationRoutes } from './routes/qualifications'
import { supplierReadRoutes, taxNumberLookupRoutes } from './routes/supplier-reads'
import { supplierWriteRoutes } from './routes/suppliers'
import { accountRoutes } from './routes/accounts'
import { internalRoutes } from './routes/internal'
import { lifecycleRoutes } from './routes/lifecycle'
import { systemRoutes } from './routes/system'
import { financeClearanceFrom } from './ports/finance-clearance'
import { resourceInfoRoutes, resourceRelationRoutes } from './routes/resources'
import { localAutoProvider } from './ports/approval-provider'
import { nodeDocsAssets } from './http/docs-assets'
import { createMetrics, metricsRoutes, type Metrics } from './metrics'
import { APPROVAL_HANDLERS } from './domain/approval/registry'

/** What the domain verbs need: the entry point's dependencies plus the approval wiring. */
export const domainDeps = (deps: Deps): Deps & DomainDeps => ({
  ...deps,
  approvalProvider: deps.approvalProvider ?? localAutoProvider,
  approvalHandlers: APPROVAL_HANDLERS,
})

/**
 * The whole HTTP surface. Entry points (Node, tests) build the dependencies; nothing here
 * reads the environment.
 */
export function createApp(deps: Deps & { metrics?: Metrics }) {
  assertCatalog()
  const metrics = deps.metrics ?? createMetrics(deps)
  const node = { docsAssets: nodeDocsAssets(), observer: metrics.observer, ...deps }
  return buildApp(
    node,
    (app, deps) => {
      const domain = domainDeps(deps)
      const { reads } = deps
      if (reads) {
        // Read-your-writes: after a write request, this administrator's reads wait for a standby
        // to replay the primary's position (src/db/replicas.ts).
        app.use('*', async (c, next) => {
          await next()
          const adminId = c.get('adminId')
          if (adminId && c.req.method !== 'GET' && c.req.method !== 'HEAD')
            await reads.wrote(adminId)
        })
      }
      app.route('/admin/dict/data', dictRoutes(deps))
      app.route('/admin/supplier', supplierReadRoutes(deps))
      app.route('/admin/supplier', taxNumberLookupRoutes(deps))
      app.route('/admin/supplier', qualificationRuleRoutes(deps))
      app.route('/admin/supplier', qualificationRoutes(deps))
      app.route('/admin/supplier', supplierWriteRoutes(domain))
      app.route(
        '/admin/supplier',
        lifecycleRoutes({
          ...domain,
          financeClearance: deps.financeClearance ?? financeClearanceFrom(deps.config),
        }),
      )
      app.route('/admin/supplier', resourceInfoRoutes(deps))
      app.route('/admin/supplier', resourceRelationRoutes(domain))
      app.route('/admin/supplier', accountRoutes(domain))
      app.route('/internal/supplier', internalRoutes(domain))
      app.route('/', metricsRoutes(metrics, deps.config))
    },
    systemRoutes,
  )
}
