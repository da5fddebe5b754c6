import { describe, expect, it } from 'vitest'
import { useHarness } from './harness'
import { insertSupplier } from './fixtures'
import { draftBody, fullDraftBody } from './supplier-data'
import { unchanged } from './unchanged'

/**
 * Text PostgreSQL cannot store (NUL, lone UTF-16 surrogates) and dates it cannot represent (year
 * 0000) are refused with a 400 naming the field, in every part of every request: the check lives
 * in the shared validation, not in each route.
 */

const NUL = '\u0000'
const LONE_HIGH = '\ud83d'
const LONE_LOW = '\ude00'

describe('text and dates PostgreSQL cannot store: 400 naming the field, nothing written', () => {
  const h = useHarness()

  const refused = (
    method: string,
    path: string,
    field: string,
    body?: unknown,
    problem: RegExp = /NUL|surrogate|year/,
  ) =>
    unchanged(h, async () => {
      const res = await h.call(method, path, { body })
      // A validation failure is a business answer (HTTP 200), never a fault.
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body).toMatchObject({ code: 400, success: false, data: null })
      expect(res.body.message).toContain(`${field}:`)
      expect(res.body.message).toMatch(problem)
    })

  it('NUL in body text fields of create, update, contacts and submit', async () => {
    await refused('POST', '/admin/supplier/items', 'fullName', draftBody({ fullName: `a${NUL}b` }))
    await refused('POST', '/admin/supplier/items', 'remark', draftBody({ remark: `x${NUL}` }))
    await refused(
      'POST',
      '/admin/supplier/items',
      'contacts.0.contactName',
      fullDraftBody({ contacts: [{ contactName: `Li${NUL}`, contactPhone: '13800000000' }] }),
    )
    const { supplierId } = await insertSupplier(h)
    const [{ v }] = await h.sql`
      SELECT to_char(update_time, 'YYYY-MM-DD HH24:MI:SS') AS v FROM supplier
      WHERE supplier_id = ${supplierId}`
    await refused('PUT', `/admin/supplier/items/${supplierId}`, 'shortName', {
      shortName: `s${NUL}`,
      changeReason: 'why',
      expectedUpdateTime: v,
    })
    await refused('PUT', `/admin/supplier/items/${supplierId}/contacts`, 'changeReason', {
      contacts: [],
      changeReason: NUL,
      expectedUpdateTime: v,
    })
    await refused(
      'POST',
      `/admin/supplier/items/${supplierId}/submit`,
      'submitNote',
      fullDraftBody({ submitNote: `n${NUL}`, expectedUpdateTime: v }),
    )
    await refused('PUT', '/admin/supplier/types/OTHER/qualification-rules', 'rules.0.qualType', {
      rules: [{ qualType: `Q${NUL}`, isRequired: true, warningDays: 0, sortOrder: 0 }],
    })
  })

  it('lone surrogates in body text (not silently replaced on create, no 500 at submit)', async () => {
    await refused(
      'POST',
      '/admin/supplier/items',
      'fullName',
      draftBody({ fullName: `a${LONE_HIGH}` }),
      /surrogate/,
    )
    await refused(
      'POST',
      '/admin/supplier/items',
      'mainCooperation',
      draftBody({ mainCooperation: `${LONE_LOW}x` }),
      /surrogate/,
    )
    const { supplierId } = await insertSupplier(h)
    const [{ v }] = await h.sql`
      SELECT to_char(update_time, 'YYYY-MM-DD HH24:MI:SS') AS v FROM supplier
      WHERE supplier_id = ${supplierId}`
    await refused(
      'POST',
      `/admin/supplier/items/${supplierId}/submit`,
      'qualifications.0.certNo',
      fullDraftBody({
        expectedUpdateTime: v,
        qualifications: [{ qualType: 'BUSINESS_LICENSE', certNo: `C${LONE_HIGH}1` }],
      }),
      /surrogate/,
    )
    // A well-formed pair (an emoji) is ordinary text.
    const ok = await h.call('POST', '/admin/supplier/items', {
      body: draftBody({ remark: 'ok \ud83d\ude00' }),
    })
    expect(ok.body).toMatchObject({ code: 200 })
  })

  it('a body that is not UTF-8: 400 naming it, nothing stored (no U+FFFD in its place)', async () => {
    const admin = await h.admin()
    const headers = {
      authorization: `Bearer ${await h.token(admin)}`,
      'x-admin-id': admin,
      'content-type': 'application/json',
    }
    const json = new TextEncoder().encode(JSON.stringify(draftBody({ remark: 'ab' })))
    const at = json.indexOf(0x62) // the b of the remark: the last "b" of the text
    // A stray continuation byte, a cut three-byte sequence, an overlong form, a surrogate's
    // encoding, and a cut sequence at the very end of the body.
    const bad = [[0x80], [0xe4, 0xbe], [0xc0, 0xaf], [0xed, 0xa0, 0x80]]
    const bodies = [
      ...bad.map(
        (bytes) => new Uint8Array([...json.subarray(0, at), ...bytes, ...json.subarray(at)]),
      ),
      new Uint8Array([...json, 0xe4]),
    ]
    for (const raw of bodies) {
      await unchanged(h, async () => {
        const res = await h.app.request('/admin/supplier/items', {
          method: 'POST',
          headers: { ...headers, 'idempotency-key': `utf8-${Math.random()}` },
          body: raw,
        })
        expect(res.status).toBe(400)
        expect(await res.json()).toEqual({
          code: 400,
          message: '(body): not valid UTF-8',
          success: false,
          data: null,
        })
      })
    }
  })

  it('NUL in query parameters and path segments', async () => {
    await refused('GET', '/admin/supplier/items?keyword=a%00b', 'keyword')
    await refused('GET', '/admin/supplier/items?typeCode=%00', 'typeCode')
    await refused('GET', '/admin/supplier/approval-records?fieldName=x%00', 'fieldName')
    await refused('GET', '/admin/supplier/types/AB%00C/qualification-rules', 'typeCode')
    await refused(
      'PUT',
      '/admin/supplier/types/A%00/qualification-rules',
      'typeCode',
      { rules: [] },
      /NUL/,
    )
  })

  it('the year 0000 in dates and date-times', async () => {
    await refused(
      'POST',
      '/admin/supplier/items',
      'establishDate',
      draftBody({ establishDate: '0000-06-01' }),
      /year/,
    )
    await refused(
      'POST',
      '/admin/supplier/items',
      'qualifications.0.expiryDate',
      draftBody({ qualifications: [{ qualType: 'BUSINESS_LICENSE', expiryDate: '0000-02-29' }] }),
      /year/,
    )
    await refused(
      'GET',
      '/admin/supplier/approval-records?createTimeFrom=0000-01-01%2000:00:00',
      'createTimeFrom',
      undefined,
      /year/,
    )
    const { supplierId } = await insertSupplier(h)
    await refused(
      'PUT',
      `/admin/supplier/items/${supplierId}`,
      'expectedUpdateTime',
      { shortName: 'x', changeReason: 'why', expectedUpdateTime: '0000-01-01 00:00:00' },
      /year/,
    )
    // Early but real years are dates like any other.
    const early = await h.call('POST', '/admin/supplier/items', {
      body: draftBody({ establishDate: '0001-01-01' }),
    })
    expect(early.body).toMatchObject({ code: 200 })
    const detail = await h.call('GET', `/admin/supplier/items/${early.body.data.supplierId}`)
    expect(detail.body.data.establishDate).toBe('0001-01-01')
  })
})
