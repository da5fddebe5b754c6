import { describe, expect, it } from 'vitest'
import { ALL_PERMISSIONS, useHarness } from './harness'
import { tag } from './fixtures'
import { unchanged } from './unchanged'

const h = useHarness()

const path = (typeCode: string) => `/admin/supplier/types/${typeCode}/qualification-rules`
const rule = (qualType: string, over: Record<string, unknown> = {}) => ({
  qualType,
  isRequired: true,
  warningDays: 30,
  sortOrder: 1,
  ...over,
})
const put = (typeCode: string, rules: unknown[], admin?: string) =>
  h.call('PUT', path(typeCode), { body: { rules }, ...(admin ? { admin } : {}) })

/** Every row of the type in the table, live or soft-deleted. */
const tableRows = async (typeCode: string) =>
  (
    await h.sql`
      SELECT rule_id::text AS "ruleId", qual_type AS "qualType", deleted_at IS NOT NULL AS deleted,
             to_char(update_time, 'YYYY-MM-DD HH24:MI:SS') AS "updateTime"
      FROM qualification_rule WHERE type_code = ${typeCode} ORDER BY rule_id
    `
  ).map((r) => ({ ...r }))

/** Runs `fn` with the dictionary item of `typeCode` disabled, re-enabling it afterwards. */
async function withTypeDisabled(typeCode: string, fn: () => Promise<void>) {
  await h.sql`
    UPDATE dict_data SET status = 'DISABLED' WHERE dict_type = 'supplier_type' AND dict_value = ${typeCode}
  `
  try {
    await fn()
  } finally {
    await h.sql`
      UPDATE dict_data SET status = 'ACTIVE' WHERE dict_type = 'supplier_type' AND dict_value = ${typeCode}
    `
  }
}

