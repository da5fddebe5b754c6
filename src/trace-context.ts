import { context, createContextKey, trace } from '@opentelemetry/api'

/*
 * What the traced layers share, through the OpenTelemetry API only: this module is imported by
 * the edge build too, where no SDK is started and every call below is the API's no-op. The SDK
 * itself (exporters, the context manager) is started by the Node entry, in src/tracing.ts.
 */

/** The instrumentation scope of every span this service makes. */
export const TRACER_NAME = 'supplier-admin'

/** The request id, carried in the request's trace context so that every log line can name it. */
export const REQUEST_ID = createContextKey('supplier-admin request id')

/**
 * The request id, trace id and span id of the active context, for the fields of a log line; an
 * empty object outside a traced request (and always, while tracing is off).
 */
export function logCorrelation(): { requestId?: string; traceId?: string; spanId?: string } {
  const active = context.active()
  const span = trace.getSpan(active)
  if (!span) return {}
  const { traceId, spanId } = span.spanContext()
  const requestId = active.getValue(REQUEST_ID) as string | undefined
  return requestId === undefined ? { traceId, spanId } : { requestId, traceId, spanId }
}
