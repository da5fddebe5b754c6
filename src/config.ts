import { z } from 'zod'

/**
 * Development defaults. They are public (they are in this repository): accepted only with
 * NODE_ENV=development or test, said explicitly, on a loopback HOST, and never by the edge entry.
 */
export const DEV_SECRETS = {
  AUTH_JWT_SECRET: 'dev-only-jwt-secret-change-me-0123456789abcdef',
  DATA_ENCRYPTION_KEYS: 'dev1:ZGV2LW9ubHktZGF0YS1rZXktMzItYnl0ZXMtbG9uZyE=',
  BLIND_INDEX_KEY: 'ZGV2LW9ubHktYmxpbmQtaW5kZXgta2V5LTMyLWJ5dGVzIQ==',
  AUDIT_HMAC_KEY: 'ZGV2LW9ubHktYXVkaXQtdHJhaWwta2V5LTMyLWJ5dGVzIQ==',
  INTERNAL_TOKEN: 'dev-only-internal-token',
} as const

const bool = z
  .enum(['true', 'false', '1', '0'])
  .transform((v) => v === 'true' || v === '1')
  .optional()

const base64Bytes = (value: string) => {
  try {
    return atob(value).length
  } catch {
    return -1
  }
}

/**
 * The bytes a base64 key stands for, as the service decodes it (`atob`: `=` padding optional,
 * ASCII white space ignored), or undefined when it is not base64. Two texts of one key compare
 * equal here, so that no respelling of a public development key passes for another key.
 */
const keyBytes = (value: string) => {
  try {
    return atob(value)
  } catch {
    return undefined
  }
}

const sameKey = (a: string, b: string) => {
  const bytes = keyBytes(a)
  return bytes !== undefined && bytes === keyBytes(b)
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1'])

const positiveIdString = z.string().regex(/^[1-9][0-9]{0,18}$/, 'must be a positive integer')

const keyList = z
  .string()
  .min(1)
  .transform((value, ctx) => {
    const keys = new Map<string, string>()
    for (const part of value.split(',')) {
      const pieces = part.trim().split(':')
      const [id, key] = pieces
      if (pieces.length !== 2 || !id || !key || !/^[A-Za-z0-9_-]{1,16}$/.test(id)) {
        ctx.addIssue({ code: 'custom', message: 'expected "keyId:base64Key[,keyId:base64Key…]"' })
        return z.NEVER
      }
      if (keys.has(id)) {
        // A repeated id would silently replace the older key and orphan its ciphertexts.
        ctx.addIssue({ code: 'custom', message: `key id "${id}" appears twice` })
        return z.NEVER
      }
      if (base64Bytes(key) !== 32) {
        ctx.addIssue({ code: 'custom', message: `key "${id}" must be 32 bytes of base64` })
        return z.NEVER
      }
      keys.set(id, key)
    }
    return keys
  })

const prefixes = z
  .string()
  .transform((v) =>
    v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.url({ protocol: /^https?$/ })).min(1))

/**
 * Browser origins allowed to call the API (CORS): `scheme://host[:port]` each, exactly as a
 * browser sends `Origin`, so that a list entry with a path or a trailing slash, which would never
 * match, is refused at start-up instead. `*` is refused: the point is a named list.
 */
const origins = z.string().transform((value, ctx) => {
  const list = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  for (const origin of list) {
    let parsed: URL | undefined
    try {
      parsed = new URL(origin)
    } catch {
      parsed = undefined
    }
    if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin) {
      ctx.addIssue({
        code: 'custom',
        message: `"${origin}" is not an origin: write scheme://host[:port], e.g. https://admin.example.com`,
      })
      return z.NEVER
    }
  }
  return list
})

/**
 * `key=value[,key=value…]` with percent-encoded values, the format of OTEL_EXPORTER_OTLP_HEADERS
 * and OTEL_RESOURCE_ATTRIBUTES. A problem never echoes a value: headers carry collector keys.
 */
const keyValues = z.string().transform((value, ctx) => {
  const pairs: Record<string, string> = {}
  for (const part of value.split(',')) {
    if (!part.trim()) continue
    const at = part.indexOf('=')
    const key = at > 0 ? part.slice(0, at).trim() : ''
    let decoded: string | undefined
    try {
      decoded = at > 0 ? decodeURIComponent(part.slice(at + 1).trim()) : undefined
    } catch {
      decoded = undefined
    }
    if (!key || decoded === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: 'expected "key=value[,key=value…]" (values URL-encoded)',
      })
      return z.NEVER
    }
    pairs[key] = decoded
  }
  return pairs
})

