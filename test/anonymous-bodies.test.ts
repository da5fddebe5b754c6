import { mkdtemp, rm } from 'node:fs/promises'
import { spawn } from 'node:child_process'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rssOf } from '../scripts/bench/hostile-shapes'
import { devHeaders, request, startService, type Service } from './service'

/**
 * Bodies and who sends them, against the real process (`npm start` on the embedded database,
 * demo data on, so the demo administrator holds every permission): an anonymous client's body is
 * never read or kept (it is answered 401 at once, whatever it sends and however fast), and a
 * client that trickles its body past the request deadline is answered as a client timeout (HTTP
 * 408), counted apart from the service's own 395030 in /metrics.
 */

/** The request deadline of this suite's service: short, so that a trickle passes it soon. */
const DEADLINE_MS = 1_500
/**
 * The bounds of docs/limits.md for sixteen anonymous 48 MiB bodies in flight. Kept, the bodies
 * would take 768 MiB. The drain's dropped chunks are garbage in the young generation, which V8
 * grows under such an allocation rate (by up to 64 MiB on Node 26) and frees at its own pace: the
 * rise is measured on the resident set less the young generation's committed size, which
 * /metrics reports, so it counts what is kept and not how fast the garbage goes.
 */
const RSS_RISE_BOUND = 64 * 1024 * 1024
const HEALTH_MS = 200

const MiB = 1024 * 1024
const DRAFT = '/admin/supplier/items'

let service: Service
let dataDir: string | undefined
let port: number
beforeAll(async () => {
  // A data directory of its own: another process of this checkout may hold ./.data.
  dataDir = await mkdtemp(join(tmpdir(), 'supplier-anonymous-'))
  service = await startService({
    DEMO_DATA: undefined,
    DATA_DIR: dataDir,
    REQUEST_TIMEOUT_MS: String(DEADLINE_MS),
  })
  await service.ready
  port = Number(new URL(service.base).port)
}, 120_000)
afterAll(async () => {
  await service?.stop()
  if (dataDir) await rm(dataDir, { recursive: true, force: true })
})

interface Sender {
  socket: Socket
  /** The status of the answer, once its status line is in; 0 if the connection closed first. */
  answered: Promise<{ status: number; text: string; sentBytes: number; ms: number }>
  sentBytes: () => number
}

/**
 * A client that sends a chunked body to `path`: `chunk` at a time, as fast as the socket takes
 * them (or one every `pauseMs`), until `total` bytes are sent, the answer has come, or the
 * connection is closed. Nothing of the body is held but the one chunk it repeats.
 */
function send(
  path: string,
  headers: Record<string, string>,
  { chunk, total, pauseMs = 0 }: { chunk: Buffer; total: number; pauseMs?: number },
): Sender {
  const started = performance.now()
  const socket = connect(port, '127.0.0.1')
  socket.on('error', () => {})
  let sent = 0
  let received = ''
  let done = false
  const answered = new Promise<{ status: number; text: string; sentBytes: number; ms: number }>(
    (resolve) => {
      const finish = () => {
        if (done) return
        done = true
        const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0)
        resolve({ status, text: received, sentBytes: sent, ms: performance.now() - started })
      }
      socket.on('data', (data) => {
        received += data.toString('latin1')
        // The whole answer: its headers and its Content-Length of body.
        const end = received.indexOf('\r\n\r\n')
        const length = /content-length: (\d+)/i.exec(received)?.[1]
        if (end >= 0 && length !== undefined && received.length >= end + 4 + Number(length)) {
          finish()
        }
      })
      socket.on('close', finish)
    },
  )
  const head =
    `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n` +
    'transfer-encoding: chunked\r\n' +
    Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('') +
    '\r\n'
  const frame = Buffer.concat([
    Buffer.from(`${chunk.length.toString(16)}\r\n`),
    chunk,
    Buffer.from('\r\n'),
  ])
  socket.once('connect', async () => {
    socket.write(head)
    while (!done && !socket.destroyed && sent < total) {
      const more = socket.write(frame)
      sent += chunk.length
      if (pauseMs) await new Promise((resolve) => setTimeout(resolve, pauseMs))
      else if (!more) {
        await new Promise<void>((resolve) => {
          const go = () => {
            socket.off('drain', go)
            socket.off('close', go)
            resolve()
          }
          socket.on('drain', go)
          socket.on('close', go)
        })
      }
    }
    if (!done && !socket.destroyed) socket.write('0\r\n\r\n')
  })
  return { socket, answered, sentBytes: () => sent }
}

