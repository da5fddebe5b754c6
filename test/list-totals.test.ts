import { describe, expect, it } from 'vitest'
import { countSuppliers } from '../sql/supplier-read'
import { SUPPLIER_STATUSES } from '../src/vocabulary'
import { countChangeLogs } from '../sql/change-log-read'
import {
  create,
  ITEMS,
  LICENSE,
  ok,
  register,
  remove,
  submit,
  submitBodyFrom,
  update,
} from './client'
import { useHarness } from './harness'
import { listCountDrift } from './list-count'
import { draftBody } from './supplier-data'

/*
 * The lists' totals without a keyword come from list_count, kept by triggers in the writing
 * transactions (migration 20261125100100). Whatever the writes, and however they interleave,
 * every total must equal count(*) of the rows it stands for: checked after creates, submits
 * (LOCAL_AUTO applies them: DRAFT → VETTING → ACTIVE), status changes, type changes and soft
 * deletes, one by one and all at once.
 */

const h = useHarness()

const TYPES = ['OTHER', 'HOTEL', 'SCENIC', 'RESTAURANT']

/** count(*) of the live suppliers a filter of the list matches, as the list's own WHERE reads. */
async function counted(status?: string, typeCode?: string) {
  const [row] = await h.sql`
    SELECT count(*)::int AS n FROM supplier s
    WHERE s.deleted_at IS NULL
      AND (${status ?? null}::text IS NULL OR s.status = ${status ?? null})
      AND (${typeCode ?? null}::text IS NULL OR EXISTS (
        SELECT 1 FROM supplier_type t
        WHERE t.supplier_id = s.supplier_id AND t.type_code = ${typeCode ?? null}
          AND t.deleted_at IS NULL))
  `
  return row.n as number
}

/** Every total is exact: the kept ones against a recount, and what the list answers. */
async function expectExactTotals() {
  expect(await listCountDrift(h.sql)).toEqual([])
  const f = { limit: 20, offset: 0, timezone: h.config.timezone }
  for (const status of [undefined, ...SUPPLIER_STATUSES]) {
    for (const typeCode of [undefined, ...TYPES]) {
      expect(await countSuppliers(h.sql, { ...f, status, typeCode }), `${status} ${typeCode}`).toBe(
        await counted(status, typeCode),
      )
    }
  }
  const [changeLog] = await h.sql`
    SELECT count(*)::int AS n FROM change_log WHERE supplier_id IS NOT NULL`
  expect(await countChangeLogs(h.sql, f)).toBe(changeLog.n)
  // What a client reads: the list's own total, unfiltered and filtered.
  for (const query of ['', '&status=ACTIVE', '&typeCode=HOTEL', '&status=DRAFT&typeCode=OTHER']) {
    const res = ok(await h.call('GET', `${ITEMS}?page=1&pageSize=1${query}`))
    const params = new URLSearchParams(query)
    expect(res.total, query).toBe(
      await counted(params.get('status') ?? undefined, params.get('typeCode') ?? undefined),
    )
  }
  const records = ok(await h.call('GET', '/admin/supplier/approval-records?page=1&pageSize=1'))
  expect(records.total).toBe(changeLog.n)
}

const versionOf = async (supplierId: string) => {
  const res = ok(await h.call('GET', `${ITEMS}/${supplierId}`))
  return res.updateTime as string
}

const changeStatus = async (supplierId: string, targetStatus: string) =>
  h.call('POST', `${ITEMS}/${supplierId}/status`, {
    body: {
      targetStatus,
      changeReason: 'list totals',
      expectedUpdateTime: await versionOf(supplierId),
    },
  })

const retype = async (supplierId: string, types: string[]) =>
  update(h, supplierId, {
    types: types.map((typeCode, i) => ({ typeCode, isPrimary: i === 0 })),
    changeReason: 'list totals',
    expectedUpdateTime: await versionOf(supplierId),
  })

