import { readFile } from 'node:fs/promises'
import { randomBytes } from 'node:crypto'
import { sign } from 'hono/jwt'
import postgres from 'postgres'
import { afterAll, beforeAll, expect, inject } from 'vitest'
import { connect, type DatabaseOptions } from '../sql/db'
import { grant, PERMISSION_CODES } from '../sql/admin'
import { createApp, withDefaults } from '../src/app'
import { loadConfig, type Config } from '../src/config'
import { createCipher, type SensitiveCipher } from '../src/crypto/sensitive'
import { startEmbedded } from '../src/db/embedded'
import { describeFinding, verifyAuditTrail } from '../src/domain/audit/verify'
import { createLogger } from '../src/logger'
import { startTracing, type Tracing } from '../src/tracing'
import { sqlPermissionLookup, type PermissionLookup } from '../src/ports/permission'
import type { ApprovalProvider } from '../src/ports/approval-provider'
import { mismatch } from './contract'
import { EVENT_CATALOG, parseEventPayload, type EventType } from '../src/schemas/events'
import type { Deps } from '../src/domain/deps'
import type { AppOptions } from '../src/http/types'

export const ALL_PERMISSIONS = PERMISSION_CODES

export interface TestDatabase {
  url: string
  sql: postgres.Sql
  /**
   * Verifies the audit trail (unless the file tampers with it on purpose) and that every stored
   * event is of the catalog, then drops it all.
   */
  close(): Promise<void>
}

/**
 * What the audit trail of a test database must be when it is closed: 'whole' (every write path
 * the file ran sealed what it wrote), or 'tampered' for a file that breaks it on purpose (the
 * tampering tests, a bulk load written with SQL around the service).
 */
export type AuditTrailExpectation = 'whole' | 'tampered'

let testCipher: Promise<SensitiveCipher> | undefined

/**
 * Fails unless the audit trail of the database behind `sql` verifies whole, naming each finding.
 * `cipher` holds the audit key the writes were sealed with: the test configuration's by default.
 */
export async function expectWholeAuditTrail(
  sql: postgres.Sql,
  cipher?: SensitiveCipher,
  what = 'the audit trail after this file',
) {
  testCipher ??= createCipher(loadConfig({ NODE_ENV: 'test' }).crypto)
  const report = await verifyAuditTrail(sql, (cipher ?? (await testCipher)).audit)
  expect(report.findings.map(describeFinding), what).toEqual([])
}

/**
 * Fails unless every event stored in the database behind `sql` is a type of the catalog, of the
 * aggregate the catalog gives it, with a payload its schema accepts: each test file's database is
 * checked when it closes, so the whole suite's events are.
 */
export async function expectCatalogedEvents(sql: postgres.Sql) {
  const rows = await sql<
    { eventId: string; eventType: string; aggregateType: string; payload: unknown }[]
  >`
    SELECT event_id::text AS "eventId", event_type AS "eventType",
      aggregate_type AS "aggregateType", payload
    FROM domain_event ORDER BY event_id`
  const problems: string[] = []
  for (const row of rows) {
    const parsed = parseEventPayload(row.eventType, row.payload)
    if (!parsed.success) problems.push(`event ${row.eventId}: ${parsed.error}`)
    else if (EVENT_CATALOG[row.eventType as EventType].aggregate !== row.aggregateType) {
      problems.push(`event ${row.eventId}: ${row.eventType} stored on ${row.aggregateType}`)
    }
  }
  if (problems.length) {
    throw new Error(`stored events the event catalog refuses:\n${problems.join('\n')}`)
  }
}

/**
 * A database of its own for one test file: a fresh PGlite, or a copy of the template. Closing it
 * verifies its audit trail first, so every file that writes through a test database has its
 * trail checked, whether or not it uses the harness. `cipher` is read at close time (the
 * harness builds its cipher after the database).
 */
