import { expect } from 'vitest'
import type { CallOptions, Harness } from './harness'
import { STORAGE, draftBody } from './supplier-data'

/*
 * The supplier API as the tests call it: the requests by name, and the few ways to get a
 * supplier through the API itself (a draft, a registration, an ACTIVE supplier). Rows a test
 * needs as a starting point rather than as what it tests are inserted by test/fixtures.ts.
 */

export const ITEMS = '/admin/supplier/items'
export const LICENSE = `${STORAGE}license.png`

export type Body = Record<string, any>
export interface Answer {
  status: number
  body: any
}
/** What the client needs of a harness: its `call` (a wrapper that records answers will do). */
export type Caller = Pick<Harness, 'call'>
type Options = Omit<CallOptions, 'body' | 'raw'>

/** The data of a success envelope; fails the test, showing the answer, on anything else. */
export function ok(res: Answer) {
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  expect(res.body, JSON.stringify(res.body)).toMatchObject({ code: 200, success: true })
  return res.body.data
}

/** A refusal with `code` (a business answer: HTTP 200, no data) whose message names `field`. */
export function refused(res: Answer, code: number, field?: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  expect(res.body, JSON.stringify(res.body)).toMatchObject({ code, success: false, data: null })
  if (field) expect(res.body.message).toContain(field)
}

// The requests, answered as they are -------------------------------------------------------------

/** SUP-ADM-003 create draft. */
export const create = (h: Caller, body: unknown, options: Options = {}) =>
  h.call('POST', ITEMS, { ...options, body })
/** SUP-ADM-002 detail. */
export const detail = (h: Caller, supplierId: string, options: Options = {}) =>
  h.call('GET', `${ITEMS}/${supplierId}`, options)
/** SUP-ADM-004 update. */
export const update = (h: Caller, supplierId: string, body: unknown, options: Options = {}) =>
  h.call('PUT', `${ITEMS}/${supplierId}`, { ...options, body })
/** Contacts replace. */
export const replaceContacts = (
  h: Caller,
  supplierId: string,
  body: unknown,
  options: Options = {},
) => h.call('PUT', `${ITEMS}/${supplierId}/contacts`, { ...options, body })
/** SUP-ADM-011 delete draft. */
export const remove = (h: Caller, supplierId: string, options: Options = {}) =>
  h.call('DELETE', `${ITEMS}/${supplierId}`, options)
/** SUP-ADM-007 submit registration. */
export const submit = (h: Caller, supplierId: string, body: unknown, options: Options = {}) =>
  h.call('POST', `${ITEMS}/${supplierId}/submit`, { ...options, body })
/** The internal route that applies (or reconciles) an approval, with the internal token. */
export const retry = (
  h: Pick<Harness, 'call' | 'config'>,
  approvalLogId: string,
  token: string | null = h.config.internalToken,
) =>
  h.call('POST', `/internal/supplier/approvals/${approvalLogId}/apply`, {
    admin: null,
    token: null,
    headers: token === null ? {} : { 'x-internal-token': token },
  })

// Suppliers made through the API -----------------------------------------------------------------

export interface Draft {
  /** The request that made it. */
  body: Body
  supplierId: string
  /** Its `updateTime` as created: the `expectedUpdateTime` of the next write. */
  version: string
  /** The SupplierWriteResultVO. */
  data: any
}

/** A draft created from `body` exactly as given; fails the test unless it was created. */
export async function createDraft(h: Caller, body: Body, admin?: string): Promise<Draft> {
  const data = ok(await create(h, body, { admin }))
  expect(data.status).toBe('DRAFT')
  return { body, supplierId: data.supplierId, version: data.updateTime, data }
}

/** A draft that a submit accepts: `draftBody` with a licence image, and `overrides`. */
export const newDraft = (h: Caller, admin?: string, overrides: Body = {}) =>
  createDraft(h, draftBody({ licenseImageUrl: LICENSE, ...overrides }), admin)

/**
 * The submit body that finalizes a draft made from `body`: its subject fields (a licence image
 * unless it has one), none of its children (they stay as they are), and `overrides`.
 */
