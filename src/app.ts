import { assertCatalog } from './errors'
import { buildApp } from './http/frame'
import type { AppOptions } from './http/types'
import type { Deps } from './domain/deps'
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

/** The Deps an entry point may leave to their defaults (`withDefaults`). */
type Defaulted = 'approvalProvider' | 'approvalHandlers' | 'financeClearance'

/**
 * What an entry point (main.ts, the tests, the benches) gives createApp: the Deps, less what
 * `withDefaults` fills in, and the app's options.
 */
export type AppInput = Omit<Deps, Defaulted> &
  Partial<Pick<Deps, Defaulted>> &
  AppOptions & { metrics?: Metrics }

/**
 * The whole Deps from an entry point's: LOCAL_AUTO approvals, the registry's handlers and the
 * configured finance clearance unless the entry supplies its own.
 */
export const withDefaults = <I extends AppInput>(input: I): I & Deps => ({
  ...input,
  approvalProvider: input.approvalProvider ?? localAutoProvider,
  approvalHandlers: input.approvalHandlers ?? APPROVAL_HANDLERS,
  financeClearance: input.financeClearance ?? financeClearanceFrom(input.config),
})

/**
 * The whole HTTP surface. Entry points (Node, tests) build the dependencies; nothing here
 * reads the environment.
 */
export function createApp(input: AppInput) {
  assertCatalog()
  const metrics = input.metrics ?? createMetrics(input)
  const node = withDefaults({ docsAssets: nodeDocsAssets(), observer: metrics.observer, ...input })
  return buildApp(
    node,
    (app, deps) => {
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
      app.route('/admin/supplier', supplierWriteRoutes(deps))
      app.route('/admin/supplier', lifecycleRoutes(deps))
      app.route('/admin/supplier', resourceInfoRoutes(deps))
      app.route('/admin/supplier', resourceRelationRoutes(deps))
      app.route('/admin/supplier', accountRoutes(deps))
      app.route('/internal/supplier', internalRoutes(deps))
      app.route('/', metricsRoutes(metrics, deps.config))
    },
    systemRoutes,
  )
}
