import { readdirSync, readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { sign } from 'hono/jwt'
import { connect } from '../../sql/db'
import { createApp } from '../../src/app'
import { loadConfig } from '../../src/config'
import { createCipher } from '../../src/crypto/sensitive'
import { createLogger } from '../../src/logger'
import { embeddedFleetResources } from '../../src/ports/fleet'
import { sqlPermissionLookup } from '../../src/ports/permission'
import { registrationName } from './names'
import { registrationForm } from './registration-form'

/*
 * What one registration costs, by side: `node --import tsx scripts/bench/registration-cost.ts
 * --url postgres://…/supplier_bench_10000 [--count 200]`. Registers `count` suppliers one after
 * another through an in-process app on a pool of ONE connection, and reads the CPU time of this
 * process and of that connection's backend (/proc/<pid>/stat), so the split between the service
 * and the database holds on a loaded machine (CPU time, not wall clock). Prints the statements of
 * one registration grouped by text, with their count and mean client-side latency, recorded on
 * a first sample of up to 50 registrations (the recording hook itself costs CPU: see `open`).
 */

const { values: opts } = parseArgs({
  options: {
    url: { type: 'string' },
    count: { type: 'string', default: '200' },
  },
})
if (!opts.url) throw new Error('--url postgres://… is required')
const COUNT = Number(opts.count)

const config = loadConfig({
  NODE_ENV: 'development',
  LOG_LEVEL: 'silent',
  FLEET_BASE_URL: 'http://127.0.0.1:1',
  FLEET_INTERNAL_TOKEN: 'registration-cost-token',
})

interface Sent {
  text: string
  at: number
}
const sent: Sent[] = []
let recording = false
/**
 * A pool of one connection and an app on it. postgres.js's statement hook (`debug`) makes every
 * query capture a stack trace (about 2 ms of CPU a registration): the statements are counted on
 * a pool of their own, the CPU measured on one without the hook.
 */
async function open(record: boolean) {
  const pool = connect({
    url: opts.url!,
    max: 1,
    timezone: config.timezone,
    ...(record
      ? {
          debug: (_c: number, text: string) => {
            if (recording) sent.push({ text, at: performance.now() })
          },
        }
      : {}),
  })
  const [{ pid }] = await pool<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`
  const app = createApp({
    config,
    sql: pool,
    logger: createLogger({ level: 'silent' }),
    cipher: await createCipher(config.crypto),
    permissions: sqlPermissionLookup(pool),
    fleet: embeddedFleetResources({ timezone: config.timezone }),
  })
  return { pool, pid, app }
}
let target = await open(true)
const ticks = () => {
  const f = readFileSync(`/proc/${target.pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return Number(f[11]) + Number(f[12]) // utime + stime, in clock ticks (100 a second)
}

const ADMIN = config.demoAdminId
const now = Math.floor(Date.now() / 1000)
const token = await sign({ sub: ADMIN, iat: now, exp: now + 3600 }, config.auth.jwtSecret!, 'HS256')
const headers = {
  authorization: `Bearer ${token}`,
  'x-admin-id': ADMIN,
  'content-type': 'application/json',
}

const run = String(Date.now() % 1e6).padStart(6, '0')

const form = (n: number) =>
  registrationForm(registrationName(), `${run}${String(n).padStart(9, '0')}`)

const post = async (path: string, body: unknown) => {
  const res = await target.app.request(path, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
  })
  return (await res.json()) as {
    success: boolean
    code: number
    message: string
    data: Record<string, string>
  }
}

const split = { create: 0, submit: 0 }
const cpuMs = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}
async function register(n: number) {
  const body: Record<string, unknown> = form(n)
  const c0 = cpuMs()
  let created = await post('/admin/supplier/items', body)
  if (!created.success && created.code === 395006) {
    body.duplicateConfirmToken = created.data.duplicateConfirmToken
    created = await post('/admin/supplier/items', body)
  }
  if (!created.success) throw new Error(`create: ${created.message}`)
  const c1 = cpuMs()
  const submitted = await post(`/admin/supplier/items/${created.data.supplierId}/submit`, {
    ...body,
    expectedUpdateTime: created.data.updateTime,
  })
  if (!submitted.success) throw new Error(`submit: ${submitted.message}`)
  split.create += c1 - c0
  split.submit += cpuMs() - c1
}

// The statements: a sample of registrations on the recording pool.
const SAMPLE = Math.min(COUNT, 50)
for (let i = 0; i < 5; i++) await register(i) // warm-up
recording = true
for (let i = 5; i < SAMPLE + 5; i++) await register(i)
recording = false
await target.pool.end()
// The CPU: every registration on a pool without the hook.
target = await open(false)
for (let i = SAMPLE + 5; i < SAMPLE + 10; i++) await register(i) // warm-up
split.create = split.submit = 0
const cpu0 = process.cpuUsage()
const t0 = performance.now()
const db0 = ticks()
for (let i = SAMPLE + 10; i < SAMPLE + COUNT + 10; i++) await register(i)
const wall = performance.now() - t0
const threads = () =>
  readdirSync('/proc/self/task').map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')
    const name = readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim()
    const f = stat.split(') ')[1].split(' ')
    return `${name}:${(Number(f[11]) + Number(f[12])) * 10}ms`
  })
console.log(threads().join(' '))
const db = (ticks() - db0) * 10
const cpu = process.cpuUsage(cpu0)
const perReg = (ms: number) => (ms / COUNT).toFixed(2)
console.log(
  `${COUNT} registrations: wall ${perReg(wall)} ms each; service CPU ${perReg((cpu.user + cpu.system) / 1000)} ms; ` +
    `database backend CPU ${perReg(db)} ms; statements ${(sent.length / SAMPLE).toFixed(1)} each`,
)
console.log(
  `service CPU by request: create ${perReg(split.create)} ms, submit ${perReg(split.submit)} ms`,
)
// Statement latency by text: the time until the next statement was sent (sequential pool).
const byText = new Map<string, { n: number; ms: number }>()
for (let i = 0; i + 1 < sent.length; i++) {
  const key = sent[i].text.replace(/\s+/g, ' ').slice(0, 110)
  const e = byText.get(key) ?? { n: 0, ms: 0 }
  e.n++
  e.ms += sent[i + 1].at - sent[i].at
  byText.set(key, e)
}
for (const [text, e] of [...byText].sort((a, b) => b[1].ms - a[1].ms)) {
  console.log(
    `${(e.n / SAMPLE).toFixed(1).padStart(5)} × ${(e.ms / e.n).toFixed(2).padStart(6)} ms  ${text}`,
  )
}
await target.pool.end()
