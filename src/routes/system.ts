import { Hono } from 'hono'
import { compress } from 'hono/compress'
import { NONCE, secureHeaders } from 'hono/secure-headers'
import type { AppEnv } from '../http/types'
import type { Deps } from '../domain/deps'
import { buildOpenApi, doc } from '../http/openapi'
import {
  DOCS_ASSET_FILES,
  renderDocsIndex,
  swaggerUiPage,
  type DocsAssetName,
  type DocsAssets,
} from '../http/docs-page'
import { ok, failure, resultSchema } from '../http/envelope'
import { ERRORS } from '../errors'
import { databaseReady } from '../domain/system'
import { NoQuery, validate } from '../http/validate'
import type { Config } from '../config'
import { AsyncApiDocument, HealthVO, OpenApiDocument } from '../schemas/system'
import { buildAsyncApi } from '../http/asyncapi'
// Registers the examples the document shows on the schemas they illustrate.
import '../http/examples'

/** /readyz answers within this bound, also while the database host does not answer at all. */
export const READINESS_TIMEOUT_MS = 2_000

/**
 * The readiness bound of a configuration: 2 s, or less when requests have less (the server-side
 * statement bound), so that /readyz answers its own 503 before the request deadline would.
 */
export const readinessTimeoutMs = (config: Pick<Config, 'deadline'>) =>
  Math.min(READINESS_TIMEOUT_MS, config.deadline.statementTimeoutMs)

const Health = resultSchema(HealthVO)

/**
 * Liveness, readiness, the OpenAPI document and the reference page; all public, and none takes
 * a query (the documents refuse one with HTTP 400, since their HTTP 200 is not the envelope). With
 * `docsAssets` (Node) /docs is the interactive renderer; without (edge) a static index.
 */
