import { expect } from 'vitest'
import type { Harness } from './harness'
import { STORAGE, draftBody } from './supplier-data'

/** Helpers shared by the guarantee suite (races, faults, hostile input, authorization, leaks). */

export const ITEMS = '/admin/supplier/items'
export const LICENSE = `${STORAGE}license.png`

export type Body = Record<string, any>

/** The submit body that finalizes a draft created from `body` (children left out). */
export function submitBodyFrom(body: Body, expectedUpdateTime: string, overrides: Body = {}) {
  const out: Body = { expectedUpdateTime, licenseImageUrl: LICENSE }
  for (const [k, v] of Object.entries(body)) {
    if (['contacts', 'qualifications', 'initialAccounts', 'duplicateConfirmToken'].includes(k))
      continue
    out[k] = v
  }
  return { ...out, ...overrides }
}

/** A draft created through the API; returns its id, version and the body that made it. */
export async function createDraft(h: Harness, admin: string, overrides: Body = {}) {
  const body = draftBody({ licenseImageUrl: LICENSE, ...overrides })
  const res = await h.call('POST', ITEMS, { admin, body })
  expect(res.body, JSON.stringify(res.body)).toMatchObject({ code: 200, success: true })
  return { body, supplierId: res.body.data.supplierId as string, version: res.body.data.updateTime }
}

/** The current version (`updateTime`) of a supplier, formatted in SQL. */
export async function versionOf(h: Harness, supplierId: string): Promise<string> {
  const [row] = await h.sql`
    SELECT to_char(update_time, 'YYYY-MM-DD HH24:MI:SS') AS v FROM supplier
    WHERE supplier_id = ${supplierId}`
  return row.v
}

/**
 * Fingerprint of every table of the database: one md5 per table over its rows. Tables that a
 * refused request may legitimately touch are none; the migration bookkeeping is left out.
 */
export async function fingerprint(h: Pick<Harness, 'sql'>): Promise<Record<string, string>> {
  const tables = await h.sql<{ name: string }[]>`
    SELECT tablename AS name FROM pg_tables
    WHERE schemaname = 'public' AND tablename NOT IN ('schema_migrations', 'seed_run')
    ORDER BY tablename`
  const parts = tables.map(
    ({ name }) =>
      `SELECT '${name}' AS name, count(*)::text || ':' || ` +
      `md5(COALESCE(string_agg(t::text, '|' ORDER BY t::text), '')) AS digest FROM public."${name}" t`,
  )
  const rows = await h.sql.unsafe<{ name: string; digest: string }[]>(parts.join(' UNION ALL '))
  return Object.fromEntries(rows.map((r) => [r.name, r.digest]))
}

/** Asserts that a body is the service's envelope and never a fault. */
export function expectEnvelope(status: number, body: any, context = '') {
  expect(status, `${context} ${JSON.stringify(body)}`.slice(0, 2000)).not.toBe(500)
  expect(body, context).toMatchObject({
    code: expect.any(Number),
    message: expect.any(String),
    success: expect.any(Boolean),
  })
  expect(Object.keys(body).sort(), context).toEqual(['code', 'data', 'message', 'success'])
}

/** Tallies answers by business code. */
export const tally = (answers: { body: any }[]) =>
  answers.reduce<Record<number, number>>((acc, a) => {
    const code = a.body?.code ?? 0
    acc[code] = (acc[code] ?? 0) + 1
    return acc
  }, {})
