import { describe, expect, it } from 'vitest'
import { PHONE, STORAGE } from './supplier-data'
import { useHarness } from './harness'
import {
  bareRows,
  changeLogs,
  contactRows,
  itLeaksNothing,
  next,
  recordingClient,
  secret,
  uniquePhone,
} from './supplier-update-data'
import { unchanged } from './unchanged'

/*
 * SUP-ADM-004 update (PUT /items/{id}) of a supplier's collections: contacts and qualifications
 * as snapshots (same id updates, no id adds, absent ones are soft-deleted), contracts and
 * evaluations merged by id and version; ids of another supplier, stale item versions and
 * repeated ids refused, writing nothing.
 */

const h = useHarness()
const c = recordingClient(h)

/** The two collections that merge by id and version only. */
const BARE = (['contract', 'evaluation'] as const).map((kind) => ({
  kind,
  table: kind === 'contract' ? ('supplier_contract' as const) : ('supplier_evaluation' as const),
  field: kind === 'contract' ? 'contracts' : 'evaluations',
  idKey: kind === 'contract' ? 'contractId' : 'evaluationId',
}))

async function withTwoContacts() {
  const phones = [uniquePhone(), uniquePhone()]
  const s = await c.draft({
    contacts: [
      { contactName: 'Wang Wu', contactPhone: phones[0], contactRole: 'SALES' },
      { contactName: 'Zhao Liu', contactPhone: phones[1], contactRole: 'FINANCE' },
    ],
  })
  const view = await c.detail(s.id)
  expect(view.contacts).toHaveLength(2)
  const [a, b] = view.contacts
  return { ...s, phones, a, b }
}

const CERT_B = () => secret(`JY${String(Date.now()).slice(-8)}${next()}77`)

async function withTwoQualifications() {
  const certs = [CERT_B(), CERT_B()]
  const s = await c.draft({
    qualifications: [
      {
        qualType: 'BUSINESS_LICENSE',
        certNo: certs[0],
        imageUrl: `${STORAGE}bl.png`,
        expiryDate: '2099-12-31',
      },
      {
        qualType: 'FOOD_PERMIT',
        certNo: certs[1],
        imageUrl: `${STORAGE}fp.png`,
        expiryDate: '2098-01-31',
      },
    ],
  })
  const view = await c.detail(s.id)
  expect(view.qualifications).toHaveLength(2)
  const a = view.qualifications.find((q: any) => q.qualType === 'BUSINESS_LICENSE')
  const b = view.qualifications.find((q: any) => q.qualType === 'FOOD_PERMIT')
  return { ...s, certs, a, b }
}
const keep = (q: any, certNo: string, overrides: Record<string, unknown> = {}) => ({
  qualificationId: q.qualificationId,
  expectedUpdateTime: q.updateTime,
  qualType: q.qualType,
  certNo,
  imageUrl: q.imageUrl,
  expiryDate: q.expiryDate,
  ...overrides,
})

