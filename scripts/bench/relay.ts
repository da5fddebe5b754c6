import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { loadavg } from 'node:os'
import { sign } from 'hono/jwt'
import pino from 'pino'
import { jetstreamManager } from '@nats-io/jetstream'
import { connect as natsConnect } from '@nats-io/transport-node'
import type postgres from 'postgres'
import { connect } from '../../sql/db'
import { insertEvent, pendingEventStats } from '../../sql/outbox'
import { loadConfig } from '../../src/config'
import { migrate } from '../../src/db/migrate'
import { createEventRelay } from '../../src/domain/events/relay'
import { registrationName } from './names'
import { registrationForm } from './registration-form'

/*
 * npm run bench -- --only-relay: whether the event relay keeps up with the write path. On a
 * database of its own (made afresh) and a stream of its own on the machine's NATS
 * (BENCH_NATS_URL, else nats://127.0.0.1:4222), `clients` connections record events as fast as
 * they can for `seconds`, each a supplier's chain of three transactions of one event each (the
 * write path's shape: a supplier's events one after the other), while the relay runs as the
 * service runs it (its defaults: a round every second, batches of 100). It reports events
 * committed per second, events published per second over the same window, the backlog and the
 * age of its oldest event when the writers stop, and how long the relay then takes to drain it.
 */

export interface RelayFigures {
  clients: number
  seconds: number
  committedPerSecond: number
  publishedPerSecond: number
  backlogAtEnd: number
  oldestAgeAtEndSeconds: number
  drainSeconds: number
  /** The backlog sampled every second of the run: bounded when the relay keeps up. */
  backlogSamples: number[]
  batch: number
  load: string
}

const NATS = process.env.BENCH_NATS_URL ?? 'nats://127.0.0.1:4222'

async function writer(
  sql: postgres.Sql,
  until: number,
  supplierBase: bigint,
  counter: { n: number },
) {
  let next = supplierBase
  while (Date.now() < until) {
    const supplierId = String(next++)
    for (let op = 1; op <= 3; op++) {
      await sql.begin((tx) =>
        insertEvent(tx, {
          aggregateType: 'SUPPLIER',
          aggregateId: supplierId,
          eventType: 'SupplierDraftDeleted',
          payload: { supplierId, operatorId: String(op) },
        }),
      )
      counter.n++
    }
  }
}

