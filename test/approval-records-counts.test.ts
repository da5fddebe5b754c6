import { beforeAll, describe, expect, inject, it } from 'vitest'
import { changeLogPage, countChangeLogs, type ChangeLogFilter } from '../sql/change-log-read'
import { sealUnsealedRows } from '../src/domain/audit/trail'
import { useHarness } from './harness'
import { createDraft, ok, remove, update } from './client'
import { insertApprovalLog, insertSupplier } from './fixtures'
import { draftBody } from './supplier-data'

/*
 * The approval records' filters (SUP-ADM-012) are read by several paths (sql/change-log-read.ts,
 * migration 20261203000100): one category's own index, each category key's range of
 * change_log_key (two categories or more, or a category within a supplier), and a time range's
 * total summed from change_log_day_count's UTC days and months plus its two partial days counted
 * from an index. Whatever the path, every total and page of every filter, pair of filters and
 * time range (whole and partial days and months, midnights of several zones, a daylight-saving
 * change) is the one a straightforward pass over the log gives, and the kept day counts equal a
 * recount after inserts, soft deletes and a write that was rolled back.
 */

const h = useHarness()
const embedded = inject('database').kind === 'embedded'
const RECORDS = '/admin/supplier/approval-records'

/** Category keys (operation, target, field, status; null: none), some differing in status only. */
const KEYS = [
  ['DRAFT_CREATE', 'SUPPLIER', 'fullName', null],
  ['PROFILE_UPDATE', 'SUPPLIER', 'shortName', null],
  ['PROFILE_UPDATE', 'SUPPLIER', 'address', null],
  ['REGISTRATION_SUBMIT', 'SUPPLIER', 'status', 'SUBMITTED'],
  ['REGISTRATION_APPLY', 'SUPPLIER', 'status', 'APPLIED'],
  ['REGISTRATION_APPLY', 'SUPPLIER', 'supplierNo', 'APPLIED'],
  ['ACCOUNT_CHANGE', 'ACCOUNT', 'accountNo', 'SUBMITTED'],
  ['ACCOUNT_CHANGE', 'ACCOUNT', 'accountNo', 'APPLIED'],
  ['STATUS_CHANGE', 'SUPPLIER', 'status', 'APPLIED'],
  ['STATUS_CHANGE', 'SUPPLIER', 'status', null],
  ['CONTACT_REPLACE', 'CONTACT', 'contacts', null],
] as const

/**
 * Instants (UTC) on the edges the buckets and the zones draw: a UTC month's end, Shanghai's and
 * Kathmandu's midnights, New York's spring-forward hour and its repeated 01:30 in November, a row
 * a fraction of a second before a midnight (shown at that midnight's last second).
 */
const EDGES = [
  '2026-01-31T23:59:59.400Z',
  '2026-02-01T00:00:00Z',
  '2026-02-28T15:59:59.900Z',
  '2026-02-28T16:00:00Z',
  '2026-02-28T23:59:59Z',
  '2026-03-01T00:00:00.250Z',
  '2026-03-08T06:59:59Z',
  '2026-03-08T07:00:00Z',
  '2025-11-02T05:30:00Z',
  '2025-11-02T06:30:00Z',
  '2026-03-15T18:14:59Z',
  '2026-03-15T18:15:00Z',
]

const ZONES = ['Asia/Shanghai', 'UTC', 'America/New_York', 'Asia/Kathmandu']

