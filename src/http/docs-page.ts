import { html, raw } from 'hono/html'

/** The renderer's files, served by the app itself under /docs/assets/ (no CDN). */
export const DOCS_ASSET_FILES = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
} as const
export type DocsAssetName = keyof typeof DOCS_ASSET_FILES

/** Where the renderer's files come from: node_modules on Node (http/docs-assets.ts). */
export interface DocsAssets {
  read(name: DocsAssetName): Promise<Uint8Array>
}

/**
 * The reference page: Swagger UI (swagger-ui-dist, from npm) over /openapi.json, its script and
 * stylesheet served by this service. Paths are relative, so the page also works behind a proxy
 * that mounts the service under a prefix. No validator badge (it would call out). Its inline
 * script carries the nonce of the page's Content-Security-Policy.
 */
export const swaggerUiPage = (title: string, nonce: string) =>
  html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title}</title>
        <link rel="stylesheet" href="docs/assets/swagger-ui.css" />
        <style>
          body {
            margin: 0;
          }
        </style>
      </head>
      <body>
        <div id="reference"></div>
        <script src="docs/assets/swagger-ui-bundle.js"></script>
        <script nonce="${nonce}">
          window.ui = SwaggerUIBundle({
            url: 'openapi.json',
            dom_id: '#reference',
            deepLinking: true,
            validatorUrl: null,
            // The bearer token pasted into "Authorize" stays in this page's memory: persisted, it
            // would stay in the browser's storage, for any script of this origin, after the tab.
            persistAuthorization: false,
            displayOperationId: true,
            displayRequestDuration: true,
            showExtensions: false,
            filter: true,
            docExpansion: 'list',
            defaultModelsExpandDepth: 0,
            defaultModelExpandDepth: 4,
            presets: [SwaggerUIBundle.presets.apis],
            layout: 'BaseLayout',
          })
        </script>
      </body>
    </html>`

interface Operation {
  summary?: string
  description?: string
  operationId?: string
  parameters?: { name?: string; in?: string; required?: boolean; $ref?: string }[]
  requestBody?: { content: Record<string, { schema: { $ref?: string } }> }
  'x-business-codes'?: { code: number; name: string; message: string }[]
}

const refName = (schema?: { $ref?: string }) => schema?.$ref?.split('/').pop()

/**
 * A static index of the document, for where the renderer's files cannot be read (the edge
 * build): each operation with its parameters, request type and business codes.
 */
export function renderDocsIndex(document: {
  info: { title: string; version: string }
  paths: Record<string, Record<string, Operation>>
}) {
  const sections = Object.entries(document.paths)
    .sort(([a], [b]) => a.localeCompare(b))
    .flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => {
        const body = refName(op.requestBody?.content['application/json']?.schema)
        const params = (op.parameters ?? [])
          .map((p) =>
            p.$ref ? refName(p) : `${p.name} (${p.in}${p.required ? ', required' : ''})`,
          )
          .join(', ')
        return html`<section id="${op.operationId ?? `${method}-${path}`}">
          <h2><span class="m ${method}">${method.toUpperCase()}</span> <code>${path}</code></h2>
          <p>
            ${op.summary ?? ''} ${op.operationId ? html`<small>(${op.operationId})</small>` : ''}
          </p>
          ${params ? html`<p>Parameters: ${params}</p>` : ''}
          ${body ? html`<p>Body: <code>${body}</code></p>` : ''}
          ${
            op['x-business-codes']?.length
              ? html`<table>
                  ${raw(
                    op['x-business-codes']
                      .map(
                        (c) =>
                          `<tr><td>${c.code}</td><td><code>${c.name}</code></td><td>${escape(c.message)}</td></tr>`,
                      )
                      .join(''),
                  )}
                </table>`
              : ''
          }
        </section>`
      }),
    )
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <title>${document.info.title}</title>
        <style>
          body {
            font:
              15px/1.5 system-ui,
              sans-serif;
            max-width: 960px;
            margin: 2rem auto;
            padding: 0 1rem;
          }
          section {
            border-top: 1px solid #ddd;
            padding: 0.5rem 0;
          }
          h2 {
            font-size: 1.05rem;
          }
          td {
            padding: 0 0.75rem 0 0;
            font-size: 13px;
          }
          .m {
            display: inline-block;
            min-width: 4.5em;
            font-family: monospace;
          }
        </style>
      </head>
      <body>
        <h1>${document.info.title} <small>v${document.info.version}</small></h1>
        <p>
          Every response is the envelope <code>{code, message, success, data}</code>; business
          failures are HTTP 200 with <code>success: false</code> and the codes listed per operation.
          The schemas and types are in <a href="openapi.json">openapi.json</a>; the interactive
          reference is served by the Node service at <code>/docs</code>.
        </p>
        ${sections}
      </body>
    </html>`
}

const escape = (s: string) =>
  s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!)
