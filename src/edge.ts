/**
 * Edge entry (Cloudflare Workers, Deno): the read-only routes only: health, the API document,
 * the dictionaries, the supplier reads (list, detail, account info, approval records) and the
 * resource-information page.
 * It mounts its own route list through buildApp (http/frame.ts) rather than importing app.ts,
 * whose route set includes the write side and /internal. Nothing imported from here may reach a
 * `node:*` module or pino, so not main.ts or logger.ts either; test/edge.test.ts bundles it and
 * checks.
 *
 * Workers: `export default { fetch }` below; wrangler.toml points here.
 * Deno:    `Deno.serve((req) => edge.fetch(req, Deno.env.toObject(), { waitUntil: () => {} }))`.
 * Either way AUTH_JWT_SECRET (or AUTH_JWKS_URL), DATA_ENCRYPTION_KEYS, BLIND_INDEX_KEY,
 * AUDIT_HMAC_KEY and INTERNAL_TOKEN must be real values: the edge refuses the development ones.
 */
import type { Logger } from 'pino'
import postgres from 'postgres'
import { loadConfig, type Config } from './config'
import { createCipher, SENSITIVE_LOG_KEYS, type SensitiveCipher } from './crypto/sensitive'
import { requestReadRouting } from './domain/read-routing'
import { assertCatalog, ERRORS } from './errors'
import { buildApp } from './http/frame'
import type { Deps } from './domain/deps'
import type { AppOptions } from './http/types'
import { localAutoProvider } from './ports/approval-provider'
import { financeClearanceFrom } from './ports/finance-clearance'
import type { Observer } from './ports/observer'
import { permissionLookupFor } from './ports/permission'
import { dictRoutes } from './routes/dict'
import { resourceInfoRoutes } from './routes/resources'
import { supplierReadRoutes } from './routes/supplier-reads'
import { systemRoutes } from './routes/system'

/** Bindings and variables the platform passes to `fetch`. Only string values are configuration. */
export interface EdgeEnv {
  DATABASE_URL?: string
  /** Cloudflare Hyperdrive binding; preferred over DATABASE_URL when present. */
  HYPERDRIVE?: { connectionString: string }
  /** One or more standbys the read routes may read (docs/replicas.md, "On the edge"). */
  DATABASE_READ_URL?: string
  /** A Hyperdrive binding in front of a standby; preferred over DATABASE_READ_URL when present. */
  HYPERDRIVE_READ?: { connectionString: string }
  [name: string]: unknown
}

/** The part of the Workers ExecutionContext this entry uses. */
export interface EdgeContext {
  waitUntil(promise: Promise<unknown>): void
  passThroughOnException?(): void
}

const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: 100 }
type Level = Exclude<keyof typeof LEVELS, 'silent'>

const SENSITIVE = new Set([...SENSITIVE_LOG_KEYS, 'x-internal-token'].map((k) => k.toLowerCase()))

const scrub = (value: unknown, depth = 0): unknown => {
  if (value instanceof Error)
    return { type: value.name, message: value.message, stack: value.stack }
  if (value === null || typeof value !== 'object' || depth > 6) return value
  if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1))
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      SENSITIVE.has(k.toLowerCase()) ? '[REDACTED]' : scrub(v, depth + 1),
    ]),
  )
}

/**
 * A console-backed logger with pino's calling convention (`log(obj, msg)` or `log(msg)`), one JSON
 * line per record, the same numeric levels and the same redaction of sensitive keys. Workers and
 * Deno collect console output.
 */
export function consoleLogger(level: string, bindings: Record<string, unknown> = {}) {
  const threshold = LEVELS[level as keyof typeof LEVELS] ?? LEVELS.info
  const write =
    (name: Level) =>
    (objOrMsg?: unknown, msg?: string): void => {
      if (LEVELS[name] < threshold) return
      const fields = typeof objOrMsg === 'object' && objOrMsg !== null ? objOrMsg : {}
      const line = JSON.stringify({
        level: LEVELS[name],
        time: Date.now(),
        ...bindings,
        ...(scrub(fields) as object),
        msg: typeof objOrMsg === 'string' ? objOrMsg : msg,
      })
      if (LEVELS[name] >= LEVELS.error) console.error(line)
      // eslint-disable-next-line no-console -- the edge runtimes' log sink is the console
      else if (LEVELS[name] >= LEVELS.warn) console.warn(line)
      // eslint-disable-next-line no-console -- the edge runtimes' log sink is the console
      else console.log(line)
    }
  return {
    level,
    trace: write('trace'),
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    fatal: write('fatal'),
    child: (more: Record<string, unknown>) => consoleLogger(level, { ...bindings, ...more }),
  }
}

/**
 * The read-only app over one request's database client. Assembled by buildApp like createApp
 * in app.ts, so the middleware order, envelopes, error mapping and permission deadline match.
 */
