import { sign } from 'hono/jwt'
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { accessOf, grant } from '../sql/admin'
import { insertSupplier } from './fixtures'
import { ALL_PERMISSIONS, useHarness } from './harness'
import { insertRelation, insertResource } from './resource-data'
import { CONTACT_PHONE, draftBody } from './supplier-data'

/*
 * What a read costs the database: the statements one request sends, counted on the pool. The
 * benchmark (docs/benchmarks.md) traced the detail read's time to the per-code permission
 * lookups and the token check; these pin the fixes so that a change that adds a round trip to a
 * hot path is seen here, not in the next benchmark.
 */

let recording: string[] | undefined
const h = useHarness({ onStatement: (text) => recording?.push(text) })

/**
 * The statements `path` sends for `admin`, after a warm-up request by another administrator
 * (which may prepare statements); `admin`'s own grant is not remembered yet unless they read before.
 */
async function statementsOf(path: string, admin: string) {
  expect((await h.call('GET', path, { admin: await h.admin() })).body.success).toBe(true)
  recording = []
  const res = await h.call('GET', path, { admin })
  const sent = recording
  recording = undefined
  expect(res.body).toMatchObject({ code: 200, success: true })
  return sent
}

const permissionStatements = (sent: string[]) =>
  sent.filter((s) => /admin_(permission|role)/.test(s))

describe('statements per request', () => {
  let admin: string
  let supplierId: string

  beforeAll(async () => {
    admin = await h.admin()
    supplierId = (await insertSupplier(h, { status: 'ACTIVE' })).supplierId
    for (const module of ['SCENIC', 'HOTEL'] as const) {
      const resourceId = await insertResource(h, module)
      await insertRelation(h, { supplierId, module, resourceId })
    }
  })

  it('supplier detail: one permission statement and one read', async () => {
    const sent = await statementsOf(`/admin/supplier/items/${supplierId}`, admin)
    expect(permissionStatements(sent)).toHaveLength(1)
    expect(sent).toHaveLength(2)
  })

  it('supplier detail read again within PERMISSION_READ_CACHE_SECONDS: the read alone', async () => {
    const reader = await h.admin()
    const path = `/admin/supplier/items/${supplierId}`
    expect(await statementsOf(path, reader)).toHaveLength(2)
    const again = await statementsOf(path, reader)
    expect(permissionStatements(again)).toHaveLength(0)
    expect(again).toHaveLength(1)
  })

  it("the detail's allowedActions: the caller's codes come with supplier:view, in its one statement; remembered, whatever they hold", async () => {
    const path = `/admin/supplier/items/${supplierId}`
    // A reader who holds none of the command permissions: what they lack is advice too.
    const reader = await h.admin(['supplier:view'])
    const first = await statementsOf(path, reader)
    expect(permissionStatements(first)).toHaveLength(1)
    expect(first).toHaveLength(2)
    expect(await statementsOf(path, reader)).toHaveLength(1)
  })

  it('the resource page checks two permissions and a role in one statement', async () => {
    const sent = await statementsOf(`/admin/supplier/items/${supplierId}/resource-info/page`, admin)
    expect(permissionStatements(sent)).toHaveLength(1)
  })

  it('the list: one permission statement, then its page and count', async () => {
    const sent = await statementsOf('/admin/supplier/items?page=1&pageSize=20', admin)
    expect(permissionStatements(sent)).toHaveLength(1)
    expect(sent).toHaveLength(3)
  })
})

describe('the one-statement permission check', () => {
  const h0 = useHarness({ env: { PERMISSION_READ_CACHE_SECONDS: '0' } })

  it('answers the codes held among those asked, and the roles only when asked', async () => {
    const admin = await h.admin(['supplier:view', 'supplier:list'], ['FINANCE'])
    const asked = ['supplier:view', 'supplier:resource:view']
    expect(await accessOf(h.sql, admin, asked, false)).toEqual({
      permissions: ['supplier:view'],
      roles: [],
    })
    expect(await accessOf(h.sql, admin, asked, true)).toEqual({
      permissions: ['supplier:view'],
      roles: ['FINANCE'],
    })
  })

  it('with PERMISSION_READ_CACHE_SECONDS=0, a revoked (soft-deleted) permission or role no longer counts, on the next request', async () => {
    const h = h0
    const admin = await h.admin(ALL_PERMISSIONS, ['ADMIN'])
    const supplierId = (await insertSupplier(h)).supplierId
    const page = `/admin/supplier/items/${supplierId}/resource-info/page`
    expect((await h.call('GET', page, { admin })).body.code).toBe(200)
    await h.sql`
      UPDATE admin_role SET deleted_at = now() WHERE admin_id = ${admin} AND deleted_at IS NULL`
    expect((await h.call('GET', page, { admin })).body.code).toBe(395002)
    await h.sql`
      UPDATE admin_permission SET deleted_at = now()
      WHERE admin_id = ${admin} AND permission_code = 'supplier:view' AND deleted_at IS NULL`
    expect((await h.call('GET', `/admin/supplier/items/${supplierId}`, { admin })).body.code).toBe(
      395002,
    )
  })

  it('one code missing among several denies, and names what the route requires', async () => {
    const admin = await h.admin(['supplier:view'], ['ADMIN'])
    const supplierId = (await insertSupplier(h)).supplierId
    const res = await h.call('GET', `/admin/supplier/items/${supplierId}/resource-info/page`, {
      admin,
    })
    expect(res.body).toMatchObject({ code: 395002, success: false })
    expect(res.body.message).toContain('supplier:resource:view')
  })
})

