import { beforeAll, describe, expect, it } from 'vitest'
import { TRANSITIONS } from '../src/domain/lifecycle/transitions'
import { SUPPLIER_STATUSES, type SupplierStatus } from '../src/vocabulary'
import { localAutoProvider, type ApprovalProvider } from '../src/ports/approval-provider'
import { insertSupplier, tag } from './fixtures'
import { ALL_PERMISSIONS, useHarness, type Harness } from './harness'
import { unchanged } from './unchanged'

/*
 * SUP-ADM-043, the status command, through the HTTP API on a real database: every declared move,
 * every undeclared pair, the guards, the approval it goes through (STATUS_CHANGE, subType and
 * levels from the table, LOCAL_AUTO approving, the common applier re-checking), change log and
 * events with the reason, and concurrency.
 */

/** Runs before LOCAL_AUTO answers: lets a test change the world between command and decision. */
let beforeDecision: (h: Harness) => Promise<void> = async () => {}
let decision: 'APPROVED' | 'REJECTED' = 'APPROVED'

const h = useHarness({
  approvalProvider: (h): ApprovalProvider => ({
    ...localAutoProvider,
    submit: async (approval) => {
      await beforeDecision(h)
      const result = await localAutoProvider.submit(approval)
      return { ...result, decision }
    },
  }),
})

const ITEMS = '/admin/supplier/items'
const VERSION = '2026-01-01 10:00:00'
const REQUIRED_TYPE = `T_${tag().toUpperCase()}`

async function day(n: number) {
  const [row] = await h.sql`SELECT to_char(current_date + ${n}::int, 'YYYY-MM-DD') AS d`
  return row.d as string
}

/** A supplier in `status` of a type that requires PERMIT (valid unless told otherwise). */
async function supplierIn(status: SupplierStatus, permitExpiry: string | null | 'none' = null) {
  const numbered = !['DRAFT', 'VETTING'].includes(status)
  const s = await insertSupplier(h, {
    status,
    supplierNo: numbered ? `SPS${tag()}` : null,
    types: [{ typeCode: REQUIRED_TYPE, isPrimary: true }],
    qualifications:
      permitExpiry === 'none' ? [] : [{ qualType: 'PERMIT', expiryDate: permitExpiry }],
    updateTime: VERSION,
  })
  return s.supplierId
}

const command = (supplierId: string, body: Record<string, unknown>, admin?: string) =>
  h.call('POST', `${ITEMS}/${supplierId}/status`, { body, ...(admin ? { admin } : {}) })

const move = (supplierId: string, targetStatus: string, extra: Record<string, unknown> = {}) =>
  command(supplierId, {
    targetStatus,
    changeReason: `原因 ${tag()}`,
    expectedUpdateTime: VERSION,
    ...extra,
  })

const statusOf = async (supplierId: string) =>
  (await h.sql`SELECT status FROM supplier WHERE supplier_id = ${supplierId}`)[0].status

beforeAll(async () => {
  await h.sql`
    INSERT INTO qualification_rule (type_code, qual_type, is_required, warning_days, sort_order)
    VALUES (${REQUIRED_TYPE}, 'PERMIT', true, 30, 1)`
})

