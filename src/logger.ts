import { pino, type DestinationStream, type Logger } from 'pino'
import pinoPretty from 'pino-pretty'
import { SENSITIVE_LOG_KEYS as SENSITIVE_KEYS } from './crypto/sensitive'
import { logCorrelation } from './trace-context'

/** Arrays of child records in request bodies, with the sensitive keys their items carry. */
const SENSITIVE_LISTS = {
  contacts: ['contactPhone', 'certNo'],
  initialAccounts: ['accountNo', 'confirmAccountNo'],
  accounts: ['accountNo', 'confirmAccountNo'],
} as const

// Redact wildcards match exactly one level (array indexes included), so each depth is listed.
// Five levels covers e.g. { req: { body: { accounts: [{ accountNo }] } } } (accountNo at depth 4).
const DEPTHS = ['', '*.', '*.*.', '*.*.*.', '*.*.*.*.']

/** Every pino redact path; values at these paths are logged as '[REDACTED]'. */
export const REDACT_PATHS: readonly string[] = [
  ...SENSITIVE_KEYS.flatMap((key) => DEPTHS.map((depth) => `${depth}${key}`)),
  // Header names with hyphens need bracket syntax; covered on the usual header containers only.
  ...['headers', '*.headers', '*.*.headers'].map((h) => `${h}["x-internal-token"]`),
  // Explicit list paths mirror the body shapes even though the wildcards above already match them.
  ...Object.entries(SENSITIVE_LISTS).flatMap(([list, keys]) =>
    DEPTHS.slice(0, 3).flatMap((depth) => keys.map((key) => `${depth}${list}[*].${key}`)),
  ),
]

/**
 * Builds the service logger with sensitive-field redaction always on (redaction happens before
 * formatting, so the pretty output is redacted too).
 * @param options.level pino level name ('info', 'debug', 'silent', ...)
 * @param options.format 'json' (one object per line, for machines; the default) or 'pretty'
 *   (a coloured, human-readable line with a local time, for a terminal; NO_COLOR turns colour off)
 * @param options.destination where lines go (defaults to stdout); tests pass an in-memory stream
 * @param options.traceContext tracing is on: every line written inside a traced request carries
 *   its `requestId`, `traceId` and `spanId` (read from the active trace context)
 */
export function createLogger(options: {
  level: string
  format?: 'json' | 'pretty'
  destination?: DestinationStream
  traceContext?: boolean
}): Logger {
  const opts = {
    level: options.level,
    redact: { paths: [...REDACT_PATHS], censor: '[REDACTED]' },
    ...(options.traceContext && { mixin: logCorrelation }),
  }
  if (options.format === 'pretty') {
    const pretty = pinoPretty({
      colorize: !process.env.NO_COLOR,
      translateTime: 'SYS:yyyy-mm-dd HH:MM:ss.l',
      ignore: 'pid,hostname',
      singleLine: true,
      sync: true,
      ...(options.destination ? { destination: options.destination } : {}),
    })
    return pino(opts, pretty)
  }
  if (options.destination) return pino(opts, options.destination)
  // stdout is written asynchronously, in writes of 4 KiB or every 250 ms, whichever comes first:
  // a synchronous write per line cost a read about a tenth of its CPU (docs/benchmarks.md).
  // pino flushes what is buffered when the process exits; a kill -9 loses at most 250 ms of lines.
  const stdout = pino.destination({ dest: 1, sync: false, minLength: 4096 })
  setInterval(() => stdout.flush(), 250).unref()
  return pino(opts, stdout)
}
