/**
 * `npm run bench:hostile`: the figures of docs/limits.md. Starts the service (`npm start`'s
 * command on the embedded database, demo data on), sends each worst body shape within each body
 * route's limit one at a time and prints its answer time, then four of the largest at once while
 * probing /healthz, and prints the probes' slowest answer and the process's peak resident
 * memory. Take the figures on a quiet machine.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServer } from 'node:net'
import { sign } from 'hono/jwt'
import { DEV_SECRETS } from '../../src/config'
import { bodyRoutes, concrete, rssOf, SHAPES, type BodyRoute } from './hostile-shapes'

const freePort = () =>
  new Promise<number>((resolve) => {
    const srv = createServer()
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number }
      srv.close(() => resolve(port))
    })
  })

const port = await freePort()
// A data directory of its own: another process of this checkout may hold ./.data.
const dataDir = mkdtempSync(join(tmpdir(), 'supplier-bench-hostile-'))
const base = `http://127.0.0.1:${port}`
const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
  env: {
    ...process.env,
    PORT: String(port),
    DATABASE_URL: '',
    NODE_ENV: 'development',
    DATA_DIR: dataDir,
  },
  stdio: ['ignore', 'pipe', 'inherit'],
})
await new Promise<void>((resolve, reject) => {
  let output = ''
  child.stdout!.on('data', (d) => {
    output += d
    if (output.includes('supplier-admin serving')) resolve()
  })
  child.once('exit', (code) => reject(new Error(`service exited ${code}`)))
})

const now = Math.floor(Date.now() / 1000)
const token = await sign({ sub: '10001', iat: now, exp: now + 3600 }, DEV_SECRETS.AUTH_JWT_SECRET)
const headers = {
  authorization: `Bearer ${token}`,
  'x-admin-id': '10001',
  'content-type': 'application/json',
}

const post = (route: BodyRoute, body: Uint8Array<ArrayBuffer>) =>
  fetch(`${base}${concrete(route.path)}`, {
    method: route.method,
    headers: { ...headers, 'idempotency-key': `bench-${Math.random()}` },
    body,
  })

const send = async (route: BodyRoute, body: Uint8Array<ArrayBuffer>) => {
  // A cheap request first takes the idle connection the server may be closing, if any.
  await fetch(`${base}/healthz`).catch(() => {})
  let started = performance.now()
  // Once more on a connection the server closed as idle while this process built the body
  // (its keep-alive timeout is 5 s; EPIPE): the client's race, not the service's answer.
  const res = await post(route, body).catch(() => {
    started = performance.now()
    return post(route, body)
  })
  const answer = (await res.json()) as { code: number; message: string }
  return { ms: performance.now() - started, answer }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`

try {
  const routes = bodyRoutes(await (await fetch(`${base}/openapi.json`)).json())
  const rest = await rssOf(child.pid!)
  console.log(`process at rest: ${mib(rest)} resident`)
  console.log('| route | limit | shape | answer ms | code | message |')
  console.log('|---|---|---|---|---|---|')
  for (const route of routes) {
    for (const [shape, build] of Object.entries(SHAPES)) {
      const body = new TextEncoder().encode(build(route.limit))
      const { ms, answer } = await send(route, body)
      console.log(
        `| ${route.method} ${route.path} | ${route.limit} | ${shape} | ${Math.round(ms)} | ${answer.code} | ${answer.message.slice(0, 60)} |`,
      )
    }
  }

  const draft = routes.find((r) => r.method === 'POST' && r.path === '/admin/supplier/items')!
  const heavy = ['long string', 'escaped quotes', 'many keys', 'wide array'].map((shape) =>
    new TextEncoder().encode(SHAPES[shape](draft.limit)),
  )
  // The same probe with nothing in flight: what the machine alone costs a probe, to set the
  // slowest one below against (on a loaded machine it is most of it).
  const idle: number[] = []
  for (let i = 0; i < 20; i++) {
    const started = performance.now()
    await fetch(`${base}/healthz`).then((res) => res.arrayBuffer())
    idle.push(performance.now() - started)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  console.log(
    `/healthz with nothing in flight: slowest ${Math.round(Math.max(...idle))} ms of ${idle.length} probes (median ${Math.round(median(idle))} ms)`,
  )
  let peak = rest
  const probes: number[] = []
  let failed = 0
  let done = false
  const probing = (async () => {
    while (!done) {
      const started = performance.now()
      const ok = await fetch(`${base}/healthz`).then(
        (res) => res.ok,
        () => false,
      )
      if (!ok) failed++
      probes.push(performance.now() - started)
      peak = Math.max(peak, await rssOf(child.pid!))
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  })()
  const started = performance.now()
  const answers = await Promise.all(
    heavy.map((body) =>
      send(draft, body).catch((err: Error) => ({ answer: { code: err.message } })),
    ),
  )
  const all = performance.now() - started
  done = true
  await probing
  console.log(
    `four ${mib(draft.limit)} bodies at once: all answered in ${Math.round(all)} ms (codes ${answers.map((a) => a.answer.code).join(', ')}); ` +
      `slowest /healthz ${Math.round(Math.max(...probes))} ms of ${probes.length} probes (median ${Math.round(median(probes))} ms, ${failed} failed); ` +
      `peak resident ${mib(peak)} (${mib(peak - rest)} above rest)`,
  )
} finally {
  child.kill('SIGTERM')
  await new Promise((resolve) => child.once('exit', resolve))
  rmSync(dataDir, { recursive: true, force: true })
}
