import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/*
 * An OTLP/HTTP trace receiver on 127.0.0.1, as a collector listens on 4318: it takes POST
 * /v1/traces in JSON (OTEL_EXPORTER_OTLP_PROTOCOL=http/json), decoded into spans, or in protobuf,
 * kept as bytes. Every request body is kept as received, for the leak scan.
 */

export interface ReceivedSpan {
  traceId: string
  spanId: string
  parentSpanId: string
  name: string
  /** OTLP's numbering: 1 internal, 2 server, 3 client. */
  kind: number
  attributes: Record<string, unknown>
  events: unknown[]
  status: { code?: number; message?: string }
  resource: Record<string, unknown>
  scope: string
}

export interface ReceivedExport {
  path: string
  contentType: string
  headers: IncomingHttpHeaders
  body: Buffer
}

export const SPAN_KIND = { SERVER: 2, CLIENT: 3 } as const

/** postgres.js's own statements: transaction control, and the type fetch of a new connection. */
export const OWN_STATEMENT = /^\s*(begin|commit|rollback|savepoint|release)\b|pg_catalog\.pg_type/i

type AnyValue = {
  stringValue?: string
  intValue?: string | number
  doubleValue?: number
  boolValue?: boolean
  arrayValue?: { values?: AnyValue[] }
}
type KeyValue = { key: string; value: AnyValue }

const valueOf = (v: AnyValue): unknown =>
  v.stringValue ??
  (v.intValue !== undefined ? Number(v.intValue) : undefined) ??
  v.doubleValue ??
  v.boolValue ??
  v.arrayValue?.values?.map(valueOf)

const attributesOf = (list: KeyValue[] | undefined) =>
  Object.fromEntries((list ?? []).map(({ key, value }) => [key, valueOf(value)]))

/** OTLP JSON carries ids as hex; base64 (protobuf's JSON mapping) is accepted too. */
const hexId = (id: string | undefined) =>
  !id ? '' : /^[0-9a-f]+$/i.test(id) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex')

export async function startOtlpReceiver() {
  const spans: ReceivedSpan[] = []
  const exports: ReceivedExport[] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      const contentType = req.headers['content-type'] ?? ''
      exports.push({ path: req.url ?? '', contentType, headers: req.headers, body })
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end()
        return
      }
      if (contentType.startsWith('application/json')) {
        const request = JSON.parse(body.toString('utf8'))
        for (const rs of request.resourceSpans ?? []) {
          const resource = attributesOf(rs.resource?.attributes)
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              spans.push({
                traceId: hexId(s.traceId),
                spanId: hexId(s.spanId),
                parentSpanId: hexId(s.parentSpanId),
                name: s.name,
                kind: s.kind,
                attributes: attributesOf(s.attributes),
                events: s.events ?? [],
                status: s.status ?? {},
                resource,
                scope: ss.scope?.name ?? '',
              })
            }
          }
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
      } else {
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end()
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    /** The collector's base URL (OTEL_EXPORTER_OTLP_ENDPOINT). */
    url: `http://127.0.0.1:${port}`,
    spans,
    exports,
    /** The spans of one trace. */
    trace: (traceId: string) => spans.filter((s) => s.traceId === traceId),
    /** Every export as received, as text (JSON), for a scan. */
    texts: () => exports.map((e) => e.body.toString('utf8')),
    reset() {
      spans.length = 0
      exports.length = 0
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** A fresh W3C trace context of a caller (a gateway), sampled. */
export function callerTrace() {
  const hex = (bytes: number) =>
    Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) =>
      b.toString(16).padStart(2, '0'),
    ).join('')
  const traceId = hex(16)
  const parentId = hex(8)
  return {
    traceId,
    parentId,
    headers: { traceparent: `00-${traceId}-${parentId}-01`, tracestate: 'gateway=edge1' },
  }
}