export async function createTestDatabase(
  timezone = 'Asia/Shanghai',
  debug?: DatabaseOptions['debug'],
  trail: { auditTrail?: AuditTrailExpectation; cipher?: () => SensitiveCipher | undefined } = {},
): Promise<TestDatabase> {
  const verified = (sql: postgres.Sql, drop: () => Promise<void>) => async () => {
    try {
      if (trail.auditTrail !== 'tampered') await expectWholeAuditTrail(sql, trail.cipher?.())
      await expectCatalogedEvents(sql)
    } finally {
      await drop()
    }
  }
  const source = inject('database')
  if (source.kind === 'embedded') {
    const dump = new Blob([await readFile(source.dumpPath)])
    const db = await startEmbedded({ loadDataDir: dump, timezone })
    const sql = connect({ url: db.url, max: 1, timezone, debug })
    return {
      url: db.url,
      sql,
      close: verified(sql, async () => {
        await sql.end({ timeout: 5 })
        await db.stop()
      }),
    }
  }
  const name = `supplier_test_${randomBytes(6).toString('hex')}`
  const admin = postgres(source.adminUrl, { max: 1, onnotice: () => {} })
  await admin.unsafe(`CREATE DATABASE ${name} TEMPLATE ${source.template}`)
  const url = new URL(source.poolUrl)
  url.pathname = `/${name}`
  const sql = connect({ url: url.toString(), max: 10, timezone, debug, pooler: source.pooler })
  return {
    url: url.toString(),
    sql,
    close: verified(sql, async () => {
      await sql.end({ timeout: 5 })
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await admin.end()
    }),
  }
}

export interface CallOptions {
  body?: unknown
  /** Raw body text (bypasses JSON encoding). */
  raw?: string
  admin?: string | null
  token?: string | null
  headers?: Record<string, string>
}

export interface Answer {
  status: number
  body: any
  ms: number
  /** The answer's X-Request-Id: the id its change-log rows carry. */
  requestId: string | null
}

export interface Harness {
  config: Config
  sql: postgres.Sql
  cipher: SensitiveCipher
  logs: string[]
  db: TestDatabase
  app: ReturnType<typeof createApp>
  /** What the app was built with (for calling domain verbs, such as the sweep, directly). */
  deps: Deps & AppOptions
  /** Started when the configuration turns tracing on (OTEL_*), as `npm start` does. */
  tracing?: Tracing
  /** Creates an administrator holding exactly these permissions and roles. */
  admin(permissions?: readonly string[], roles?: readonly string[]): Promise<string>
  token(adminId: string, claims?: Record<string, unknown>): Promise<string>
  /** The answer, checked against /openapi.json; `ms` is how long the app took to give it. */
  call(method: string, path: string, options?: CallOptions): Promise<Answer>
  /** `call` against another app of this database (one on another pool, say); same checks. */
  callVia(
    app: ReturnType<typeof createApp>,
    method: string,
    path: string,
    options?: CallOptions,
  ): Promise<Answer>
}

const documents = new WeakMap<object, Promise<Record<string, unknown>>>()

/** The app's own /openapi.json, fetched once per app. */
export function documentOf(app: { request: (path: string) => Response | Promise<Response> }) {
  let doc = documents.get(app)
  if (!doc) {
    doc = Promise.resolve(app.request('/openapi.json')).then((r) => r.json())
    documents.set(app, doc)
  }
  return doc
}

let nextAdmin = 9007199254740993n + BigInt(Math.floor(Math.random() * 1e6)) * 1000n

/**
 * Registers beforeAll/afterAll for one test file and returns the harness, filled in once
 * beforeAll has run. `env` overrides configuration (a function is called in beforeAll, so it can
 * read values, such as a local server's port, that earlier hooks set); `permissions` swaps the
 * lookup port.
 */