/** Where spans go (OTEL_TRACES_EXPORTER): a comma list; `none` alone turns tracing off. */
const TRACE_EXPORTERS = ['otlp', 'console', 'none'] as const
const traceExporters = z.string().transform((value, ctx) => {
  const names = [
    ...new Set(
      value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ]
  const unknown = names.find((n) => !(TRACE_EXPORTERS as readonly string[]).includes(n))
  if (unknown !== undefined) {
    ctx.addIssue({
      code: 'custom',
      message: `"${unknown}" is not supported: use ${TRACE_EXPORTERS.join(', ')}`,
    })
    return z.NEVER
  }
  return names.filter((n): n is 'otlp' | 'console' => n !== 'none')
})

/** OTLP over HTTP only: gRPC would need another exporter, and collectors take both on 4318. */
const otlpProtocol = z.enum(['http/protobuf', 'http/json'], {
  message: 'must be http/protobuf or http/json (grpc is not supported)',
})

const otlpUrl = z.url({ protocol: /^https?$/ })
const positiveMs = z.coerce.number().int().min(1)

/** The samplers of the OpenTelemetry specification (OTEL_TRACES_SAMPLER). */
export const TRACE_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const

/**
 * TLS modes that dbmate (lib/pq) and postgres.js implement alike (postgres.js treats `allow` as
 * `require`, so it is refused rather than meaning two things).
 */
export const SSL_MODES = ['disable', 'prefer', 'require', 'verify-ca', 'verify-full'] as const

/**
 * DATABASE_URL with an explicit `sslmode`, the one TLS setting of both clients. Without one,
 * lib/pq (dbmate) requires TLS while postgres.js uses none; both get libpq's own default,
 * `prefer` (TLS when the server offers it).
 */
/**
 * The `host:port` list of a PostgreSQL URL (`postgres://user@h1:5432,h2:5432/db`), as postgres.js
 * reads it; one entry for a single host.
 */
export function databaseHosts(url: string): string[] {
  const authority = url.slice(url.indexOf('://') + 3).split(/[?/]/)[0]
  return decodeURIComponent(authority.slice(authority.indexOf('@') + 1)).split(',')
}

/** `url` naming `host` (one `host:port` of its list) alone, without target_session_attrs. */
export function withHost(url: string, host: string): string {
  const hosts = databaseHosts(url).join(',')
  const one = new URL(url.replace(hosts, host))
  one.searchParams.delete('target_session_attrs')
  return one.toString()
}

/** What the pool accepts for a session, per postgres.js; the primary's pool needs a writable one. */
const WRITABLE_SESSIONS = ['read-write', 'primary']

const databaseUrl = z.string().transform((value, ctx) => {
  // Several hosts (a primary and its standbys) are one URL to postgres.js; the first must parse.
  const first = withHostUnchecked(value)
  if (!/^postgres(ql)?:\/\//.test(value) || !z.url().safeParse(first).success) {
    ctx.addIssue({ code: 'custom', message: 'must be a postgres:// URL' })
    return z.NEVER
  }
  const modes = new URL(first).searchParams.getAll('sslmode')
  if (modes.length === 0) return `${value}${value.includes('?') ? '&' : '?'}sslmode=prefer`
  if (modes.length > 1 || !(SSL_MODES as readonly string[]).includes(modes[0])) {
    ctx.addIssue({ code: 'custom', message: `sslmode must be one of ${SSL_MODES.join(', ')}` })
    return z.NEVER
  }
  return value
})

/** `url` with its host list cut to the first host, so that URL can parse it. */
function withHostUnchecked(url: string): string {
  const authority = url.slice(url.indexOf('://') + 3).split(/[?/]/)[0]
  const hosts = authority.slice(authority.indexOf('@') + 1)
  return hosts.includes(',') ? url.replace(hosts, hosts.split(',')[0]) : url
}

/**
 * DATABASE_URL: several hosts only with a target_session_attrs that settles on the primary, or a
 * connection could land on a standby and every write there would fail.
 */
const primaryUrl = databaseUrl.superRefine((value, ctx) => {
  const attrs = new URL(withHostUnchecked(value)).searchParams.get('target_session_attrs')
  if (databaseHosts(value).length > 1 && !WRITABLE_SESSIONS.includes(attrs ?? '')) {
    ctx.addIssue({
      code: 'custom',
      message: `several hosts need target_session_attrs=${WRITABLE_SESSIONS.join(' or ')}, so that the pool connects to the primary only`,
    })
  }
})

/** Dot-separated tokens of letters, digits, _ and - (a NATS subject prefix, a CloudEvents type prefix). */
const subjectTokens = z
  .string()
  .regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, 'dot-separated tokens of letters, digits, _ and -')