export function submitBodyFrom(body: Body, expectedUpdateTime: string, overrides: Body = {}) {
  const {
    contacts: _c,
    qualifications: _q,
    initialAccounts: _a,
    duplicateConfirmToken: _t,
    ...subject
  } = body
  return { licenseImageUrl: LICENSE, ...subject, expectedUpdateTime, ...overrides } as Body
}

/** A new draft (`newDraft`) submitted at once; `res` is the submit's answer, whatever it is. */
export async function register(
  h: Caller,
  admin?: string,
  overrides: Body = {},
  submitOverrides: Body = {},
) {
  const draft = await newDraft(h, admin, overrides)
  const body = submitBodyFrom(draft.body, draft.version, submitOverrides)
  const res: Answer = await submit(h, draft.supplierId, body, { admin })
  return { ...draft, res }
}

/** A registration that LOCAL_AUTO applied: an ACTIVE supplier, its detail and version now. */
export async function registerActive(h: Caller, admin?: string, overrides: Body = {}) {
  const registered = await register(h, admin, overrides)
  expect(registered.res.body, JSON.stringify(registered.res.body)).toMatchObject({
    code: 200,
    data: { approvalStatus: 'APPLIED' },
  })
  const view = ok(await detail(h, registered.supplierId, { admin }))
  expect(view.status).toBe('ACTIVE')
  return { ...registered, view, version: view.updateTime as string }
}

/** The current version (`updateTime`) of a supplier, read with SQL. */
export async function versionOf(h: Pick<Harness, 'sql'>, supplierId: string): Promise<string> {
  const [row] = await h.sql`
    SELECT to_char(update_time, 'YYYY-MM-DD HH24:MI:SS') AS v FROM supplier
    WHERE supplier_id = ${supplierId}`
  return row.v
}

/**
 * A list keyword's matches by a pass over supplier_search, as the list must answer them: folded
 * `fold` in any spelling, rank (a name equal, a name containing it, another spelling), then the
 * createTime order (`asc` or descending), with the list's status and type filters.
 */
export async function keywordMatchesByPass(
  h: Pick<Harness, 'sql'>,
  fold: string,
  { status, typeCode, asc }: { status?: string; typeCode?: string; asc?: boolean } = {},
) {
  const like = `%${fold}%`
  const dir = asc ? h.sql`ASC` : h.sql`DESC`
  const rows = await h.sql`
    SELECT s.supplier_id::text AS id FROM supplier_search s
    WHERE s.status IS NOT NULL ${status ? h.sql`AND s.status = ${status}` : h.sql``}
      ${
        typeCode
          ? h.sql`AND EXISTS (SELECT 1 FROM supplier_type t WHERE t.supplier_id = s.supplier_id
                              AND t.type_code = ${typeCode} AND t.deleted_at IS NULL)`
          : h.sql``
      }
      AND (s.full_fold LIKE ${like} OR s.short_fold LIKE ${like} OR s.spellings LIKE ${like}
           OR coalesce(supplier_no_fold(s.supplier_no), '') LIKE ${like})
    ORDER BY CASE WHEN s.full_fold = ${fold} OR s.short_fold = ${fold} THEN 0
                  WHEN s.full_fold LIKE ${like} OR s.short_fold LIKE ${like} THEN 1 ELSE 2 END,
             date_trunc('second', s.create_time AT TIME ZONE 'UTC') ${dir}, s.supplier_id ${dir}`
  return rows.map((r) => r.id as string)
}

/** Every page of `size` of a list keyword (`more`: further query), with the totals they answered. */
export async function keywordPages(c: Caller, keyword: string, size: number, more = '') {
  const ids: string[] = []
  const totals = new Set<number>()
  for (let page = 1; ; page++) {
    const res = await c.call(
      'GET',
      `${ITEMS}?keyword=${encodeURIComponent(keyword)}&page=${page}&pageSize=${size}${more}`,
    )
    expect(res.body.code, JSON.stringify(res.body)).toBe(200)
    const data = res.body.data as { total: number; records: { supplierId: string }[] }
    totals.add(data.total)
    ids.push(...data.records.map((r) => r.supplierId))
    if (data.records.length < size) break
  }
  return { ids, totals: [...totals] }
}
