import { context, diag, DiagLogLevel, propagation, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import {
  loggingErrorHandler,
  setGlobalErrorHandler,
  W3CTraceContextPropagator,
} from '@opentelemetry/core'
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base'
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources'
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace'
import type { Logger } from 'pino'
import type { TracingConfig } from './config'

/*
 * The OpenTelemetry SDK of the Node service. Only the Node entry (and the tests and benchmark
 * that stand in for it) imports this module: the edge build must not reach the SDK, which needs
 * Node's async_hooks and http. Everything else traces through the API (src/trace-context.ts),
 * which stays a no-op until `startTracing` registers the SDK.
 */

export interface Tracing {
  /** Exports every span ended so far. */
  flush(): Promise<void>
  /**
   * Exports what is left, waiting at most SHUTDOWN_MS for a collector that does not answer, and
   * puts the API back to its no-op state.
   */
  shutdown(): Promise<void>
}

/** A stopping service waits this long at most for its last spans to be exported. */
const SHUTDOWN_MS = 5000

function samplerOf({ name, ratio }: TracingConfig['sampler']): Sampler {
  const root = name.endsWith('always_off')
    ? new AlwaysOffSampler()
    : name.endsWith('traceidratio')
      ? new TraceIdRatioBasedSampler(ratio)
      : new AlwaysOnSampler()
  return name.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root
}

function exporterOf(name: 'otlp' | 'console', otlp: TracingConfig['otlp']): SpanExporter {
  if (name === 'console') return new ConsoleSpanExporter()
  const options = {
    url: otlp.url,
    headers: otlp.headers,
    timeoutMillis: otlp.timeoutMs,
    compression:
      otlp.compression === 'gzip' ? CompressionAlgorithm.GZIP : CompressionAlgorithm.NONE,
  }
  return otlp.protocol === 'http/json'
    ? new OtlpJsonExporter(options)
    : new OtlpProtobufExporter(options)
}

/**
 * Starts tracing as the configuration says, or returns undefined when it is off: then nothing is
 * registered, and the API's calls stay no-ops (no context is kept, no header read or written).
 * Export failures are logged as warnings, never thrown: a collector that is down costs the spans,
 * not the requests.
 */
export function startTracing(
  config: TracingConfig,
  logger: Pick<Logger, 'warn'>,
): Tracing | undefined {
  if (!config.enabled) return undefined
  const warn = (message: string) => logger.warn({ err: message }, 'tracing')
  diag.setLogger(
    { error: warn, warn, info: () => {}, debug: () => {}, verbose: () => {} },
    DiagLogLevel.WARN,
  )
  setGlobalErrorHandler((err) => warn(err instanceof Error ? err.message : String(err)))
  const provider = new TracerProvider({
    resource: defaultResource().merge(
      resourceFromAttributes({ ...config.resourceAttributes, 'service.name': config.serviceName }),
    ),
    sampler: samplerOf(config.sampler),
    spanProcessors: config.exporters.map(
      (name) =>
        new BatchSpanProcessor({ exporter: exporterOf(name, config.otlp), ...config.batch }),
    ),
  })
  const contextManager = new AsyncLocalStorageContextManager().enable()
  context.setGlobalContextManager(contextManager)
  propagation.setGlobalPropagator(new W3CTraceContextPropagator())
  trace.setGlobalTracerProvider(provider)
  return {
    flush: () => provider.forceFlush(),
    async shutdown() {
      let timer: NodeJS.Timeout | undefined
      try {
        await Promise.race([
          provider.shutdown(),
          new Promise((resolve) => (timer = setTimeout(resolve, SHUTDOWN_MS))),
        ])
      } finally {
        clearTimeout(timer)
        trace.disable()
        propagation.disable()
        context.disable()
        diag.disable()
        setGlobalErrorHandler(loggingErrorHandler())
      }
    },
  }
}