/** One or more nats:// (or tls://) server URLs, comma-separated, as the NATS clients take them. */
const natsUrls = z.string().transform((value, ctx) => {
  const list = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  for (const url of list) {
    let parsed: URL | undefined
    try {
      parsed = new URL(url)
    } catch {
      parsed = undefined
    }
    if (!parsed || !/^(nats|tls):$/.test(parsed.protocol) || !parsed.hostname) {
      // The URL may carry a user and password: never echo it.
      ctx.addIssue({ code: 'custom', message: 'expected nats://host:port[,nats://host:port…]' })
      return z.NEVER
    }
  }
  return list
})

/** REQUEST_TIMEOUT_MS when unset. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 5_000

const EnvObject = z.object({
  // No default: an unset NODE_ENV is neither development nor test, so it takes no public secret.
  NODE_ENV: z.enum(['development', 'test', 'production']).optional(),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8787),
  DATABASE_URL: primaryUrl.optional(),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(100).default(10),
  DATABASE_POOLER: z.enum(['none', 'transaction']).default('none'),
  DATABASE_READ_URL: databaseUrl.optional(),
  DATABASE_READ_MAX_LAG_MS: z.coerce.number().int().min(0).max(600_000).default(1_000),
  DATA_DIR: z.string().min(1).default('./.data'),
  MIGRATE_ON_START: bool,
  EMBEDDED_DB_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  DEMO_DATA: bool,
  DEMO_ADMIN_ID: positiveIdString.default('10001'),
  APP_TIMEZONE: z
    .string()
    .refine((tz) => {
      try {
        new Intl.DateTimeFormat('en', { timeZone: tz })
        return true
      } catch {
        return false
      }
    }, 'unknown IANA time zone')
    .default('Asia/Shanghai'),
  AUTH_JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  AUTH_JWKS_URL: z.url().optional(),
  AUTH_JWT_ISSUER: z.string().min(1).optional(),
  AUTH_JWT_AUDIENCE: z.string().min(1).optional(),
  AUTH_TOKEN_MAX_LIFETIME_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(7 * 24 * 3600)
    .default(12 * 3600),
  PERMISSION_SERVICE_URL: z.url().optional(),
  PERMISSION_SERVICE_TOKEN: z.string().min(1).optional(),
  REQUEST_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(500)
    .max(60000)
    .default(DEFAULT_REQUEST_TIMEOUT_MS),
  PERMISSION_TIMEOUT_MS: z.coerce.number().int().min(50).max(30000).default(2000),
  PERMISSION_READ_CACHE_SECONDS: z.coerce.number().int().min(0).max(60).default(5),
  FINANCE_CLEARANCE_URL: z.url({ protocol: /^https?$/ }).optional(),
  FINANCE_CLEARANCE_TOKEN: z.string().min(1).optional(),
  FINANCE_CLEARANCE_TIMEOUT_MS: z.coerce.number().int().min(50).max(30000).default(3000),
  FLEET_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  FLEET_INTERNAL_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  FLEET_TIMEOUT_MS: z.coerce.number().int().min(50).max(30000).default(3000),
  DATA_ENCRYPTION_KEYS: keyList.default(keyList.parse(DEV_SECRETS.DATA_ENCRYPTION_KEYS)),
  DATA_ENCRYPTION_KEY_ID: z.string().optional(),
  BLIND_INDEX_KEY: z
    .string()
    .refine((k) => base64Bytes(k) >= 32, 'must be at least 32 bytes of base64')
    .default(DEV_SECRETS.BLIND_INDEX_KEY),
  AUDIT_HMAC_KEY: z
    .string()
    .refine((k) => base64Bytes(k) >= 32, 'must be at least 32 bytes of base64')
    .default(DEV_SECRETS.AUDIT_HMAC_KEY),
  INTERNAL_TOKEN: z
    .string()
    .min(16, 'must be at least 16 characters')
    .default(DEV_SECRETS.INTERNAL_TOKEN),
  STORAGE_URL_PREFIXES: prefixes.default(['https://storage.example.com/supplier/']),
  DUPLICATE_NAME_THRESHOLD: z.coerce.number().gt(0).max(1).default(0.8),
  KEYWORD_SIMILARITY_THRESHOLD: z.coerce.number().min(0).max(1).default(0.5),
  DUPLICATE_CONFIRM_TTL_SECONDS: z.coerce.number().int().min(30).max(3600).default(300),
  DUPLICATE_SUBMIT_WINDOW_SECONDS: z.coerce.number().int().min(0).max(60).default(3),
  IDEMPOTENCY_TTL_HOURS: z.coerce.number().int().min(1).max(168).default(24),
  APPROVAL_RECONCILE_AFTER_SECONDS: z.coerce.number().int().min(0).max(86400).default(120),
  APPROVAL_RECONCILE_INTERVAL_SECONDS: z.coerce.number().int().min(0).max(86400).default(60),
  CORS_ORIGINS: origins.default([]),
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(48 * 1024 * 1024),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  STUCK_APPROVAL_AGE_SECONDS: z.coerce.number().int().min(1).default(900),
  EVENTS_NATS_URL: natsUrls.optional(),
  EVENTS_NATS_STREAM: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ and - only (a JetStream stream name)')
    .default('SUPPLIER_EVENTS'),
  EVENTS_NATS_SUBJECT_PREFIX: subjectTokens.default('supplier.events'),
  EVENTS_NATS_DUPLICATE_WINDOW_SECONDS: z.coerce.number().int().min(60).max(86400).default(120),
  EVENTS_TYPE_PREFIX: subjectTokens.default('com.example.supplier'),
  EVENTS_SOURCE: z
    .string()
    .regex(/^\S{1,256}$/, 'a URI reference without spaces, e.g. /supplier-admin')
    .default('/supplier-admin'),
  EVENTS_RELAY_INTERVAL_MS: z.coerce.number().int().min(50).max(60000).default(1000),
  EVENTS_RELAY_BATCH: z.coerce.number().int().min(1).max(1000).default(100),
  EVENTS_RELAY_BACKOFF_MAX_MS: z.coerce.number().int().min(100).max(600000).default(30000),
  QUALIFICATION_EXPIRY_SWEEP_INTERVAL_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(7 * 86400)
    .default(86400),
  // OpenTelemetry's own variables (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/).
  OTEL_SDK_DISABLED: bool,
  OTEL_TRACES_EXPORTER: traceExporters.optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: otlpUrl.optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: otlpUrl.optional(),
  OTEL_EXPORTER_OTLP_PROTOCOL: otlpProtocol.optional(),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: otlpProtocol.optional(),
  OTEL_EXPORTER_OTLP_HEADERS: keyValues.optional(),
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: keyValues.optional(),
  OTEL_EXPORTER_OTLP_TIMEOUT: positiveMs.optional(),
  OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: positiveMs.optional(),
  OTEL_EXPORTER_OTLP_COMPRESSION: z.enum(['gzip', 'none']).optional(),
  OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: z.enum(['gzip', 'none']).optional(),
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
  OTEL_RESOURCE_ATTRIBUTES: keyValues.optional(),
  OTEL_TRACES_SAMPLER: z.enum(TRACE_SAMPLERS).default('parentbased_always_on'),
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).optional(),
  OTEL_BSP_SCHEDULE_DELAY: z.coerce.number().int().min(0).default(5000),
  OTEL_BSP_EXPORT_TIMEOUT: positiveMs.default(30000),
  OTEL_BSP_MAX_QUEUE_SIZE: z.coerce.number().int().min(1).default(2048),
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE: z.coerce.number().int().min(1).default(512),
})

type Env = z.output<typeof EnvObject>

/** Which entry reads the environment: the edge never takes the development secrets. */
export interface LoadOptions {
  entry?: 'node' | 'edge'
}

