import { connect, type AddressInfo, type Socket } from 'node:net'
import { createAdaptorServer } from '@hono/node-server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BODY_CAPS } from '../src/http/body-shape'
import { useHarness } from './harness'
import { draftBody } from './supplier-data'
import { unchanged } from './unchanged'

/**
 * A body is judged while it arrives. A wide array is refused at its 1,001st item
 * with the rest of the body not yet sent (before, the whole 48 MiB was read and decoded first),
 * over a real socket to the app served as `npm start` serves it (@hono/node-server): the answer
 * reaches the client, which may then send the rest and carry its next request on the same
 * keep-alive connection.
 */

const h = useHarness()
let server: ReturnType<typeof createAdaptorServer>
let port: number
let auth: Record<string, string>

beforeAll(async () => {
  server = createAdaptorServer({ fetch: h.app.fetch, hostname: '127.0.0.1' })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.address() as AddressInfo).port
  const admin = await h.admin()
  auth = { authorization: `Bearer ${await h.token(admin)}`, 'x-admin-id': admin }
})

afterAll(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())))

interface Answer {
  status: number
  headers: Record<string, string>
  body: any
}

/** A client on one connection: what it writes, the answers it reads in order, its closing. */
function client() {
  const socket: Socket = connect(port, '127.0.0.1')
  let received = Buffer.alloc(0)
  let waiting: (() => void) | undefined
  let closed = false
  const wake = () => {
    waiting?.()
    waiting = undefined
  }
  socket.on('data', (data) => {
    received = Buffer.concat([received, data])
    wake()
  })
  socket.on('close', () => {
    closed = true
    wake()
  })
  socket.on('error', () => {})
  /** The next complete answer (with a Content-Length, as the app's are); undefined once closed. */
  const answer = async (): Promise<Answer | undefined> => {
    for (;;) {
      const end = received.indexOf('\r\n\r\n')
      if (end >= 0) {
        const [statusLine, ...lines] = received.subarray(0, end).toString('latin1').split('\r\n')
        const headers = Object.fromEntries(
          lines.map((l) => [
            l.slice(0, l.indexOf(':')).toLowerCase(),
            l.slice(l.indexOf(':') + 1).trim(),
          ]),
        )
        const length = Number(headers['content-length'])
        expect(length, statusLine).toBeGreaterThanOrEqual(0)
        if (received.length >= end + 4 + length) {
          const body = received.subarray(end + 4, end + 4 + length).toString('utf8')
          received = received.subarray(end + 4 + length)
          return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) }
        }
      }
      if (closed) return undefined
      await new Promise<void>((resolve) => (waiting = resolve))
    }
  }
  const write = (data: string | Uint8Array) =>
    new Promise<void>((resolve, reject) =>
      socket.write(data, (err) => (err ? reject(err) : resolve())),
    )
  return { socket, answer, write, isClosed: () => closed }
}

const head = (path: string, headers: Record<string, string | number>) =>
  `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\n` +
  Object.entries({ ...auth, 'content-type': 'application/json', ...headers })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('') +
  '\r\n'

const refusal = (message: string) => ({ code: 400, message, success: false, data: null })
const WIDE = `(body): an array holds more than ${BODY_CAPS.arrayItems} items`

/** The start of the wide body, one item past the cap, and the rest of a 1 MiB body. */
const first = `{"fullName":"x","taxNo":"1","mainCooperation":"x","types":[${'{},'.repeat(BODY_CAPS.arrayItems + 1)}`
const rest = `${'{},'.repeat(350_000)}{}]}`

