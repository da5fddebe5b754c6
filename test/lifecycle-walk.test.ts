import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TRANSITIONS, type Move } from '../src/domain/lifecycle/transitions'
import { SUPPLIER_STATUSES, type SupplierStatus } from '../src/vocabulary'
import { localAutoProvider, type ApprovalProvider } from '../src/ports/approval-provider'
import { insertSupplier, tag } from './fixtures'
import { useHarness } from './harness'
import { STORAGE, uniqueName, uniqueTaxNo } from './supplier-data'
import { unchanged } from './unchanged'

/*
 * The whole transition table walked through the HTTP API: each declared move is made by the
 * command that owns it (submit, the provider's decision through the common applier, the status
 * command, archive) and lands on its target; from every status, every target the table does not
 * declare answers 395005 through every command that could ask for it, and nothing is written.
 */

let decision: 'APPROVED' | 'REJECTED' = 'APPROVED'
/** Statuses the supplier had while the provider was deciding (the VETTING in between). */
const seenWhileDeciding: string[] = []
let finance: Server

beforeAll(async () => {
  // Finance confirms every clearance: the archive moves need a connected, confirming port.
  finance = createServer((req, res) => {
    let raw = ''
    req.on('data', (c) => (raw += c))
    req.on('end', () => {
      const { supplierId } = JSON.parse(raw)
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          code: 200,
          success: true,
          data: {
            supplierId,
            cleared: true,
            clearanceRequestId: `FC-${supplierId}`,
            checkedAt: '2026-11-23 08:00:00',
            ledgerRevision: '1',
          },
        }),
      )
    })
  })
  await new Promise<void>((resolve) => finance.listen(0, '127.0.0.1', resolve))
})
afterAll(async () => {
  finance.closeAllConnections()
  await new Promise((resolve) => finance.close(resolve))
})

const h = useHarness({
  env: () => ({
    FINANCE_CLEARANCE_URL: `http://127.0.0.1:${(finance.address() as AddressInfo).port}/`,
  }),
  approvalProvider: (h): ApprovalProvider => ({
    ...localAutoProvider,
    submit: async (approval) => {
      const [row] =
        await h.sql`SELECT status FROM supplier WHERE supplier_id = ${approval.supplierId}`
      seenWhileDeciding.push(row.status)
      return { ...(await localAutoProvider.submit(approval)), decision }
    },
  }),
})

const ITEMS = '/admin/supplier/items'
const VERSION = '2026-01-01 10:00:00'

async function supplierIn(status: SupplierStatus) {
  const numbered = !['DRAFT', 'VETTING'].includes(status)
  const fullName = uniqueName()
  const s = await insertSupplier(h, {
    fullName,
    status,
    supplierNo: numbered ? `SPW${tag()}` : null,
    licenseImageUrl: `${STORAGE}license.png`,
    types: [{ typeCode: 'OTHER', isPrimary: true }],
    updateTime: VERSION,
  })
  return { id: s.supplierId, fullName }
}

const submitBody = (fullName: string) => ({
  fullName,
  taxNo: uniqueTaxNo(),
  types: [{ typeCode: 'OTHER' }],
  mainCooperation: 'Guided tours',
  licenseImageUrl: `${STORAGE}license.png`,
  expectedUpdateTime: VERSION,
})

/** Asks for `to` from a supplier, through every command that can name that target. */
function asks(id: string, fullName: string, to: SupplierStatus) {
  const calls = [
    () =>
      h.call('POST', `${ITEMS}/${id}/status`, {
        body: { targetStatus: to, changeReason: '巡检', expectedUpdateTime: VERSION },
      }),
  ]
  if (to === 'ARCHIVED') calls.push(() => h.call('POST', `${ITEMS}/${id}/archive`))
  if (to === 'VETTING') {
    calls.push(() => h.call('POST', `${ITEMS}/${id}/submit`, { body: submitBody(fullName) }))
  }
  return calls
}

const statusOf = async (id: string) =>
  (await h.sql`SELECT status FROM supplier WHERE supplier_id = ${id}`)[0].status as string

/** Makes `move` through the HTTP command that owns it; returns the status it ended in. */
async function make(move: Move) {
  // The applier's moves start from the VETTING a submit leaves: submit a draft, then decide.
  const { id, fullName } = await supplierIn(move.command === 'APPLIER' ? 'DRAFT' : move.from)
  seenWhileDeciding.length = 0
  let res
  switch (move.command) {
    case 'APPLIER':
      decision = move.to === 'DRAFT' ? 'REJECTED' : 'APPROVED'
      try {
        res = await h.call('POST', `${ITEMS}/${id}/submit`, { body: submitBody(fullName) })
      } finally {
        decision = 'APPROVED'
      }
      expect(res.body.code, JSON.stringify(res.body)).toBe(200)
      expect(seenWhileDeciding).toEqual([move.from])
      return statusOf(id)
    case 'REGISTRATION':
      res = await h.call('POST', `${ITEMS}/${id}/submit`, { body: submitBody(fullName) })
      expect(res.body.code, JSON.stringify(res.body)).toBe(200)
      // The submit's own move is DRAFT → VETTING; the approval then takes it further.
      expect(seenWhileDeciding).toEqual([move.to])
      return move.to
    case 'STATUS':
      res = await h.call('POST', `${ITEMS}/${id}/status`, {
        body: { targetStatus: move.to, changeReason: '巡检', expectedUpdateTime: VERSION },
      })
      expect(res.body.code, JSON.stringify(res.body)).toBe(200)
      return statusOf(id)
    case 'ARCHIVE':
      res = await h.call('POST', `${ITEMS}/${id}/archive`)
      expect(res.body.code, JSON.stringify(res.body)).toBe(200)
      return statusOf(id)
  }
}

describe('the transition table through the HTTP API', () => {
  for (const move of TRANSITIONS) {
    it(`declared: ${move.from} → ${move.to} (${move.trigger}, by ${move.command})`, async () => {
      expect(await make(move)).toBe(move.to)
    })
  }

  for (const from of SUPPLIER_STATUSES) {
    it(`undeclared: from ${from}, every other target answers 395005 and writes nothing`, async () => {
      const declared = new Set(TRANSITIONS.filter((t) => t.from === from).map((t) => t.to))
      const { id, fullName } = await supplierIn(from)
      await unchanged(h, async () => {
        for (const to of SUPPLIER_STATUSES.filter((to) => !declared.has(to))) {
          for (const ask of asks(id, fullName, to)) {
            const res = await ask()
            expect(res.body.code, `${from} → ${to}: ${JSON.stringify(res.body)}`).toBe(395005)
          }
        }
      })
    })
  }
})