/** Why the public development secrets are refused here, or undefined where they are accepted. */
function developmentSecretsRefused(env: Env, entry: LoadOptions['entry']): string | undefined {
  const refused = (where: string, hint = '') =>
    `development secret refused ${where}: set a real value${hint}`
  if (env.NODE_ENV === 'production') return refused('in production')
  if (entry === 'edge') return refused('by the edge entry')
  if (env.NODE_ENV === undefined) {
    return refused(
      'with NODE_ENV unset',
      ', or NODE_ENV=development on a developer machine (npm start sets it)',
    )
  }
  if (!LOOPBACK_HOSTS.has(env.HOST)) return refused(`on a non-loopback HOST (${env.HOST})`)
  return undefined
}

/** The checks across variables, each problem on the variable to change. */
const crossChecks = (entry: LoadOptions['entry']) => (env: Env, ctx: z.RefinementCtx) => {
  if (env.DATABASE_POOLER === 'transaction' && env.MIGRATE_ON_START) {
    // dbmate's migration lock is a session advisory lock, which a transaction pooler leaks.
    ctx.addIssue({
      code: 'custom',
      path: ['MIGRATE_ON_START'],
      message: 'refused with DATABASE_POOLER=transaction: run migrations against PostgreSQL itself',
    })
  }
  if (env.DATABASE_READ_URL && !env.DATABASE_URL) {
    ctx.addIssue({
      code: 'custom',
      path: ['DATABASE_READ_URL'],
      message: 'needs DATABASE_URL: the embedded database has no standbys',
    })
  }
  if (env.FLEET_BASE_URL && !env.FLEET_INTERNAL_TOKEN) {
    ctx.addIssue({
      code: 'custom',
      path: ['FLEET_INTERNAL_TOKEN'],
      message: 'required with FLEET_BASE_URL (sent as X-Internal-Token)',
    })
  }
  if (env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE > env.OTEL_BSP_MAX_QUEUE_SIZE) {
    ctx.addIssue({
      code: 'custom',
      path: ['OTEL_BSP_MAX_EXPORT_BATCH_SIZE'],
      message: 'must not exceed OTEL_BSP_MAX_QUEUE_SIZE',
    })
  }
  const activeKey = env.DATA_ENCRYPTION_KEY_ID
  if (activeKey && !env.DATA_ENCRYPTION_KEYS.has(activeKey)) {
    ctx.addIssue({
      code: 'custom',
      path: ['DATA_ENCRYPTION_KEY_ID'],
      message: 'must name one of DATA_ENCRYPTION_KEYS',
    })
  }
  const dataKeys = [...env.DATA_ENCRYPTION_KEYS.values()]
  if (dataKeys.some((k) => sameKey(k, env.BLIND_INDEX_KEY))) {
    ctx.addIssue({
      code: 'custom',
      path: ['BLIND_INDEX_KEY'],
      message: 'must differ from every DATA_ENCRYPTION_KEYS key',
    })
  }
  if ([...dataKeys, env.BLIND_INDEX_KEY].some((k) => sameKey(k, env.AUDIT_HMAC_KEY))) {
    ctx.addIssue({
      code: 'custom',
      path: ['AUDIT_HMAC_KEY'],
      message: 'must differ from BLIND_INDEX_KEY and every DATA_ENCRYPTION_KEYS key',
    })
  }
  // The development secrets are public (they are in this repository): anyone could mint a token
  // for any administrator with them. A loopback HOST alone does not make a service private (a
  // same-host reverse proxy, or Deno.serve, which binds every interface whatever HOST says), so
  // they also need NODE_ENV=development or test, said explicitly.
  const refusal = developmentSecretsRefused(env, entry)
  const devValues: [string, boolean][] = [
    [
      'AUTH_JWT_SECRET',
      (env.AUTH_JWT_SECRET ?? DEV_SECRETS.AUTH_JWT_SECRET) === DEV_SECRETS.AUTH_JWT_SECRET &&
        !env.AUTH_JWKS_URL,
    ],
    [
      'DATA_ENCRYPTION_KEYS',
      dataKeys.some((k) => sameKey(k, DEV_SECRETS.DATA_ENCRYPTION_KEYS.split(':')[1])),
    ],
    // Compared as the bytes the keys decode to: the text may be respelled (no `=`, white space).
    ['BLIND_INDEX_KEY', sameKey(env.BLIND_INDEX_KEY, DEV_SECRETS.BLIND_INDEX_KEY)],
    ['AUDIT_HMAC_KEY', sameKey(env.AUDIT_HMAC_KEY, DEV_SECRETS.AUDIT_HMAC_KEY)],
    ['INTERNAL_TOKEN', env.INTERNAL_TOKEN === DEV_SECRETS.INTERNAL_TOKEN],
  ]
  for (const [name, isDev] of devValues) {
    if (isDev && refusal) ctx.addIssue({ code: 'custom', path: [name], message: refusal })
  }
  if (env.NODE_ENV !== 'production') return
  const production = (path: string, message: string) =>
    ctx.addIssue({ code: 'custom', path: [path], message: `${message} in production` })
  if (!env.DATABASE_URL)
    production('DATABASE_URL', 'required (the embedded database is for development)')
  if (env.DEMO_DATA)
    production('DEMO_DATA', 'refused (it grants a demo administrator every permission)')
  if (env.AUTH_JWKS_URL && !env.AUTH_JWKS_URL.startsWith('https:'))
    production('AUTH_JWKS_URL', 'must be https')
  if (env.PERMISSION_SERVICE_URL && !env.PERMISSION_SERVICE_URL.startsWith('https:')) {
    production('PERMISSION_SERVICE_URL', 'must be https')
  }
  if (env.FINANCE_CLEARANCE_URL && !env.FINANCE_CLEARANCE_URL.startsWith('https:')) {
    production('FINANCE_CLEARANCE_URL', 'must be https')
  }
  if (env.FLEET_BASE_URL && !env.FLEET_BASE_URL.startsWith('https:'))
    production('FLEET_BASE_URL', 'must be https')
  if (env.AUTH_JWKS_URL && (!env.AUTH_JWT_AUDIENCE || !env.AUTH_JWT_ISSUER)) {
    // Without them, a token the shared identity provider issued to any other app would do.
    production(
      env.AUTH_JWT_AUDIENCE ? 'AUTH_JWT_ISSUER' : 'AUTH_JWT_AUDIENCE',
      'required with AUTH_JWKS_URL',
    )
  }
}

