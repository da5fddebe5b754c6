import { html, raw } from 'hono/html'

interface Operation {
  summary?: string
  description?: string
  operationId?: string
  parameters?: { name: string; in: string; required?: boolean }[]
  requestBody?: { content: Record<string, { schema: unknown }> }
  responses?: Record<string, { content?: Record<string, { schema: unknown }> }>
}

const json = (value: unknown) => JSON.stringify(value, null, 2)

/**
 * A self-contained reference page over /openapi.json: no script or stylesheet from a CDN, so
 * it works on a machine without internet access.
 */
export function renderDocsPage(document: {
  info: { title: string; version: string }
  paths: Record<string, Record<string, Operation>>
}) {
  const sections = Object.entries(document.paths)
    .sort(([a], [b]) => a.localeCompare(b))
    .flatMap(([path, ops]) =>
      Object.entries(ops).map(
        ([method, op]) =>
          html`<section id="${op.operationId ?? `${method}-${path}`}">
            <h2><span class="m ${method}">${method.toUpperCase()}</span> <code>${path}</code></h2>
            ${op.summary ? html`<p>${op.summary}</p>` : ''}
            ${op.description ? html`<p><em>${op.description}</em></p>` : ''}
            ${
              op.parameters?.length
                ? html`<p>
                    Parameters:
                    ${raw(
                      op.parameters
                        .map(
                          (p) =>
                            `<code>${p.name}</code> (${p.in}${p.required ? ', required' : ''})`,
                        )
                        .join(', '),
                    )}
                  </p>`
                : ''
            }
            ${
              op.requestBody
                ? html`<details>
                    <summary>Request body</summary>
                    <pre>${json(op.requestBody.content['application/json']?.schema)}</pre>
                  </details>`
                : ''
            }
            ${
              op.responses?.['200']?.content
                ? html`<details>
                    <summary>Response</summary>
                    <pre>${json(op.responses['200'].content['application/json']?.schema)}</pre>
                  </details>`
                : ''
            }
          </section>`,
      ),
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
          pre {
            background: #f6f8fa;
            padding: 0.75rem;
            overflow: auto;
            font-size: 12px;
          }
          .m {
            display: inline-block;
            min-width: 4.5em;
            font-family: monospace;
          }
          .get {
            color: #1a7f37;
          }
          .post {
            color: #0969da;
          }
          .put {
            color: #9a6700;
          }
          .delete {
            color: #cf222e;
          }
        </style>
      </head>
      <body>
        <h1>${document.info.title} <small>v${document.info.version}</small></h1>
        <p>
          Every response is a <code>Result&lt;T&gt;</code> envelope (<code>code</code>,
          <code>message</code>, <code>success</code>, <code>data</code>); business failures are HTTP
          200 with <code>success=false</code>. Administration routes need
          <code>Authorization: Bearer &lt;JWT&gt;</code> and <code>X-Admin-Id</code>.
          Machine-readable: <a href="/openapi.json">/openapi.json</a>.
        </p>
        ${sections}
      </body>
    </html>`
}
