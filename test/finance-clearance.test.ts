import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../src/config'
import {
  financeClearanceFrom,
  httpFinanceClearance,
  notConnectedClearance,
  type ClearanceRequest,
} from '../src/ports/finance-clearance'

/*
 * The FinanceClearance port against a real local HTTP server that misbehaves on purpose. Only a
 * complete, unambiguous confirmation about the supplier asked for clears; everything else is
 * refused, and nothing takes longer than the configured timeout.
 */

type Handler = (req: IncomingMessage, res: ServerResponse, body: any) => void
let handler: Handler = () => {}
const seen: { headers: IncomingMessage['headers']; body: any; method?: string }[] = []
let server: Server
let url: string

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = ''
    req.on('data', (c) => (raw += c))
    req.on('end', () => {
      const body = raw ? JSON.parse(raw) : null
      seen.push({ headers: req.headers, body, method: req.method })
      handler(req, res, body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/internal/finance/clearance`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

const REQUEST: ClearanceRequest = {
  supplierId: '9007199254741234',
  supplierNo: 'SP20261123100001',
  requestId: 'req-1',
}
// Generous enough for a loaded machine; the silent cases wait this long each.
const TIMEOUT_MS = 1500
const port = httpFinanceClearance({ url: '', token: 'finance-token-123', timeoutMs: TIMEOUT_MS })
const ask = () =>
  httpFinanceClearance({ url, token: 'finance-token-123', timeoutMs: TIMEOUT_MS }).check(REQUEST)

const confirmed = (over: Record<string, unknown> = {}) => ({
  code: 200,
  success: true,
  message: '成功',
  data: {
    supplierId: REQUEST.supplierId,
    cleared: true,
    clearanceRequestId: 'FC-20261123-0001',
    checkedAt: '2026-11-23 10:00:00',
    ledgerRevision: '884211',
    ...over,
  },
})
const json = (status: number, body: unknown) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(typeof body === 'string' ? body : JSON.stringify(body))
}

describe('FinanceClearance port', () => {
  it('happy: a complete confirmation clears, with its evidence; the request carries token and ids', async () => {
    handler = json(200, confirmed())
    seen.length = 0
    expect(await ask()).toEqual({
      outcome: 'CLEARED',
      clearanceRequestId: 'FC-20261123-0001',
      checkedAt: '2026-11-23 10:00:00',
      ledgerRevision: '884211',
    })
    expect(seen[0].method).toBe('POST')
    expect(seen[0].headers.authorization).toBe('Bearer finance-token-123')
    expect(seen[0].body).toEqual(REQUEST)
  })

  it('default: not connected, without any network call', async () => {
    expect(await notConnectedClearance.check(REQUEST)).toEqual({ outcome: 'NOT_CONNECTED' })
    const config = loadConfig({ NODE_ENV: 'test' })
    expect(financeClearanceFrom(config).name).toBe('NOT_CONNECTED')
    const configured = loadConfig({ NODE_ENV: 'test', FINANCE_CLEARANCE_URL: url })
    expect(financeClearanceFrom(configured).name).toBe('HTTP')
    expect(configured.financeClearance.timeoutMs).toBe(3000)
  })

  const unclear: [string, Handler][] = [
    ['finance reports unsettled items', json(200, confirmed({ cleared: false }))],
    ['cleared as a string', json(200, confirmed({ cleared: 'true' }))],
    ['cleared as 1', json(200, confirmed({ cleared: 1 }))],
    ['cleared missing', json(200, { ...confirmed(), data: { supplierId: REQUEST.supplierId } })],
    ['no clearanceRequestId', json(200, confirmed({ clearanceRequestId: undefined }))],
    ['empty ledgerRevision', json(200, confirmed({ ledgerRevision: '' }))],
    ['checkedAt in another format', json(200, confirmed({ checkedAt: '2026-11-23T10:00:00Z' }))],
    ['checkedAt no calendar time', json(200, confirmed({ checkedAt: '2026-02-30 99:99:99' }))],
    [
      'checkedAt on a common-year Feb 29',
      json(200, confirmed({ checkedAt: '2027-02-29 10:00:00' })),
    ],
    ['about another supplier', json(200, confirmed({ supplierId: '9007199254749999' }))],
    ['supplierId as a number', json(200, confirmed({ supplierId: 9007199254741234 }))],
    ['success false', json(200, { ...confirmed(), success: false })],
    ['a business error code', json(200, { ...confirmed(), code: 395039 })],
    ['data null', json(200, { code: 200, success: true, data: null })],
    ['not JSON', json(200, '<html>maintenance</html>')],
    ['an empty body', json(200, '')],
    ['HTTP 404', json(404, confirmed())],
    ['HTTP 204', (_q, res) => res.writeHead(204).end()],
    ['an answer over 64 KiB', json(200, confirmed({ padding: 'x'.repeat(70 * 1024) }))],
    [
      'a body that is not UTF-8',
      (_q, res) => {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]))
      },
    ],
  ]
  for (const [what, h] of unclear) {
    it(`unclear: ${what} is not cleared`, async () => {
      handler = h
      const answer = await ask()
      expect(answer.outcome).toBe('NOT_CLEARED')
    })
  }

  const unavailable: [string, Handler][] = [
    ['HTTP 500', json(500, confirmed())],
    ['HTTP 503', json(503, 'busy')],
    ['no answer within the timeout', () => {}],
    [
      'headers sent, then the body stalls',
      (_q, res) => {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.write('{"code":200,')
      },
    ],
    ['the connection is dropped', (req) => req.socket.destroy()],
    [
      'a redirect (never followed)',
      (_q, res) => res.writeHead(302, { location: 'http://127.0.0.1:1/' }).end(),
    ],
  ]
  for (const [what, h] of unavailable) {
    it(`unavailable: ${what} is refused within the timeout`, async () => {
      handler = h
      const started = Date.now()
      const answer = await ask()
      expect(answer.outcome).toBe('UNAVAILABLE')
      expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 1000)
    })
  }

  it('unavailable: nothing listening, or no URL at all', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/`
    await new Promise((resolve) => closed.close(resolve))
    const answer = await httpFinanceClearance({ url: deadUrl, timeoutMs: TIMEOUT_MS }).check(
      REQUEST,
    )
    expect(answer.outcome).toBe('UNAVAILABLE')
    expect((await port.check(REQUEST)).outcome).toBe('UNAVAILABLE')
  })

  it('config: production requires https for FINANCE_CLEARANCE_URL', () => {
    expect(() =>
      loadConfig({
        NODE_ENV: 'production',
        FINANCE_CLEARANCE_URL: 'http://finance.internal/clearance',
      }),
    ).toThrow(/FINANCE_CLEARANCE_URL: must be https in production/)
    expect(() => loadConfig({ NODE_ENV: 'test', FINANCE_CLEARANCE_URL: 'ftp://x' })).toThrow(
      /FINANCE_CLEARANCE_URL/,
    )
  })
})
