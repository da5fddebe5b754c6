import { spawn } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { ConfigError, DEV_SECRETS, loadConfig } from '../src/config'
import { assertCatalog, ERRORS, SUPPLIER_CODE_RANGE, SUPPLIER_ERRORS } from '../src/errors'

const REAL_DB = 'postgres://app@db.internal:5432/supplier?sslmode=verify-full'
const key32 = (fill: string) => btoa(fill.repeat(32).slice(0, 32))

/** Production settings with every secret replaced by a real value. */
const PRODUCTION = {
  NODE_ENV: 'production',
  DATABASE_URL: REAL_DB,
  AUTH_JWT_SECRET: 'prod-jwt-secret-0123456789-abcdefghijklmnop',
  DATA_ENCRYPTION_KEYS: `prod1:${key32('p')}`,
  BLIND_INDEX_KEY: key32('b'),
  AUDIT_HMAC_KEY: key32('a'),
  INTERNAL_TOKEN: 'prod-internal-token-0123456789',
}

/** loadConfig as the suite's processes get it: NODE_ENV=test unless `env` says otherwise. */
const load = (env: Record<string, string | undefined>) => loadConfig({ NODE_ENV: 'test', ...env })

/** The ConfigError thrown for this environment (fails the test if none is thrown). */
function configError(env: Record<string, string | undefined>): ConfigError {
  try {
    load(env)
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError)
    return err as ConfigError
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`)
}

describe('loadConfig', () => {
  it('DATABASE_READ_URL: one pool per standby it names', () => {
    const config = load({
      DATABASE_URL: REAL_DB,
      DATABASE_READ_URL: 'postgres://app@db2:5432,db3:5433/suppliers?sslmode=require',
    })
    expect(config.readReplicas).toEqual({
      urls: [
        'postgres://app@db2:5432/suppliers?sslmode=require',
        'postgres://app@db3:5433/suppliers?sslmode=require',
      ],
      maxLagMs: 1000,
    })
    expect(load({ DATABASE_URL: REAL_DB }).readReplicas).toBeUndefined()
  })

  it('DATABASE_URL may name a primary and its standbys, with target_session_attrs=read-write', () => {
    const url = 'postgres://app@db1:5432,db2:5433/suppliers?target_session_attrs=read-write'
    expect(load({ DATABASE_URL: url }).databaseUrl).toBe(`${url}&sslmode=prefer`)
  })

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://x'],
    ['DATABASE_URL', 'not a url'],
    ['DATABASE_READ_URL', 'postgres://app@db2/s?sslmode=disable'],
    ['DATABASE_READ_MAX_LAG_MS', '-1'],
    // Several hosts without a session attribute that keeps the pool on the primary.
    ['DATABASE_URL', 'postgres://app@db1:5432,db2:5432/suppliers?sslmode=disable'],
    ['DATABASE_URL', 'postgres://app@db1,db2/s?sslmode=disable&target_session_attrs=standby'],
    ['APP_TIMEZONE', 'Mars/Base'],
    ['DATA_ENCRYPTION_KEYS', 'k1:short'],
    ['DATA_ENCRYPTION_KEYS', 'no-colon-here'],
    ['DUPLICATE_NAME_THRESHOLD', '2'],
    ['DUPLICATE_NAME_THRESHOLD', '0'],
    ['KEYWORD_SIMILARITY_THRESHOLD', '1.5'],
    ['PERMISSION_READ_CACHE_SECONDS', '61'],
    ['PERMISSION_READ_CACHE_SECONDS', '-1'],
    ['REQUEST_TIMEOUT_MS', '499'],
    ['REQUEST_TIMEOUT_MS', '60001'],
    ['STORAGE_URL_PREFIXES', 'ftp://x'],
    ['BODY_LIMIT_BYTES', '10'],
    ['DEMO_ADMIN_ID', '0'],
    ['DEMO_DATA', 'yes'],
    ['AUTH_JWT_SECRET', 'too-short'],
    ['LOG_LEVEL', 'loud'],
  ])('%s=%j is refused with a message naming the variable', (name, value) => {
    const err = configError({ [name]: value })
    expect(err.message).toContain(name)
    expect(err.problems.some((p) => p.startsWith(name))).toBe(true)
  })

  it('one request deadline, 5 s by default, and the database bounds derived from it', () => {
    expect(load({}).deadline).toEqual({
      requestTimeoutMs: 5000,
      statementTimeoutMs: 4500,
      lockTimeoutMs: 4000,
      idleInTransactionTimeoutMs: 5000,
      answerTimeoutSeconds: 5,
      connectTimeoutSeconds: 5,
    })
    // The margin is a tenth of the deadline, kept between 100 ms and 1 s.
    expect(load({ REQUEST_TIMEOUT_MS: '500' }).deadline).toMatchObject({
      statementTimeoutMs: 400,
      lockTimeoutMs: 300,
    })
    expect(load({ REQUEST_TIMEOUT_MS: '60000' }).deadline).toMatchObject({
      statementTimeoutMs: 59000,
      lockTimeoutMs: 58000,
    })
  })

  it('migrates at start-up by default on the embedded engine and on a direct connection', () => {
    // DATABASE_POOLER describes DATABASE_URL; with no DATABASE_URL the embedded engine is used
    // and has no pooler in front of it, whatever the variable says.
    expect(load({ DATABASE_POOLER: 'transaction' }).migrateOnStart).toBe(true)
    expect(load({}).migrateOnStart).toBe(true)
    expect(load({ DATABASE_URL: REAL_DB }).migrateOnStart).toBe(true)
    expect(load({ DATABASE_URL: REAL_DB, DATABASE_POOLER: 'transaction' }).migrateOnStart).toBe(
      false,
    )
  })

  it('a DATA_ENCRYPTION_KEY_ID naming a key that is not listed is refused', () => {
    const err = configError({
      DATA_ENCRYPTION_KEYS: `k1:${key32('a')},k2:${key32('c')}`,
      DATA_ENCRYPTION_KEY_ID: 'k3',
    })
    expect(err.message).toContain('DATA_ENCRYPTION_KEY_ID')
  })

  it('a DATA_ENCRYPTION_KEY_ID naming a listed key selects it', () => {
    const config = load({
      DATA_ENCRYPTION_KEYS: `k1:${key32('a')},k2:${key32('c')}`,
      DATA_ENCRYPTION_KEY_ID: 'k2',
    })
    expect(config.crypto.activeKeyId).toBe('k2')
    expect([...config.crypto.keys.keys()]).toEqual(['k1', 'k2'])
  })

  it('every problem is reported at once, each naming its variable', () => {
    const err = configError({ PORT: 'abc', APP_TIMEZONE: 'Mars/Base', DATABASE_URL: 'mysql://x' })
    expect(err.problems).toHaveLength(3)
    for (const name of ['PORT', 'APP_TIMEZONE', 'DATABASE_URL']) expect(err.message).toContain(name)
  })

  it('production with the development secrets is refused, naming each of them', () => {
    const err = configError({ NODE_ENV: 'production', DATABASE_URL: REAL_DB })
    for (const name of Object.keys(DEV_SECRETS)) {
      expect(
        err.problems.some((p) => p.startsWith(`${name}:`)),
        name,
      ).toBe(true)
    }
    expect(err.message).not.toContain('DATABASE_URL')
  })

  it.each(Object.keys(DEV_SECRETS))(
    'production refuses %s when it is set to its development value',
    (name) => {
      const err = configError({
        ...PRODUCTION,
        [name]: DEV_SECRETS[name as keyof typeof DEV_SECRETS],
      })
      expect(err.problems).toHaveLength(1)
      expect(err.problems[0]).toMatch(new RegExp(`^${name}:`))
    },
  )

  it('production refuses to start without DATABASE_URL (embedded database)', () => {
    const err = configError({ ...PRODUCTION, DATABASE_URL: undefined })
    expect(err.problems).toHaveLength(1)
    expect(err.problems[0]).toMatch(/^DATABASE_URL:/)
  })

  it('production with real secrets and DATABASE_URL is accepted', () => {
    const config = load(PRODUCTION)
    expect(config.env).toBe('production')
    expect(config.embedded).toBe(false)
    expect(config.databaseUrl).toBe(REAL_DB)
    expect(config.auth.jwtSecret).toBe(PRODUCTION.AUTH_JWT_SECRET)
    expect(config.crypto.activeKeyId).toBe('prod1')
    expect(config.demoData).toBe(false)
  })

  it('production with a JWKS URL needs no JWT secret', () => {
    const config = load({
      ...PRODUCTION,
      AUTH_JWT_SECRET: undefined,
      AUTH_JWKS_URL: 'https://id.example.com/.well-known/jwks.json',
      AUTH_JWT_ISSUER: 'https://id.example.com',
      AUTH_JWT_AUDIENCE: 'supplier-admin',
    })
    expect(config.auth.jwksUrl).toBe('https://id.example.com/.well-known/jwks.json')
    expect(config.auth.jwtSecret).toBeUndefined()
  })

  it('production verifying JWKS tokens requires an audience and an issuer, and https', () => {
    const jwks = {
      ...PRODUCTION,
      AUTH_JWT_SECRET: undefined,
      AUTH_JWKS_URL: 'https://id.example.com/jwks',
    }
    expect(() => load(jwks)).toThrow(/AUTH_JWT_AUDIENCE: required with AUTH_JWKS_URL in production/)
    expect(() => load({ ...jwks, AUTH_JWT_AUDIENCE: 'supplier-admin' })).toThrow(/AUTH_JWT_ISSUER/)
    expect(() =>
      load({
        ...jwks,
        AUTH_JWKS_URL: 'http://id.example.com/jwks',
        AUTH_JWT_AUDIENCE: 'a',
        AUTH_JWT_ISSUER: 'i',
      }),
    ).toThrow(/AUTH_JWKS_URL: must be https/)
    expect(() => load({ ...PRODUCTION, PERMISSION_SERVICE_URL: 'http://perm.internal/' })).toThrow(
      /PERMISSION_SERVICE_URL: must be https/,
    )
    expect(() => load({ ...PRODUCTION, DEMO_DATA: 'true' })).toThrow(/DEMO_DATA: refused/)
  })

  it('with NODE_ENV unset, refuses to fall back on the development secrets, naming each', () => {
    const err = configError({ NODE_ENV: undefined })
    expect(err.problems).toHaveLength(Object.keys(DEV_SECRETS).length)
    for (const name of Object.keys(DEV_SECRETS)) {
      expect(err.problems, name).toContainEqual(
        `${name}: development secret refused with NODE_ENV unset: set a real value, ` +
          'or NODE_ENV=development on a developer machine (npm start sets it)',
      )
    }
    // Loopback changes nothing: a service behind a same-host proxy is bound to loopback.
    expect(configError({ NODE_ENV: undefined, HOST: '127.0.0.1' }).problems).toHaveLength(5)
  })

  it.each(Object.keys(DEV_SECRETS))(
    'with NODE_ENV unset, refuses %s set to its development value, and takes real ones',
    (name) => {
      const real = { ...PRODUCTION, NODE_ENV: undefined, DATABASE_URL: undefined }
      expect(load(real).env).toBeUndefined()
      const err = configError({ ...real, [name]: DEV_SECRETS[name as keyof typeof DEV_SECRETS] })
      expect(err.problems).toEqual([expect.stringMatching(new RegExp(`^${name}: `))])
    },
  )

  /** The development keys written as atob still decodes them to the same bytes. */
  const respelled = (key: string) => [key.replace(/=+$/, ''), ` ${key}`, `${key} `, `\t${key}`]

  it.each(['BLIND_INDEX_KEY', 'AUDIT_HMAC_KEY', 'DATA_ENCRYPTION_KEYS'] as const)(
    'with NODE_ENV unset, refuses %s respelled (no `=` padding, white space around): the bytes are compared',
    (name) => {
      const real = { ...PRODUCTION, NODE_ENV: undefined, DATABASE_URL: undefined }
      const [id, key] =
        name === 'DATA_ENCRYPTION_KEYS'
          ? DEV_SECRETS.DATA_ENCRYPTION_KEYS.split(':')
          : [undefined, DEV_SECRETS[name]]
      for (const spelling of respelled(key)) {
        const value = id ? `${id}:${spelling}` : spelling
        const err = configError({ ...real, [name]: value })
        expect(err.problems, JSON.stringify(value)).toEqual([
          expect.stringMatching(new RegExp(`^${name}: development secret refused`)),
        ])
      }
    },
  )

  it('one key respelled does not pass for another: blind-index and audit keys differ by bytes', () => {
    const key = btoa('k'.repeat(32))
    expect(() => load({ DATA_ENCRYPTION_KEYS: `k1:${key}`, BLIND_INDEX_KEY: ` ${key}` })).toThrow(
      /BLIND_INDEX_KEY: must differ/,
    )
    expect(() => load({ BLIND_INDEX_KEY: key, AUDIT_HMAC_KEY: key.replace(/=+$/, '') })).toThrow(
      /AUDIT_HMAC_KEY: must differ/,
    )
  })

  it.each(['development', 'test'])(
    'NODE_ENV=%s, said explicitly, takes the development secrets on a loopback HOST',
    (env) => {
      const config = load({ NODE_ENV: env })
      expect(config.env).toBe(env)
      expect(config.auth.jwtSecret).toBe(DEV_SECRETS.AUTH_JWT_SECRET)
      expect(config.internalToken).toBe(DEV_SECRETS.INTERNAL_TOKEN)
    },
  )

  it('the edge entry never takes the development secrets, whatever NODE_ENV and HOST say', () => {
    for (const env of ['development', 'test']) {
      let err: unknown
      try {
        loadConfig({ NODE_ENV: env, HOST: '127.0.0.1' }, { entry: 'edge' })
      } catch (e) {
        err = e
      }
      expect(err).toBeInstanceOf(ConfigError)
      expect((err as ConfigError).problems).toEqual(
        Object.keys(DEV_SECRETS).map(
          (name) => `${name}: development secret refused by the edge entry: set a real value`,
        ),
      )
    }
    const real = { ...PRODUCTION, NODE_ENV: 'development' }
    expect(loadConfig(real, { entry: 'edge' }).auth.jwtSecret).toBe(PRODUCTION.AUTH_JWT_SECRET)
  })

  it('refuses the public development secrets on a non-loopback HOST, even outside production', () => {
    expect(() => load({ HOST: '0.0.0.0', DATABASE_URL: 'postgres://app@db/suppliers' })).toThrow(
      /AUTH_JWT_SECRET: development secret refused on a non-loopback HOST/,
    )
    expect(load({ HOST: '127.0.0.1' }).host).toBe('127.0.0.1')
  })

  it('refuses a repeated or malformed encryption key id, and a blind-index key equal to a data key', () => {
    const key = btoa('k'.repeat(32))
    const other = btoa('o'.repeat(32))
    expect(() => load({ DATA_ENCRYPTION_KEYS: `k1:${key},k1:${other}` })).toThrow(/appears twice/)
    expect(() => load({ DATA_ENCRYPTION_KEYS: `k1:${key}:extra` })).toThrow(/DATA_ENCRYPTION_KEYS/)
    expect(() => load({ DATA_ENCRYPTION_KEYS: `k1:${key}`, BLIND_INDEX_KEY: key })).toThrow(
      /BLIND_INDEX_KEY: must differ/,
    )
    expect(() => load({ BLIND_INDEX_KEY: key, AUDIT_HMAC_KEY: key })).toThrow(
      /AUDIT_HMAC_KEY: must differ/,
    )
    expect(() => load({ AUDIT_HMAC_KEY: btoa('short') })).toThrow(/AUDIT_HMAC_KEY: must be/)
  })

  it('empty strings count as unset', () => {
    const config = load({
      PORT: '',
      DATABASE_URL: '',
      APP_TIMEZONE: '',
      DEMO_ADMIN_ID: '',
      DATA_ENCRYPTION_KEYS: '',
      DEMO_DATA: '',
    })
    expect(config.port).toBe(8787)
    expect(config.embedded).toBe(true)
    expect(config.databaseUrl).toBeUndefined()
    expect(config.timezone).toBe('Asia/Shanghai')
    expect(config.demoAdminId).toBe('10001')
    expect(config.demoData).toBe(true)
    // An empty secret in production is the development default, and so refused.
    const err = configError({ ...PRODUCTION, INTERNAL_TOKEN: '' })
    expect(err.problems).toEqual([expect.stringMatching(/^INTERNAL_TOKEN:/)])
  })

  it('defaults: PORT 8787, DEMO_ADMIN_ID 10001, APP_TIMEZONE Asia/Shanghai, embedded demo data', () => {
    const config = load({ NODE_ENV: 'development' })
    expect(config.port).toBe(8787)
    expect(config.host).toBe('127.0.0.1')
    expect(config.demoAdminId).toBe('10001')
    expect(config.timezone).toBe('Asia/Shanghai')
    expect(config.env).toBe('development')
    expect(config.embedded).toBe(true)
    expect(config.demoData).toBe(true)
    expect(config.auth.jwtSecret).toBe(DEV_SECRETS.AUTH_JWT_SECRET)
    expect(config.bodyLimitBytes).toBe(48 * 1024 * 1024)
    expect(config.duplicateNameThreshold).toBe(0.8)
  })

  it('demo data is off on a real database unless DEMO_DATA=true turns it on', () => {
    expect(load({ DATABASE_URL: REAL_DB }).demoData).toBe(false)
    expect(load({ DATABASE_URL: REAL_DB, DEMO_DATA: 'true' }).demoData).toBe(true)
    expect(load({ DATABASE_URL: REAL_DB, DEMO_DATA: '1' }).demoData).toBe(true)
    expect(load({ DEMO_DATA: 'false' }).demoData).toBe(false)
  })

  it('reads process.env when given no argument', () => {
    const saved = process.env.APP_TIMEZONE
    process.env.APP_TIMEZONE = 'Europe/Paris'
    try {
      expect(loadConfig().timezone).toBe('Europe/Paris')
    } finally {
      if (saved === undefined) delete process.env.APP_TIMEZONE
      else process.env.APP_TIMEZONE = saved
    }
  })
})

describe('tracing configuration (OTEL_*)', () => {
  const tracing = (env: Record<string, string>) => load(env).tracing

  it('is off by default, and with OTEL_TRACES_EXPORTER=none or OTEL_SDK_DISABLED=true', () => {
    expect(tracing({}).enabled).toBe(false)
    expect(tracing({ OTEL_TRACES_EXPORTER: 'none' }).enabled).toBe(false)
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }
    expect(tracing({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' }).enabled).toBe(false)
    expect(tracing({ ...endpoint, OTEL_SDK_DISABLED: 'true' }).enabled).toBe(false)
  })

  it('is on once an exporter is named or an OTLP endpoint is set, with the specification defaults', () => {
    expect(tracing({ OTEL_TRACES_EXPORTER: 'otlp' })).toMatchObject({
      enabled: true,
      exporters: ['otlp'],
      otlp: {
        url: 'http://localhost:4318/v1/traces',
        protocol: 'http/protobuf',
        headers: {},
        timeoutMs: 10000,
        compression: 'none',
      },
      serviceName: 'supplier-admin',
      sampler: { name: 'parentbased_always_on', ratio: 1 },
      batch: { scheduledDelayMillis: 5000, maxQueueSize: 2048, maxExportBatchSize: 512 },
    })
    expect(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toMatchObject({
      enabled: true,
      exporters: ['otlp'],
      otlp: { url: 'http://collector:4318/v1/traces' },
    })
    expect(tracing({ OTEL_TRACES_EXPORTER: 'console,otlp' }).exporters).toEqual(['console', 'otlp'])
  })

  it('a signal-specific variable wins over the general one', () => {
    const t = tracing({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://general:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example.com/custom/path',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-team=supply,api-key=general',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'api-key=s3cr%3Dt',
      OTEL_EXPORTER_OTLP_TIMEOUT: '2000',
      OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '3000',
      OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: 'gzip',
      OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-attributes,deployment.environment.name=prod',
      OTEL_SERVICE_NAME: 'supplier-admin-eu',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
    })
    expect(t).toMatchObject({
      otlp: {
        url: 'https://traces.example.com/custom/path',
        protocol: 'http/json',
        headers: { 'x-team': 'supply', 'api-key': 's3cr=t' },
        timeoutMs: 3000,
        compression: 'gzip',
      },
      serviceName: 'supplier-admin-eu',
      resourceAttributes: { 'deployment.environment.name': 'prod' },
      sampler: { name: 'parentbased_traceidratio', ratio: 0.25 },
    })
    expect(tracing({ OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-attributes' }).serviceName).toBe(
      'from-attributes',
    )
  })

  it('refuses what it cannot honour, naming the variable and never echoing a header value', () => {
    for (const [name, value] of [
      ['OTEL_TRACES_EXPORTER', 'zipkin'],
      ['OTEL_EXPORTER_OTLP_PROTOCOL', 'grpc'],
      ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'collector:4318'],
      ['OTEL_TRACES_SAMPLER', 'sometimes'],
      ['OTEL_TRACES_SAMPLER_ARG', '1.5'],
      ['OTEL_BSP_MAX_EXPORT_BATCH_SIZE', '4096'],
    ]) {
      expect(configError({ [name]: value }).problems.join('\n'), name).toMatch(
        new RegExp(`^${name}: `),
      )
    }
    const headers = configError({ OTEL_EXPORTER_OTLP_HEADERS: 'api-key=secret-value%zz' })
    expect(headers.problems).toEqual([
      'OTEL_EXPORTER_OTLP_HEADERS: expected "key=value[,key=value…]" (values URL-encoded)',
    ])
  })
})

describe('start-up through the real entry point', () => {
  it('exits non-zero with stderr naming PORT when PORT=abc', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: 'abc', NODE_ENV: 'development' }
    delete env.DATABASE_URL
    const child = spawn('npx', ['tsx', 'src/main.ts'], {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      // Own process group, so that a run that wrongly starts can be stopped with its children.
      detached: true,
    })
    let stderr = ''
    let stdout = ''
    child.stderr.on('data', (chunk) => (stderr += chunk))
    child.stdout.on('data', (chunk) => (stdout += chunk))
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => {
        process.kill(-child.pid!, 'SIGKILL')
        resolve(null)
      }, 18_000)
      child.on('exit', (exitCode) => {
        clearTimeout(timer)
        resolve(exitCode)
      })
    })
    expect(code, `still running after 18 s; stdout: ${stdout}`).not.toBeNull()
    expect(code).not.toBe(0)
    expect(stderr).toContain('PORT')
    expect(stdout).not.toContain('serving')
  }, 20_000)
})

describe('start-up without NODE_ENV', () => {
  const ROOT = fileURLToPath(new URL('..', import.meta.url))
  // By absolute URL, so that the loader is found from a working directory outside the repository.
  const TSX = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href

  /**
   * Runs an entry to its exit in `cwd`, with `env` over a bare shell's. Each run stops at its
   * configuration, in seconds; the 60 s before it is killed are for a loaded machine (tsx's
   * compile of the entry has taken 18 s there).
   */
  async function startUp(entry: string, env: NodeJS.ProcessEnv, cwd = ROOT) {
    const { NODE_ENV: _vitest, DATABASE_URL: _db, ...shell } = process.env
    const dataDir = await mkdtemp(join(tmpdir(), 'supplier-env-'))
    const child = spawn(process.execPath, ['--import', TSX, join(ROOT, entry)], {
      cwd,
      env: { ...shell, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
    clearTimeout(timer)
    await rm(dataDir, { recursive: true, force: true })
    return { code, output }
  }

  it('src/main.ts with no NODE_ENV and no secrets refuses, naming every secret', async () => {
    const { code, output } = await startUp('src/main.ts', {})
    expect(code).toBe(78)
    expect(output).toContain('start-up failed: invalid configuration: ')
    for (const name of Object.keys(DEV_SECRETS)) {
      expect(output).toContain(`${name}: development secret refused with NODE_ENV unset`)
    }
    expect(output).toContain('NODE_ENV=development')
    expect(output).not.toContain('serving')
  }, 90_000)

  it("npm start's entry sets NODE_ENV=development, unless the environment or .env names another", async () => {
    const start = (
      JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
        scripts: Record<string, string>
      }
    ).scripts.start
    expect(start).toBe('node --import tsx src/dev.ts')
    // Stopped at once by a FLEET_BASE_URL without its token, a problem found with the secrets':
    // the same start through src/main.ts names them too, through npm start's entry it does not.
    const fleetOnly = { FLEET_BASE_URL: 'http://127.0.0.1:9' }
    const bare = await startUp('src/main.ts', fleetOnly)
    expect(bare.output).toContain('FLEET_INTERNAL_TOKEN: required with FLEET_BASE_URL')
    expect(bare.output).toContain('AUTH_JWT_SECRET: development secret refused')
    const development = await startUp('src/dev.ts', fleetOnly)
    expect(development.code).toBe(78)
    expect(development.output).toContain('FLEET_INTERNAL_TOKEN: required with FLEET_BASE_URL')
    expect(development.output).not.toContain('development secret refused')
    // The environment wins, and so does a .env in the working directory.
    const production = await startUp('src/dev.ts', { NODE_ENV: 'production' })
    expect(production.output).toContain('AUTH_JWT_SECRET: development secret refused in production')
    const dir = await mkdtemp(join(tmpdir(), 'supplier-dotenv-'))
    try {
      await writeFile(join(dir, '.env'), 'NODE_ENV=production\n')
      const dotEnv = await startUp('src/dev.ts', {}, dir)
      expect(dotEnv.output).toContain('AUTH_JWT_SECRET: development secret refused in production')
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }, 360_000)
})

describe('error catalog', () => {
  it('assertCatalog passes on the real catalog', () => {
    expect(() => assertCatalog()).not.toThrow()
    expect(() => assertCatalog(SUPPLIER_ERRORS)).not.toThrow()
  })

  it('assertCatalog throws on a duplicate code, naming both entries', () => {
    expect(() =>
      assertCatalog({ FIRST: { code: 395010 }, SECOND: { code: 395011 }, THIRD: { code: 395010 } }),
    ).toThrow(/FIRST.*THIRD.*395010/)
  })

  it.each([395000, 395040, 400, 0, -395001])(
    'assertCatalog throws on code %i outside 395001..395039',
    (code) => {
      expect(() => assertCatalog({ OK: { code: 395001 }, OUTSIDE: { code } })).toThrow(/OUTSIDE/)
    },
  )

  it('accepts the bounds 395001 and 395039', () => {
    expect(() => assertCatalog({ LOW: { code: 395001 }, HIGH: { code: 395039 } })).not.toThrow()
  })

  it('every supplier code is unique, in range, and has a message', () => {
    const entries = Object.entries(SUPPLIER_ERRORS)
    const codes = entries.map(([, e]) => e.code)
    expect(new Set(codes).size).toBe(codes.length)
    for (const [name, { code, message }] of entries) {
      expect(code, name).toBeGreaterThanOrEqual(SUPPLIER_CODE_RANGE.min)
      expect(code, name).toBeLessThanOrEqual(SUPPLIER_CODE_RANGE.max)
      expect(message.length, name).toBeGreaterThan(0)
    }
    expect(SUPPLIER_CODE_RANGE).toEqual({ min: 395001, max: 395039 })
  })

  it('protocol codes are the HTTP ones and never collide with supplier codes', () => {
    expect(ERRORS.BAD_REQUEST.code).toBe(400)
    expect(ERRORS.UNAUTHORIZED.code).toBe(401)
    expect(ERRORS.NOT_FOUND.code).toBe(404)
    expect(ERRORS.INTERNAL.code).toBe(500)
    const all = Object.values(ERRORS).map((e) => e.code)
    expect(new Set(all).size).toBe(all.length)
  })

  it('the codes fixed by the spec are what the spec says', () => {
    expect(SUPPLIER_ERRORS.SUPPLIER_NOT_FOUND.code).toBe(395001)
    expect(SUPPLIER_ERRORS.SUPPLIER_STATUS_TRANSITION_INVALID.code).toBe(395005)
    expect(SUPPLIER_ERRORS.CONCURRENT_MODIFICATION.code).toBe(395014)
    expect(SUPPLIER_ERRORS.APPROVAL_CONTROL_ID_MISSING.code).toBe(395019)
    expect(SUPPLIER_ERRORS.ARCHIVE_CLEARANCE_UNAVAILABLE.code).toBe(395032)
    expect(SUPPLIER_ERRORS.RESOURCE_MODULE_UNSUPPORTED).toEqual({
      code: 395034,
      message: 'unsupported resource module',
    })
    expect(SUPPLIER_ERRORS.DEPENDENCY_UNAVAILABLE.code).toBe(395039)
  })

  it('permission denied has its own documented code', () => {
    expect(SUPPLIER_ERRORS.PERMISSION_DENIED.code).toBe(395002)
  })
})
