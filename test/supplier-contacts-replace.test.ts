import { describe, expect, it } from 'vitest'
import { useHarness } from './harness'
import {
  changeLogs,
  contactRows,
  events,
  itLeaksNothing,
  recordingClient,
  uniquePhone,
  asEventChanges,
} from './supplier-update-data'
import { unchanged } from './unchanged'

/*
 * Contacts replace (PUT /items/{id}/contacts): the snapshot merged (same id updates, no id
 * adds, absent ones soft-deleted), answered masked and logged as CONTACT_REPLACE; foreign ids,
 * stale versions and bad shapes refused, writing nothing.
 */

const h = useHarness()
const c = recordingClient(h)

describe('contacts replace (PUT /items/{id}/contacts)', () => {
  describe('happy', () => {
    it('merges the snapshot, answers the live contacts masked, logs CONTACT_REPLACE', async () => {
      const phones = [uniquePhone(), uniquePhone()]
      const s = await c.draft({
        contacts: [
          { contactName: 'Qian Ba', contactPhone: phones[0], contactRole: 'SALES' },
          { contactName: 'Zhou Jiu', contactPhone: phones[1] },
        ],
      })
      const view = await c.detail(s.id)
      const [a, b] = view.contacts
      const newPhone = uniquePhone()
      const addedPhone = uniquePhone()
      const res = await c.replaceContacts(s.id, {
        contacts: [
          {
            contactId: a.contactId,
            expectedUpdateTime: a.updateTime,
            contactName: 'Qian Ba',
            contactPhone: newPhone,
            contactRole: 'SALES',
          },
          { contactName: 'Wu Shi', contactPhone: addedPhone, remark: 'night shift' },
        ],
        changeReason: 'staff changed',
        expectedUpdateTime: s.version,
      })
      const data = c.ok(res)
      expect(data).toHaveLength(2)
      for (const item of data) {
        expect(Object.keys(item).sort()).toEqual(
          [
            'contactId',
            'contactName',
            'contactPhoneMask',
            'contactRole',
            'remark',
            'status',
            'updateTime',
          ].sort(),
        )
      }
      expect(data.find((x: any) => x.contactId === a.contactId).contactPhoneMask).toBe(
        `137****${newPhone.slice(-4)}`,
      )
      expect(data.find((x: any) => x.contactName === 'Wu Shi')).toMatchObject({
        contactPhoneMask: `137****${addedPhone.slice(-4)}`,
        remark: 'night shift',
      })
      const text = JSON.stringify(res.body)
      for (const p of [...phones, newPhone, addedPhone]) expect(text).not.toContain(p)

      const after = await c.detail(s.id)
      expect(after.contacts).toEqual(data)
      expect(after.updateTime > s.version).toBe(true)
      const rows = await contactRows(h, s.id)
      expect(rows.find((r) => r.id === b.contactId)).toMatchObject({ deleted: true })

      const logs = await changeLogs(h, s.id, 'CONTACT_REPLACE')
      expect(logs.map((l) => l.field_name).sort()).toEqual(['contact', 'contact', 'contactPhone'])
      expect(logs.every((l) => l.change_reason === 'staff changed')).toBe(true)
      expect(logs.find((l) => l.field_name === 'contactPhone')).toMatchObject({
        target_id: a.contactId,
        old_value_masked: `137****${phones[0].slice(-4)}`,
        new_value_masked: `137****${newPhone.slice(-4)}`,
      })
      expect(await changeLogs(h, s.id, 'DRAFT_UPDATE')).toHaveLength(0)
      const evs = await events(h, s.id)
      expect(evs.at(-1)!.event_type).toBe('SupplierContactsReplaced')
      expect(JSON.parse(evs.at(-1)!.payload).changes).toEqual(asEventChanges(logs))
      const all = JSON.stringify([logs, evs])
      for (const p of [...phones, newPhone, addedPhone]) expect(all).not.toContain(p)

      // identical snapshot: nothing to do
      await unchanged(h, async () => {
        c.failed(
          await c.replaceContacts(s.id, {
            contacts: after.contacts.map((x: any) => ({
              contactId: x.contactId,
              expectedUpdateTime: x.updateTime,
              contactName: x.contactName,
              contactPhone: x.contactId === a.contactId ? newPhone : addedPhone,
              contactRole: x.contactRole,
              remark: x.remark,
            })),
            expectedUpdateTime: after.updateTime,
          }),
          395012,
        )
      })

      // contacts: [] soft-deletes all
      const emptied = c.ok(
        await c.replaceContacts(s.id, { contacts: [], expectedUpdateTime: after.updateTime }),
      )
      expect(emptied).toEqual([])
      expect((await c.detail(s.id)).contacts).toEqual([])
      expect((await contactRows(h, s.id)).every((r) => r.deleted)).toBe(true)
    })
  })

  describe('error', () => {
    it('refuses a foreign id (395011), a stale supplier or item version (395003), bad shapes (400)', async () => {
      const s = await c.draft({
        contacts: [{ contactName: 'Zheng Yi', contactPhone: uniquePhone() }],
      })
      const other = await c.draft({
        contacts: [{ contactName: 'Feng Er', contactPhone: uniquePhone() }],
      })
      const [mine] = (await c.detail(s.id)).contacts
      const [theirs] = (await c.detail(other.id)).contacts
      const item = (x: any, overrides: Record<string, unknown> = {}) => ({
        contactId: x.contactId,
        expectedUpdateTime: x.updateTime,
        contactName: x.contactName,
        contactPhone: uniquePhone(),
        ...overrides,
      })
      await unchanged(h, async () => {
        c.failed(
          await c.replaceContacts(s.id, {
            contacts: [item(theirs)],
            expectedUpdateTime: s.version,
          }),
          395011,
        )
        c.failed(
          await c.replaceContacts(s.id, {
            contacts: [item(mine, { expectedUpdateTime: '2001-01-01 00:00:00' })],
            expectedUpdateTime: s.version,
          }),
          395003,
        )
        c.failed(
          await c.replaceContacts(s.id, {
            contacts: [item(mine)],
            expectedUpdateTime: '2001-01-01 00:00:00',
          }),
          395003,
        )
        c.failed(
          await c.replaceContacts(s.id, {
            contacts: [item(mine, { expectedUpdateTime: undefined })],
            expectedUpdateTime: s.version,
          }),
          400,
          'contacts',
        )
        c.failed(
          await c.replaceContacts(s.id, {
            contacts: [item(mine), item(mine)],
            expectedUpdateTime: s.version,
          }),
          400,
        )
        c.failed(
          await c.replaceContacts(s.id, {
            contacts: [item(mine)],
            expectedUpdateTime: '2024-01-01T00:00:00',
          }),
          400,
          'expectedUpdateTime',
        )
        c.failed(
          await c.replaceContacts(s.id, {
            contacts: [{ contactName: 'No phone' }],
            expectedUpdateTime: s.version,
          }),
          400,
          'contactPhone',
        )
        c.failed(
          await c.replaceContacts('9223372036854775000', {
            contacts: [],
            expectedUpdateTime: s.version,
          }),
          395001,
        )
      })
    })
  })

  itLeaksNothing(h)
})