describe('SUP-ADM-043 status command', () => {
  for (const t of TRANSITIONS.filter((t) => t.command === 'STATUS')) {
    it(`happy: ${t.from} → ${t.to} through ${t.approval.subType} (${t.approval.levels} level(s)), applied, logged with the reason`, async () => {
      const id = await supplierIn(t.from)
      const reason = `巡检结论 ${tag()}`
      const res = await command(id, {
        targetStatus: t.to,
        changeReason: `  ${reason}  `,
        expectedUpdateTime: VERSION,
      })
      expect(res.body, JSON.stringify(res.body)).toMatchObject({
        code: 200,
        success: true,
        data: { provider: 'LOCAL_AUTO', approvalStatus: 'APPLIED', spNo: '', spStatus: '' },
      })
      expect(await statusOf(id)).toBe(t.to)
      const detail = await h.call('GET', `${ITEMS}/${id}`)
      expect(detail.body.data.status).toBe(t.to)
      const [approval] = await h.sql`
        SELECT biz_type, sub_type, levels, status, approval_log_id::text AS id, candidate_snapshot
        FROM approval_log WHERE supplier_id = ${id}`
      expect(approval).toMatchObject({
        biz_type: 'STATUS_CHANGE',
        sub_type: t.approval.subType,
        levels: t.approval.levels,
        status: 'APPLIED',
        id: res.body.data.approvalLogId,
      })
      expect(approval.candidate_snapshot).toMatchObject({
        schemaVersion: 1,
        fromStatus: t.from,
        targetStatus: t.to,
        changeReason: reason,
      })
      const logs = await h.sql`
        SELECT operation_type, field_name, old_value_masked, new_value_masked, change_reason, status
        FROM change_log WHERE supplier_id = ${id} ORDER BY change_log_id`
      expect(logs.map((l) => ({ ...l }))).toEqual([
        {
          operation_type: 'STATUS_CHANGE',
          field_name: 'status',
          old_value_masked: t.from,
          new_value_masked: t.to,
          change_reason: reason,
          status: 'SUBMITTED',
        },
        {
          operation_type: 'STATUS_CHANGE',
          field_name: 'status',
          old_value_masked: t.from,
          new_value_masked: t.to,
          change_reason: reason,
          status: 'APPLIED',
        },
      ])
      const events = await h.sql`
        SELECT event_type, payload FROM domain_event WHERE aggregate_id = ${id} ORDER BY event_id`
      expect(events.map((e) => e.event_type)).toEqual([
        'SupplierStatusChangeRequested',
        'SupplierStatusChanged',
      ])
      expect(events[1].payload).toMatchObject({
        fromStatus: t.from,
        toStatus: t.to,
        subType: t.approval.subType,
        changeReason: reason,
      })
    })
  }

  it('prohibitions: BLACKLIST never goes straight to ACTIVE; unblacklist goes only to SUSPENDED; ARCHIVED is never restored', async () => {
    const black = await supplierIn('BLACKLIST')
    const res = await move(black, 'ACTIVE')
    expect(res.body.code).toBe(395005)
    expect(res.body.message).toContain('SUSPENDED')
    for (const to of SUPPLIER_STATUSES) {
      expect((await move(await supplierIn('ARCHIVED'), to)).body.code).toBe(395005)
    }
  })

  for (const [from, to] of [
    ['SUSPENDED', 'ACTIVE'],
    ['FROZEN', 'ACTIVE'],
  ] as const) {
    it(`guard: ${from} → ${to} needs the required qualifications valid (395008, nothing written)`, async () => {
      for (const expiry of [await day(-1), 'none'] as const) {
        const id = await supplierIn(from, expiry)
        const res = await unchanged(h, () => move(id, to))
        expect(res.body.code).toBe(395008)
        expect(res.body.message).toContain('PERMIT')
        // The detail shows the same verdict the guard reached.
        const detail = await h.call('GET', `${ITEMS}/${id}`)
        expect(detail.body.data.compliance[0].state).toBe(expiry === 'none' ? 'MISSING' : 'EXPIRED')
      }
      const expiring = await supplierIn(from, await day(3))
      expect((await move(expiring, to)).body.data.approvalStatus).toBe('APPLIED')
    })
  }

  it('guard at apply time: a qualification lapsing between command and decision makes it APPLY_FAILED, status kept', async () => {
    const id = await supplierIn('SUSPENDED')
    beforeDecision = async (h) => {
      await h.sql`UPDATE supplier_qualification SET deleted_at = now() WHERE supplier_id = ${id}`
    }
    try {
      const res = await move(id, 'ACTIVE')
      expect(res.body).toMatchObject({ code: 200, data: { approvalStatus: 'APPLY_FAILED' } })
    } finally {
      beforeDecision = async () => {}
    }
    expect(await statusOf(id)).toBe('SUSPENDED')
    const [approval] =
      await h.sql`SELECT status, failure_code FROM approval_log WHERE supplier_id = ${id}`
    expect(approval).toEqual({ status: 'APPLY_FAILED', failure_code: 395008 })
  })

  it('compare-and-set at apply time: a write between command and decision makes it APPLY_FAILED (395014)', async () => {
    const id = await supplierIn('ACTIVE')
    beforeDecision = async (h) => {
      await h.sql`UPDATE supplier SET update_time = update_time + interval '5 seconds' WHERE supplier_id = ${id}`
    }
    try {
      expect((await move(id, 'FROZEN')).body.data.approvalStatus).toBe('APPLY_FAILED')
    } finally {
      beforeDecision = async () => {}
    }
    expect(await statusOf(id)).toBe('ACTIVE')
    const [approval] = await h.sql`SELECT failure_code FROM approval_log WHERE supplier_id = ${id}`
    expect(approval.failure_code).toBe(395014)
  })

  it('rejected: the status stays, the evidence says so', async () => {
    const id = await supplierIn('ACTIVE')
    decision = 'REJECTED'
    try {
      expect((await move(id, 'SUSPENDED')).body.data.approvalStatus).toBe('REJECTED')
    } finally {
      decision = 'APPROVED'
    }
    expect(await statusOf(id)).toBe('ACTIVE')
    const logs = await h.sql`
      SELECT field_name, new_value_masked, status FROM change_log WHERE supplier_id = ${id} ORDER BY change_log_id`
    expect(logs.at(-1)).toEqual({
      field_name: 'approvalStatus',
      new_value_masked: 'REJECTED',
      status: 'REJECTED',
    })
  })

  it('idempotency: a repeated Idempotency-Key replays the first answer and opens no second approval', async () => {
    const id = await supplierIn('ACTIVE')
    const body = { targetStatus: 'FROZEN', changeReason: '冻结核查', expectedUpdateTime: VERSION }
    const admin = await h.admin()
    const headers = { 'idempotency-key': `status-${tag()}` }
    const first = await h.call('POST', `${ITEMS}/${id}/status`, { body, admin, headers })
    const again = await h.call('POST', `${ITEMS}/${id}/status`, { body, admin, headers })
    expect(first.body.code).toBe(200)
    expect(again.body).toEqual(first.body)
    const [{ n }] =
      await h.sql`SELECT count(*)::int AS n FROM approval_log WHERE supplier_id = ${id}`
    expect(n).toBe(1)
    expect(await statusOf(id)).toBe('FROZEN')
  })

  it('error: a stale version is 395003; nothing written', async () => {
    const id = await supplierIn('ACTIVE')
    const res = await unchanged(h, () =>
      move(id, 'SUSPENDED', { expectedUpdateTime: '2026-01-01 09:59:59' }),
    )
    expect(res.body.code).toBe(395003)
  })

  it('validation: reason required and not blank, target a lifecycle code, no unknown fields (400)', async () => {
    const id = await supplierIn('ACTIVE')
    const bad: [Record<string, unknown>, string][] = [
      [{ targetStatus: 'SUSPENDED', expectedUpdateTime: VERSION }, 'changeReason'],
      [
        { targetStatus: 'SUSPENDED', changeReason: '   ', expectedUpdateTime: VERSION },
        'changeReason',
      ],
      [
        { targetStatus: 'SUSPENDED', changeReason: 'x'.repeat(501), expectedUpdateTime: VERSION },
        'changeReason',
      ],
      [{ targetStatus: 'PAUSED', changeReason: 'x', expectedUpdateTime: VERSION }, 'targetStatus'],
      [{ targetStatus: 'SUSPENDED', changeReason: 'x' }, 'expectedUpdateTime'],
      [
        {
          targetStatus: 'SUSPENDED',
          changeReason: 'x',
          expectedUpdateTime: VERSION,
          subType: 'STATUS_SUSPEND',
        },
        'subType',
      ],
      [
        {
          targetStatus: 'SUSPENDED',
          changeReason: 'x',
          expectedUpdateTime: VERSION,
          provider: 'LOCAL_AUTO',
        },
        'provider',
      ],
    ]
    await unchanged(h, async () => {
      for (const [body, field] of bad) {
        const res = await command(id, body)
        expect(res.body.code, JSON.stringify(body)).toBe(400)
        expect(res.body.message).toContain(field)
      }
    })
  })

  it('security: needs supplier:status:manage (account permission does not do); 395001 for a missing supplier', async () => {
    const id = await supplierIn('ACTIVE')
    const accountAdmin = await h.admin(
      ALL_PERMISSIONS.filter((p) => p !== 'supplier:status:manage'),
    )
    const res = await unchanged(h, () =>
      command(
        id,
        { targetStatus: 'SUSPENDED', changeReason: 'x', expectedUpdateTime: VERSION },
        accountAdmin,
      ),
    )
    expect(res.body.code).toBe(395002)
    expect((await move('9007199254999999', 'SUSPENDED')).body.code).toBe(395001)
  })

  it.skipIf(!process.env.DATABASE_URL)(
    'concurrency: parallel status commands on one supplier give exactly one success (real PostgreSQL only: the embedded engine serves one connection, so nothing runs in parallel there)',
    async () => {
      const id = await supplierIn('ACTIVE')
      const admins = await Promise.all([1, 2, 3, 4, 5, 6].map(() => h.admin()))
      const targets = ['SUSPENDED', 'FROZEN', 'BLACKLIST']
      const results = await Promise.all(
        admins.map((admin, i) =>
          command(
            id,
            {
              targetStatus: targets[i % 3],
              changeReason: `并发 ${i}`,
              expectedUpdateTime: VERSION,
            },
            admin,
          ),
        ),
      )
      const codes = results.map((r) => r.body.code)
      expect(codes.filter((c) => c === 200)).toHaveLength(1)
      for (const c of codes.filter((c) => c !== 200)) expect([395003, 395005, 395014]).toContain(c)
      const winner = results.find((r) => r.body.code === 200)!.body.data
      const approvals = await h.sql`
        SELECT approval_log_id::text AS id, status FROM approval_log WHERE supplier_id = ${id}`
      expect(approvals.map((a) => ({ ...a }))).toEqual([
        { id: winner.approvalLogId, status: 'APPLIED' },
      ])
      const changed = await h.sql`
        SELECT count(*)::int AS n FROM change_log WHERE supplier_id = ${id} AND status = 'APPLIED'`
      expect(changed[0].n).toBe(1)
    },
  )
})