describe('a body is refused while it arrives', () => {
  it('a wide array: HTTP 400 at its 1,001st item with the rest unsent; the connection carries the next request', async () => {
    await unchanged(h, async () => {
      const c = client()
      const length = Buffer.byteLength(first) + Buffer.byteLength(rest)
      await c.write(
        head('/admin/supplier/items', { 'content-length': length, 'idempotency-key': 'wide-1' }),
      )
      await c.write(first)
      // Nothing more is sent until the answer is in.
      const answer = await c.answer()
      expect(answer?.status).toBe(400)
      expect(answer?.body).toEqual(refusal(WIDE))
      expect(answer?.headers.connection).not.toBe('close')
      // The client sends the rest as it was going to, then its next request: answered.
      await c.write(rest)
      await c.write('GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n')
      const next = await c.answer()
      expect(next?.status).toBe(200)
      expect(next?.body).toMatchObject({ code: 200, data: { status: 'UP' } })
      c.socket.destroy()
    })
  })

  it('a wide array sent chunked: refused as soon, no limit counted ahead of it', async () => {
    await unchanged(h, async () => {
      const c = client()
      await c.write(
        head('/admin/supplier/items', {
          'transfer-encoding': 'chunked',
          'idempotency-key': 'wide-2',
        }),
      )
      await c.write(`${Buffer.byteLength(first).toString(16)}\r\n${first}\r\n`)
      const answer = await c.answer()
      expect(answer?.status).toBe(400)
      expect(answer?.body).toEqual(refusal(WIDE))
      c.socket.destroy()
    })
  })

  it('a chunked body over its route’s limit: HTTP 400 at the first piece over it, the rest unsent', async () => {
    await unchanged(h, async () => {
      const c = client()
      const path = '/admin/supplier/items/9223372036854775807/status'
      await c.write(head(path, { 'transfer-encoding': 'chunked', 'idempotency-key': 'big-1' }))
      const piece = `{"changeReason":"${'x'.repeat(20_000)}`
      await c.write(`${Buffer.byteLength(piece).toString(16)}\r\n${piece}\r\n`)
      const answer = await c.answer()
      expect(answer?.status).toBe(400)
      expect(answer?.body).toEqual(refusal('request body exceeds 16384 bytes'))
      c.socket.destroy()
    })
  })

  it('a client that stops sending after the answer gets it, and then the connection is closed', async () => {
    const c = client()
    const length = Buffer.byteLength(first) + Buffer.byteLength(rest)
    await c.write(
      head('/admin/supplier/items', { 'content-length': length, 'idempotency-key': 'wide-3' }),
    )
    await c.write(first)
    expect((await c.answer())?.body).toEqual(refusal(WIDE))
    // The server does not wait for the rest for ever (@hono/node-server drains an unread body
    // for half a second, then closes); a closed connection reads as no further answer.
    expect(await c.answer()).toBeUndefined()
    expect(c.isClosed()).toBe(true)
  })
})

/*
 * A body that announces at most 64 KiB is read whole by the adapter (`arrayBuffer()`) rather than
 * through a web stream (bodyTextOf): over a real socket, it may still arrive in pieces, and its
 * client may still leave half-way.
 */
describe('a small body, read whole', () => {
  it('arriving in pieces with pauses between: created, and the connection carries the next request', async () => {
    const c = client()
    const body = JSON.stringify(draftBody())
    const bytes = Buffer.from(body)
    expect(bytes.length).toBeLessThan(64 * 1024)
    await c.write(head('/admin/supplier/items', { 'content-length': bytes.length }))
    for (const piece of [bytes.subarray(0, 7), bytes.subarray(7, 40), bytes.subarray(40)]) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      await c.write(piece)
    }
    const answer = await c.answer()
    expect(answer?.status).toBe(200)
    expect(answer?.body).toMatchObject({ code: 200, data: { status: 'DRAFT' } })
    const [row] = await h.sql`
      SELECT full_name FROM supplier
      WHERE supplier_id = ${answer?.body.data.supplierId} AND deleted_at IS NULL`
    expect(row.full_name).toBe(JSON.parse(body).fullName)
    await c.write('GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n')
    expect((await c.answer())?.status).toBe(200)
    c.socket.destroy()
  })

  it('a client that leaves half-way through its body: nothing written, and the next client is served', async () => {
    await unchanged(h, async () => {
      const c = client()
      const bytes = Buffer.from(JSON.stringify(draftBody()))
      await c.write(head('/admin/supplier/items', { 'content-length': bytes.length }))
      await c.write(bytes.subarray(0, bytes.length >> 1))
      await new Promise((resolve) => setTimeout(resolve, 50))
      c.socket.destroy()
      // Time for the server to see the connection go and settle the half-read request.
      await new Promise((resolve) => setTimeout(resolve, 200))
    })
    const next = client()
    await next.write('GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n')
    expect((await next.answer())?.status).toBe(200)
    next.socket.destroy()
  })
})
