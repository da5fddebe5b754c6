import { describe, expect, it } from 'vitest'
import { ITEMS } from './client'
import { ALL_PERMISSIONS, useHarness } from './harness'
import { uniqueName } from './supplier-data'
import {
  RESPONSES,
  SECRETS,
  accountNo,
  changeLogs,
  expectNoSecrets,
  leakSources,
  recordingClient,
  taxNo,
  uniquePhone,
} from './supplier-update-data'
import { unchanged } from './unchanged'

/*
 * Who may write a supplier, and when: BLACKLIST and ARCHIVED are read-only, ACTIVE cannot be
 * deleted, SUSPENDED and FROZEN allow remediation; supplier:update is required; a VETTING
 * supplier keeps the identity it was submitted with. Last, no plaintext sensitive value in
 * anything this file received or caused to be stored.
 */

const h = useHarness()
const c = recordingClient(h)

async function inStatus(status: 'BLACKLIST' | 'ARCHIVED') {
  const s = await c.draft({}, true)
  await h.sql`
    UPDATE supplier SET status = ${status}, supplier_no = 'X-' || supplier_id
    WHERE supplier_id = ${s.id}`
  const view = await c.detail(s.id)
  expect(view.status).toBe(status)
  return { ...s, view, version: view.updateTime as string }
}

