import { describe, expect, it } from 'vitest'
import { useHarness } from './harness'

const h = useHarness()

describe('dictionaries', () => {
  it('returns the fifteen supplier types in the spec order', async () => {
    const res = await h.call('GET', '/admin/dict/data/supplier_type')
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ code: 200, success: true })
    expect(res.body.data.map((i: { dictValue: string }) => i.dictValue)).toEqual([
      'SCENIC',
      'RESTAURANT',
      'SUPPLIES',
      'ACTIVITY',
      'HOTEL',
      'SERVICE',
      'FLEET',
      'RENTAL',
      'PERFORMANCE',
      'INSURANCE',
      'CHANNEL',
      'PROFESSIONAL_SERVICE',
      'PROPERTY',
      'TICKET',
      'OTHER',
    ])
  })
})

describe('dictionary rules', () => {
  const values = async (type: string) =>
    (await h.call('GET', `/admin/dict/data/${type}`)).body.data.map(
      (i: { dictValue: string }) => i.dictValue,
    )

  it('returns the seven lifecycle codes in the spec order, each item with its display fields', async () => {
    const res = await h.call('GET', '/admin/dict/data/supplier_lifecycle_status')
    expect(res.body.data.map((i: { dictValue: string }) => i.dictValue)).toEqual([
      'DRAFT',
      'VETTING',
      'ACTIVE',
      'SUSPENDED',
      'FROZEN',
      'BLACKLIST',
      'ARCHIVED',
    ])
    expect(res.body.data[0]).toEqual({
      dictType: 'supplier_lifecycle_status',
      dictLabel: expect.any(String),
      dictValue: 'DRAFT',
      sortOrder: 1,
      status: 'ACTIVE',
    })
  })

  it('breaks sortOrder ties by dictDataId and leaves out disabled and soft-deleted items', async () => {
    await h.sql`
      INSERT INTO dict_data (dict_type, dict_label, dict_value, sort_order, status, deleted_at) VALUES
        ('supplier_lifecycle_status', 'tie 1', 'TIE_FIRST', 3, 'ACTIVE', NULL),
        ('supplier_lifecycle_status', 'tie 2', 'TIE_SECOND', 3, 'ACTIVE', NULL),
        ('supplier_lifecycle_status', 'off', 'DISABLED_ITEM', 2, 'DISABLED', NULL),
        ('supplier_lifecycle_status', 'gone', 'DELETED_ITEM', 2, 'ACTIVE', now())
    `
    try {
      // ACTIVE (sort 3, seeded first) then the two inserted ties in insertion (id) order.
      expect(await values('supplier_lifecycle_status')).toEqual([
        'DRAFT',
        'VETTING',
        'ACTIVE',
        'TIE_FIRST',
        'TIE_SECOND',
        'SUSPENDED',
        'FROZEN',
        'BLACKLIST',
        'ARCHIVED',
      ])
    } finally {
      await h.sql`UPDATE dict_data SET deleted_at = now() WHERE dict_value IN ('TIE_FIRST', 'TIE_SECOND', 'DISABLED_ITEM')`
    }
  })

  it('answers an empty list for a disabled dictionary type', async () => {
    await h.sql`UPDATE dict_type SET status = 'DISABLED' WHERE dict_type = 'supplier_type'`
    try {
      expect(await values('supplier_type')).toEqual([])
    } finally {
      await h.sql`UPDATE dict_type SET status = 'ACTIVE' WHERE dict_type = 'supplier_type'`
    }
  })
})
