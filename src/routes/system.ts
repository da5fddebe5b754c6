import { Hono } from 'hono'
import { z } from 'zod'
import type { Deps, AppEnv } from '../http/types'
import { buildOpenApi, doc } from '../http/openapi'
import { renderDocsPage } from '../http/docs-page'
import { ok, failure, resultSchema } from '../http/envelope'
import { ERRORS } from '../errors'
import { withinDeadline } from '../../sql/db'

/** /readyz answers within this bound, also while the database host does not answer at all. */
export const READINESS_TIMEOUT_MS = 2_000

const Health = resultSchema(z.object({ status: z.literal('UP') }))

/** Liveness, readiness and the API reference; all public. */
export const systemRoutes = ({ sql }: Pick<Deps, 'sql'>, api: Hono<AppEnv>) => {
  const app = new Hono<AppEnv>()
  const info = { title: 'Supplier administration API', version: '2.1.0' }
  let document: ReturnType<typeof buildOpenApi> | undefined
  // Built on first request: by then every route of `api` is registered.
  const openapi = () => (document ??= buildOpenApi(api as never, info))

  app.get(
    '/healthz',
    doc({ summary: 'Process is up', tags: ['system'], public: true, response: Health }),
    (c) => ok(c, { status: 'UP' as const }),
  )
  app.get(
    '/readyz',
    doc({
      summary: `Database is reachable (HTTP 503 and 395030 otherwise, within ${READINESS_TIMEOUT_MS} ms)`,
      tags: ['system'],
      public: true,
      response: Health,
    }),
    async (c) => {
      try {
        await withinDeadline(sql`SELECT 1`, READINESS_TIMEOUT_MS, 'readiness')
        return ok(c, { status: 'UP' as const })
      } catch {
        return failure(c, ERRORS.DATABASE_UNAVAILABLE, 'database unreachable', null, 503)
      }
    },
  )
  app.get('/openapi.json', doc({ summary: 'This document', tags: ['system'], public: true }), (c) =>
    c.json(openapi()),
  )
  app.get('/docs', doc({ summary: 'API reference page', tags: ['system'], public: true }), (c) =>
    c.html(renderDocsPage(openapi())),
  )
  return app
}