/** The young generation's committed size, from the service's /metrics (prom-client's). */
async function youngGeneration(): Promise<number> {
  const metrics = (await request(`${service.base}/metrics`, { timeoutMs: 10_000 })).body as string
  const bytes = /^nodejs_heap_space_size_total_bytes\{space="new"\} (\d+)$/m.exec(metrics)?.[1]
  expect(bytes, 'young generation in /metrics').toBeDefined()
  return Number(bytes)
}

/**
 * The resident set less the young generation. The smaller of two readings of the young
 * generation, one each side of the resident set's, is subtracted: it cannot shrink the figure by
 * more than was committed while the resident set was read.
 */
async function keptOf(pid: number): Promise<{ rss: number; kept: number }> {
  const before = await youngGeneration()
  const rss = await rssOf(pid)
  const after = await youngGeneration()
  return { rss, kept: rss - Math.min(before, after) }
}

/**
 * Probes /healthz every 20 ms and reads the process's resident set less its young generation,
 * until stopped.
 */
function watch(pid: number) {
  const health: number[] = []
  let peak = { rss: 0, kept: 0 }
  let stopped = false
  const running = (async () => {
    while (!stopped) {
      const res = await request(`${service.base}/healthz`, { timeoutMs: 10_000 })
      expect(res.status).toBe(200)
      health.push(res.ms)
      const now = await keptOf(pid)
      if (now.kept > peak.kept) peak = now
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  })()
  return {
    async stop() {
      stopped = true
      await running
      return { health, peak }
    },
  }
}

/** The envelope an answer carries. */
const envelope = (text: string) =>
  JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as { code: number; message: string }

/** The 401 envelope (HTTP 200, as every business answer) of a request without a token. */
const UNAUTHENTICATED = { code: 401, message: 'not authenticated: missing bearer token' }

/**
 * Sixteen clients, each sending a chunked body of `total` bytes a MiB at a time as fast as its
 * socket takes it, in a process of their own, so that pushing 768 MiB does not delay this
 * process's probes. Resolves with each one's answer: its envelope, the bytes it had sent by then,
 * and how long it took.
 */
function sendInChild(path: string, count: number, total: number) {
  const script = `
    import { connect } from 'node:net'
    const [port, path, count, total] = process.argv.slice(1)
    const chunk = Buffer.alloc(1024 * 1024, 'a')
    chunk.write('{"remark":"')
    const frame = Buffer.concat([Buffer.from(chunk.length.toString(16) + '\\r\\n'), chunk, Buffer.from('\\r\\n')])
    const one = () => new Promise((resolve) => {
      const started = performance.now()
      const socket = connect(Number(port), '127.0.0.1')
      socket.on('error', () => {})
      let sent = 0, received = '', done = false
      const finish = () => {
        if (done) return
        done = true
        const at = received.indexOf('\\r\\n\\r\\n')
        resolve({ status: Number(received.slice(9, 12)), body: at < 0 ? '' : received.slice(at + 4), sent, ms: performance.now() - started })
      }
      socket.on('data', (d) => {
        received += d.toString('latin1')
        const at = received.indexOf('\\r\\n\\r\\n')
        const length = /content-length: (\\d+)/i.exec(received)?.[1]
        if (at >= 0 && length !== undefined && received.length >= at + 4 + Number(length)) finish()
      })
      socket.on('close', finish)
      socket.once('connect', async () => {
        socket.write('POST ' + path + ' HTTP/1.1\\r\\nhost: 127.0.0.1\\r\\ncontent-type: application/json\\r\\ntransfer-encoding: chunked\\r\\n\\r\\n')
        while (!done && !socket.destroyed && sent < Number(total)) {
          sent += chunk.length
          if (!socket.write(frame)) await new Promise((r) => { socket.once('drain', r); socket.once('close', r) })
        }
        // Still sending a second after the answer, unless the server closed the connection.
        setTimeout(() => socket.destroy(), 1000)
      })
    })
    const answers = await Promise.all(Array.from({ length: Number(count) }, one))
    process.stdout.write(JSON.stringify(answers))
  `
  return new Promise<{ status: number; body: string; sent: number; ms: number }[]>(
    (resolve, reject) => {
      const child = spawn(
        process.execPath,
        ['--input-type=module', '-e', script, String(port), path, String(count), String(total)],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      )
      let out = ''
      child.stdout!.on('data', (d) => (out += d))
      child.on('exit', (code) =>
        code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`senders exited ${code}`)),
      )
    },
  )
}