const EnvSchema = {
  node: EnvObject.superRefine(crossChecks('node')),
  edge: EnvObject.superRefine(crossChecks('edge')),
}

export type Config = ReturnType<typeof toConfig>

/**
 * Tracing from the OTEL_* variables. Off unless an exporter is named (OTEL_TRACES_EXPORTER) or an
 * OTLP endpoint is set, and always off with OTEL_SDK_DISABLED=true; a signal-specific variable
 * (…_TRACES_…) wins over the general one, as the specification says.
 */
function tracingConfig(env: Env) {
  const endpointSet = Boolean(
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT,
  )
  const exporters = env.OTEL_TRACES_EXPORTER ?? (endpointSet ? ['otlp' as const] : [])
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT
  const sampler = env.OTEL_TRACES_SAMPLER
  const { 'service.name': attributeName, ...resourceAttributes } =
    env.OTEL_RESOURCE_ATTRIBUTES ?? {}
  return {
    enabled: !env.OTEL_SDK_DISABLED && exporters.length > 0,
    exporters,
    otlp: {
      /** The traces URL as given, or the general endpoint with `v1/traces` appended. */
      url:
        env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
        (base ? `${base.replace(/\/*$/, '')}/v1/traces` : 'http://localhost:4318/v1/traces'),
      protocol:
        env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ??
        env.OTEL_EXPORTER_OTLP_PROTOCOL ??
        ('http/protobuf' as const),
      /** Sent with every export (a collector's API key, say): never logged. */
      headers: { ...env.OTEL_EXPORTER_OTLP_HEADERS, ...env.OTEL_EXPORTER_OTLP_TRACES_HEADERS },
      timeoutMs: env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT ?? env.OTEL_EXPORTER_OTLP_TIMEOUT ?? 10000,
      compression:
        env.OTEL_EXPORTER_OTLP_TRACES_COMPRESSION ?? env.OTEL_EXPORTER_OTLP_COMPRESSION ?? 'none',
    },
    serviceName: env.OTEL_SERVICE_NAME ?? attributeName ?? 'supplier-admin',
    resourceAttributes,
    sampler: {
      name: sampler,
      /** Share of traces sampled by the ratio samplers (OTEL_TRACES_SAMPLER_ARG, default 1). */
      ratio: env.OTEL_TRACES_SAMPLER_ARG ?? 1,
    },
    batch: {
      scheduledDelayMillis: env.OTEL_BSP_SCHEDULE_DELAY,
      exportTimeoutMillis: env.OTEL_BSP_EXPORT_TIMEOUT,
      maxQueueSize: env.OTEL_BSP_MAX_QUEUE_SIZE,
      maxExportBatchSize: env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE,
    },
  }
}

