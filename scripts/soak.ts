import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import postgres from 'postgres'
import { grant } from '../sql/admin'
import { ALL_PERMISSIONS } from '../test/harness'
import { devHeaders, request, startService } from '../test/service'
import { draftBody } from '../test/supplier-data'

/**
 * Soak: the real service process on a fresh PostgreSQL database, about a minute of mixed reads
 * and writes from many clients on loopback. Passes when no answer was a 5xx or a dropped
 * connection, the service's connections stay within its pool and are not leaked, and its
 * memory stays flat. Needs DATABASE_URL (a server where it may create a database).
 *
 *   DATABASE_URL='postgres://postgres@127.0.0.1:5432/test?sslmode=disable' npm run soak
 *
 * SOAK_SECONDS (default 50) and SOAK_CLIENTS (default 16) tune it.
 */

const serverUrl = process.env.DATABASE_URL
if (!serverUrl) {
  console.error('soak: DATABASE_URL (a PostgreSQL server) is required')
  process.exit(2)
}
const SECONDS = Number(process.env.SOAK_SECONDS ?? 50)
const CLIENTS = Number(process.env.SOAK_CLIENTS ?? 16)
const POOL_MAX = 10
const SAMPLE_MS = 2_500

const name = `supplier_soak_${randomBytes(5).toString('hex')}`
const admin = postgres(serverUrl, { max: 1, onnotice: () => {} })
await admin.unsafe(`CREATE DATABASE ${name}`)
const url = new URL(serverUrl)
url.pathname = `/${name}`
const dbUrl = url.toString()
const db = postgres(dbUrl, { max: 1, onnotice: () => {} })

// LOG_LEVEL info: readiness is read from the 'serving' line.
const service = await startService({ DATABASE_URL: dbUrl, LOG_LEVEL: 'info' })
// Interrupted (Ctrl-C, a CI timeout): take the service down with us.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    service.child.kill('SIGKILL')
    process.exit(130)
  })
}
let failed = false
const problems: string[] = []
const fail = (why: string) => {
  failed = true
  problems.push(why)
}

