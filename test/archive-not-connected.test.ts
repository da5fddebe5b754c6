import { describe, expect, it } from 'vitest'
import type { SupplierStatus } from '../src/vocabulary'
import { insertSupplier, tag } from './fixtures'
import { ALL_PERMISSIONS, useHarness } from './harness'
import { unchanged } from './unchanged'

/*
 * SUP-ADM-010 with the default configuration: no finance clearance is connected, so archive
 * answers 395032 after the permission and status checks, and writes nothing (spec: "permission
 * check passes, then always fails with 395032").
 */

const h = useHarness()

async function supplierIn(status: SupplierStatus) {
  const numbered = !['DRAFT', 'VETTING'].includes(status)
  const s = await insertSupplier(h, { status, supplierNo: numbered ? `SPN${tag()}` : null })
  return s.supplierId
}

describe('SUP-ADM-010 archive, clearance not connected', () => {
  it('answers 395032 for SUSPENDED and BLACKLIST suppliers and writes nothing', async () => {
    for (const from of ['SUSPENDED', 'BLACKLIST'] as const) {
      const id = await supplierIn(from)
      const res = await unchanged(h, () =>
        h.call('POST', `/admin/supplier/items/${id}/archive`, {
          headers: { 'idempotency-key': `archive-${tag()}` },
        }),
      )
      expect(res.body).toEqual({
        code: 395032,
        message: expect.stringContaining('not connected'),
        success: false,
        data: null,
      })
    }
  })

  it('checks permission first, then existence and status', async () => {
    const id = await supplierIn('SUSPENDED')
    const other = await h.admin(ALL_PERMISSIONS.filter((p) => p !== 'supplier:status:manage'))
    expect(
      (await h.call('POST', `/admin/supplier/items/${id}/archive`, { admin: other })).body.code,
    ).toBe(395002)
    expect((await h.call('POST', '/admin/supplier/items/9007199254999999/archive')).body.code).toBe(
      395001,
    )
    const frozen = await supplierIn('FROZEN')
    expect((await h.call('POST', `/admin/supplier/items/${frozen}/archive`)).body.code).toBe(395005)
  })
})