/** Time ranges as a client sends them, in the zone of the call. */
const RANGES: Pick<ChangeLogFilter, 'createTimeFrom' | 'createTimeTo'>[] = [
  { createTimeFrom: '2026-03-01 00:00:00' },
  { createTimeTo: '2026-02-28 23:59:59' },
  { createTimeFrom: '2026-02-01 00:00:00', createTimeTo: '2026-02-28 23:59:59' },
  { createTimeFrom: '2026-01-15 08:30:00', createTimeTo: '2026-03-20 17:45:10' },
  { createTimeFrom: '2025-11-02 01:30:00', createTimeTo: '2025-11-02 01:59:59' },
  { createTimeFrom: '2026-03-08 01:00:00', createTimeTo: '2026-03-08 03:00:00' },
  { createTimeFrom: '2026-02-28 23:59:59', createTimeTo: '2026-03-01 00:00:00' },
  { createTimeFrom: '2026-03-16 00:00:00', createTimeTo: '2026-03-16 00:00:00' },
  { createTimeFrom: '2026-01-31 12:00:00', createTimeTo: '2026-02-01 12:00:00' },
  { createTimeFrom: '2025-12-01 00:00:00', createTimeTo: '2026-03-31 23:59:59' },
  { createTimeFrom: '2030-01-01 00:00:00' },
  { createTimeTo: '2000-01-01 00:00:00' },
  { createTimeFrom: '2026-04-01 00:00:00', createTimeTo: '2026-03-01 00:00:00' },
]

/** A pseudo-random sequence, the same at every run. */
function* numbers(seed: number) {
  let x = seed
  for (;;) {
    x = (x * 1103515245 + 12345) % 2 ** 31
    yield x / 2 ** 31
  }
}

/** Appends `count` rows over three months (and every edge once), in one statement. */
async function appendLog(suppliers: string[], approvalLogId: string, count: number, seed: number) {
  const r = numbers(seed)
  const next = () => r.next().value as number
  const start = Date.parse('2025-10-20T00:00:00Z')
  const span = Date.parse('2026-04-20T00:00:00Z') - start
  const times = [
    ...EDGES,
    ...Array.from({ length: count }, () =>
      new Date(start + Math.floor(next() * span)).toISOString(),
    ),
  ]
  // A few seconds hold several rows (the id decides their order).
  for (let i = 5; i < times.length; i += 17) times[i] = times[i - 3]
  const rows = times.map((createTime, i) => {
    const [operation, target, field, status] = KEYS[Math.floor(next() * KEYS.length)]
    const supplierId = suppliers[i % suppliers.length]
    return {
      supplier_id: supplierId,
      approval_log_id: status !== null && i % 4 === 0 ? approvalLogId : null,
      operation_type: operation,
      target_type: target,
      target_id: supplierId,
      field_name: field,
      status,
      create_time: createTime,
    }
  })
  await h.sql`
    INSERT INTO change_log ${h.sql(rows, 'supplier_id', 'approval_log_id', 'operation_type', 'target_type', 'target_id', 'field_name', 'status', 'create_time')}
  `
  await sealUnsealedRows(h.sql, h.cipher.audit)
}

const COLUMNS = {
  supplierId: 'supplier_id',
  approvalLogId: 'approval_log_id',
  operationType: 'operation_type',
  targetType: 'target_type',
  fieldName: 'field_name',
  status: 'status',
} as const

type Filter = Omit<ChangeLogFilter, 'limit' | 'offset' | 'timezone'>

/**
 * The rows a filter selects, by a pass over the log: each equality as written, and the bounds as
 * the instants they name in `zone`, compared with the second a row is shown at.
 */
async function recount(f: Filter, zone: string) {
  const conditions = Object.entries(COLUMNS)
    .filter(([k]) => f[k as keyof typeof COLUMNS] !== undefined)
    .map(([k, column]) => h.sql`AND c.${h.sql(column)}::text = ${f[k as keyof typeof COLUMNS]!}`)
  const second = h.sql`date_trunc('second', c.create_time)`
  const rows = await h.sql`
    SELECT c.change_log_id::text AS id FROM change_log c
    WHERE c.supplier_id IS NOT NULL
    ${conditions.reduce((a, b) => h.sql`${a} ${b}`, h.sql``)}
    ${f.createTimeFrom === undefined ? h.sql`` : h.sql`AND ${second} >= (${f.createTimeFrom}::timestamp AT TIME ZONE ${zone})`}
    ${f.createTimeTo === undefined ? h.sql`` : h.sql`AND ${second} <= (${f.createTimeTo}::timestamp AT TIME ZONE ${zone})`}
    ORDER BY ${second} DESC, c.change_log_id DESC`
  return rows.map((r) => r.id as string)
}