/** An ACTIVE supplier of `types`, registered through the API (LOCAL_AUTO applies at once). */
async function active(types: string[]) {
  const typeList = types.map((typeCode, i) => ({ typeCode, isPrimary: i === 0 }))
  const r = await register(h, undefined, { types: typeList })
  ok(r.res)
  return r.supplierId
}

describe('list totals (list_count) are exact', () => {
  it('after creates, submits, status changes, type changes and soft deletes, one by one', async () => {
    await expectExactTotals()
    const draftForm = draftBody({ types: [{ typeCode: 'HOTEL' }], licenseImageUrl: LICENSE })
    const draft = ok(await create(h, draftForm))
    await expectExactTotals()
    const second = ok(
      await create(h, draftBody({ types: [{ typeCode: 'OTHER' }, { typeCode: 'SCENIC' }] })),
    )
    await expectExactTotals()

    // Types of a draft replaced: one removed, one kept, one added.
    ok(await retype(second.supplierId, ['SCENIC', 'RESTAURANT']))
    expect(
      (
        await h.sql`
        SELECT type_code FROM supplier_type WHERE supplier_id = ${second.supplierId}
          AND deleted_at IS NULL ORDER BY type_code`
      ).map((r) => r.type_code),
    ).toEqual(['RESTAURANT', 'SCENIC'])
    await expectExactTotals()

    // Registration: DRAFT → VETTING → ACTIVE in the submit's transactions.
    ok(await submit(h, draft.supplierId, submitBodyFrom(draftForm, draft.updateTime)))
    expect(ok(await h.call('GET', `${ITEMS}/${draft.supplierId}`)).status).toBe('ACTIVE')
    await expectExactTotals()
    const registered = await active(['HOTEL', 'OTHER'])
    await expectExactTotals()

    // Status changes move the supplier and each of its types.
    ok(await changeStatus(registered, 'SUSPENDED'))
    expect(ok(await h.call('GET', `${ITEMS}/${registered}`)).status).toBe('SUSPENDED')
    await expectExactTotals()
    ok(await changeStatus(registered, 'ACTIVE'))
    await expectExactTotals()
    ok(await changeStatus(registered, 'BLACKLIST'))
    await expectExactTotals()

    // A soft delete takes the draft and its types out of every total.
    ok(await remove(h, second.supplierId))
    await expectExactTotals()
    expect(await counted(undefined, 'RESTAURANT')).toBe(
      (
        await h.sql`
        SELECT count(*)::int AS n FROM supplier_type t JOIN supplier s USING (supplier_id)
        WHERE t.type_code = 'RESTAURANT' AND t.deleted_at IS NULL AND s.deleted_at IS NULL`
      )[0].n,
    )
  })

  it('after the same writes run concurrently', async () => {
    const drafts = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        create(h, draftBody({ types: [{ typeCode: TYPES[i % TYPES.length] }] })).then(ok),
      ),
    )
    const actives = await Promise.all(
      Array.from({ length: 6 }, (_, i) => active([TYPES[i % 4], TYPES[(i + 1) % 4]])),
    )
    await expectExactTotals()
    // All at once: registrations, creates, type changes and deletes of the drafts, status changes
    // of the active ones (some of them twice at the same time: one wins, one is refused).
    const answers = await Promise.all([
      ...Array.from({ length: 4 }, () => active(['HOTEL'])),
      ...Array.from({ length: 4 }, () => create(h, draftBody({ types: [{ typeCode: 'SCENIC' }] }))),
      ...drafts.slice(0, 3).map((d) => retype(d.supplierId, ['RESTAURANT', 'HOTEL'])),
      ...drafts.slice(3).map((d) => remove(h, d.supplierId)),
      ...actives.map((id) => changeStatus(id, 'SUSPENDED')),
      ...actives.slice(0, 3).map((id) => changeStatus(id, 'FROZEN')),
    ])
    expect(answers).toHaveLength(4 + 4 + 3 + 3 + 6 + 3)
    await expectExactTotals()
  })

  it('when one supplier is changed from many connections at once (status, types, deletion)', async () => {
    // Straight in SQL, to press on the one race the triggers guard: a type added while its
    // supplier's status changes. Each transaction locks nothing first (as a careless writer
    // would); the triggers alone must keep the totals.
    const ids = await Promise.all(Array.from({ length: 3 }, () => active(['OTHER'])))
    const statuses = ['ACTIVE', 'SUSPENDED', 'FROZEN']
    const work: Promise<unknown>[] = []
    for (let round = 0; round < 8; round++) {
      for (const [i, id] of ids.entries()) {
        const type = TYPES[(round + i) % TYPES.length]
        work.push(
          h.sql.begin(async (tx) => {
            await tx`UPDATE supplier SET status = ${statuses[(round + i) % 3]} WHERE supplier_id = ${id}`
          }),
          h.sql
            .begin(async (tx) => {
              await tx`
                UPDATE supplier_type SET deleted_at = now()
                WHERE supplier_id = ${id} AND type_code = ${type} AND deleted_at IS NULL`
              await tx`
                INSERT INTO supplier_type (supplier_id, type_code)
                SELECT ${id}, ${TYPES[(round + i + 1) % TYPES.length]}
                WHERE NOT EXISTS (
                  SELECT 1 FROM supplier_type WHERE supplier_id = ${id} AND deleted_at IS NULL
                    AND type_code = ${TYPES[(round + i + 1) % TYPES.length]})`
            })
            // Two of them adding the same type at once: the unique index refuses one.
            .catch((err: { code?: string }) => expect(err.code).toBe('23505')),
        )
      }
    }
    await Promise.all(work)
    await expectExactTotals()
    const [draft] = await Promise.all([
      create(h, draftBody({ types: [{ typeCode: 'HOTEL' }, { typeCode: 'OTHER' }] })).then(ok),
    ])
    await Promise.all([
      h.sql`UPDATE supplier SET deleted_at = now() WHERE supplier_id = ${draft.supplierId}`,
      h.sql`INSERT INTO supplier_type (supplier_id, type_code) VALUES (${draft.supplierId}, 'SCENIC')`,
    ])
    await expectExactTotals()
  })

  it('a write at REPEATABLE READ that changes a status is refused: its snapshot may miss a type', async () => {
    const id = await active(['OTHER'])
    const err = await h.sql
      .begin('ISOLATION LEVEL REPEATABLE READ', async (tx) => {
        await tx`UPDATE supplier SET status = 'SUSPENDED' WHERE supplier_id = ${id}`
      })
      .catch((e: Error) => e)
    expect(String(err)).toMatch(/READ COMMITTED/)
    expect((await h.sql`SELECT status FROM supplier WHERE supplier_id = ${id}`)[0].status).toBe(
      'ACTIVE',
    )
    await expectExactTotals()
  })

  it('list_count_rebuild() recounts from the tables, one row per key', async () => {
    await h.sql`UPDATE list_count SET n = n + 7 WHERE id = (SELECT min(id) FROM list_count)`
    expect(await listCountDrift(h.sql)).not.toEqual([])
    await h.sql`SELECT list_count_rebuild()`
    await expectExactTotals()
    const [dup] = await h.sql`
      SELECT count(*)::int AS n FROM (
        SELECT 1 FROM list_count GROUP BY list, status, type_code HAVING count(*) > 1) x`
    expect(dup.n).toBe(0)
  })

  it('keeps no total a keyword asks for: that one is counted', async () => {
    const name = `Totals keyword ${Date.now()}`
    ok(await create(h, draftBody({ fullName: `${name} Co` })))
    const res = ok(await h.call('GET', `${ITEMS}?keyword=${encodeURIComponent(name)}`))
    expect(res.total).toBe(1)
  })
})