describe('an anonymous body is never read or kept', () => {
  it('sixteen anonymous 48 MiB chunked bodies in flight: each refused (401) at once, the resident set less the young generation up by under 64 MiB, /healthz under 200 ms', async () => {
    const pid = service.child.pid!
    // The process at rest, after a few probes (the first requests warm it up).
    for (let i = 0; i < 5; i++) await request(`${service.base}/healthz`)
    const rest = await keptOf(pid)
    const watching = watch(pid)
    const total = 48 * MiB - 1024
    const answers = await sendInChild(DRAFT, 16, total)
    const { health, peak } = await watching.stop()
    for (const a of answers) {
      expect(a.status, a.body.slice(0, 200)).toBe(200)
      expect(JSON.parse(a.body)).toMatchObject(UNAUTHENTICATED)
      // Answered before the client had sent its body: nothing waited for it.
      expect(a.sent).toBeLessThan(total)
    }
    const rise = peak.kept - rest.kept
    const figures =
      `resident ${Math.round(rest.rss / MiB)} MiB at rest (${Math.round(rest.kept / MiB)} less the ` +
      `young generation), at the peak +${Math.round((peak.rss - rest.rss) / MiB)} MiB ` +
      `(+${Math.round(rise / MiB)} less the young generation)`
    expect(rise, figures).toBeLessThan(RSS_RISE_BOUND)
    expect(health.length).toBeGreaterThan(0)
    expect(
      Math.max(...health),
      `/healthz took ${health.map(Math.round).join(', ')} ms`,
    ).toBeLessThan(HEALTH_MS)
    if (process.env.ANONYMOUS_BODY_FIGURES) {
      const sorted = [...health].sort((a, b) => a - b)
      process.stderr.write(
        `${figures}; /healthz ` +
          `max ${Math.round(sorted.at(-1)!)} ms, median ${Math.round(sorted[sorted.length >> 1])} ms ` +
          `of ${health.length}; answers within ${Math.round(Math.max(...answers.map((a) => a.ms)))} ms\n`,
      )
    }
  }, 120_000)

  it('an anonymous body trickled a byte a second: refused (401) at once, not a 395030 at the deadline', async () => {
    const s = send(DRAFT, {}, { chunk: Buffer.from('{'), total: 60, pauseMs: 1_000 })
    const answer = await s.answered
    s.socket.destroy()
    expect(envelope(answer.text)).toMatchObject(UNAUTHENTICATED)
    expect(answer.ms).toBeLessThan(DEADLINE_MS)
  })
})

describe('a body trickled past the request deadline is the client’s delay', () => {
  it('HTTP 408 at the deadline, the connection closed, counted apart from 395030 in /metrics', async () => {
    const headers = await devHeaders('10001')
    delete headers['content-type']
    const s = send(
      DRAFT,
      { ...headers, 'idempotency-key': `trickle-${Math.random()}` },
      { chunk: Buffer.from(' '), total: 60, pauseMs: 200 },
    )
    const answer = await s.answered
    expect(answer.status, answer.text).toBe(408)
    expect(envelope(answer.text)).toEqual({
      code: 400,
      message: `request body not received within the request deadline of ${DEADLINE_MS} ms`,
      success: false,
      data: null,
    })
    expect(answer.ms).toBeGreaterThanOrEqual(DEADLINE_MS - 50)
    expect(answer.ms).toBeLessThan(DEADLINE_MS + 1_000)
    expect(answer.text).toMatch(/\r\nconnection: close\r\n/i)
    // The server closes the connection: the rest of the body is not waited for.
    await new Promise<void>((resolve) =>
      s.socket.destroyed ? resolve() : s.socket.once('close', () => resolve()),
    )
    const metrics = (await request(`${service.base}/metrics`)).body as string
    expect(metrics).toMatch(
      /supplier_http_client_timeouts_total\{method="POST",route="\/admin\/supplier\/items"\} 1/,
    )
    expect(metrics).toMatch(
      /supplier_http_requests_total\{method="POST",route="\/admin\/supplier\/items",status="408",code="400"\} 1/,
    )
    expect(metrics).not.toMatch(/route="\/admin\/supplier\/items",status="200",code="395030"/)
  }, 30_000)
})
