import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import { TRACER_NAME } from '../trace-context'

/** One HTTP call of a port, as its span names it: never a full URL, whose path carries ids. */
export interface OutboundCall {
  /** The service called (`fleet`, `permission`, `finance-clearance`). */
  peer: string
  method: string
  /** The call's URL; only its host and port are recorded. */
  url: string
  /** The path with its variable parts as placeholders (`/admins/{adminId}/roles`). */
  template: string
}

/** What the work of a call reports to its span. */
export interface CallTrace {
  /** The trace context for the outgoing request (`traceparent`, `tracestate`); empty when off. */
  headers: Record<string, string>
  /** The HTTP status answered. */
  answered(status: number): void
  /** The call failed without throwing (the port turned the failure into an answer). */
  failed(type: string): void
}

const UNTRACED: CallTrace = { headers: {}, answered: () => {}, failed: () => {} }

/**
 * Runs one outbound call of a port inside a CLIENT span of the active trace, and hands it the
 * headers that carry that trace to the service called. Outside a traced request (and always while
 * tracing is off) it only runs `work`, with no header added. A failure records its type (the
 * status, or the error's name), never a message or a body.
 */
export async function outboundCall<T>(
  call: OutboundCall,
  work: (trace: CallTrace) => Promise<T>,
): Promise<T> {
  if (!trace.getActiveSpan()) return work(UNTRACED)
  // A URL that does not parse fails in `work`, as it would untraced; the span says so.
  const url = URL.canParse(call.url) ? new URL(call.url) : undefined
  const span = trace.getTracer(TRACER_NAME).startSpan(`${call.method} ${call.template}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      'http.request.method': call.method,
      'url.template': call.template,
      'peer.service': call.peer,
      ...(url && {
        'server.address': url.hostname,
        'server.port': Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
      }),
    },
  })
  const headers: Record<string, string> = {}
  propagation.inject(trace.setSpan(context.active(), span), headers)
  // The first failure said is the cause: a port rethrows a timeout as its own error.
  let failure: string | undefined
  const fail = (type: string) => (failure ??= type)
  try {
    return await work({
      headers,
      answered(status) {
        span.setAttribute('http.response.status_code', status)
        if (status >= 400) fail(String(status))
      },
      failed: fail,
    })
  } catch (err) {
    fail(err instanceof Error ? err.name : 'unknown')
    throw err
  } finally {
    if (failure !== undefined) {
      span.setAttribute('error.type', failure)
      span.setStatus({ code: SpanStatusCode.ERROR })
    }
    span.end()
  }
}