export const systemRoutes = (
  { sql, config, docsAssets }: Deps & { docsAssets?: DocsAssets },
  api: Hono<AppEnv>,
) => {
  const app = new Hono<AppEnv>()
  const readiness = readinessTimeoutMs(config)
  const info = { title: 'Supplier administration API', version: '2.1.0' }
  let document: ReturnType<typeof buildOpenApi> | undefined
  // Built on first request: by then every route of `api` is registered.
  const openapi = () => (document ??= buildOpenApi(api as never, info))
  let events: ReturnType<typeof buildAsyncApi> | undefined
  const asyncapi = () =>
    (events ??= buildAsyncApi(config.events, {
      title: 'Supplier administration events',
      version: '1.0.0',
    }))
  const tags = ['system']

  // The document (about 200 KB) and the renderer's files (1.9 MB) are compressed for a client
  // that accepts it. The API's answers are not: they are small, a gateway in front may compress
  // them, and compressing answers that mix secrets with reflected input invites BREACH.
  const compressed = compress()
  app.use('/openapi.json', compressed)
  app.use('/asyncapi.json', compressed)
  app.use('/docs/assets/*', compressed)
  // The page runs in the browser of whoever opens it, next to their token: only its own script
  // (the inline one by nonce) and files, never framed. `style-src` allows the renderer's inline
  // styles.
  const pageHeaders = secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'", NONCE],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      objectSrc: ["'none'"],
      baseUri: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
    },
    xFrameOptions: 'DENY',
  })
  app.use('/docs', pageHeaders)
  app.use('/docs/assets/*', pageHeaders)
  // `/docs/` would resolve the page's relative asset paths under /docs/docs/. The Location is
  // relative so that a proxy mounting the service under a prefix keeps it.
  app.use('/docs/', async (c, next) => {
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return next()
    return c.redirect(`../docs${new URL(c.req.url).search}`, 301)
  })

  app.get(
    '/healthz',
    doc({
      operationId: 'getHealth',
      summary: 'Process is up (answers 200 from the moment it serves HTTP, also while starting)',
      tags,
      public: true,
      response: Health,
    }),
    validate('query', NoQuery),
    (c) => ok(c, { status: 'UP' as const }),
  )
  app.get(
    '/readyz',
    doc({
      operationId: 'getReadiness',
      summary: `Database is reachable (HTTP 503 and 395030 otherwise, within ${readiness} ms)`,
      tags,
      public: true,
      response: Health,
      statuses: {
        '503': {
          description:
            'the database is unreachable (395030), or the service is still starting (395039)',
          errors: ['DATABASE_UNAVAILABLE', 'DEPENDENCY_UNAVAILABLE'],
        },
      },
    }),
    validate('query', NoQuery),
    async (c) =>
      (await databaseReady(sql, readiness))
        ? ok(c, { status: 'UP' as const })
        : failure(c, ERRORS.DATABASE_UNAVAILABLE, { message: 'database unreachable', status: 503 }),
  )
  app.get(
    '/openapi.json',
    doc({
      operationId: 'getOpenApiDocument',
      summary: 'This document (OpenAPI 3.1)',
      description:
        'Generated from the zod schemas that validate the requests and from the errors each route declares; compressed (gzip or deflate) when `Accept-Encoding` allows it.',
      tags,
      public: true,
      mediaType: 'application/json',
      response: OpenApiDocument,
    }),
    validate('query', NoQuery, { status: 400 }),
    (c) => c.json(openapi()),
  )
  app.get(
    '/asyncapi.json',
    doc({
      operationId: 'getAsyncApiDocument',
      summary: 'The domain events the relay publishes (AsyncAPI 3.0)',
      description:
        'Generated from the event catalog: one channel (the NATS subject) and one message per event type, each a CloudEvent with its payload schema and an example; compressed (gzip or deflate) when `Accept-Encoding` allows it. See docs/events.md.',
      tags,
      public: true,
      mediaType: 'application/json',
      response: AsyncApiDocument,
    }),
    validate('query', NoQuery, { status: 400 }),
    (c) => c.json(asyncapi()),
  )
  app.get(
    '/docs',
    doc({
      operationId: 'getReferencePage',
      summary: 'API reference page (HTML)',
      description:
        'Swagger UI over `/openapi.json`, its script and stylesheet served by this service (no CDN), under a Content-Security-Policy. `/docs/` redirects here.',
      tags,
      public: true,
      mediaType: 'text/html',
      examples: {
        'text/html':
          '<!doctype html><html lang="en"><head><title>Supplier administration API</title><link rel="stylesheet" href="docs/assets/swagger-ui.css" /></head><body><div id="reference"></div><script src="docs/assets/swagger-ui-bundle.js"></script></body></html>',
      },
    }),
    validate('query', NoQuery, { status: 400 }),
    (c) =>
      c.html(
        docsAssets
          ? swaggerUiPage(info.title, c.get('secureHeadersNonce') ?? '')
          : renderDocsIndex(openapi()),
      ),
  )
  if (docsAssets) {
    app.get(
      '/docs/assets/:file',
      doc({
        operationId: 'getReferencePageAsset',
        summary: 'Script and stylesheet of the reference page (swagger-ui-dist)',
        description:
          'The files of the installed `swagger-ui-dist` package, cached for an hour and compressed when `Accept-Encoding` allows it.',
        tags,
        public: true,
        mediaType: [...new Set(Object.values(DOCS_ASSET_FILES))],
        examples: {
          'text/javascript; charset=utf-8':
            '/*! For license information please see swagger-ui-bundle.js.LICENSE.txt */',
          'text/css; charset=utf-8': '.swagger-ui{color:#3b4151;font-family:sans-serif}',
        },
        params: { file: { type: 'string', enum: Object.keys(DOCS_ASSET_FILES) } },
      }),
      validate('query', NoQuery, { status: 400 }),
      async (c) => {
        const name = c.req.param('file')
        if (!Object.hasOwn(DOCS_ASSET_FILES, name)) return c.notFound()
        const file = await docsAssets.read(name as DocsAssetName)
        return c.body(file as Uint8Array<ArrayBuffer>, 200, {
          'content-type': DOCS_ASSET_FILES[name as DocsAssetName],
          'cache-control': 'public, max-age=3600',
        })
      },
    )
  }
  return app
}