describe('SUP-ADM-004 update (PUT /items/{id}): contacts, qualifications, contracts, evaluations', () => {
  describe('happy: contacts as a snapshot', () => {
    it('same id updates (phone masked in the log), no id adds, absent ones are soft-deleted', async () => {
      const s = await withTwoContacts()
      const newPhone = uniquePhone()
      const thirdPhone = uniquePhone()
      const w1 = c.ok(
        await c.update(s.id, {
          contacts: [
            {
              contactId: s.a.contactId,
              expectedUpdateTime: s.a.updateTime,
              contactName: 'Wang Wu',
              contactPhone: newPhone,
              contactRole: 'SALES',
            },
            {
              contactId: s.b.contactId,
              expectedUpdateTime: s.b.updateTime,
              contactName: 'Zhao Liu',
              contactPhone: s.phones[1],
              contactRole: 'FINANCE',
            },
            { contactName: 'Sun Qi', contactPhone: thirdPhone, contactRole: 'OPS' },
          ],
          changeReason: 'new sales phone',
          expectedUpdateTime: s.version,
        }),
      )
      let view = await c.detail(s.id)
      expect(view.contacts).toHaveLength(3)
      const a = view.contacts.find((x: any) => x.contactId === s.a.contactId)
      const b = view.contacts.find((x: any) => x.contactId === s.b.contactId)
      const added = view.contacts.find((x: any) => x.contactName === 'Sun Qi')
      expect(a.contactPhoneMask).toBe(`137****${newPhone.slice(-4)}`)
      expect(a.updateTime).not.toBe(s.a.updateTime)
      expect(b).toEqual(s.b)
      expect(added.contactPhoneMask).toBe(`137****${thirdPhone.slice(-4)}`)
      let logs = await changeLogs(h, s.id, 'DRAFT_UPDATE')
      expect(logs).toHaveLength(2)
      const phoneLog = logs.find((l) => l.field_name === 'contactPhone')
      expect(phoneLog).toMatchObject({
        target_type: 'CONTACT',
        target_id: s.a.contactId,
        old_value_masked: `137****${s.phones[0].slice(-4)}`,
        new_value_masked: `137****${newPhone.slice(-4)}`,
        change_reason: 'new sales phone',
      })
      expect(logs.find((l) => l.field_name === 'contact')).toMatchObject({
        target_type: 'CONTACT',
        old_value_masked: null,
      })
      expect(JSON.stringify(logs)).not.toContain(newPhone)
      expect(JSON.stringify(logs)).not.toContain(thirdPhone)

      // only a in the snapshot: b and the added one are soft-deleted, rows kept
      c.ok(
        await c.update(s.id, {
          contacts: [
            {
              contactId: a.contactId,
              expectedUpdateTime: a.updateTime,
              contactName: 'Wang Wu',
              contactPhone: newPhone,
              contactRole: 'SALES',
            },
          ],
          expectedUpdateTime: w1.updateTime,
        }),
      )
      view = await c.detail(s.id)
      expect(view.contacts.map((x: any) => x.contactId)).toEqual([a.contactId])
      const rows = await contactRows(h, s.id)
      expect(rows).toHaveLength(3)
      expect(
        rows
          .filter((r) => r.deleted)
          .map((r) => r.id)
          .sort(),
      ).toEqual([s.b.contactId, added.contactId].sort())
      logs = (await changeLogs(h, s.id, 'DRAFT_UPDATE')).slice(2)
      expect(logs).toHaveLength(2)
      expect(logs.every((l) => l.field_name === 'contact' && l.new_value_masked === null)).toBe(
        true,
      )
      expect(logs.map((l) => l.target_id).sort()).toEqual([s.b.contactId, added.contactId].sort())

      // a soft-deleted contact's id is no longer this supplier's
      await unchanged(h, async () => {
        c.failed(
          await c.update(s.id, {
            contacts: [
              {
                contactId: s.b.contactId,
                expectedUpdateTime: s.b.updateTime,
                contactName: 'Zhao Liu',
                contactPhone: s.phones[1],
              },
            ],
            expectedUpdateTime: view.updateTime,
          }),
          395011,
        )
      })
    })

    it('contacts: [] soft-deletes every contact', async () => {
      const s = await withTwoContacts()
      c.ok(await c.update(s.id, { contacts: [], expectedUpdateTime: s.version }))
      expect((await c.detail(s.id)).contacts).toEqual([])
      const rows = await contactRows(h, s.id)
      expect(rows).toHaveLength(2)
      expect(rows.every((r) => r.deleted)).toBe(true)
      expect(await changeLogs(h, s.id, 'DRAFT_UPDATE')).toHaveLength(2)
    })
  })

  describe('happy: qualifications as a snapshot', () => {
    it('same id updates (certificate masked), no id adds, absent ones are soft-deleted, [] removes all', async () => {
      const s = await withTwoQualifications()
      const newCert = CERT_B()
      const w1 = c.ok(
        await c.update(s.id, {
          qualifications: [
            keep(s.a, newCert, { expiryDate: '2097-06-30' }),
            keep(s.b, s.certs[1]),
            { qualType: 'TRAVEL_PERMIT', certNo: null, imageUrl: `${STORAGE}tp.png` },
          ],
          expectedUpdateTime: s.version,
        }),
      )
      let view = await c.detail(s.id)
      expect(view.qualifications).toHaveLength(3)
      const a = view.qualifications.find((q: any) => q.qualificationId === s.a.qualificationId)
      expect(a).toMatchObject({
        certNoMask: `JY${'*'.repeat(newCert.length - 6)}${newCert.slice(-4)}`,
        expiryDate: '2097-06-30',
      })
      expect(
        view.qualifications.find((q: any) => q.qualificationId === s.b.qualificationId),
      ).toEqual(s.b)
      let logs = await changeLogs(h, s.id, 'DRAFT_UPDATE')
      expect(logs.map((l) => `${l.target_type}.${l.field_name}`).sort()).toEqual([
        'QUALIFICATION.certNo',
        'QUALIFICATION.expiryDate',
        'QUALIFICATION.qualification',
      ])
      expect(logs.find((l) => l.field_name === 'certNo')).toMatchObject({
        target_id: s.a.qualificationId,
        old_value_masked: s.a.certNoMask,
        new_value_masked: a.certNoMask,
      })
      expect(JSON.stringify(logs)).not.toContain(newCert)
      expect(JSON.stringify(logs)).not.toContain(s.certs[0])

      // only a: b and the added one are soft-deleted
      const w2 = c.ok(
        await c.update(s.id, {
          qualifications: [keep(a, newCert)],
          expectedUpdateTime: w1.updateTime,
        }),
      )
      view = await c.detail(s.id)
      expect(view.qualifications.map((q: any) => q.qualificationId)).toEqual([a.qualificationId])
      let rows = await h.sql`
        SELECT qualification_id::text AS id, deleted_at IS NOT NULL AS deleted
        FROM supplier_qualification WHERE supplier_id = ${s.id} ORDER BY qualification_id`
      expect(rows).toHaveLength(3)
      expect(rows.filter((r) => r.deleted)).toHaveLength(2)
      logs = (await changeLogs(h, s.id, 'DRAFT_UPDATE')).slice(3)
      expect(logs).toHaveLength(2)
      expect(logs.every((l) => l.field_name === 'qualification' && !l.new_value_masked)).toBe(true)

      // the removed id is no longer this supplier's
      await unchanged(h, async () => {
        c.failed(
          await c.update(s.id, {
            qualifications: [keep(s.b, s.certs[1])],
            expectedUpdateTime: w2.updateTime,
          }),
          395011,
        )
      })

      c.ok(await c.update(s.id, { qualifications: [], expectedUpdateTime: w2.updateTime }))
      expect((await c.detail(s.id)).qualifications).toEqual([])
      rows = await h.sql`
        SELECT deleted_at IS NOT NULL AS deleted FROM supplier_qualification WHERE supplier_id = ${s.id}`
      expect(rows.every((r) => r.deleted)).toBe(true)
    })
  })

  describe('happy: contracts and evaluations (merge shape only)', () => {
    for (const { kind, table, field, idKey } of BARE) {
      it(`${field}: [{}] adds a row, resending it keeps it, [] removes it`, async () => {
        const s = await c.draft()
        const w1 = c.ok(await c.update(s.id, { [field]: [{}], expectedUpdateTime: s.version }))
        let rows = await bareRows(h, table, s.id)
        expect(rows).toHaveLength(1)
        expect(rows[0].deleted).toBe(false)
        const [row] = rows
        const logCount = (await changeLogs(h, s.id)).length

        // kept: same id and version, with another real change
        const w2 = c.ok(
          await c.update(s.id, {
            remark: `keep the ${kind}`,
            [field]: [{ [idKey]: row.id, expectedUpdateTime: row.version }],
            expectedUpdateTime: w1.updateTime,
          }),
        )
        rows = await bareRows(h, table, s.id)
        expect(rows).toEqual([row])
        const newLogs = (await changeLogs(h, s.id)).slice(logCount)
        expect(newLogs.map((l) => l.field_name)).toEqual(['remark'])

        // resending alone is no actual change
        await unchanged(h, async () => {
          c.failed(
            await c.update(s.id, {
              [field]: [{ [idKey]: row.id, expectedUpdateTime: row.version }],
              expectedUpdateTime: w2.updateTime,
            }),
            395012,
          )
          c.failed(
            await c.update(s.id, {
              [field]: [{ [idKey]: row.id }],
              expectedUpdateTime: w2.updateTime,
            }),
            400,
            field,
          )
          c.failed(
            await c.update(s.id, {
              [field]: [{ [idKey]: row.id, expectedUpdateTime: row.version, amount: 1 }],
              expectedUpdateTime: w2.updateTime,
            }),
            400,
          )
        })

        c.ok(await c.update(s.id, { [field]: [], expectedUpdateTime: w2.updateTime }))
        rows = await bareRows(h, table, s.id)
        expect(rows).toHaveLength(1)
        expect(rows[0]).toMatchObject({ id: row.id, deleted: true })
        const removed = (await changeLogs(h, s.id)).at(-1)!
        expect(removed).toMatchObject({
          target_type: kind.toUpperCase(),
          target_id: row.id,
          new_value_masked: null,
        })
      })
    }
  })

  describe('error: contacts as a snapshot', () => {
    it('a contactId of another supplier is 395011 and writes nothing', async () => {
      const s = await withTwoContacts()
      const other = await withTwoContacts()
      await unchanged(h, async () => {
        c.failed(
          await c.update(s.id, {
            contacts: [
              {
                contactId: other.a.contactId,
                expectedUpdateTime: other.a.updateTime,
                contactName: 'Hijack',
                contactPhone: uniquePhone(),
              },
            ],
            expectedUpdateTime: s.version,
          }),
          395011,
        )
        // also together with a valid change and a nonexistent id
        c.failed(
          await c.update(s.id, {
            remark: 'with a foreign contact',
            contacts: [
              {
                contactId: '9223372036854775000',
                expectedUpdateTime: s.a.updateTime,
                contactName: 'Ghost',
                contactPhone: uniquePhone(),
              },
            ],
            expectedUpdateTime: s.version,
          }),
          395011,
        )
      })
      expect((await c.detail(other.id)).contacts.map((x: any) => x.contactName)).toEqual([
        'Wang Wu',
        'Zhao Liu',
      ])
    })

    it('contactId without expectedUpdateTime (and the reverse) is 400 naming contacts', async () => {
      const s = await withTwoContacts()
      await unchanged(h, async () => {
        c.failed(
          await c.update(s.id, {
            contacts: [{ contactId: s.a.contactId, contactName: 'Wang Wu', contactPhone: PHONE }],
            expectedUpdateTime: s.version,
          }),
          400,
          'contacts',
        )
        c.failed(
          await c.update(s.id, {
            contacts: [
              { expectedUpdateTime: s.a.updateTime, contactName: 'Wang Wu', contactPhone: PHONE },
            ],
            expectedUpdateTime: s.version,
          }),
          400,
          'contacts',
        )
      })
    })

    it('a stale contact expectedUpdateTime is 395003 and writes nothing', async () => {
      const s = await withTwoContacts()
      const item = (phone: string, version: string) => ({
        contactId: s.a.contactId,
        expectedUpdateTime: version,
        contactName: 'Wang Wu',
        contactPhone: phone,
        contactRole: 'SALES',
      })
      const bItem = {
        contactId: s.b.contactId,
        expectedUpdateTime: s.b.updateTime,
        contactName: 'Zhao Liu',
        contactPhone: s.phones[1],
        contactRole: 'FINANCE',
      }
      const w = c.ok(
        await c.update(s.id, {
          contacts: [item(uniquePhone(), s.a.updateTime), bItem],
          expectedUpdateTime: s.version,
        }),
      )
      // supplier version is current, the contact's version is the old one
      await unchanged(h, async () => {
        c.failed(
          await c.update(s.id, {
            contacts: [item(uniquePhone(), s.a.updateTime), bItem],
            expectedUpdateTime: w.updateTime,
          }),
          395003,
        )
      })
    })

    it('the same contactId twice in the snapshot is 400', async () => {
      const s = await withTwoContacts()
      const item = {
        contactId: s.a.contactId,
        expectedUpdateTime: s.a.updateTime,
        contactName: 'Wang Wu',
        contactPhone: s.phones[0],
        contactRole: 'SALES',
      }
      await unchanged(h, async () => {
        c.failed(
          await c.update(s.id, {
            contacts: [item, { ...item, contactName: 'Wang Wu II' }],
            expectedUpdateTime: s.version,
          }),
          400,
          'contact',
        )
      })
    })
  })

  describe('error: qualifications as a snapshot', () => {
    it('foreign id is 395011, id without version is 400, stale item version is 395003, duplicate id is 400', async () => {
      const s = await withTwoQualifications()
      const other = await withTwoQualifications()
      const w = c.ok(
        await c.update(s.id, {
          qualifications: [
            keep(s.a, s.certs[0], { expiryDate: '2096-01-01' }),
            keep(s.b, s.certs[1]),
          ],
          expectedUpdateTime: s.version,
        }),
      )
      await unchanged(h, async () => {
        c.failed(
          await c.update(s.id, {
            qualifications: [keep(other.a, other.certs[0])],
            expectedUpdateTime: w.updateTime,
          }),
          395011,
        )
        const { expectedUpdateTime: _v, ...noVersion } = keep(s.b, s.certs[1])
        c.failed(
          await c.update(s.id, { qualifications: [noVersion], expectedUpdateTime: w.updateTime }),
          400,
          'qualifications',
        )
        // s.a's version moved with the first update: the old one is stale
        c.failed(
          await c.update(s.id, {
            qualifications: [
              keep(s.a, s.certs[0], { expiryDate: '2095-01-01' }),
              keep(s.b, s.certs[1]),
            ],
            expectedUpdateTime: w.updateTime,
          }),
          395003,
        )
        c.failed(
          await c.update(s.id, {
            qualifications: [
              keep(s.b, s.certs[1]),
              keep(s.b, s.certs[1], { expiryDate: '2090-01-01' }),
            ],
            expectedUpdateTime: w.updateTime,
          }),
          400,
          'qualification',
        )
      })
    })
  })

  describe('error: contracts and evaluations (merge shape only)', () => {
    for (const { table, field, idKey } of BARE) {
      it(`${field}: an id of another supplier is 395011 and writes nothing`, async () => {
        const other = await c.draft()
        c.ok(await c.update(other.id, { [field]: [{}], expectedUpdateTime: other.version }))
        const [row] = await bareRows(h, table, other.id)
        const s = await c.draft()
        await unchanged(h, async () => {
          c.failed(
            await c.update(s.id, {
              [field]: [{ [idKey]: row.id, expectedUpdateTime: row.version }],
              expectedUpdateTime: s.version,
            }),
            395011,
          )
        })
      })
    }
  })

  itLeaksNothing(h)
})
