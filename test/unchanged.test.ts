import { describe, expect, it } from 'vitest'
import { insertSupplier } from './fixtures'
import { useHarness } from './harness'
import { rowCounts, snapshot, unchanged } from './unchanged'

/* The suite's "nothing was written" proof, proven: it sees every committed write and only those. */

const h = useHarness()

/** Whether `unchanged` refuses `work`. */
const refuses = (work: () => Promise<unknown>) =>
  unchanged(h, work).then(
    () => false,
    () => true,
  )

describe('unchanged()', () => {
  it('error: sees an insert, a delete, and an update that writes the same values again', async () => {
    const { supplierId } = await insertSupplier(h, { remark: 'kept' })
    expect(await refuses(() => insertSupplier(h))).toBe(true)
    expect(
      await refuses(
        () => h.sql`UPDATE supplier SET remark = remark WHERE supplier_id = ${supplierId}`,
      ),
    ).toBe(true)
    expect(
      await refuses(() => h.sql`DELETE FROM supplier_type WHERE supplier_id = ${supplierId}`),
    ).toBe(true)
  })

  it('happy: reads, row locks and rolled-back writes leave it satisfied, and it returns the result', async () => {
    const { supplierId } = await insertSupplier(h)
    const rolledBack = h.sql
      .begin(async (tx) => {
        await tx`UPDATE supplier SET remark = 'gone' WHERE supplier_id = ${supplierId}`
        await tx`INSERT INTO change_log (supplier_id, operation_type, target_type, field_name)
                 VALUES (${supplierId}, 'PROFILE_UPDATE', 'SUPPLIER', 'remark')`
        throw new Error('roll back')
      })
      .catch(() => 'rolled back')
    expect(await unchanged(h, () => rolledBack)).toBe('rolled back')
    expect(
      await unchanged(h, () =>
        h.sql.begin(
          (tx) => tx`SELECT remark FROM supplier WHERE supplier_id = ${supplierId} FOR UPDATE`,
        ),
      ),
    ).toHaveLength(1)
  })

  it('happy: leaves out the grants unless asked, and counts rows per table', async () => {
    const before = await snapshot(h)
    await h.admin()
    expect(await snapshot(h)).toEqual(before)
    expect(Object.keys(before)).not.toContain('admin_permission')
    expect(Object.keys(await snapshot(h, { grants: true }))).toContain('admin_permission')
    const counts = await rowCounts(h)
    await insertSupplier(h)
    expect((await rowCounts(h)).supplier).toBe(counts.supplier + 1)
  })
})