export function useHarness(
  options: {
    env?: Record<string, string> | (() => Record<string, string>)
    permissions?: (sql: postgres.Sql) => PermissionLookup
    /** Swaps the approval provider port (LOCAL_AUTO by default). */
    approvalProvider?: (h: Harness) => ApprovalProvider
    /** Sees every statement the harness's pool sends, with its parameters. */
    onStatement?: (text: string, parameters: unknown[]) => void
    /**
     * After the file's tests the audit trail must verify whole (every write path the file ran
     * sealed what it wrote); 'tampered' for a file that breaks it on purpose.
     */
    auditTrail?: AuditTrailExpectation
  } = {},
) {
  const h = {} as Harness
  beforeAll(async () => {
    const { onStatement } = options
    h.db = await createTestDatabase(
      undefined,
      onStatement && ((_connection, text, parameters) => onStatement(text, parameters)),
      { auditTrail: options.auditTrail, cipher: () => h.cipher },
    )
    h.sql = h.db.sql
    h.logs = []
    const env = typeof options.env === 'function' ? options.env() : options.env
    // The suite runs two files at a time on a shared two-core machine, where a request at the
    // spec's limits (a 16 MiB note) can take seconds: only the tests about the request deadline
    // set one that can be reached.
    h.config = loadConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      REQUEST_TIMEOUT_MS: '30000',
      ...env,
    })
    h.cipher = await createCipher(h.config.crypto)
    const logger = createLogger({
      level: 'info',
      destination: { write: (line: string) => void h.logs.push(line) },
      traceContext: h.config.tracing.enabled,
    })
    // As the Node entry does: the SDK only when OTEL_* configure an exporter.
    h.tracing = startTracing(h.config.tracing, logger)
    h.deps = withDefaults({
      config: h.config,
      sql: h.sql,
      logger,
      cipher: h.cipher,
      permissions: (options.permissions ?? sqlPermissionLookup)(h.sql),
      approvalProvider: options.approvalProvider?.(h),
      tracing: Boolean(h.tracing),
    })
    h.app = createApp(h.deps)
    h.admin = async (permissions = ALL_PERMISSIONS, roles = ['ADMIN']) => {
      const id = String(nextAdmin++)
      await grant(h.sql, id, { permissions, roles })
      return id
    }
    h.token = (adminId, claims = {}) =>
      sign(
        {
          sub: adminId,
          iat: Math.floor(Date.now() / 1000),
          exp: Math.floor(Date.now() / 1000) + 600,
          ...claims,
        },
        h.config.auth.jwtSecret as string,
        'HS256',
      )
    h.call = (method, path, options) => h.callVia(h.app, method, path, options)
    h.callVia = async (app, method, path, { body, raw, admin, token, headers = {} } = {}) => {
      const adminId = admin === undefined ? await h.admin() : admin
      const auth = token === undefined && adminId ? await h.token(adminId) : token
      const started = performance.now()
      const res = await app.request(path, {
        method,
        headers: {
          ...(auth ? { authorization: `Bearer ${auth}` } : {}),
          ...(adminId ? { 'x-admin-id': adminId } : {}),
          ...(body !== undefined || raw !== undefined
            ? { 'content-type': 'application/json' }
            : {}),
          ...headers,
        },
        body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
      })
      const text = await res.text()
      const ms = performance.now() - started
      let parsed: unknown = text
      try {
        parsed = JSON.parse(text)
      } catch {
        // not JSON (the docs page): keep the text
      }
      // The document cannot drift: every answer the suite sees must match /openapi.json.
      const problem = mismatch(await documentOf(app), {
        method,
        path,
        status: res.status,
        contentType: res.headers.get('content-type'),
        headers: res.headers,
        body: parsed,
      })
      if (problem) throw new Error(`answer does not match /openapi.json: ${problem}`)
      return { status: res.status, body: parsed, ms, requestId: res.headers.get('x-request-id') }
    }
  })
  afterAll(async () => {
    try {
      await h.tracing?.shutdown()
    } finally {
      // Verifies the audit trail (createTestDatabase).
      await h.db?.close()
    }
  })
  return h
}
