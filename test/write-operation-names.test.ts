import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { registeredSupplier } from './account-data'
import { ITEMS, ok } from './client'
import { useHarness } from './harness'

/*
 * A write's kept claims are named by its route's operationId. Answers kept under the names of
 * the previous release (the spec's SUP-ADM numbers) are renamed by a migration, so a client that
 * retries with its Idempotency-Key across the deploy gets its kept answer, not "key reused".
 */

const MIGRATION = new URL(
  '../db/migrations/20261202000400_write_operation_names.sql',
  import.meta.url,
)

/** The migration's up section, as dbmate runs it (in one transaction). */
async function renameKeptClaims(sql: ReturnType<typeof useHarness>['sql']) {
  const text = await readFile(MIGRATION, 'utf8')
  const up = text.slice(text.indexOf('-- migrate:up'), text.indexOf('-- migrate:down'))
  await sql.begin((tx) => tx.unsafe(up))
}

describe('write names in kept claims', () => {
  const h = useHarness()

  it('keeps an answer under the operationId, and a kept answer of the older name still replays after the migration', async () => {
    const admin = await h.admin()
    const { supplierId } = await registeredSupplier(h)
    const [{ v }] = await h.sql`SELECT to_char(update_time, 'YYYY-MM-DD HH24:MI:SS') AS v
                                FROM supplier WHERE supplier_id = ${supplierId}`
    const key = `rename-${supplierId}`
    const send = () =>
      h.call('PUT', `${ITEMS}/${supplierId}`, {
        admin,
        headers: { 'idempotency-key': key },
        body: { shortName: '湖畔', changeReason: '更名', expectedUpdateTime: v },
      })
    const first = ok(await send())
    const [kept] = await h.sql`SELECT operation FROM idempotency_record
                               WHERE admin_id = ${admin} AND idempotency_key = ${key}`
    expect(kept.operation).toBe(`updateSupplier ${supplierId}`)

    // As the previous release kept it.
    await h.sql`UPDATE idempotency_record SET operation = ${`SUP-ADM-004 ${supplierId}`}
                WHERE admin_id = ${admin} AND idempotency_key = ${key}`
    const before = await send()
    expect(before.body.code).toBe(395027)

    await renameKeptClaims(h.sql)
    expect(ok(await send())).toEqual(first)
    const [logged] = await h.sql`SELECT count(*)::int AS n FROM change_log
                                 WHERE supplier_id = ${supplierId} AND field_name = 'shortName'`
    expect(logged.n).toBe(1)
  })
})