describe('SUP-ADM-004 update, contacts replace and SUP-ADM-011 delete: who may write, and when', () => {
  describe('happy: by status', () => {
    it('a SUSPENDED or FROZEN supplier allows remediation edits (PROFILE_UPDATE)', async () => {
      const s = await c.active()
      await h.sql`UPDATE supplier SET status = 'FROZEN' WHERE supplier_id = ${s.id}`
      c.ok(await c.update(s.id, { address: 'Fixed address', expectedUpdateTime: s.version }))
      const [log] = (await changeLogs(h, s.id)).slice(-1)
      expect(log).toMatchObject({ operation_type: 'PROFILE_UPDATE', field_name: 'address' })
      const view = await c.detail(s.id)
      expect(view).toMatchObject({ status: 'FROZEN', address: 'Fixed address' })
    })
  })

  describe('error: by status', () => {
    for (const status of ['BLACKLIST', 'ARCHIVED'] as const) {
      it(`a ${status} supplier cannot be edited, have its contacts replaced or be deleted (395021)`, async () => {
        const s = await inStatus(status)
        await unchanged(h, async () => {
          c.failed(await c.update(s.id, { remark: 'edit', expectedUpdateTime: s.version }), 395021)
          c.failed(
            await c.replaceContacts(s.id, { contacts: [], expectedUpdateTime: s.version }),
            395021,
          )
          c.failed(await c.remove(s.id), 395021)
        })
      })
    }

    it('an ACTIVE supplier cannot be deleted (395021) and nothing changes', async () => {
      const s = await c.active()
      await unchanged(h, async () => {
        c.failed(await c.remove(s.id), 395021)
      })
      expect((await c.detail(s.id)).status).toBe('ACTIVE')
    })
  })

  describe('security: permissions', () => {
    it('without supplier:update an update or contacts replace is 395002 and writes nothing', async () => {
      const s = await c.draft({}, true)
      const admin = await h.admin(ALL_PERMISSIONS.filter((p) => p !== 'supplier:update'))
      await unchanged(h, async () => {
        c.failed(
          await c.update(s.id, { remark: 'no right', expectedUpdateTime: s.version }, admin),
          395002,
        )
        c.failed(
          await c.replaceContacts(s.id, { contacts: [], expectedUpdateTime: s.version }, admin),
          395002,
        )
      })
      expect((await c.detail(s.id)).contacts).toHaveLength(1)
    })
  })

  describe('security: VETTING (approval provider down)', () => {
    const hv = useHarness({
      approvalProvider: () => ({
        name: 'LOCAL_AUTO',
        submit: async () => {
          throw new Error('provider down')
        },
      }),
    })
    const v = recordingClient(hv)

    it('keeps identity and the submitted snapshot; other fields can still change', async () => {
      const s = await v.draft({ types: [{ typeCode: 'OTHER' }] }, true)
      const { contacts: _c, qualifications: _q, initialAccounts: _a, ...subject } = s.body
      const submitted = v.ok(
        await v.call('POST', `${ITEMS}/${s.id}/submit`, {
          body: { ...subject, expectedUpdateTime: s.version },
        }),
      )
      expect(submitted).toMatchObject({ approvalStatus: 'SUBMITTED', provider: 'LOCAL_AUTO' })
      const view = await v.detail(s.id)
      expect(view.status).toBe('VETTING')
      expect(view.supplierNo).toBeNull()
      const snapshot = async () => {
        const [row] = await hv.sql`
          SELECT s.submitted_snapshot::text AS supplier, a.candidate_snapshot::text AS approval, a.status
          FROM supplier s JOIN approval_log a ON a.supplier_id = s.supplier_id
          WHERE s.supplier_id = ${s.id}`
        return row
      }
      const frozen = await snapshot()
      expect(frozen.status).toBe('SUBMITTED')
      expect(frozen.supplier).toContain(s.body.fullName)

      await unchanged(hv, async () => {
        v.failed(
          await v.update(s.id, {
            fullName: uniqueName('Vetting'),
            expectedUpdateTime: view.updateTime,
          }),
          395009,
        )
        v.failed(
          await v.update(s.id, { taxNo: taxNo(), expectedUpdateTime: view.updateTime }),
          395009,
        )
        v.failed(
          await v.update(s.id, {
            initialAccounts: [
              { accountType: 'CORPORATE', bankName: 'BOC', accountNo: accountNo() },
            ],
            expectedUpdateTime: view.updateTime,
          }),
          395009,
        )
        v.failed(
          await v.update(s.id, {
            types: [{ typeCode: 'OTHER' }, { typeCode: 'TICKET' }],
            expectedUpdateTime: view.updateTime,
          }),
          395009,
        )
        v.failed(await v.remove(s.id), 395021)
      })

      const w = v.ok(
        await v.update(s.id, {
          address: 'Suzhou, Gusu district',
          fullName: s.body.fullName,
          changeReason: 'moved office',
          expectedUpdateTime: view.updateTime,
        }),
      )
      expect(w.status).toBe('VETTING')
      const after = await v.detail(s.id)
      expect(after).toMatchObject({
        status: 'VETTING',
        address: 'Suzhou, Gusu district',
        fullName: s.body.fullName,
        taxNoMask: view.taxNoMask,
      })
      const [log] = (await changeLogs(hv, s.id)).slice(-1)
      expect(log).toMatchObject({
        operation_type: 'PROFILE_UPDATE',
        field_name: 'address',
        change_reason: 'moved office',
      })
      expect(await snapshot()).toEqual(frozen)
      expectNoSecrets(await leakSources(hv))
      expect(hv.logs.some((l) => l.includes('provider down'))).toBe(true)
    })
  })

  describe('security: no plaintext sensitive value anywhere', () => {
    it('responses, change logs, domain events and log lines of this file hold no tax number or phone', async () => {
      // one more round trip that carries every kind of sensitive value through these endpoints
      const s = await c.draft({}, true)
      const phone = uniquePhone()
      const tax = taxNo()
      const w = c.ok(
        await c.update(s.id, {
          taxNo: tax,
          contactPhone: phone,
          contacts: [{ contactName: 'He Shisan', contactPhone: uniquePhone() }],
          expectedUpdateTime: s.version,
        }),
      )
      const r = c.ok(
        await c.replaceContacts(s.id, {
          contacts: [{ contactName: 'Lv Shisi', contactPhone: uniquePhone() }],
          expectedUpdateTime: w.updateTime,
        }),
      )
      expect(r).toHaveLength(1)
      c.ok(await c.remove(s.id))

      const sources: [string, string[]][] = [['responses', RESPONSES], ...(await leakSources(h))]
      expect(SECRETS.size).toBeGreaterThan(20)
      for (const [where, texts] of sources) expect(texts.length, where).toBeGreaterThan(0)
      expectNoSecrets(sources)
    })
  })
})
