import { timingSafeEqual } from 'node:crypto'
import { getConnInfo } from '@hono/node-server/conninfo'
import { Hono } from 'hono'
import type { Logger } from 'pino'
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import { countStuckApprovals, poolConnections } from '../sql/monitoring'
import { countUnkeyedSuppliers } from '../sql/supplier'
import { pendingEventStats } from '../sql/outbox'
import type postgres from 'postgres'
import type { Config } from './config'
import { ERRORS } from './errors'
import { failure } from './http/envelope'
import { doc } from './http/openapi'
import { NoQuery, validate } from './http/validate'
import type { AppEnv } from './http/types'
import type { Observer } from './ports/observer'

/**
 * Prometheus metrics of one app (Node only: prom-client and the socket address are Node's).
 * Request metrics are labelled by route template and business code, never by raw path, so
 * their number of series stays bounded. Database gauges are read at scrape time.
 */
export function createMetrics({
  sql,
  config,
  logger,
}: {
  sql: postgres.Sql
  config: Pick<Config, 'metrics'>
  logger: Pick<Logger, 'warn'>
}) {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })

  const requests = new Counter({
    name: 'supplier_http_requests_total',
    help: 'Answered requests by method, route template, HTTP status and business code',
    labelNames: ['method', 'route', 'status', 'code'],
    registers: [registry],
  })
  const latency = new Histogram({
    name: 'supplier_http_request_duration_seconds',
    help: 'Time to answer, by method, route template and business code',
    labelNames: ['method', 'route', 'code'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  })
  const clientTimeouts = new Counter({
    name: 'supplier_http_client_timeouts_total',
    help: 'Requests answered 408: the client had not sent its whole body by the request deadline',
    labelNames: ['method', 'route'],
    registers: [registry],
  })
  const writeConflicts = new Counter({
    name: 'supplier_write_conflicts_total',
    help: 'Write transactions the database ended as a deadlock (40P01) or serialization failure (40001), by SQLSTATE and outcome: retried, or refused as 395014 after the last attempt',
    labelNames: ['sqlstate', 'outcome'],
    registers: [registry],
  })
  const lookupFailures = new Counter({
    name: 'supplier_permission_lookup_failures_total',
    help: 'Permission or role lookups that failed or timed out (each denied the request)',
    registers: [registry],
  })
  const outcomes = new Counter({
    name: 'supplier_approval_outcomes_total',
    help: 'Approvals handled by the applier, by business type and resulting status',
    labelNames: ['biz_type', 'outcome'],
    registers: [registry],
  })
  const eventsPublished = new Counter({
    name: 'supplier_events_published_total',
    help: 'Domain events the relay had acknowledged by JetStream (and marked PUBLISHED)',
    registers: [registry],
  })
  const eventsParked = new Counter({
    name: 'supplier_events_parked_total',
    help: 'Domain events the relay parked because they cannot be published (see docs/events.md)',
    registers: [registry],
  })
  const eventsFailed = new Counter({
    name: 'supplier_events_publish_failures_total',
    help: 'Failed attempts of the relay, each publish and each connection (events stay PENDING)',
    registers: [registry],
  })
  const scrapeErrors = new Counter({
    name: 'supplier_metrics_database_errors_total',
    help: 'Scrapes whose database gauges could not be read (they keep their last value)',
    registers: [registry],
  })
  // Gauges read from the database at scrape time; a failure keeps the last value and is counted.
  const fromDatabase = async (read: () => Promise<void>) => {
    try {
      await read()
    } catch (err) {
      scrapeErrors.inc()
      logger.warn({ err: (err as Error).message }, 'metrics: database gauge not read')
    }
  }
  new Gauge({
    name: 'supplier_approvals_stuck',
    help: `Approvals SUBMITTED or APPROVED for longer than STUCK_APPROVAL_AGE_SECONDS (${config.metrics.stuckApprovalAgeSeconds} s)`,
    registers: [registry],
    async collect() {
      await fromDatabase(async () =>
        this.set(await countStuckApprovals(sql, config.metrics.stuckApprovalAgeSeconds)),
      )
    },
  })
  let allKeyed = false
  new Gauge({
    name: 'supplier_name_keys_pending',
    help: 'Live suppliers without company-name keys yet: the near-duplicate check does not see them until the backfill keys them',
    registers: [registry],
    async collect() {
      // Once every live supplier is keyed, each later one is keyed by the statement that writes
      // it: the full pass is not repeated at every scrape.
      if (allKeyed) return this.set(0)
      await fromDatabase(async () => {
        const pending = await countUnkeyedSuppliers(sql)
        allKeyed = pending === 0
        this.set(pending)
      })
    },
  })
  new Gauge({
    name: 'supplier_events_pending',
    help: 'Domain events still PENDING in the outbox (all of them while EVENTS_NATS_URL is unset)',
    registers: [registry],
    async collect() {
      await fromDatabase(async () => this.set((await pendingEventStats(sql)).pending))
    },
  })
  new Gauge({
    name: 'supplier_events_parked',
    help: 'Domain events PARKED, waiting for an operator (npm run events -- parked)',
    registers: [registry],
    async collect() {
      await fromDatabase(async () => this.set((await pendingEventStats(sql)).parked))
    },
  })
  new Gauge({
    name: 'supplier_events_oldest_pending_age_seconds',
    help: 'Age of the oldest PENDING domain event (0 when none)',
    registers: [registry],
    async collect() {
      await fromDatabase(async () => this.set((await pendingEventStats(sql)).oldestAgeSeconds))
    },
  })
  new Gauge({
    name: 'supplier_db_pool_max_connections',
    help: 'Size limit of the connection pool',
    registers: [registry],
  }).set(Number(sql.options.max))
  new Gauge({
    name: 'supplier_db_pool_connections',
    help: "This process's database connections by state (active, idle, idle in transaction, …), as the server reports them",
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      await fromDatabase(async () => {
        this.reset()
        for (const { state, count } of await poolConnections(sql)) this.set({ state }, count)
      })
    },
  })

  const reads = new Counter({
    name: 'supplier_db_reads_total',
    help: 'Reads of the read-only routes by target (standby or primary) and why there (DATABASE_READ_URL set)',
    labelNames: ['target', 'reason'],
    registers: [registry],
  })
  const lag = new Gauge({
    name: 'supplier_db_standby_lag_seconds',
    help: "A standby's replay lag at the last poll: how old the newest primary WAL position it has replayed is",
    labelNames: ['standby'],
    registers: [registry],
  })
  const standbyUp = new Gauge({
    name: 'supplier_db_standby_up',
    help: 'Whether a standby answered the last poll as a standby (1) or not (0)',
    labelNames: ['standby'],
    registers: [registry],
  })

  const observer: Observer = {
    request({ method, route, status, code, seconds }) {
      const c = code === undefined ? '' : String(code)
      requests.inc({ method, route, status: String(status), code: c })
      latency.observe({ method, route, code: c }, seconds)
      if (status === 408) clientTimeouts.inc({ method, route })
    },
    writeConflict: (sqlstate, outcome) => writeConflicts.inc({ sqlstate, outcome }),
    permissionLookupFailed: () => lookupFailures.inc(),
    approvalOutcome: (bizType, outcome) => outcomes.inc({ biz_type: bizType, outcome }),
    databaseRead: (target, reason) => reads.inc({ target, reason }),
    standbyLag(standby, seconds) {
      standbyUp.set({ standby }, seconds === undefined ? 0 : 1)
      if (seconds !== undefined) lag.set({ standby }, seconds)
    },
    eventPublished: (count = 1) => eventsPublished.inc(count),
    eventParked: () => eventsParked.inc(),
    eventPublishFailed: () => eventsFailed.inc(),
  }
  return { registry, observer }
}