describe('a verified token is remembered, never past its expiry', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('the same token is refused once its exp has passed, though it verified a moment ago', async () => {
    const admin = await h.admin()
    const now = Math.floor(Date.now() / 1000)
    const token = await sign(
      { sub: admin, iat: now, exp: now + 30 },
      h.config.auth.jwtSecret!,
      'HS256',
    )
    const path = '/admin/supplier/items?page=1&pageSize=1'
    expect((await h.call('GET', path, { admin, token })).body.code).toBe(200)
    vi.useFakeTimers({ toFake: ['Date'], now: (now + 31) * 1000 })
    const res = await h.call('GET', path, { admin, token })
    expect(res.body.code).toBe(401)
  })

  it('a remembered token still has to name the X-Admin-Id it is sent with', async () => {
    const admin = await h.admin()
    const other = await h.admin()
    const token = await h.token(admin)
    const path = '/admin/supplier/items?page=1&pageSize=1'
    expect((await h.call('GET', path, { admin, token })).body.code).toBe(200)
    const res = await h.call('GET', path, { admin: other, token })
    expect(res.body.code).toBe(401)
    expect(res.body.message).toContain('does not match X-Admin-Id')
  })

  it('a token differing in its signature is verified on its own, and refused', async () => {
    const admin = await h.admin()
    const token = await h.token(admin)
    const path = '/admin/supplier/items?page=1&pageSize=1'
    expect((await h.call('GET', path, { admin, token })).body.code).toBe(200)
    const forged = token.slice(0, -2) + (token.endsWith('AA') ? 'BB' : 'AA')
    expect((await h.call('GET', path, { admin, token: forged })).body.code).toBe(401)
  })
})

describe('a granted read is remembered for PERMISSION_READ_CACHE_SECONDS (5 s), nothing else', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  const revoke = (admin: string, code: string) => h.sql`
    UPDATE admin_permission SET deleted_at = now()
    WHERE admin_id = ${admin} AND permission_code = ${code} AND deleted_at IS NULL`

  it('a revoked permission still reads within the 5 s, and is refused after them', async () => {
    const admin = await h.admin(['supplier:view'])
    const path = `/admin/supplier/items/${(await insertSupplier(h)).supplierId}`
    expect((await h.call('GET', path, { admin })).body.code).toBe(200)
    await revoke(admin, 'supplier:view')
    // The documented trade-off: the grant is remembered, not asked again.
    expect((await h.call('GET', path, { admin })).body.code).toBe(200)
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 5_001 })
    expect((await h.call('GET', path, { admin })).body.code).toBe(395002)
  })

  it('a write is asked every time: revoked, it is refused on the next request', async () => {
    const admin = await h.admin(['supplier:update'])
    const path = `/admin/supplier/items/${(await insertSupplier(h)).supplierId}`
    // Authorized (an empty patch is then "no actual change"): the grant was asked and held.
    const first = await h.call('PUT', path, { admin, body: {} })
    expect(first.body.code).not.toBe(395002)
    expect(first.body.code).not.toBe(401)
    await revoke(admin, 'supplier:update')
    expect((await h.call('PUT', path, { admin, body: {} })).body.code).toBe(395002)
  })

  it('a denial is not remembered: a new grant reads at once', async () => {
    const admin = await h.admin([])
    const path = `/admin/supplier/items/${(await insertSupplier(h)).supplierId}`
    expect((await h.call('GET', path, { admin })).body.code).toBe(395002)
    await grant(h.sql, admin, { permissions: ['supplier:view'], roles: ['ADMIN'] })
    expect((await h.call('GET', path, { admin })).body.code).toBe(200)
  })

  it('a grant counts for its administrator and its route only', async () => {
    const admin = await h.admin(['supplier:view'], ['ADMIN'])
    const other = await h.admin([])
    const supplierId = (await insertSupplier(h)).supplierId
    const detail = `/admin/supplier/items/${supplierId}`
    expect((await h.call('GET', detail, { admin })).body.code).toBe(200)
    expect((await h.call('GET', detail, { admin: other })).body.code).toBe(395002)
    // The resource page also needs supplier:resource:view, which the detail's grant does not say.
    const page = `/admin/supplier/items/${supplierId}/resource-info/page`
    expect((await h.call('GET', page, { admin })).body.code).toBe(395002)
  })

  it('a draft create reads none of the children of the supplier it has just inserted, nor them for its answer', async () => {
    const body = draftBody({
      types: [{ typeCode: 'OTHER' }],
      contacts: [{ contactName: 'Li Si', contactPhone: CONTACT_PHONE }],
    })
    recording = []
    const res = await h.call('POST', '/admin/supplier/items', { body })
    const sent = recording
    recording = undefined
    expect(res.body).toMatchObject({ code: 200, success: true })
    // Each child kind is only written: its reads (FROM supplier_type t, supplier_contact c,
    // supplier_qualification q, supplier_bank_account a) would find nothing to merge with.
    const readsOfChildren = sent.filter((s) =>
      /FROM supplier_(type t|contact c|qualification q)\b/.test(s),
    )
    expect(readsOfChildren).toEqual([])
    // The answer is built from what the inserts returned: the accounts are not read back either.
    expect(sent.filter((s) => /FROM supplier_bank_account a/.test(s))).toEqual([])
  })
})
