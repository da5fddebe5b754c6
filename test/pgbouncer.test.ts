import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { grant, PERMISSION_CODES } from '../sql/admin'
import { draftBody } from './supplier-data'
import { createTestDatabase, type TestDatabase } from './harness'
import { devHeaders, request, startService, type Service } from './service'

/**
 * The real service behind PgBouncer in transaction pooling mode (DATABASE_POOLER=transaction):
 * .ci/run runs this with DATABASE_URL pointing at a PgBouncer in front of the machine's
 * PostgreSQL. Elsewhere there is no pooler to go through.
 */

const source = inject('database')
const pooled = source.kind === 'server' && source.pooler === 'transaction'

describe.skipIf(!pooled)('the service behind PgBouncer (pool_mode = transaction)', () => {
  let db: TestDatabase
  let service: Service
  const admin = '9007199254741101'

  beforeAll(async () => {
    db = await createTestDatabase()
    await grant(db.sql, admin, { permissions: PERMISSION_CODES, roles: ['ADMIN'] })
    // Migrations ran against PostgreSQL itself (the template); the service must not migrate here.
    service = await startService({ DATABASE_URL: db.url, DATABASE_POOLER: 'transaction' })
    await service.ready
  }, 60_000)

  afterAll(async () => {
    await service?.stop()
    await db?.close()
  })

  it('serves concurrent writes and reads with the request bounds on, without prepared statements', async () => {
    const headers = await devHeaders(admin)
    const created = await Promise.all(
      Array.from({ length: 12 }, () =>
        request(`${service.base}/admin/supplier/items`, {
          method: 'POST',
          headers,
          body: JSON.stringify(draftBody()),
        }),
      ),
    )
    for (const res of created)
      expect(res.body, service.output().slice(-3000)).toMatchObject({ code: 200, success: true })
    const reads = await Promise.all(
      created.map((res) =>
        request(`${service.base}/admin/supplier/items/${res.body.data.supplierId}`, { headers }),
      ),
    )
    reads.forEach((res, i) =>
      expect(res.body).toMatchObject({
        code: 200,
        data: { supplierId: created[i].body.data.supplierId },
      }),
    )
    const list = await request(`${service.base}/admin/supplier/items?pageSize=100`, { headers })
    expect(list.body.data.total).toBe(12)
    expect(service.output()).not.toMatch(/prepared statement|unsupported startup parameter/)
  })

  it('refuses to migrate through the pooler (its migration lock is a session lock)', async () => {
    const refused = await startService({
      DATABASE_URL: db.url,
      DATABASE_POOLER: 'transaction',
      MIGRATE_ON_START: 'true',
    })
    expect(await refused.exited).toBe(78)
    expect(refused.output()).toContain('MIGRATE_ON_START: refused with DATABASE_POOLER=transaction')
  })
})