// Rules are per type and global, so each test owns one supplier type.
describe('qualification rules', () => {
  it('happy: GET of a type without rules is an empty list', async () => {
    const res = await h.call('GET', path('INSURANCE'))
    expect(res.body).toEqual({ code: 200, message: expect.any(String), success: true, data: [] })
  })

  it('happy: PUT replaces the live set; removed rules stay soft-deleted in the table', async () => {
    const type = 'HOTEL'
    const first = await put(type, [
      rule('BUSINESS_LICENSE', { sortOrder: 2 }),
      rule('FIRE_SAFETY', { isRequired: false, warningDays: 0, sortOrder: 1 }),
      rule('HEALTH_PERMIT', { sortOrder: 2, warningDays: 15 }),
    ])
    expect(first.body).toMatchObject({ code: 200, success: true })
    // By sortOrder, then ruleId (insertion order here).
    expect(first.body.data.map((r: any) => r.qualType)).toEqual([
      'FIRE_SAFETY',
      'BUSINESS_LICENSE',
      'HEALTH_PERMIT',
    ])
    const byType = Object.fromEntries(first.body.data.map((r: any) => [r.qualType, r]))
    expect(byType.FIRE_SAFETY).toEqual({
      ruleId: expect.any(String),
      typeCode: type,
      qualType: 'FIRE_SAFETY',
      isRequired: false,
      warningDays: 0,
      sortOrder: 1,
      updateTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
    })
    for (const r of first.body.data) expect(BigInt(r.ruleId) > 2n ** 53n).toBe(true)

    const second = await put(type, [
      rule('HEALTH_PERMIT', { sortOrder: 2, warningDays: 15 }), // unchanged
      rule('BUSINESS_LICENSE', { sortOrder: 0, warningDays: 60 }), // changed
      rule('SPECIAL_TRADE', { isRequired: false, sortOrder: 5 }), // new
    ])
    expect(second.body.code).toBe(200)
    const after = Object.fromEntries(second.body.data.map((r: any) => [r.qualType, r]))
    expect(second.body.data.map((r: any) => r.qualType)).toEqual([
      'BUSINESS_LICENSE',
      'HEALTH_PERMIT',
      'SPECIAL_TRADE',
    ])
    // Same (typeCode, qualType) keeps its rule id; only a changed rule gets a new version.
    expect(after.BUSINESS_LICENSE.ruleId).toBe(byType.BUSINESS_LICENSE.ruleId)
    expect(after.BUSINESS_LICENSE).toMatchObject({ warningDays: 60, sortOrder: 0 })
    expect(after.BUSINESS_LICENSE.updateTime > byType.BUSINESS_LICENSE.updateTime).toBe(true)
    expect(after.HEALTH_PERMIT).toEqual(byType.HEALTH_PERMIT)
    expect(BigInt(after.SPECIAL_TRADE.ruleId) > BigInt(byType.HEALTH_PERMIT.ruleId)).toBe(true)

    const rows = await tableRows(type)
    expect(rows.filter((r) => r.deleted).map((r) => r.qualType)).toEqual(['FIRE_SAFETY'])
    expect(
      rows
        .filter((r) => !r.deleted)
        .map((r) => r.ruleId)
        .sort(),
    ).toEqual(second.body.data.map((r: any) => r.ruleId).sort())
    expect((await h.call('GET', path(type))).body.data).toEqual(second.body.data)

    // An empty list soft-deletes every live rule; a removed qualType can come back as a new rule.
    expect((await put(type, [])).body.data).toEqual([])
    expect((await tableRows(type)).every((r) => r.deleted)).toBe(true)
    const again = await put(type, [rule('FIRE_SAFETY')])
    expect(again.body.data[0].ruleId).not.toBe(byType.FIRE_SAFETY.ruleId)
    expect((await tableRows(type)).filter((r) => r.qualType === 'FIRE_SAFETY')).toHaveLength(2)
  })

  it('happy: every rule change is change-logged with one pending event, in the same transaction', async () => {
    const admin = await h.admin(ALL_PERMISSIONS)
    const rowsOf = async () => {
      const logs = await h.sql`
        SELECT supplier_id, operation_type, target_type, target_id::text AS "targetId",
               field_name AS field, old_value_masked AS old, new_value_masked AS new,
               operator_id::text AS operator
        FROM change_log WHERE operation_type = 'QUALIFICATION_RULE_REPLACE' ORDER BY change_log_id`
      const events = await h.sql`
        SELECT e.payload FROM domain_event e
        WHERE e.event_type = 'QualificationRulesReplaced' ORDER BY e.event_id`
      return { logs: [...logs], events: [...events] }
    }
    const before = await rowsOf()
    const first = await put('RENTAL', [rule('VEHICLE_LICENSE'), rule('OPERATION_PERMIT')], admin)
    expect(first.body.code).toBe(200)
    const [license, permit] = first.body.data
    let now = await rowsOf()
    const added = now.logs.slice(before.logs.length)
    expect(
      added.every((l) => l.supplier_id === null && l.target_type === 'QUALIFICATION_RULE'),
    ).toBe(true)
    expect(added.every((l) => l.operator === admin)).toBe(true)
    expect(added).toContainEqual(
      expect.objectContaining({
        targetId: license.ruleId,
        field: 'qualType',
        old: null,
        new: 'VEHICLE_LICENSE',
      }),
    )
    expect(now.events.length).toBe(before.events.length + 1)
    expect(now.events.at(-1)!.payload).toMatchObject({ typeCode: 'RENTAL', operatorId: admin })

    // Changing one value and dropping one rule logs exactly those two changes.
    const second = await put('RENTAL', [rule('VEHICLE_LICENSE', { warningDays: 7 })], admin)
    expect(second.body.code).toBe(200)
    const afterFirst = now.logs.length
    now = await rowsOf()
    expect(now.logs.slice(afterFirst)).toEqual([
      expect.objectContaining({ targetId: license.ruleId, field: 'warningDays', new: '7' }),
      expect.objectContaining({
        targetId: permit.ruleId,
        field: 'deleted',
        old: 'false',
        new: 'true',
      }),
    ])

    // The same set again changes nothing and records nothing.
    const events = now.events.length
    await put('RENTAL', [rule('VEHICLE_LICENSE', { warningDays: 7 })], admin)
    const same = await rowsOf()
    expect(same.logs.length).toBe(now.logs.length)
    expect(same.events.length).toBe(events)
  })

  it('error: unknown or disabled types are 395010 and nothing is written', async () => {
    const admin = await h.admin()
    for (const typeCode of ['NO_SUCH_TYPE', 'scenic', 'supplier_lifecycle_status', 'ACTIVE']) {
      await unchanged(h, async () => {
        expect((await h.call('GET', path(typeCode), { admin })).body).toMatchObject({
          code: 395010,
          success: false,
          data: null,
        })
        expect((await put(typeCode, [rule('X')], admin)).body.code).toBe(395010)
      })
    }
    const type = 'PROPERTY'
    await put(type, [rule('PROPERTY_LICENSE')])
    const before = await tableRows(type)
    await withTypeDisabled(type, () =>
      unchanged(h, async () => {
        expect((await h.call('GET', path(type), { admin })).body.code).toBe(395010)
        expect((await put(type, [rule('OTHER_PERMIT')], admin)).body.code).toBe(395010)
      }),
    )
    expect(await tableRows(type)).toEqual(before)
    // Enabled again: readable again.
    expect((await h.call('GET', path(type))).body.data.map((r: any) => r.qualType)).toEqual([
      'PROPERTY_LICENSE',
    ])
  })

  it('error: invalid bodies are 400 naming the field, and nothing is written', async () => {
    const type = 'PERFORMANCE'
    await put(type, [rule('SHOW_PERMIT')])
    const admin = await h.admin()
    const cases: [unknown, string][] = [
      [{ rules: [rule('A'), rule('B'), rule('A')] }, 'rules.2.qualType: duplicate qualType "A"'],
      [{ rules: [rule('A', { warningDays: -1 })] }, 'rules.0.warningDays'],
      [{ rules: [rule('A', { warningDays: 1.5 })] }, 'rules.0.warningDays'],
      [{ rules: [rule('A', { sortOrder: -1 })] }, 'rules.0.sortOrder'],
      [{ rules: [rule('')] }, 'rules.0.qualType'],
      [{ rules: [rule('   ')] }, 'rules.0.qualType'],
      [{ rules: [rule('Q'.repeat(65))] }, 'rules.0.qualType'],
      [{ rules: [rule('A', { isRequired: 'yes' })] }, 'rules.0.isRequired'],
      [{ rules: [{ qualType: 'A', isRequired: true, warningDays: 1 }] }, 'rules.0.sortOrder'],
      [{ rules: [rule('A', { typeCode: 'HOTEL' })] }, 'rules.0.typeCode: unknown field'],
      [{ rules: [], typeCode: 'HOTEL' }, 'typeCode: unknown field'],
      [{ rules: [], adminId: '1' }, 'adminId: client-forbidden field'],
      [{}, 'rules'],
      [{ rules: Array.from({ length: 101 }, (_, i) => rule(`Q${i}`)) }, 'rules'],
    ]
    await unchanged(h, async () => {
      for (const [body, message] of cases) {
        const res = await h.call('PUT', path(type), { admin, body })
        expect({ message, code: res.body.code }).toEqual({ message, code: 400 })
        expect(res.body.message).toContain(message)
      }
      // Surrounding spaces are trimmed, so these two are the same qualType.
      const spaced = await put(type, [rule('A'), rule(' A ')], admin)
      expect(spaced.body.code).toBe(400)
    })
    // 100 rules is the maximum.
    const hundred = Array.from({ length: 100 }, (_, i) => rule(`Q${tag()}${i}`, { sortOrder: i }))
    const ok = await put(type, hundred)
    expect(ok.body.code).toBe(200)
    expect(ok.body.data).toHaveLength(100)
  })

  it('error: the same replacement sent twice at once by one admin is refused the second time', async () => {
    const admin = await h.admin()
    const first = await put('CHANNEL', [rule('CHANNEL_LICENSE')], admin)
    expect(first.body).toMatchObject({ code: 200, success: true })
    await unchanged(h, async () => {
      const again = await put('CHANNEL', [rule('CHANNEL_LICENSE')], admin)
      expect(again.body).toMatchObject({ code: 395013, success: false })
    })
  })

  it('security: without supplier:type:manage GET and PUT are 395002 and nothing is written', async () => {
    const type = 'CHANNEL'
    await put(type, [rule('CHANNEL_LICENSE')])
    const admin = await h.admin(ALL_PERMISSIONS.filter((p) => p !== 'supplier:type:manage'))
    await unchanged(h, async () => {
      expect((await h.call('GET', path(type), { admin })).body).toMatchObject({
        code: 395002,
        success: false,
        data: null,
      })
      const res = await put(type, [rule('OTHER')], admin)
      expect(res.body).toMatchObject({ code: 395002, success: false, data: null })
      // Refused before the body is even looked at.
      const invalid = await h.call('PUT', path(type), { admin, body: { rules: 'nope' } })
      expect(invalid.body.code).toBe(395002)
      expect(
        (await h.call('PUT', path(type), { admin: null, body: { rules: [] } })).body.code,
      ).toBe(401)
    })
  })

  it('happy: concurrent replacements of one type serialize to one of the requested sets', async () => {
    const type = 'TICKET'
    const a = [rule('TICKET_A1'), rule('TICKET_A2')]
    const b = [rule('TICKET_B1')]
    const [ra, rb] = await Promise.all([put(type, a), put(type, b)])
    expect([ra.body.code, rb.body.code]).toEqual([200, 200])
    const live = (await h.call('GET', path(type))).body.data.map((r: any) => r.qualType).sort()
    expect([['TICKET_A1', 'TICKET_A2'], ['TICKET_B1']]).toContainEqual(live)
  })
})