/** The total, every row in one page, and a page further in, as the SQL module reads them. */
async function read(f: Filter, timezone: string) {
  const g = { ...f, timezone }
  const all = await changeLogPage(h.sql, { ...g, limit: 1000, offset: 0 })
  const deep = await changeLogPage(h.sql, { ...g, limit: 4, offset: 7 })
  return {
    total: await countChangeLogs(h.sql, { ...g, limit: 1, offset: 0 }),
    ids: all.map((r) => r.changeLogId),
    deep: deep.map((r) => r.changeLogId),
  }
}

async function expectAsRecounted(f: Filter, zone: string) {
  const ids = await recount(f, zone)
  expect(await read(f, zone), `${JSON.stringify(f)} in ${zone}`).toEqual({
    total: ids.length,
    ids,
    deep: ids.slice(7, 11),
  })
  return ids.length
}

/** Keys whose kept day or month count differs from a recount of the log (none when exact). */
async function dayCountDrift() {
  const rows = await h.sql`
    WITH kept AS (
      SELECT span, from_day, operation_type, target_type, field_name, status, sum(n)::int AS n
      FROM change_log_day_count GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(n) <> 0
    ), days AS (
      SELECT (c.create_time AT TIME ZONE 'UTC')::date AS day, c.operation_type, c.target_type,
             c.field_name, coalesce(c.status, '') AS status
      FROM change_log c WHERE c.supplier_id IS NOT NULL
    ), counted AS (
      SELECT 'day' AS span, d.day AS from_day, d.operation_type, d.target_type, d.field_name,
             d.status, count(*)::int AS n
      FROM days d GROUP BY 2, 3, 4, 5, 6
      UNION ALL
      SELECT 'month', date_trunc('month', d.day)::date, d.operation_type, d.target_type,
             d.field_name, d.status, count(*)::int
      FROM days d GROUP BY 2, 3, 4, 5, 6
    )
    SELECT span, from_day::text AS "fromDay", operation_type AS "operationType",
           target_type AS "targetType", field_name AS "fieldName", status,
           kept.n AS kept, counted.n AS counted
    FROM kept FULL JOIN counted USING (span, from_day, operation_type, target_type, field_name, status)
    WHERE kept.n IS DISTINCT FROM counted.n`
  return rows.map((r) => ({ ...r }))
}