try {
  await service.ready
  const admins = Array.from({ length: CLIENTS }, (_, i) => String(9007199254741100n + BigInt(i)))
  for (const id of admins) await grant(db, id, { permissions: ALL_PERMISSIONS, roles: ['ADMIN'] })

  // The service names its connections `supplier-admin <host>:<pid>`.
  const appName = `supplier-admin %:${service.child.pid}`
  const rss = () => {
    const status = readFileSync(`/proc/${service.child.pid}/status`, 'utf8')
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024
  }
  const connections = async () => {
    const [row] = await db<{ n: number }[]>`
      SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = ${name} AND application_name LIKE ${appName}`
    return row.n
  }

  const statuses: Record<string, number> = {}
  const codes: Record<string, number> = {}
  let requests = 0
  const until = Date.now() + SECONDS * 1000

  const client = async (adminId: string) => {
    const headers = await devHeaders(adminId)
    const mine: { supplierId: string; updateTime: string; body: Record<string, unknown> }[] = []
    const send = async (method: string, path: string, body?: unknown) => {
      const res = await request(`${service.base}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      requests++
      statuses[res.status] = (statuses[res.status] ?? 0) + 1
      const code = String(res.body?.code ?? 'none')
      codes[code] = (codes[code] ?? 0) + 1
      if (res.status >= 500 || res.status === 0) {
        fail(`${method} ${path}: HTTP ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`)
      }
      return res
    }
    while (Date.now() < until) {
      const roll = Math.random()
      const draft = mine[Math.floor(Math.random() * mine.length)]
      if (roll < 0.2 || !draft) {
        const body = draftBody({ licenseImageUrl: 'https://storage.example.com/supplier/l.png' })
        const res = await send('POST', '/admin/supplier/items', body)
        if (res.body?.code === 200) mine.push({ ...res.body.data, body })
      } else if (roll < 0.4) {
        const res = await send('PUT', `/admin/supplier/items/${draft.supplierId}`, {
          shortName: `Soak ${Math.random().toString(36).slice(2, 8)}`,
          changeReason: 'soak',
          expectedUpdateTime: draft.updateTime,
        })
        if (res.body?.code === 200) draft.updateTime = res.body.data.updateTime
      } else if (roll < 0.5) {
        const { contacts: _c, initialAccounts: _a, ...form } = draft.body
        const res = await send('POST', `/admin/supplier/items/${draft.supplierId}/submit`, {
          ...form,
          expectedUpdateTime: draft.updateTime,
        })
        if (res.body?.code === 200) mine.splice(mine.indexOf(draft), 1)
      } else if (roll < 0.7) {
        await send('GET', `/admin/supplier/items/${draft.supplierId}`)
      } else if (roll < 0.9) {
        await send('GET', '/admin/supplier/items?pageSize=20&keyword=Supplier')
      } else {
        await send('GET', '/admin/dict/data/supplier_type')
      }
    }
  }

  const memory: number[] = []
  const pools: number[] = []
  const sampler = setInterval(() => {
    memory.push(rss())
    void connections().then((n) => pools.push(n))
  }, SAMPLE_MS)
  const started = Date.now()
  await Promise.all(admins.map(client))
  clearInterval(sampler)
  const elapsed = (Date.now() - started) / 1000

  // Connections: never above the pool, and released to idle ones (no leak) after the load.
  await new Promise((r) => setTimeout(r, 1_000))
  const after = await connections()
  const [{ busy }] = await db<{ busy: number }[]>`
    SELECT count(*)::int AS busy FROM pg_stat_activity
    WHERE datname = ${name} AND application_name LIKE ${appName} AND state <> 'idle'`
  // Seeing none would mean the count looks for the wrong connections, not that there is no leak.
  if (Math.max(...pools) === 0) fail('no connection of the service was seen in pg_stat_activity')
  if (Math.max(...pools) > POOL_MAX) fail(`connections reached ${Math.max(...pools)} > ${POOL_MAX}`)
  if (after > POOL_MAX) fail(`connections after the load: ${after} > ${POOL_MAX}`)
  if (busy > 0) fail(`${busy} connections still busy after the load (leaked transactions)`)

  // Memory: the last third of the samples against the first third (after warm-up).
  const third = Math.max(1, Math.floor(memory.length / 3))
  const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
  const early = avg(memory.slice(0, third))
  const late = avg(memory.slice(-third))
  const MB = 1024 * 1024
  if (late > early * 1.25 + 24 * MB) {
    fail(`memory grew from ${(early / MB).toFixed(0)} MB to ${(late / MB).toFixed(0)} MB`)
  }
  if (service.hasExited()) fail('the service exited during the soak')
  if (requests < SECONDS * 20) fail(`only ${requests} requests in ${SECONDS} s`)

  console.log(
    JSON.stringify(
      {
        seconds: Math.round(elapsed),
        clients: CLIENTS,
        requests,
        perSecond: Math.round(requests / elapsed),
        httpStatuses: statuses,
        businessCodes: codes,
        connections: { max: Math.max(...pools), afterLoad: after, busyAfterLoad: busy },
        rssMB: memory.map((m) => Math.round(m / MB)),
      },
      null,
      2,
    ),
  )
} catch (err) {
  fail(`soak aborted: ${(err as Error).stack ?? String(err)}`)
} finally {
  const code = await service.stop()
  if (code !== 0)
    fail(`the service did not stop cleanly (exit ${code}): ${service.output().slice(-1500)}`)
  await db.end({ timeout: 2 })
  await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  await admin.end()
}

if (failed) {
  console.error(`soak FAILED:\n  - ${problems.slice(0, 20).join('\n  - ')}`)
  process.exit(1)
}
console.log('soak passed: no 5xx, no dropped connection, no connection leak, memory flat')
