import { describe, expect, it } from 'vitest'
import { useHarness } from './harness'
import { createDraft, ok, update } from './client'
import { draftBody } from './supplier-data'

/*
 * SUP-ADM-012's filters and their combinations answer exact totals: the categories
 * (operationType, targetType, fieldName, status) from the counts a trigger keeps with the log,
 * the rest counted from their indexes. Each is compared with a count of the log itself.
 */

const h = useHarness()
const RECORDS = '/admin/supplier/approval-records'

describe('approval records: every filter and combination has an exact total', () => {
  it('happy: totals equal the rows the filter selects, pages agree with them', async () => {
    const drafts = []
    for (let i = 0; i < 3; i++) {
      const d = await createDraft(h, draftBody({ shortName: ['Alder', 'Birch', 'Cedar'][i] }))
      drafts.push(d)
    }
    ok(
      await update(h, drafts[0].supplierId, {
        address: 'No. 1 West Lake Road',
        changeReason: 'moved',
        expectedUpdateTime: drafts[0].version,
      }),
    )
    const supplierId = drafts[0].supplierId
    const fields = await h.sql`
      SELECT DISTINCT operation_type AS o, target_type AS t, field_name AS f, status AS s
      FROM change_log WHERE supplier_id IS NOT NULL`
    const values = {
      operationType: [...new Set(fields.map((r) => r.o as string)), 'STATUS_CHANGE'],
      targetType: [...new Set(fields.map((r) => r.t as string)), 'ACCOUNT'],
      fieldName: [...new Set(fields.map((r) => r.f as string)), 'nothing'],
      status: [...new Set(fields.flatMap((r) => (r.s ? [r.s as string] : []))), 'APPLIED'],
    }
    const filters: Record<string, string>[] = [{}]
    for (const [key, vs] of Object.entries(values)) {
      for (const v of vs) filters.push({ [key]: v })
    }
    for (const o of values.operationType) {
      for (const f of values.fieldName) filters.push({ operationType: o, fieldName: f })
      filters.push({ operationType: o, targetType: 'SUPPLIER', status: values.status[0] })
    }
    filters.push({ supplierId }, { supplierId, fieldName: 'address' })
    filters.push({ createTimeFrom: '2000-01-01 00:00:00', fieldName: 'fullName' })
    filters.push({ createTimeTo: '2000-01-01 00:00:00' })

    const column = {
      operationType: 'operation_type',
      targetType: 'target_type',
      fieldName: 'field_name',
      status: 'status',
      supplierId: 'supplier_id',
    } as Record<string, string>
    for (const filter of filters) {
      const query = new URLSearchParams({ ...filter, pageSize: '100' })
      const res = await h.call('GET', `${RECORDS}?${query}`)
      expect(res.body.code, JSON.stringify(res.body)).toBe(200)
      const conditions = Object.entries(filter)
        .filter(([k]) => column[k])
        .map(([k, v]) => h.sql`AND ${h.sql(column[k])}::text = ${v}`)
      const time = filter.createTimeTo ? h.sql`AND false` : h.sql``
      const [{ n }] = await h.sql`
        SELECT count(*)::int AS n FROM change_log WHERE supplier_id IS NOT NULL
        ${conditions.reduce((a, b) => h.sql`${a} ${b}`, h.sql``)} ${time}`
      expect(res.body.data.total, JSON.stringify(filter)).toBe(n)
      expect(res.body.data.records.length, JSON.stringify(filter)).toBe(Math.min(n, 100))
    }
  })
})
