import { describe, expect, it } from 'vitest'
import { PHONE, CERT_NO, CONTACT_PHONE, fullWidth, uniqueName } from './supplier-data'
import { ITEMS } from './client'
import { useHarness } from './harness'
import {
  accountNo,
  changeLogs,
  events,
  itLeaksNothing,
  recordingClient,
  taxNo,
  uniquePhone,
  withoutVersion,
  asEventChanges,
} from './supplier-update-data'
import { unchanged } from './unchanged'

/*
 * SUP-ADM-004 update (PUT /items/{id}) of a supplier's own fields, through the HTTP API: patch
 * semantics and the change log, no-op and version refusals, types, and identity (fullName,
 * taxNo), free in a DRAFT and frozen after approval. Collections are in
 * supplier-update-children.test.ts, who may write in which status in
 * supplier-update-status.test.ts.
 */

const h = useHarness()
const c = recordingClient(h)

describe('SUP-ADM-004 update (PUT /items/{id})', () => {
  describe('happy: patch semantics', () => {
    it('sending only shortName changes only shortName; everything else in the detail stays', async () => {
      const s = await c.draft({}, true)
      const before = await c.detail(s.id)
      const shortName = uniqueName('Renamed')
      const written = c.ok(
        await c.update(s.id, { shortName, changeReason: 'brand', expectedUpdateTime: s.version }),
      )
      expect(written).toEqual({
        supplierId: s.id,
        supplierNo: null,
        status: 'DRAFT',
        onboardingStage: expect.any(String),
        initialAccounts: [expect.objectContaining({ status: 'DRAFT' })],
        updateTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      })
      expect(written.updateTime).not.toBe(s.version)
      const after = await c.detail(s.id)
      expect(after.shortName).toBe(shortName)
      expect(after.updateTime).toBe(written.updateTime)
      expect(withoutVersion(after, 'shortName')).toEqual(withoutVersion(before, 'shortName'))
      const logs = await changeLogs(h, s.id, 'DRAFT_UPDATE')
      expect(logs).toHaveLength(1)
      expect(logs[0]).toMatchObject({
        target_type: 'SUPPLIER',
        target_id: s.id,
        field_name: 'shortName',
        old_value_masked: s.body.shortName,
        new_value_masked: shortName,
        change_reason: 'brand',
      })
    })

    it('null clears an optional field and is logged as a change to null', async () => {
      const s = await c.draft({}, true)
      const written = c.ok(
        await c.update(s.id, {
          address: null,
          legalRepresentative: null,
          expectedUpdateTime: s.version,
        }),
      )
      const after = await c.detail(s.id)
      expect(after.address).toBeNull()
      expect(after.legalRepresentative).toBeNull()
      expect(after.businessScope).toBe(s.body.businessScope)
      expect(after.updateTime).toBe(written.updateTime)
      const logs = await changeLogs(h, s.id, 'DRAFT_UPDATE')
      expect(
        logs.map((l) => [l.field_name, l.old_value_masked, l.new_value_masked]).sort(),
      ).toEqual(
        [
          ['address', s.body.address, null],
          ['legalRepresentative', s.body.legalRepresentative, null],
        ].sort(),
      )
    })

    it('approveNote is logged only as a mask and never shown in the detail', async () => {
      const s = await c.draft()
      const note = 'Checked by Zhang, call back later'
      c.ok(await c.update(s.id, { approveNote: note, expectedUpdateTime: s.version }))
      const [log] = await changeLogs(h, s.id, 'DRAFT_UPDATE')
      expect(log).toMatchObject({
        field_name: 'approveNote',
        old_value_masked: null,
        new_value_masked: '******',
      })
      const view = await c.detail(s.id)
      expect(view).not.toHaveProperty('approveNote')
      expect(JSON.stringify(view)).not.toContain(note)
      const [row] = await h.sql`
        SELECT approve_note, approve_note_enc FROM supplier WHERE supplier_id = ${s.id}
      `
      expect(row.approve_note).toBeNull()
      expect(await h.cipher.decrypt(row.approve_note_enc)).toBe(note)
    })

    it('writes exactly one change-log row per changed field, masked, with the reason (DRAFT_UPDATE)', async () => {
      const s = await c.draft({}, true)
      const admin = await h.admin()
      const newPhone = uniquePhone()
      const newTax = taxNo()
      const evBefore = (await events(h, s.id)).length
      c.ok(
        await c.update(
          s.id,
          {
            shortName: s.body.shortName, // unchanged: no row
            address: 'Ningbo, Haishu district',
            contactPhone: newPhone,
            taxNo: newTax,
            changeReason: 'licence renewed',
            expectedUpdateTime: s.version,
          },
          admin,
        ),
      )
      const logs = await changeLogs(h, s.id, 'DRAFT_UPDATE')
      expect(logs.map((l) => l.field_name).sort()).toEqual(['address', 'contactPhone', 'taxNo'])
      for (const l of logs) {
        expect(l).toMatchObject({ change_reason: 'licence renewed', operator_id: admin })
      }
      const byField = Object.fromEntries(logs.map((l) => [l.field_name, l]))
      expect(byField.contactPhone).toMatchObject({
        old_value_masked: '138****5678',
        new_value_masked: `137****${newPhone.slice(-4)}`,
      })
      expect(byField.taxNo.old_value_masked).toBe(
        `${s.body.taxNo.slice(0, 2)}${'*'.repeat(s.body.taxNo.length - 6)}${s.body.taxNo.slice(-4)}`,
      )
      expect(byField.taxNo.new_value_masked).toBe(
        `${newTax.slice(0, 2)}${'*'.repeat(newTax.length - 6)}${newTax.slice(-4)}`,
      )
      const text = JSON.stringify(logs)
      for (const v of [PHONE, newPhone, s.body.taxNo, newTax]) expect(text).not.toContain(v)
      const view = await c.detail(s.id)
      expect(view.contactPhoneMask).toBe(`137****${newPhone.slice(-4)}`)
      expect(view.taxNoMask).toBe(byField.taxNo.new_value_masked)
      const evs = await events(h, s.id)
      expect(evs).toHaveLength(evBefore + 1)
      expect(evs.at(-1)!.event_type).toBe('SupplierProfileUpdated')
      for (const v of [newPhone, newTax]) expect(evs.at(-1)!.payload).not.toContain(v)
      // The event tells what changed, in the change log's own masked values.
      expect(JSON.parse(evs.at(-1)!.payload).changes).toEqual(asEventChanges(logs))
    })

    it('logs PROFILE_UPDATE for an ACTIVE supplier', async () => {
      const s = await c.active()
      expect(s.view.status).toBe('ACTIVE')
      c.ok(
        await c.update(s.id, {
          businessScope: 'Hotels and tickets',
          changeReason: 'scope widened',
          expectedUpdateTime: s.version,
        }),
      )
      const logs = (await changeLogs(h, s.id)).filter(
        (l) => l.operation_type === 'PROFILE_UPDATE' || l.operation_type === 'DRAFT_UPDATE',
      )
      expect(logs).toHaveLength(1)
      expect(logs[0]).toMatchObject({
        operation_type: 'PROFILE_UPDATE',
        field_name: 'businessScope',
        old_value_masked: 'Travel services',
        new_value_masked: 'Hotels and tickets',
        change_reason: 'scope widened',
      })
      expect((await c.detail(s.id)).businessScope).toBe('Hotels and tickets')
    })

    it('every write moves the version to a later second, even several writes in one second', async () => {
      const s = await c.draft()
      const versions = [s.version]
      for (let i = 0; i < 4; i++) {
        const data = c.ok(
          await c.update(s.id, { remark: `note ${i}`, expectedUpdateTime: versions.at(-1) }),
        )
        versions.push(data.updateTime)
      }
      expect(new Set(versions).size).toBe(versions.length)
      for (let i = 1; i < versions.length; i++) expect(versions[i] > versions[i - 1]).toBe(true)
      expect((await c.detail(s.id)).updateTime).toBe(versions.at(-1))
      // the old versions are all stale now
      c.failed(await c.update(s.id, { remark: 'late', expectedUpdateTime: versions[3] }), 395003)
    })
  })

  describe('happy: types and identity of a DRAFT', () => {
    it('[OTHER] → [HOTEL, OTHER] adds HOTEL; → [HOTEL] soft-deletes OTHER and keeps HOTEL', async () => {
      const s = await c.draft()
      const w1 = c.ok(
        await c.update(s.id, {
          types: [{ typeCode: 'HOTEL' }, { typeCode: 'OTHER' }],
          expectedUpdateTime: s.version,
        }),
      )
      expect((await c.detail(s.id)).types.map((t: any) => t.typeCode).sort()).toEqual([
        'HOTEL',
        'OTHER',
      ])
      let logs = await changeLogs(h, s.id, 'DRAFT_UPDATE')
      expect(logs).toHaveLength(1)
      expect(logs[0]).toMatchObject({
        target_type: 'TYPE',
        field_name: 'type',
        old_value_masked: null,
        new_value_masked: 'HOTEL',
      })
      c.ok(
        await c.update(s.id, { types: [{ typeCode: 'HOTEL' }], expectedUpdateTime: w1.updateTime }),
      )
      expect((await c.detail(s.id)).types.map((t: any) => t.typeCode)).toEqual(['HOTEL'])
      const rows = await h.sql`
        SELECT type_code, deleted_at IS NOT NULL AS deleted FROM supplier_type
        WHERE supplier_id = ${s.id} ORDER BY id`
      expect(rows.map((r) => [r.type_code, r.deleted])).toEqual([
        ['OTHER', true],
        ['HOTEL', false],
      ])
      logs = (await changeLogs(h, s.id, 'DRAFT_UPDATE')).slice(1)
      expect(logs).toHaveLength(1)
      expect(logs[0]).toMatchObject({ old_value_masked: 'OTHER', new_value_masked: null })
    })

    it('a DRAFT may change fullName and taxNo; a taxNo held by another supplier is 395004', async () => {
      const s = await c.draft({}, true)
      const other = await c.draft()
      const fullName = uniqueName('Renamed')
      const newTax = taxNo()
      const w = c.ok(
        await c.update(s.id, { fullName, taxNo: newTax, expectedUpdateTime: s.version }),
      )
      const view = await c.detail(s.id)
      expect(view.fullName).toBe(fullName)
      expect(view.taxNoMask).toBe(
        `${newTax.slice(0, 2)}${'*'.repeat(newTax.length - 6)}${newTax.slice(-4)}`,
      )
      expect((await changeLogs(h, s.id, 'DRAFT_UPDATE')).map((l) => l.field_name).sort()).toEqual([
        'fullName',
        'taxNo',
      ])
      // the old tax number is free again, the new one is taken
      const [{ n }] = await h.sql`
        SELECT count(*)::int AS n FROM supplier
        WHERE tax_no_bidx = ${await h.cipher.blindIndex(newTax, 'taxNo')} AND deleted_at IS NULL`
      expect(n).toBe(1)
      await unchanged(h, async () => {
        c.failed(
          await c.update(s.id, { taxNo: other.body.taxNo, expectedUpdateTime: w.updateTime }),
          395004,
        )
        c.failed(
          await c.update(s.id, {
            taxNo: fullWidth(other.body.taxNo.toLowerCase()),
            remark: 'take theirs',
            expectedUpdateTime: w.updateTime,
          }),
          395004,
        )
      })
    })

    it('a DRAFT replaces its initial accounts as a whole, logged with masked numbers', async () => {
      const s = await c.draft({}, true)
      const [old] = (await c.call('GET', `${ITEMS}/${s.id}/account-info`)).body.data.bankAccounts
      const number = accountNo()
      const w = c.ok(
        await c.update(s.id, {
          initialAccounts: [
            {
              accountType: 'CORPORATE',
              bankName: 'Bank of Ningbo',
              accountNo: number,
              settleMode: 'PER_ORDER',
            },
          ],
          expectedUpdateTime: s.version,
        }),
      )
      expect(w.initialAccounts).toHaveLength(1)
      expect(w.initialAccounts[0]).toMatchObject({
        accountNoMask: `**** **** ${number.slice(-4)}`,
        status: 'DRAFT',
      })
      const rows = await h.sql`
        SELECT account_id::text AS id, deleted_at IS NOT NULL AS deleted FROM supplier_bank_account
        WHERE supplier_id = ${s.id} ORDER BY account_id`
      expect(rows.map((r) => [r.id, r.deleted])).toEqual([
        [old.accountId, true],
        [w.initialAccounts[0].accountId, false],
      ])
      const logs = await changeLogs(h, s.id, 'DRAFT_UPDATE')
      expect(
        logs.map((l) => [l.target_type, l.old_value_masked === null, l.new_value_masked === null]),
      ).toEqual(
        expect.arrayContaining([
          ['ACCOUNT', false, true],
          ['ACCOUNT', true, false],
        ]),
      )
      expect(logs).toHaveLength(2)
      expect(JSON.stringify(logs)).not.toContain(number)
    })
  })

  describe('error: at least one actual change', () => {
    it('a body with only changeReason and expectedUpdateTime is 395012 and writes nothing', async () => {
      const s = await c.draft({}, true)
      await unchanged(h, async () => {
        c.failed(
          await c.update(s.id, { changeReason: 'nothing', expectedUpdateTime: s.version }),
          395012,
        )
      })
    })

    it('resending identical values (subject fields and collections) is 395012 and writes nothing', async () => {
      const s = await c.draft({}, true)
      const view = await c.detail(s.id)
      await unchanged(h, async () => {
        c.failed(
          await c.update(s.id, {
            fullName: ` ${s.body.fullName} `,
            taxNo: s.body.taxNo.toLowerCase(),
            shortName: s.body.shortName,
            address: s.body.address,
            contactPhone: PHONE,
            establishDate: s.body.establishDate,
            staffScale: s.body.staffScale,
            types: [{ typeCode: 'OTHER' }],
            changeReason: 'same',
            expectedUpdateTime: s.version,
          }),
          395012,
        )
        c.failed(
          await c.update(s.id, {
            contacts: view.contacts.map((ct: any) => ({
              contactId: ct.contactId,
              expectedUpdateTime: ct.updateTime,
              contactName: ct.contactName,
              contactPhone: CONTACT_PHONE,
              contactRole: ct.contactRole,
            })),
            qualifications: view.qualifications.map((q: any) => ({
              qualificationId: q.qualificationId,
              expectedUpdateTime: q.updateTime,
              qualType: q.qualType,
              certNo: CERT_NO,
              imageUrl: q.imageUrl,
              expiryDate: q.expiryDate,
            })),
            expectedUpdateTime: s.version,
          }),
          395012,
        )
      })
    })
  })

  describe('error: version', () => {
    it('a stale expectedUpdateTime is 395003 and writes nothing', async () => {
      const s = await c.draft()
      const first = c.ok(await c.update(s.id, { remark: 'first', expectedUpdateTime: s.version }))
      await unchanged(h, async () => {
        c.failed(await c.update(s.id, { remark: 'second', expectedUpdateTime: s.version }), 395003)
      })
      expect((await c.detail(s.id)).remark).toBe('first')
      expect((await c.detail(s.id)).updateTime).toBe(first.updateTime)
    })

    it('a malformed or missing expectedUpdateTime is 400 naming the field', async () => {
      const s = await c.draft()
      await unchanged(h, async () => {
        for (const expectedUpdateTime of [
          '2024-01-01T00:00:00',
          '2024-01-01',
          s.version + '.000',
        ]) {
          c.failed(
            await c.update(s.id, { remark: 'x', expectedUpdateTime }),
            400,
            'expectedUpdateTime',
          )
        }
        c.failed(await c.update(s.id, { remark: 'x' }), 400, 'expectedUpdateTime')
      })
    })

    it('two concurrent updates with the same version: exactly one wins, five rounds', async () => {
      const s = await c.draft()
      for (let round = 0; round < 5; round++) {
        const version = (await c.detail(s.id)).updateTime as string
        const logsBefore = (await changeLogs(h, s.id)).length
        const eventsBefore = (await events(h, s.id)).length
        const [adminA, adminB] = [await h.admin(), await h.admin()]
        const values = [`Alpha ${round} ${uniqueName('A')}`, `Beta ${round} ${uniqueName('B')}`]
        const results = await Promise.all([
          c.update(s.id, { shortName: values[0], expectedUpdateTime: version }, adminA),
          c.update(s.id, { shortName: values[1], expectedUpdateTime: version }, adminB),
        ])
        const codes = results.map((r) => r.body.code)
        const winners = codes.flatMap((code, i) => (code === 200 ? [i] : []))
        expect(winners, JSON.stringify(codes)).toHaveLength(1)
        const loser = codes[1 - winners[0]]
        expect([395014, 395003]).toContain(loser)
        expect(results[1 - winners[0]].body.success).toBe(false)
        const view = await c.detail(s.id)
        expect(view.shortName).toBe(values[winners[0]])
        expect(view.updateTime).toBe(results[winners[0]].body.data.updateTime)
        const logs = (await changeLogs(h, s.id)).slice(logsBefore)
        expect(logs).toHaveLength(1)
        expect(logs[0]).toMatchObject({
          field_name: 'shortName',
          new_value_masked: values[winners[0]],
          operator_id: [adminA, adminB][winners[0]],
        })
        expect((await events(h, s.id)).length).toBe(eventsBefore + 1)
      }
    })

    it('an update and a contacts replace racing on the same version: exactly one wins, three rounds', async () => {
      const s = await c.draft({
        contacts: [{ contactName: 'Race One', contactPhone: uniquePhone() }],
      })
      for (let round = 0; round < 3; round++) {
        const view = await c.detail(s.id)
        const logsBefore = (await changeLogs(h, s.id)).length
        const results = await Promise.all([
          c.update(s.id, { remark: `race ${round}`, expectedUpdateTime: view.updateTime }),
          c.replaceContacts(s.id, {
            contacts: [
              ...view.contacts.map((x: any) => ({
                contactId: x.contactId,
                expectedUpdateTime: x.updateTime,
                contactName: x.contactName,
                contactPhone: '13700000000',
              })),
              { contactName: `Racer ${round}`, contactPhone: uniquePhone() },
            ],
            expectedUpdateTime: view.updateTime,
          }),
        ])
        const codes = results.map((r) => r.body.code)
        const winner = codes.indexOf(200)
        expect(
          codes.filter((code) => code === 200),
          JSON.stringify(codes),
        ).toHaveLength(1)
        expect([395014, 395003]).toContain(codes[1 - winner])
        const after = await c.detail(s.id)
        const logs = (await changeLogs(h, s.id)).slice(logsBefore)
        if (winner === 0) {
          expect(after.remark).toBe(`race ${round}`)
          expect(after.contacts).toEqual(view.contacts)
          expect(logs.map((l) => l.operation_type)).toEqual(['DRAFT_UPDATE'])
        } else {
          expect(after.remark).toBe(view.remark)
          expect(after.contacts.map((x: any) => x.contactName)).toContain(`Racer ${round}`)
          expect(new Set(logs.map((l) => l.operation_type))).toEqual(new Set(['CONTACT_REPLACE']))
        }
      }
    })
  })

  describe('error: types', () => {
    it('types: [] and a repeated typeCode are 400; an unknown type is 395010; nothing written', async () => {
      const s = await c.draft()
      await unchanged(h, async () => {
        c.failed(await c.update(s.id, { types: [], expectedUpdateTime: s.version }), 400, 'types')
        c.failed(
          await c.update(s.id, {
            types: [{ typeCode: 'HOTEL' }, { typeCode: 'HOTEL' }],
            expectedUpdateTime: s.version,
          }),
          400,
          'types',
        )
        c.failed(
          await c.update(s.id, {
            types: [{ typeCode: 'OTHER' }, { typeCode: 'NOT_A_TYPE' }],
            expectedUpdateTime: s.version,
          }),
          395010,
        )
        c.failed(
          await c.update(s.id, { types: [{ typeName: '酒店' }], expectedUpdateTime: s.version }),
          400,
        )
      })
      expect((await c.detail(s.id)).types.map((t: any) => t.typeCode)).toEqual(['OTHER'])
    })
  })

  describe('security: identity after approval, fields no client may send', () => {
    it('after approval fullName and taxNo are 395009; the original values (any form) pass with another change', async () => {
      const s = await c.active()
      expect(s.submitted).toMatchObject({ approvalStatus: 'APPLIED' })
      expect(s.view.supplierNo).toBeTruthy()
      await unchanged(h, async () => {
        c.failed(
          await c.update(s.id, { fullName: uniqueName('Other'), expectedUpdateTime: s.version }),
          395009,
        )
        c.failed(await c.update(s.id, { taxNo: taxNo(), expectedUpdateTime: s.version }), 395009)
        c.failed(
          await c.update(s.id, {
            fullName: s.body.fullName,
            taxNo: taxNo(),
            remark: 'sneak',
            expectedUpdateTime: s.version,
          }),
          395009,
        )
        // the original values alone are no change
        c.failed(
          await c.update(s.id, {
            fullName: s.body.fullName,
            taxNo: s.body.taxNo,
            expectedUpdateTime: s.version,
          }),
          395012,
        )
      })
      const before = (await changeLogs(h, s.id)).length
      const w = c.ok(
        await c.update(s.id, {
          fullName: `  ${fullWidth(s.body.fullName)} `,
          taxNo: fullWidth(s.body.taxNo.toLowerCase()),
          remark: 'original identity resent',
          expectedUpdateTime: s.version,
        }),
      )
      expect(w.status).toBe('ACTIVE')
      const logs = (await changeLogs(h, s.id)).slice(before)
      expect(logs.map((l) => [l.operation_type, l.field_name])).toEqual([
        ['PROFILE_UPDATE', 'remark'],
      ])
      const view = await c.detail(s.id)
      expect(view.fullName).toBe(s.body.fullName)
      expect(view.taxNoMask).toBe(s.view.taxNoMask)
      expect(view.supplierNo).toBe(s.view.supplierNo)
    })

    it('initialAccounts on an ACTIVE supplier is 395009; creditLevel, deletedIds, accountNo are 400', async () => {
      const s = await c.active()
      await unchanged(h, async () => {
        c.failed(
          await c.update(s.id, {
            initialAccounts: [
              { accountType: 'CORPORATE', bankName: 'BOC', accountNo: accountNo() },
            ],
            expectedUpdateTime: s.version,
          }),
          395009,
        )
        c.failed(
          await c.update(s.id, { creditLevel: 'A', remark: 'x', expectedUpdateTime: s.version }),
          400,
          'creditLevel',
        )
        c.failed(
          await c.update(s.id, {
            deletedIds: [s.view.contacts[0].contactId],
            remark: 'x',
            expectedUpdateTime: s.version,
          }),
          400,
          'deletedIds',
        )
        c.failed(
          await c.update(s.id, {
            accountNo: accountNo(),
            remark: 'x',
            expectedUpdateTime: s.version,
          }),
          400,
          'accountNo',
        )
        c.failed(
          await c.update(s.id, { supplierNo: 'SP1', remark: 'x', expectedUpdateTime: s.version }),
          400,
          'supplierNo',
        )
        c.failed(
          await c.update(s.id, { status: 'ACTIVE', remark: 'x', expectedUpdateTime: s.version }),
          400,
          'status',
        )
      })
    })
  })

  itLeaksNothing(h)
})
