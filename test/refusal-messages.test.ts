import { beforeAll, describe, expect, it } from 'vitest'
import { useHarness } from './harness'
import { draftBody, TAX_NO } from './supplier-data'
import { unchanged } from './unchanged'

/**
 * A refusal names at most five problems and counts the rest, on every route and for bodies,
 * queries and path parameters alike; it echoes only names spelled like the API's fields, never a
 * value sent as a name (a tax number as a query parameter or a body key); a 404 or 405 does not
 * repeat the path it was sent.
 */

const h = useHarness()
let admin: string

beforeAll(async () => {
  admin = await h.admin()
})

/** The refusal's shape: the 400 envelope (HTTP 200), five named problems at most. */
function expectShortRefusal(body: { code: number; message: string }, more: number) {
  expect(body).toMatchObject({ code: 400, success: false, data: null })
  expect(body.message.length).toBeLessThan(400)
  expect(body.message.split('; ')).toHaveLength(6)
  expect(body.message).toMatch(new RegExp(`; and ${more} more$`))
}

describe('a refusal names at most five problems, then how many more', () => {
  it('a body with 100,000 unknown keys: refused by the shape cap in one short line, nothing written', async () => {
    const body: Record<string, unknown> = { ...draftBody() }
    for (let i = 0; i < 100_000; i++) body[`unknown${i}`] = 1
    const res = await unchanged(h, () => h.call('POST', '/admin/supplier/items', { admin, body }))
    expect(res.body).toMatchObject({ code: 400, success: false, data: null })
    expect(res.body.message).toBe('(body): an object holds more than 128 fields')
  })

  it('a body with 100 unknown keys (under the shape cap): five named, the rest counted, nothing written', async () => {
    const body: Record<string, unknown> = { ...draftBody() }
    for (let i = 0; i < 100; i++) body[`unknown${i}`] = 1
    const res = await unchanged(h, () => h.call('POST', '/admin/supplier/items', { admin, body }))
    expectShortRefusal(res.body, 100 - 5)
    expect(res.body.message).toMatch(/^unknown0: unknown field; unknown1: unknown field; /)
  })

  it('a read with 1,000 unknown query parameters', async () => {
    const query = Array.from({ length: 1000 }, (_, i) => `p${i}=1`).join('&')
    const res = await h.call('GET', `/admin/supplier/items?${query}`, { admin })
    expectShortRefusal(res.body, 1000 - 5)
  })

  it('a write: unknown, forbidden and invalid fields together count as one list', async () => {
    const body = { ...draftBody(), adminId: '1', fullName: 7, a: 1, b: 2, c: 3, d: 4, e: 5 }
    const res = await unchanged(h, () => h.call('POST', '/admin/supplier/items', { admin, body }))
    // 7 problems: fullName's type, adminId, a to e.
    expectShortRefusal(res.body, 2)
  })
})

describe('a refusal echoes only names spelled like the API fields', () => {
  it('GET with a tax number as a parameter name does not echo it', async () => {
    const res = await h.call('GET', `/admin/supplier/items?${TAX_NO}=1`, { admin })
    expect(res.body).toMatchObject({ code: 400, success: false, data: null })
    expect(res.body.message).toBe('(unnamed): unknown field')
    const repeated = await h.call('GET', `/admin/supplier/items?${TAX_NO}=1&${TAX_NO}=2`, {
      admin,
    })
    expect(repeated.body.message).not.toContain(TAX_NO)
  })

  it('a body key that is a tax number (or holds NUL) is not echoed, nested or not', async () => {
    for (const body of [
      { ...draftBody(), [TAX_NO]: 1 },
      { ...draftBody(), contacts: [{ [TAX_NO]: 1 }] },
      { ...draftBody(), [`${TAX_NO}\u0000`]: 1 },
    ]) {
      const res = await unchanged(h, () => h.call('POST', '/admin/supplier/items', { admin, body }))
      expect(res.body).toMatchObject({ code: 400, success: false, data: null })
      expect(res.body.message).not.toContain(TAX_NO.slice(0, 12))
      expect(res.body.message).toContain('(unnamed)')
    }
  })

  it('a 404 does not echo the path it was sent, nor a 405', async () => {
    const notFound = await h.call('GET', `/admin/no-such-route/${TAX_NO}`, { admin })
    expect(notFound.status).toBe(404)
    expect(notFound.body).toMatchObject({ code: 404, success: false, data: null })
    expect(notFound.body.message).not.toContain(TAX_NO)
    expect(notFound.body.message).not.toContain('no-such-route')
    const unserved = await h.call('PATCH', `/admin/supplier/items/${TAX_NO}`, { admin })
    expect(unserved.status).toBe(405)
    expect(unserved.body.message).not.toContain(TAX_NO)
    expect(unserved.body.message).toMatch(/allowed: /)
  })
})
