import { describe, expect, it } from 'vitest'
import { ITEMS } from './client'
import { ALL_PERMISSIONS, useHarness } from './harness'
import { draftBody } from './supplier-data'
import { changeLogs, events, itLeaksNothing, recordingClient } from './supplier-update-data'
import { unchanged } from './unchanged'

/*
 * SUP-ADM-011 delete draft (DELETE /items/{id}): the draft and its children soft-deleted,
 * logged, gone for every further command, its tax number free again; malformed and unknown ids,
 * other statuses and a missing permission refused, writing nothing.
 */

const h = useHarness()
const c = recordingClient(h)

describe('SUP-ADM-011 delete draft (DELETE /items/{id})', () => {
  describe('happy', () => {
    it('soft-deletes the draft and its children, logs DRAFT_DELETE and SupplierDraftDeleted', async () => {
      const s = await c.draft({ types: [{ typeCode: 'OTHER' }, { typeCode: 'HOTEL' }] }, true)
      c.ok(
        await c.update(s.id, { contracts: [{}], evaluations: [{}], expectedUpdateTime: s.version }),
      )
      const listed = c.ok(
        await c.call('GET', `${ITEMS}?keyword=${encodeURIComponent(s.body.fullName)}&pageSize=100`),
      )
      expect(listed.records.map((r: any) => r.supplierId)).toContain(s.id)
      const admin = await h.admin()

      const res = await c.remove(s.id, admin)
      expect(res.body).toEqual({
        code: 200,
        success: true,
        message: expect.any(String),
        data: null,
      })

      c.failed(await c.call('GET', `${ITEMS}/${s.id}`), 395001)
      c.failed(await c.call('GET', `${ITEMS}/${s.id}/account-info`), 395001)
      const after = c.ok(
        await c.call('GET', `${ITEMS}?keyword=${encodeURIComponent(s.body.fullName)}&pageSize=100`),
      )
      expect(after.records.map((r: any) => r.supplierId)).not.toContain(s.id)

      const [supplier] = await h.sql`
        SELECT status, deleted_at IS NOT NULL AS deleted FROM supplier WHERE supplier_id = ${s.id}`
      expect(supplier).toMatchObject({ status: 'DRAFT', deleted: true })
      for (const table of [
        'supplier_type',
        'supplier_contact',
        'supplier_qualification',
        'supplier_bank_account',
        'supplier_contract',
        'supplier_evaluation',
      ]) {
        const rows = await h.sql.unsafe(
          `SELECT deleted_at IS NOT NULL AS deleted FROM ${table} WHERE supplier_id = $1`,
          [s.id],
        )
        expect(rows.length, table).toBeGreaterThan(0)
        expect(
          rows.every((r) => r.deleted),
          table,
        ).toBe(true)
      }
      const logs = await changeLogs(h, s.id, 'DRAFT_DELETE')
      expect(logs).toHaveLength(1)
      expect(logs[0]).toMatchObject({
        target_type: 'SUPPLIER',
        target_id: s.id,
        operator_id: admin,
      })
      const evs = await events(h, s.id)
      expect(evs.at(-1)!.event_type).toBe('SupplierDraftDeleted')
      expect(evs.filter((e) => e.event_type === 'SupplierDraftDeleted')).toHaveLength(1)

      // gone for every further command
      await unchanged(h, async () => {
        c.failed(await c.remove(s.id), 395001)
        c.failed(await c.update(s.id, { remark: 'ghost', expectedUpdateTime: s.version }), 395001)
        c.failed(
          await c.replaceContacts(s.id, { contacts: [], expectedUpdateTime: s.version }),
          395001,
        )
      })

      // its tax number is free for a new supplier (uniqueness counts live suppliers only)
      c.ok(await c.call('POST', ITEMS, { body: draftBody({ taxNo: s.body.taxNo }) }))
    })
  })

  describe('error', () => {
    const badIdCalls = {
      'DELETE /items/{id}': (id: string) => c.remove(id),
      'PUT /items/{id}': (id: string) =>
        c.update(id, { remark: 'x', expectedUpdateTime: '2024-01-01 00:00:00' }),
      'PUT /items/{id}/contacts': (id: string) =>
        c.replaceContacts(id, { contacts: [], expectedUpdateTime: '2024-01-01 00:00:00' }),
    }
    for (const [route, send] of Object.entries(badIdCalls)) {
      it(`${route}: ids 'abc' and '0' are 400 naming supplierId; an unknown id is 395001`, async () => {
        await unchanged(h, async () => {
          c.failed(await send('abc'), 400, 'supplierId')
          c.failed(await send('0'), 400, 'supplierId')
          c.failed(await send('9223372036854775000'), 395001)
        })
      })
    }

    it('a VETTING supplier cannot be deleted either', async () => {
      const s = await c.draft()
      await h.sql`UPDATE supplier SET status = 'VETTING' WHERE supplier_id = ${s.id}`
      await unchanged(h, async () => {
        c.failed(await c.remove(s.id), 395021)
      })
    })
  })

  describe('security', () => {
    it('without supplier:delete it is 395002 and the draft stays', async () => {
      const s = await c.draft({}, true)
      const admin = await h.admin(ALL_PERMISSIONS.filter((p) => p !== 'supplier:delete'))
      await unchanged(h, async () => {
        c.failed(await c.remove(s.id, admin), 395002)
      })
      expect((await c.detail(s.id)).status).toBe('DRAFT')
    })
  })

  itLeaksNothing(h)
})