export async function relayBench(opts: {
  baseUrl: string
  seconds: number
  clients: number
  /** EVENTS_RELAY_BATCH, else its default. */
  batch?: number
}): Promise<RelayFigures> {
  const name = `bench_relay_${process.pid}`
  const admin = connect({ url: opts.baseUrl, max: 1, timezone: 'UTC' })
  await admin.unsafe(`DROP DATABASE IF EXISTS ${name}`)
  await admin.unsafe(`CREATE DATABASE ${name}`)
  const u = new URL(opts.baseUrl)
  u.pathname = `/${name}`
  const url = u.toString()
  const tag = randomBytes(4).toString('hex').toUpperCase()
  const events = {
    ...loadConfig({ NODE_ENV: 'test' }).events,
    natsServers: [NATS],
    stream: `BENCH_RELAY_${tag}`,
    subjectPrefix: `bench.${tag.toLowerCase()}.events`,
    ...(opts.batch && { relayBatch: opts.batch }),
  }
  // As the service: its pool for the writers, the relay on the same pool.
  const sql = connect({ url, max: opts.clients + 2, timezone: 'UTC' })
  const relay = createEventRelay({ sql, logger: pino({ level: 'warn' }), config: { events } })
  try {
    await migrate(url)
    relay.start()
    const counter = { n: 0 }
    const started = Date.now()
    const until = started + opts.seconds * 1000
    const [{ t0 }] = await sql<{ t0: string }[]>`SELECT clock_timestamp()::text AS t0`
    const backlogSamples: number[] = []
    const sampler = setInterval(() => {
      void pendingEventStats(sql).then((s) => backlogSamples.push(s.pending))
    }, 1000)
    await Promise.all(
      Array.from({ length: opts.clients }, (_, i) =>
        writer(sql, until, 9_007_199_254_740_993n + BigInt(i) * 10_000_000n, counter),
      ),
    )
    const elapsed = (Date.now() - started) / 1000
    clearInterval(sampler)
    const stats = await pendingEventStats(sql)
    const [{ published }] = await sql<{ published: number }[]>`
      SELECT count(*)::int AS published FROM domain_event
      WHERE status = 'PUBLISHED' AND published_at <= clock_timestamp() AND published_at >= ${t0}::timestamptz`
    const drainStart = Date.now()
    while ((await pendingEventStats(sql)).pending > 0) await new Promise((r) => setTimeout(r, 50))
    const drainSeconds = (Date.now() - drainStart) / 1000
    const [load] = loadavg()
    return {
      clients: opts.clients,
      seconds: Math.round(elapsed * 10) / 10,
      committedPerSecond: Math.round(counter.n / elapsed),
      publishedPerSecond: Math.round(published / elapsed),
      backlogAtEnd: stats.pending,
      oldestAgeAtEndSeconds: Math.round(stats.oldestAgeSeconds * 100) / 100,
      drainSeconds: Math.round(drainSeconds * 100) / 100,
      backlogSamples,
      batch: events.relayBatch,
      load: load.toFixed(2),
    }
  } finally {
    await relay.stop()
    await sql.end({ timeout: 5 })
    const nc = await natsConnect({ servers: NATS })
    await (await jetstreamManager(nc)).streams.delete(events.stream).catch(() => false)
    await nc.close()
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name}`)
    await admin.end({ timeout: 5 })
  }
}

/** The figures as the table row of docs/benchmarks.md. */
export const relayRow = (f: RelayFigures) =>
  `| ${f.clients} | ${f.batch} | ${f.seconds} | ${f.committedPerSecond} | ${f.publishedPerSecond} | ${f.backlogAtEnd} | ${f.oldestAgeAtEndSeconds} | ${f.drainSeconds} | ${Math.max(...f.backlogSamples)} | ${f.load} |`

export interface ServiceRelayFigures {
  clients: number
  seconds: number
  registeredPerSecond: number
  failures: number
  /** Non-success answers by business code. */
  failedCodes: Record<number, number>
  committedPerSecond: number
  publishedPerSecond: number
  backlogAtEnd: number
  oldestAgeAtEndSeconds: number
  drainSeconds: number
  backlogSamples: number[]
  load: string
}

/**
 * The same question at the registration benchmark's load, through the service: its real entry
 * point in its own process with the relay on (EVENTS_NATS_URL), `clients` loops each registering
 * suppliers (create the draft, then submit it: LOCAL_AUTO approval, so the supplier is activated
 * in the submit) for `seconds`, on a freshly migrated database with the demo administrator.
 */
export async function relayServiceBench(opts: {
  baseUrl: string
  seconds: number
  clients: number
}): Promise<ServiceRelayFigures> {
  const name = `bench_relay_svc_${process.pid}`
  const admin = connect({ url: opts.baseUrl, max: 1, timezone: 'UTC' })
  await admin.unsafe(`DROP DATABASE IF EXISTS ${name}`)
  await admin.unsafe(`CREATE DATABASE ${name}`)
  const u = new URL(opts.baseUrl)
  u.pathname = `/${name}`
  const url = u.toString()
  const tag = randomBytes(4).toString('hex').toUpperCase()
  const stream = `BENCH_RELAY_${tag}`
  const config = loadConfig({ NODE_ENV: 'development' })
  const port = 20_000 + (process.pid % 10_000)
  await migrate(url)
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: {
      ...process.env,
      NODE_ENV: 'development',
      DATABASE_URL: url,
      DEMO_DATA: 'true',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      FLEET_BASE_URL: 'http://127.0.0.1:1',
      FLEET_INTERNAL_TOKEN: 'bench-fleet-internal-token',
      EVENTS_NATS_URL: NATS,
      EVENTS_NATS_STREAM: stream,
      EVENTS_NATS_SUBJECT_PREFIX: `bench.${tag.toLowerCase()}.events`,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const sql = connect({ url, max: 2, timezone: 'UTC' })
  const base = `http://127.0.0.1:${port}`
  try {
    for (let i = 0; ; i++) {
      const up = await fetch(`${base}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
      if (up) break
      if (i > 600 || child.exitCode !== null) throw new Error('the service did not start')
      await new Promise((r) => setTimeout(r, 100))
    }
    const now = Math.floor(Date.now() / 1000)
    const token = await sign(
      { sub: config.demoAdminId, iat: now, exp: now + 3600 },
      config.auth.jwtSecret!,
      'HS256',
    )
    const headers = {
      authorization: `Bearer ${token}`,
      'x-admin-id': config.demoAdminId,
      'content-type': 'application/json',
    }
    const post = async (path: string, body: object) => {
      const res = await fetch(`${base}${path}`, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
      })
      return (await res.json()) as { code: number; data?: Record<string, string> }
    }
    /** Sends `body`, and once more with the confirm token when it looks like a company (395006). */
    const confirmed = async (path: string, body: Record<string, unknown>) => {
      const first = await post(path, body)
      const confirmToken = first.data?.duplicateConfirmToken
      return first.code === 395006 && confirmToken
        ? post(path, { ...body, duplicateConfirmToken: confirmToken })
        : first
    }
    let registered = 0
    let failures = 0
    const failedCodes: Record<number, number> = {}
    let n = 0
    const run = String(Date.now() % 1_000_000)
    const [{ before }] = await sql<{ before: number }[]>`
      SELECT count(*)::int AS before FROM domain_event`
    const backlogSamples: number[] = []
    const sampler = setInterval(() => {
      void pendingEventStats(sql).then((s) => backlogSamples.push(s.pending))
    }, 1000)
    const started = Date.now()
    const until = started + opts.seconds * 1000
    const [{ t0 }] = await sql<{ t0: string }[]>`SELECT clock_timestamp()::text AS t0`
    await Promise.all(
      Array.from({ length: opts.clients }, async () => {
        while (Date.now() < until) {
          const form = registrationForm(registrationName(), `${run}${String(n++).padStart(8, '0')}`)
          const draft = await confirmed('/admin/supplier/items', form)
          if (draft.code !== 200 || !draft.data) {
            failures++
            failedCodes[draft.code] = (failedCodes[draft.code] ?? 0) + 1
            continue
          }
          const submitted = await confirmed(
            `/admin/supplier/items/${draft.data.supplierId}/submit`,
            {
              ...form,
              expectedUpdateTime: draft.data.updateTime,
            },
          )
          if (submitted.code === 200) registered++
          else {
            failures++
            failedCodes[submitted.code] = (failedCodes[submitted.code] ?? 0) + 1
          }
        }
      }),
    )
    const elapsed = (Date.now() - started) / 1000
    clearInterval(sampler)
    const stats = await pendingEventStats(sql)
    const [{ committed, published }] = await sql<{ committed: number; published: number }[]>`
      SELECT count(*)::int - ${before}::int AS committed,
             count(*) FILTER (WHERE status = 'PUBLISHED' AND published_at >= ${t0}::timestamptz
                              AND published_at <= clock_timestamp())::int AS published
      FROM domain_event`
    const drainStart = Date.now()
    while ((await pendingEventStats(sql)).pending > 0) await new Promise((r) => setTimeout(r, 50))
    const drainSeconds = (Date.now() - drainStart) / 1000
    const [load] = loadavg()
    return {
      clients: opts.clients,
      seconds: Math.round(elapsed * 10) / 10,
      registeredPerSecond: Math.round((registered / elapsed) * 10) / 10,
      failures,
      failedCodes,
      committedPerSecond: Math.round(committed / elapsed),
      publishedPerSecond: Math.round(published / elapsed),
      backlogAtEnd: stats.pending,
      oldestAgeAtEndSeconds: Math.round(stats.oldestAgeSeconds * 100) / 100,
      drainSeconds: Math.round(drainSeconds * 100) / 100,
      backlogSamples,
      load: load.toFixed(2),
    }
  } finally {
    if (child.exitCode === null) {
      child.kill('SIGTERM')
      await once(child, 'exit')
    }
    await sql.end({ timeout: 5 })
    const nc = await natsConnect({ servers: NATS })
    await (await jetstreamManager(nc)).streams.delete(stream).catch(() => false)
    await nc.close()
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name}`)
    await admin.end({ timeout: 5 })
  }
}

/** The figures as the table row of docs/benchmarks.md (through the service). */
export const serviceRelayRow = (f: ServiceRelayFigures) =>
  `| ${f.clients} | ${f.seconds} | ${f.registeredPerSecond} | ${f.failures} | ${f.committedPerSecond} | ${f.publishedPerSecond} | ${f.backlogAtEnd} | ${f.oldestAgeAtEndSeconds} | ${f.drainSeconds} | ${Math.max(...f.backlogSamples)} | ${f.load} |`
