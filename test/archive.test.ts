import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SUPPLIER_STATUSES, type SupplierStatus } from '../src/vocabulary'
import { insertSupplier, tag } from './fixtures'
import { ALL_PERMISSIONS, useHarness } from './harness'
import { STORAGE } from './supplier-data'
import { unchanged } from './unchanged'

/*
 * SUP-ADM-010 archive through the HTTP API on a real database, with the finance clearance port's
 * HTTP adapter talking to a real local server that confirms, refuses or misbehaves on purpose.
 * (The default "not connected" adapter is covered in archive-not-connected.test.ts.)
 */

type Handler = (req: IncomingMessage, res: ServerResponse, body: any) => void
let finance: Handler = () => {}
const asked: any[] = []
let server: Server

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = ''
    req.on('data', (c) => (raw += c))
    req.on('end', () => {
      const body = raw ? JSON.parse(raw) : null
      asked.push(body)
      finance(req, res, body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

const h = useHarness({
  env: () => ({
    FINANCE_CLEARANCE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/clearance`,
    FINANCE_CLEARANCE_TIMEOUT_MS: '2000',
  }),
})

const ITEMS = '/admin/supplier/items'
const VERSION = '2026-01-01 10:00:00'

const answer =
  (status: number, body: unknown): Handler =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(typeof body === 'string' ? body : JSON.stringify(body))
  }
/** Finance confirms whatever supplier it is asked about. */
const confirming =
  (over: Record<string, unknown> = {}): Handler =>
  (req, res, body) =>
    answer(200, {
      code: 200,
      success: true,
      data: {
        supplierId: body.supplierId,
        cleared: true,
        clearanceRequestId: `FC-${body.supplierId}`,
        checkedAt: '2026-11-23 09:30:00',
        ledgerRevision: '77120',
        ...over,
      },
    })(req, res, body)

async function supplierIn(status: SupplierStatus) {
  const numbered = !['DRAFT', 'VETTING'].includes(status)
  const s = await insertSupplier(h, {
    status,
    supplierNo: numbered ? `SPA${tag()}` : null,
    licenseImageUrl: `${STORAGE}license.png`,
    types: [{ typeCode: 'OTHER', isPrimary: true }],
    contacts: [{ contactName: '周八', contactPhone: '13655556666' }],
    updateTime: VERSION,
  })
  return s.supplierId
}

const archive = (id: string, options: { admin?: string; raw?: string } = {}) =>
  h.call('POST', `${ITEMS}/${id}/archive`, options)

describe('SUP-ADM-010 archive with a connected finance clearance', () => {
  for (const from of ['SUSPENDED', 'BLACKLIST'] as const) {
    it(`happy: ${from} → ARCHIVED once finance confirms; ArchiveResultVO carries the evidence`, async () => {
      finance = confirming()
      asked.length = 0
      const id = await supplierIn(from)
      const res = await archive(id)
      expect(res.body, JSON.stringify(res.body)).toEqual({
        code: 200,
        message: expect.any(String),
        success: true,
        data: {
          supplierId: id,
          status: 'ARCHIVED',
          clearanceRequestId: `FC-${id}`,
          checkedAt: '2026-11-23 09:30:00',
          ledgerRevision: '77120',
          updateTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
        },
      })
      expect(asked).toEqual([
        {
          supplierId: id,
          supplierNo: expect.stringMatching(/^SPA/),
          requestId: expect.any(String),
        },
      ])
      const detail = await h.call('GET', `${ITEMS}/${id}`)
      expect(detail.body.data).toMatchObject({
        status: 'ARCHIVED',
        updateTime: res.body.data.updateTime,
      })
      const logs = await h.sql`
        SELECT operation_type, field_name, old_value_masked, new_value_masked FROM change_log
        WHERE supplier_id = ${id} ORDER BY change_log_id`
      expect(logs.map((l) => ({ ...l }))).toEqual([
        {
          operation_type: 'ARCHIVE',
          field_name: 'status',
          old_value_masked: from,
          new_value_masked: 'ARCHIVED',
        },
        {
          operation_type: 'ARCHIVE',
          field_name: 'clearanceRequestId',
          old_value_masked: null,
          new_value_masked: `FC-${id}`,
        },
        {
          operation_type: 'ARCHIVE',
          field_name: 'clearanceCheckedAt',
          old_value_masked: null,
          new_value_masked: '2026-11-23 09:30:00',
        },
        {
          operation_type: 'ARCHIVE',
          field_name: 'ledgerRevision',
          old_value_masked: null,
          new_value_masked: '77120',
        },
      ])
      const [event] =
        await h.sql`SELECT event_type, payload FROM domain_event WHERE aggregate_id = ${id}`
      expect(event).toMatchObject({
        event_type: 'SupplierArchived',
        payload: { fromStatus: from, clearanceRequestId: `FC-${id}`, ledgerRevision: '77120' },
      })
    })
  }

  it('error: only SUSPENDED and BLACKLIST may be archived (FROZEN not directly): 395005, finance not even asked', async () => {
    finance = confirming()
    for (const from of SUPPLIER_STATUSES.filter((s) => s !== 'SUSPENDED' && s !== 'BLACKLIST')) {
      asked.length = 0
      const id = await supplierIn(from)
      const res = await unchanged(h, () => archive(id))
      expect(res.body.code, from).toBe(395005)
      expect(asked).toEqual([])
    }
  })

  const unclear: [string, ReturnType<typeof confirming>, number][] = [
    ['unsettled items', confirming({ cleared: false }), 395035],
    ['an ambiguous "cleared"', confirming({ cleared: 'yes' }), 395035],
    ['no ledger revision', confirming({ ledgerRevision: undefined }), 395035],
    [
      'a checkedAt that is no calendar time',
      confirming({ checkedAt: '2026-02-30 99:99:99' }),
      395035,
    ],
    ['an answer about another supplier', confirming({ supplierId: '9007199254740993' }), 395035],
    ['a malformed body', answer(200, '{"code":200,'), 395035],
    ['HTTP 500', answer(500, 'oops'), 395039],
    ['silence past the timeout', () => {}, 395039],
  ]
  for (const [what, handler, code] of unclear) {
    it(`error: ${what} refuses the archive (${code}) and writes nothing`, async () => {
      finance = handler
      const id = await supplierIn('SUSPENDED')
      const res = await unchanged(h, () => archive(id))
      expect(res.body).toMatchObject({ code, success: false, data: null })
    })
  }

  it('ARCHIVED is read-only: every write route refuses it and nothing restores it', async () => {
    finance = confirming()
    const id = await supplierIn('SUSPENDED')
    expect((await archive(id)).body.code).toBe(200)
    const [{ v }] = await h.sql`
      SELECT to_char(update_time, 'YYYY-MM-DD HH24:MI:SS') AS v FROM supplier WHERE supplier_id = ${id}`
    const attempts: [string, string, unknown, number][] = [
      [
        'PUT',
        `${ITEMS}/${id}`,
        { shortName: '复活', changeReason: '复活', expectedUpdateTime: v },
        395021,
      ],
      [
        'PUT',
        `${ITEMS}/${id}/contacts`,
        { contacts: [], changeReason: '清空', expectedUpdateTime: v },
        395021,
      ],
      ['DELETE', `${ITEMS}/${id}`, undefined, 395021],
      [
        'POST',
        `${ITEMS}/${id}/submit`,
        {
          fullName: 'x',
          taxNo: '91330106MA2KXY712Q',
          types: [{ typeCode: 'OTHER' }],
          mainCooperation: 'x',
          licenseImageUrl: `${STORAGE}l.png`,
          expectedUpdateTime: v,
        },
        395005,
      ],
      ...SUPPLIER_STATUSES.map((to): [string, string, unknown, number] => [
        'POST',
        `${ITEMS}/${id}/status`,
        { targetStatus: to, changeReason: '恢复', expectedUpdateTime: v },
        395005,
      ]),
      ['POST', `${ITEMS}/${id}/archive`, undefined, 395005],
      [
        'POST',
        `${ITEMS}/${id}/accounts/batch`,
        {
          accounts: [
            { accountType: 'CORPORATE', bankName: 'ICBC', accountNo: '6222021234567890123' },
          ],
        },
        395021,
      ],
    ]
    await unchanged(h, async () => {
      for (const [method, path, body, code] of attempts) {
        const res = await h.call(method, path, body === undefined ? {} : { body })
        expect(res.body.code, `${method} ${path} ${JSON.stringify(body)}`).toBe(code)
      }
    })
    expect((await h.call('GET', `${ITEMS}/${id}`)).body.data.status).toBe('ARCHIVED')
  })

  it('security: needs supplier:status:manage; a body is refused; 395001 for a missing supplier', async () => {
    finance = confirming()
    const id = await supplierIn('SUSPENDED')
    const other = await h.admin(ALL_PERMISSIONS.filter((p) => p !== 'supplier:status:manage'))
    await unchanged(h, async () => {
      expect((await archive(id, { admin: other })).body.code).toBe(395002)
      expect((await archive(id, { raw: '{"force":true}' })).body.code).toBe(400)
    })
    expect((await archive('9007199254999999')).body.code).toBe(395001)
  })

  it('concurrency: the supplier changing while finance is asked refuses the archive (395014)', async () => {
    const id = await supplierIn('SUSPENDED')
    finance = (req, res, body) => {
      // Another administrator edits the supplier while finance is thinking.
      void h.sql`UPDATE supplier SET update_time = update_time + interval '7 seconds' WHERE supplier_id = ${id}`.then(
        () => confirming()(req, res, body),
      )
    }
    const res = await archive(id)
    expect(res.body.code).toBe(395014)
    const [row] = await h.sql`SELECT status FROM supplier WHERE supplier_id = ${id}`
    expect(row.status).toBe('SUSPENDED')
  })
})