export function createEdgeApp(deps: Deps & AppOptions) {
  return buildApp(
    deps,
    (app, deps) => {
      app.route('/admin/dict/data', dictRoutes(deps))
      app.route('/admin/supplier', supplierReadRoutes(deps))
      app.route('/admin/supplier', resourceInfoRoutes(deps))
    },
    systemRoutes,
  )
}

interface Setup {
  config: Config
  cipher: SensitiveCipher
  logger: Logger
}

/** Configuration and keys depend only on the environment: built once per isolate and env. */
const setups = new WeakMap<object, Promise<Setup>>()

const databaseUrlOf = (env: EdgeEnv) =>
  env.HYPERDRIVE?.connectionString ||
  (typeof env.DATABASE_URL === 'string' ? env.DATABASE_URL : undefined)
const databaseReadUrlOf = (env: EdgeEnv) =>
  env.HYPERDRIVE_READ?.connectionString ||
  (typeof env.DATABASE_READ_URL === 'string' ? env.DATABASE_READ_URL : undefined)

function setupFor(env: EdgeEnv): Promise<Setup> {
  let setup = setups.get(env)
  if (!setup) {
    setup = (async () => {
      // Bindings (Hyperdrive, KV, …) are objects; configuration is the string variables only.
      const vars = Object.fromEntries(
        Object.entries(env).filter((e): e is [string, string] => typeof e[1] === 'string'),
      )
      // Never the public development secrets, whatever NODE_ENV says: Deno.serve binds every
      // interface, and a Worker is public, so there is no private edge to take them on.
      const config = loadConfig(
        { ...vars, DATABASE_URL: databaseUrlOf(env), DATABASE_READ_URL: databaseReadUrlOf(env) },
        { entry: 'edge' },
      )
      if (!config.databaseUrl) {
        throw new Error('DATABASE_URL or a HYPERDRIVE binding is required on the edge')
      }
      // logger.ts builds on pino, which is Node-only. The routes and middleware call only the level
      // methods and child(), which consoleLogger implements; the cast covers the rest of pino's
      // Logger type (flush, bindings, events…) that nothing on the edge path uses.
      const logger = consoleLogger(config.logLevel) as unknown as Logger
      return { config, cipher: await createCipher(config.crypto), logger }
    })()
    setup.catch(() => setups.delete(env))
    setups.set(env, setup)
  }
  return setup
}

/** Requests take the standbys of DATABASE_READ_URL in turn (per isolate). */
let nextStandby = 0
const standbyFor = (config: Config) => {
  const urls = config.readReplicas?.urls
  if (!urls?.length) return undefined
  const url = urls[nextStandby++ % urls.length]
  return { name: new URL(url).host, url }
}

assertCatalog()

export default {
  async fetch(request: Request, env: EdgeEnv, ctx: EdgeContext): Promise<Response> {
    let setup: Setup
    try {
      setup = await setupFor(env)
    } catch (err) {
      console.error(
        JSON.stringify({
          level: 60,
          time: Date.now(),
          msg: 'edge misconfigured',
          err: String(err),
        }),
      )
      return Response.json(
        {
          code: ERRORS.INTERNAL.code,
          message: 'service misconfigured',
          success: false,
          data: null,
        },
        { status: 500 },
      )
    }
    // Workers cannot reuse a socket across requests: one client per request, one connection, no
    // type fetch round trip, closed after the response without delaying it. Hyperdrive pools.
    // No TimeZone start-up parameter: poolers may drop it, so the queries served here name
    // APP_TIMEZONE themselves (formatDateTime in sql/db.ts).
    const client = (url: string) =>
      postgres(url, {
        max: 1,
        fetch_types: false,
        connect_timeout: 10,
        onnotice: () => {},
        connection: { application_name: 'supplier-admin-edge' },
      })
    const sql = client(databaseUrlOf(env)!)
    let standby: postgres.Sql | undefined
    const reads = standbyFor(setup.config)
    const { logger } = setup
    try {
      // The same decision as the Node service: the platform permission service when configured.
      const permissions = permissionLookupFor(setup.config, sql)
      const app = createEdgeApp({
        ...setup,
        sql,
        permissions,
        // The edge writes nothing: no approval is opened or applied here.
        approvalProvider: localAutoProvider,
        approvalHandlers: {},
        financeClearance: financeClearanceFrom(setup.config),
        ...(reads && {
          reads: requestReadRouting({
            primary: sql,
            standby: { name: reads.name, connect: () => (standby = client(reads.url)) },
          }),
          // No metrics on the edge: where each read went is a debug line.
          observer: {
            databaseRead: (target, reason) => logger.debug({ target, reason }, 'database read'),
            request: () => {},
            writeConflict: () => {},
            permissionLookupFailed: () => {},
            approvalOutcome: () => {},
            eventPublished: () => {},
            eventPublishFailed: () => {},
          } satisfies Observer,
        }),
      })
      return await app.fetch(request)
    } finally {
      ctx.waitUntil(Promise.all([sql.end({ timeout: 5 }), standby?.end({ timeout: 5 })]))
    }
  },
}