describe('approval records: every filter, pair and time range as a recount gives it', () => {
  const id = { a: '', b: '', approval: '' }

  beforeAll(async () => {
    const active = { status: 'ACTIVE', supplierNo: 'SP20260101000001' } as const
    id.a = (await insertSupplier(h, active)).supplierId
    id.b = (await insertSupplier(h)).supplierId
    id.approval = await insertApprovalLog(h, id.a)
    await appendLog([id.a, id.a, id.b], id.approval, 160, 7)
  })

  it('happy: totals and pages of each filter, every combination, pairs and time ranges, in four zones', async () => {
    const [count] = await h.sql`SELECT count(*)::int AS n FROM change_log`
    expect(count.n).toBeGreaterThan(170)

    // Each kind of filter with a value that selects rows, and one that selects none.
    const values: Record<keyof Filter, string[]> = {
      supplierId: [id.a, id.b, '1'],
      approvalLogId: [id.approval, '1'],
      operationType: ['REGISTRATION_APPLY', 'PROFILE_UPDATE', 'ARCHIVE'],
      targetType: ['SUPPLIER', 'ACCOUNT', 'RELATION'],
      fieldName: ['status', 'address', 'nothing'],
      // '' is how the kept counts spell no status, which no filter selects.
      status: ['APPLIED', 'SUBMITTED', 'WITHDRAWN', ''],
      createTimeFrom: ['2026-02-01 00:00:00', '2026-03-08 02:30:00'],
      createTimeTo: ['2026-02-28 23:59:59', '2025-11-02 01:30:00'],
    }
    const kinds = Object.keys(values) as (keyof Filter)[]
    const filters: Filter[] = [{}]
    // Every combination of the kinds, each with its first value.
    for (let mask = 1; mask < 2 ** kinds.length; mask++) {
      filters.push(
        Object.fromEntries(kinds.filter((_, i) => mask & (2 ** i)).map((k) => [k, values[k][0]])),
      )
    }
    // Each value alone, and every pair of values of two kinds.
    for (const [i, k] of kinds.entries()) {
      for (const v of values[k]) filters.push({ [k]: v })
      for (const l of kinds.slice(i + 1)) {
        for (const v of values[k]) for (const w of values[l]) filters.push({ [k]: v, [l]: w })
      }
    }
    // Each time range alone, with one category, with two, and within a supplier.
    for (const range of RANGES) {
      filters.push(
        range,
        { ...range, fieldName: 'status' },
        { ...range, operationType: 'PROFILE_UPDATE', targetType: 'SUPPLIER' },
        { ...range, supplierId: id.a, status: 'APPLIED' },
      )
    }

    let matched = 0
    for (const f of filters) {
      if ((await expectAsRecounted(f, 'Asia/Shanghai')) > 0) matched++
    }
    // The values chosen make most filters select rows.
    expect(matched).toBeGreaterThan(filters.length / 2)
    for (const zone of ZONES.slice(1)) {
      for (const range of RANGES) {
        for (const more of [{}, { fieldName: 'status' }, { operationType: 'PROFILE_UPDATE' }]) {
          await expectAsRecounted({ ...range, ...more }, zone)
        }
      }
    }
    // Through the API, in the service's zone, with a small page.
    const samples: Record<string, string>[] = [
      {},
      { operationType: 'REGISTRATION_APPLY', fieldName: 'status' },
      { supplierId: id.a, fieldName: 'status' },
      { createTimeFrom: '2026-01-15 08:30:00', createTimeTo: '2026-03-20 17:45:10' },
      { createTimeFrom: '2026-02-01 00:00:00', status: 'APPLIED', targetType: 'SUPPLIER' },
    ]
    for (const f of samples) {
      const ids = await recount(f, h.config.timezone)
      const query = new URLSearchParams({ ...f, page: '2', pageSize: '5' })
      const data = ok(await h.call('GET', `${RECORDS}?${query}`))
      expect(data.total, JSON.stringify(f)).toBe(ids.length)
      expect(
        data.records.map((r: { changeLogId: string }) => r.changeLogId),
        JSON.stringify(f),
      ).toEqual(ids.slice(5, 10))
    }
    expect(await dayCountDrift()).toEqual([])
  })

  it('happy: the kept counts follow inserts, soft deletes and concurrent writers; a rolled-back write changes none', async () => {
    const ranges = [{}, ...RANGES.slice(0, 4), { createTimeFrom: '2026-01-01 00:00:00' }]
    const check = async () => {
      expect(await dayCountDrift()).toEqual([])
      for (const range of ranges) {
        await expectAsRecounted(range, h.config.timezone)
        await expectAsRecounted({ ...range, fieldName: 'fullName' }, h.config.timezone)
      }
    }

    // Writes through the API: drafts created, one updated, one deleted (its records stay).
    const drafts = [
      await createDraft(h, draftBody({ shortName: 'Alder' })),
      await createDraft(h, draftBody({ shortName: 'Birch' })),
    ]
    ok(
      await update(h, drafts[0].supplierId, {
        address: 'No. 1 West Lake Road',
        changeReason: 'moved',
        expectedUpdateTime: drafts[0].version,
      }),
    )
    ok(await remove(h, drafts[1].supplierId))
    await check()
    const today = await recount({ supplierId: drafts[1].supplierId }, h.config.timezone)
    expect(today.length).toBeGreaterThanOrEqual(2)

    // Rows of days and months the log already has.
    await appendLog([id.b], id.approval, 40, 11)
    await check()

    // A write rolled back after appending rows leaves every count as it was.
    const kept = await h.sql`
      SELECT span, from_day::text, operation_type, target_type, field_name, status, sum(n)::int AS n
      FROM change_log_day_count GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6`
    await expect(
      h.sql.begin(async (tx) => {
        await tx`
          INSERT INTO change_log (supplier_id, operation_type, target_type, target_id, field_name,
                                  status, create_time)
          SELECT ${id.b}, 'REGISTRATION_APPLY', 'SUPPLIER', ${id.b}, 'status', 'APPLIED',
                 timestamptz '2026-02-10 10:00:00Z' + g * interval '7 hours'
          FROM generate_series(1, 20) g`
        throw new Error('the write fails')
      }),
    ).rejects.toThrow('the write fails')
    expect(
      await h.sql`
        SELECT span, from_day::text, operation_type, target_type, field_name, status, sum(n)::int AS n
        FROM change_log_day_count GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6`,
    ).toEqual(kept)
    await check()

    // Writers of the same day and key at once. On PostgreSQL each holds its transaction open until
    // all six have appended: none may wait for another's count row (a writer that did would never
    // arrive), so each added to a shard no other held or made a new one. The embedded engine
    // serves one session, so there they run one after another.
    const writers = 6
    let arrived = 0
    let allArrived = () => {}
    const together = new Promise<void>((resolve) => (allArrived = resolve))
    const append = (i: number) =>
      h.sql.begin(async (tx) => {
        await tx`
          INSERT INTO change_log (supplier_id, operation_type, target_type, target_id,
                                  field_name, status, create_time)
          SELECT ${id.a}, 'STATUS_CHANGE', 'SUPPLIER', ${id.a}, 'status', 'APPLIED',
                 timestamptz '2026-03-05 12:00:00Z' + (${i} * 10 + g) * interval '1 second'
          FROM generate_series(1, 3) g`
        if (embedded) return
        if (++arrived === writers) allArrived()
        await Promise.race([
          together,
          new Promise((_, reject) =>
            setTimeout(
              () => reject(new Error(`${arrived} of ${writers} writers appended`)),
              15_000,
            ),
          ),
        ])
      })
    if (embedded) {
      for (let i = 0; i < writers; i++) await append(i)
    } else {
      await Promise.all(Array.from({ length: writers }, (_, i) => append(i)))
      const [shards] = await h.sql`
        SELECT count(*)::int AS n FROM change_log_day_count
        WHERE span = 'day' AND from_day = '2026-03-05' AND operation_type = 'STATUS_CHANGE'
          AND field_name = 'status' AND status = 'APPLIED'`
      expect(shards.n).toBeGreaterThanOrEqual(writers)
    }
    await sealUnsealedRows(h.sql, h.cipher.audit)
    await check()
    await expectAsRecounted({ fieldName: 'status', operationType: 'STATUS_CHANGE' }, 'UTC')
  })

  it('change_log_day_count_rebuild() recounts from the log, one row per key', async () => {
    await h.sql`UPDATE change_log_day_count SET n = n + 3 WHERE id = (SELECT min(id) FROM change_log_day_count)`
    expect(await dayCountDrift()).not.toEqual([])
    await h.sql`SELECT change_log_day_count_rebuild()`
    expect(await dayCountDrift()).toEqual([])
    const [dup] = await h.sql`
      SELECT count(*)::int AS n FROM (
        SELECT 1 FROM change_log_day_count
        GROUP BY span, from_day, operation_type, target_type, field_name, status
        HAVING count(*) > 1) x`
    expect(dup.n).toBe(0)
    await expectAsRecounted(RANGES[3], 'Asia/Shanghai')
  })
})
