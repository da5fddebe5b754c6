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