export type Metrics = ReturnType<typeof createMetrics>

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/

const sameToken = (given: string, expected: string) => {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

/**
 * GET /metrics. With METRICS_TOKEN, only `Authorization: Bearer <METRICS_TOKEN>`; without it,
 * only a direct loopback client (no X-Forwarded-For, which a proxy in front would add).
 */
export function metricsRoutes(metrics: Metrics, config: Pick<Config, 'metrics'>) {
  const app = new Hono<AppEnv>()
  app.get(
    '/metrics',
    doc({
      operationId: 'getMetrics',
      summary: 'Prometheus metrics (text format)',
      description:
        'Request, approval and database gauges for a Prometheus scrape: with `METRICS_TOKEN` set, its bearer token is required; unset, only loopback clients may scrape.',
      tags: ['system'],
      mediaType: 'text/plain',
      examples: {
        'text/plain': [
          '# HELP supplier_http_requests_total Answered requests by method, route template, HTTP status and business code',
          '# TYPE supplier_http_requests_total counter',
          'supplier_http_requests_total{method="GET",route="/admin/supplier/items/:supplierId",status="200",code="200"} 1027',
          '# HELP supplier_approvals_stuck Approvals SUBMITTED or APPROVED for longer than STUCK_APPROVAL_AGE_SECONDS (900 s)',
          '# TYPE supplier_approvals_stuck gauge',
          'supplier_approvals_stuck 0',
          '',
        ].join('\n'),
      },
      security: [{ metricsToken: [] }, {}],
      statuses: {
        '401': {
          description: 'METRICS_TOKEN set and not presented, or a non-loopback client without it',
          errors: ['UNAUTHORIZED'],
        },
      },
    }),
    // Its HTTP 200 is the text format, not the envelope: a query is refused with HTTP 400.
    validate('query', NoQuery, { status: 400 }),
    async (c) => {
      const { token } = config.metrics
      const bearer = /^Bearer (.+)$/.exec(c.req.header('authorization') ?? '')?.[1]
      let allowed: boolean
      if (token) {
        allowed = bearer !== undefined && sameToken(bearer, token)
      } else {
        let address: string | undefined
        try {
          address = getConnInfo(c).remote.address
        } catch {
          address = undefined // not on a Node socket (app.request in tests): not loopback
        }
        allowed = !!address && LOOPBACK.test(address) && !c.req.header('x-forwarded-for')
      }
      if (!allowed) {
        return failure(c, ERRORS.UNAUTHORIZED, {
          message: token
            ? 'not authenticated: Authorization: Bearer <METRICS_TOKEN> required'
            : 'metrics are served to loopback clients only (or set METRICS_TOKEN)',
          status: 401,
        })
      }
      return c.body(await metrics.registry.metrics(), 200, {
        'content-type': metrics.registry.contentType,
      })
    },
  )
  return app
}
