import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type TextMapGetter,
} from '@opentelemetry/api'
import type { MiddlewareHandler } from 'hono'
import { REQUEST_ID, TRACER_NAME } from '../trace-context'
import { routeOf, type AccessLogVariables } from './access-log'

const fromHeaders: TextMapGetter<Headers> = {
  get: (headers, key) => headers.get(key) ?? undefined,
  keys: (headers) => {
    const names: string[] = []
    headers.forEach((_value, name) => names.push(name))
    return names
  },
}

/**
 * One SERVER span per request, continuing the caller's trace when it sends a valid W3C
 * `traceparent` (and `tracestate`). Named `METHOD /route/template` once the route is known: the
 * raw path and the query string, where ids and searched values ride, are never recorded. The
 * span's context, with the request id, is active for everything the request runs, so that the
 * database and outbound spans hang under it and every log line names the request and the trace.
 */
export function serverSpans(): MiddlewareHandler<{ Variables: AccessLogVariables }> {
  const tracer = trace.getTracer(TRACER_NAME)
  return async (c, next) => {
    const method = c.req.method
    const parent = propagation.extract(ROOT_CONTEXT, c.req.raw.headers, fromHeaders)
    const span = tracer.startSpan(
      method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': method,
          'url.scheme': c.req.url.startsWith('https:') ? 'https' : 'http',
        },
      },
      parent,
    )
    const requestId = c.get('requestId')
    const active = trace.setSpan(parent, span).setValue(REQUEST_ID, requestId)
    let threw = false
    try {
      await context.with(active, next)
    } catch (err) {
      threw = true
      throw err
    } finally {
      const route = routeOf(c)
      const status = threw ? 500 : c.res.status
      span.updateName(`${method} ${route}`)
      span.setAttributes({
        'http.route': route,
        'http.response.status_code': status,
        'supplier_admin.request_id': requestId,
      })
      const code = c.get('resultCode')
      if (code !== undefined) span.setAttribute('supplier_admin.result_code', code)
      // A server span fails on a 5xx only; a refusal (4xx, or a business code) is the caller's.
      if (status >= 500) {
        span.setAttribute('error.type', String(status))
        span.setStatus({ code: SpanStatusCode.ERROR })
      }
      span.end()
    }
  }
}