export type TracingConfig = ReturnType<typeof tracingConfig>

/**
 * The bounds every layer derives from the one request deadline. The server-side ones sit a
 * margin below it (a tenth, 100 ms to 1 s), so that a statement that waits or runs too long is
 * ended by the server, which answers on a connection that stays clean, before the request
 * deadline answers for it; a lock wait ends one more margin earlier, so it is reported as one.
 * A transaction may sit idle on the server no longer than a whole request (a fleet call inside
 * the resource page's read is the longest legitimate pause). The client side waits for silence
 * of the whole deadline before it destroys a connection: by then the server would have answered.
 */
export function deadlineBounds(requestTimeoutMs: number) {
  const margin = Math.min(1000, Math.max(100, Math.round(requestTimeoutMs / 10)))
  const statementTimeoutMs = requestTimeoutMs - margin
  return {
    requestTimeoutMs,
    statementTimeoutMs,
    lockTimeoutMs: statementTimeoutMs - margin,
    idleInTransactionTimeoutMs: requestTimeoutMs,
    answerTimeoutSeconds: requestTimeoutMs / 1000,
    connectTimeoutSeconds: requestTimeoutMs / 1000,
  }
}

function toConfig(env: Env) {
  const embedded = !env.DATABASE_URL
  const keys = env.DATA_ENCRYPTION_KEYS
  return {
    /** Undefined when NODE_ENV is unset: neither development nor test. */
    env: env.NODE_ENV,
    host: env.HOST,
    port: env.PORT,
    databaseUrl: env.DATABASE_URL,
    /** Connections of this process to DATABASE_URL (the embedded engine serves one session). */
    databasePoolMax: embedded ? 1 : env.DATABASE_POOL_MAX,
    /**
     * 'transaction': DATABASE_URL is a pooler in transaction mode (PgBouncer): no named prepared
     * statements, no session settings as start-up parameters, no migrations at start-up.
     */
    databasePooler: embedded ? ('none' as const) : env.DATABASE_POOLER,
    /**
     * Standbys the read-only routes read from, each `host:port` of DATABASE_READ_URL (its
     * target_session_attrs aside), and the replay lag beyond which the primary serves instead.
     */
    readReplicas: env.DATABASE_READ_URL
      ? {
          urls: databaseHosts(env.DATABASE_READ_URL).map((host) =>
            withHost(env.DATABASE_READ_URL!, host),
          ),
          maxLagMs: env.DATABASE_READ_MAX_LAG_MS,
        }
      : undefined,
    embedded,
    dataDir: env.DATA_DIR,
    embeddedDbPort: env.EMBEDDED_DB_PORT,
    /** Production deployments may run migrations as a deploy step instead. */
    migrateOnStart: env.MIGRATE_ON_START ?? (embedded || env.DATABASE_POOLER === 'none'),
    demoData: env.DEMO_DATA ?? embedded,
    demoAdminId: env.DEMO_ADMIN_ID,
    timezone: env.APP_TIMEZONE,
    auth: {
      jwtSecret: env.AUTH_JWKS_URL
        ? env.AUTH_JWT_SECRET
        : (env.AUTH_JWT_SECRET ?? DEV_SECRETS.AUTH_JWT_SECRET),
      jwksUrl: env.AUTH_JWKS_URL,
      issuer: env.AUTH_JWT_ISSUER,
      audience: env.AUTH_JWT_AUDIENCE,
      /** Longest accepted `exp − iat`: a stolen token is worth at most this long. */
      maxTokenLifetimeSeconds: env.AUTH_TOKEN_MAX_LIFETIME_SECONDS,
    },
    /** One deadline per request, and the database bounds derived from it. */
    deadline: deadlineBounds(env.REQUEST_TIMEOUT_MS),
    permissions: {
      serviceUrl: env.PERMISSION_SERVICE_URL,
      serviceToken: env.PERMISSION_SERVICE_TOKEN,
      timeoutMs: env.PERMISSION_TIMEOUT_MS,
      /** How long a granted read is remembered per administrator and route; 0 = never. */
      readCacheSeconds: env.PERMISSION_READ_CACHE_SECONDS,
    },
    /** No URL: the clearance port is "not connected" and archive answers 395032. */
    financeClearance: {
      url: env.FINANCE_CLEARANCE_URL,
      token: env.FINANCE_CLEARANCE_TOKEN,
      timeoutMs: env.FINANCE_CLEARANCE_TIMEOUT_MS,
    },
    crypto: {
      keys,
      activeKeyId: env.DATA_ENCRYPTION_KEY_ID ?? [...keys.keys()][0],
      blindIndexKey: env.BLIND_INDEX_KEY,
      /** HMAC key of the audit trail's hashes (change_log and approval_log rows). */
      auditKey: env.AUDIT_HMAC_KEY,
    },
    internalToken: env.INTERNAL_TOKEN,
    /** The fleet service; without baseUrl vehicles come from the local fleet_vehicle table. */
    fleet: {
      baseUrl: env.FLEET_BASE_URL,
      token: env.FLEET_INTERNAL_TOKEN,
      timeoutMs: env.FLEET_TIMEOUT_MS,
    },
    storageUrlPrefixes: env.STORAGE_URL_PREFIXES,
    duplicateNameThreshold: env.DUPLICATE_NAME_THRESHOLD,
    /** When no name contains a list keyword, pg_trgm similarity from which one matches; 0 = off. */
    keywordSimilarityThreshold: env.KEYWORD_SIMILARITY_THRESHOLD,
    duplicateConfirmTtlSeconds: env.DUPLICATE_CONFIRM_TTL_SECONDS,
    duplicateSubmitWindowSeconds: env.DUPLICATE_SUBMIT_WINDOW_SECONDS,
    idempotencyTtlHours: env.IDEMPOTENCY_TTL_HOURS,
    /** Approvals SUBMITTED or APPROVED for longer than this are reconciled by the sweep. */
    approvalReconcileAfterSeconds: env.APPROVAL_RECONCILE_AFTER_SECONDS,
    /** How often the sweep runs after the one at start-up; 0 runs it at start-up only. */
    approvalReconcileIntervalSeconds: env.APPROVAL_RECONCILE_INTERVAL_SECONDS,
    bodyLimitBytes: env.BODY_LIMIT_BYTES,
    /** Browser origins allowed to call the API; empty: no cross-origin access at all. */
    corsOrigins: env.CORS_ORIGINS,
    logLevel: env.LOG_LEVEL,
    /** Unset: pretty on a terminal, JSON otherwise (decided by the Node entry). */
    logFormat: env.LOG_FORMAT,
    metrics: {
      /** Bearer token of GET /metrics; unset, only loopback clients may scrape. */
      token: env.METRICS_TOKEN,
      /** Approvals SUBMITTED or APPROVED for longer than this count as stuck. */
      stuckApprovalAgeSeconds: env.STUCK_APPROVAL_AGE_SECONDS,
    },
    /** The domain events: how they are named as CloudEvents, and the relay to NATS JetStream. */
    events: {
      /** Unset: no relay; events stay PENDING in the outbox, as before it existed. */
      natsServers: env.EVENTS_NATS_URL,
      stream: env.EVENTS_NATS_STREAM,
      subjectPrefix: env.EVENTS_NATS_SUBJECT_PREFIX,
      duplicateWindowSeconds: env.EVENTS_NATS_DUPLICATE_WINDOW_SECONDS,
      typePrefix: env.EVENTS_TYPE_PREFIX,
      source: env.EVENTS_SOURCE,
      relayIntervalMs: env.EVENTS_RELAY_INTERVAL_MS,
      relayBatch: env.EVENTS_RELAY_BATCH,
      backoffMaxMs: env.EVENTS_RELAY_BACKOFF_MAX_MS,
    },
    /** How often the qualification-expiry reminders are swept (0: at start-up only). */
    qualificationExpirySweepSeconds: env.QUALIFICATION_EXPIRY_SWEEP_INTERVAL_SECONDS,
    /** OpenTelemetry traces (OTEL_*): off unless an exporter or an OTLP endpoint is set. */
    tracing: tracingConfig(env),
  }
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
    this.name = 'ConfigError'
  }
}

/**
 * Reads the environment once; every problem names its variable. Empty strings count as unset.
 * `entry: 'edge'` refuses the development secrets whatever NODE_ENV and HOST say.
 */
export function loadConfig(
  source: Record<string, string | undefined> = process.env,
  { entry = 'node' }: LoadOptions = {},
): Config {
  const env = Object.fromEntries(
    Object.entries(source).filter(([, v]) => v !== undefined && v !== ''),
  )
  const parsed = EnvSchema[entry].safeParse(env)
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((i) => `${i.path.join('.') || '(environment)'}: ${i.message}`),
    )
  }
  return toConfig(parsed.data)
}
