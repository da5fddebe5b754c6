import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { ITEMS, LICENSE, createDraft, registerActive, submit, submitBodyFrom } from './client'
import { randomAccountNo } from './fixtures'
import { useHarness } from './harness'
import { account, sleep, supplierRow } from './supplier-submit-data'
import { draftBody } from './supplier-data'
import { rowCounts, unchanged } from './unchanged'

/*
 * The write pipeline's guards on SUP-ADM-003 create and SUP-ADM-007 submit: the short-window
 * duplicate-submit guard (its order after the uniqueness checks, its window, no row left by a
 * failure) and Idempotency-Key (replay, reuse refused, per administrator, concurrency).
 */

type Body = Record<string, any>

describe('error: the short-window duplicate-submit guard (3 s)', () => {
  const h = useHarness()

  it('refuses an identical create right after it with the uniqueness code (the guard comes after it)', async () => {
    // Spec write order: uniqueness (step 3) before the guard (step 4); the second identical
    // create therefore fails C-02 first. Either way exactly one supplier exists.
    const admin = await h.admin()
    const body = draftBody()
    await createDraft(h, body, admin)
    await unchanged(h, async () => {
      const res = await h.call('POST', ITEMS, { admin, body })
      expect(res.body).toMatchObject({ code: 395004, success: false })
    })
  })

  it('refuses the same admin + body within the window (395013) but not another admin or body', async () => {
    // Deleting the first draft makes every pre-check pass again, so the guard alone decides.
    const admin = await h.admin()
    const body = draftBody()
    const first = await createDraft(h, body, admin)
    const del = await h.call('DELETE', `${ITEMS}/${first.supplierId}`, { admin })
    expect(del.body).toMatchObject({ code: 200 })
    await unchanged(h, async () => {
      const twin = await h.call('POST', ITEMS, { admin, body })
      expect(twin.body).toMatchObject({ code: 395013, success: false })
    })
    const [{ n: live }] = await h.sql`
      SELECT count(*)::int AS n FROM supplier WHERE full_name = ${body.fullName} AND deleted_at IS NULL`
    expect(live).toBe(0)

    // Another body from the same admin is a different request.
    const changed = await h.call('POST', ITEMS, {
      admin,
      body: { ...body, shortName: 'changed' },
    })
    expect(changed.body).toMatchObject({ code: 200, success: true })
    const del2 = await h.call('DELETE', `${ITEMS}/${changed.body.data.supplierId}`, { admin })
    expect(del2.body).toMatchObject({ code: 200 })

    // Another administrator with the very same body is not blocked by the guard.
    const other = await h.admin()
    const theirs = await h.call('POST', ITEMS, { admin: other, body })
    expect(theirs.body).toMatchObject({ code: 200, success: true })
    // ...and a third one now fails on the tax number (C-02), not on the guard.
    const third = await h.call('POST', ITEMS, { admin: await h.admin(), body })
    expect(third.body).toMatchObject({ code: 395004 })
  })

  it('leaves no submit_guard row when the request fails, so the same request is checked again', async () => {
    const admin = await h.admin()
    await unchanged(h, async () => {
      const badType = await h.call('POST', ITEMS, {
        admin,
        body: draftBody({ types: [{ typeCode: 'NO_SUCH_TYPE' }] }),
      })
      expect(badType.body).toMatchObject({ code: 395010 })
    })

    // A failure inside the business transaction (C-19 re-check) also leaves no guard row.
    const x = randomAccountNo()
    await registerActive(h, admin, { initialAccounts: [account(x)] })
    const body = draftBody({ licenseImageUrl: LICENSE, initialAccounts: [account(x)] })
    const draft = await createDraft(h, body, admin)
    const request = submitBodyFrom(body, draft.version)
    const firstTry = await unchanged(h, () => submit(h, draft.supplierId, request, { admin }))
    expect(firstTry.body).toMatchObject({ code: 395016 })
    const secondTry = await unchanged(h, () => submit(h, draft.supplierId, request, { admin }))
    expect(secondTry.body).toMatchObject({ code: 395016 })
  })

  it('lets exactly one of two concurrent identical creates through', async () => {
    const admin = await h.admin()
    const body = draftBody()
    const before = await rowCounts(h)
    const results = await Promise.all([
      h.call('POST', ITEMS, { admin, body }),
      h.call('POST', ITEMS, { admin, body }),
    ])
    const codes = results.map((r) => r.body.code).sort()
    expect(codes[0]).toBe(200)
    // Which pre-check or guard refuses the loser depends on timing: C-02, near-duplicate or guard.
    expect([395004, 395006, 395013]).toContain(codes[1])
    const [{ n }] = await h.sql`
      SELECT count(*)::int AS n FROM supplier WHERE full_name = ${body.fullName}`
    expect(n).toBe(1)
    expect((await rowCounts(h)).supplier).toBe(before.supplier + 1)
  })

  it.skipIf(!process.env.DATABASE_URL)(
    'real PostgreSQL: concurrent twins that both pass the pre-checks meet the guard (395013); other admins meet C-02',
    async () => {
      const race = async (admins: [string, string], body: Body) => {
        let pending!: Promise<{ status: number; body: any }[]>
        await h.sql.begin(async (tx) => {
          // Hold inserts into supplier so that both requests are inside their transactions.
          await tx`LOCK TABLE supplier IN SHARE MODE`
          pending = Promise.all(admins.map((admin) => h.call('POST', ITEMS, { admin, body })))
          for (let i = 0; i < 100; i++) {
            const [{ n }] = await h.sql`
              SELECT count(*)::int AS n FROM pg_stat_activity
              WHERE datname = current_database() AND wait_event_type = 'Lock'`
            if (n >= 2) break
            await sleep(50)
          }
        })
        return (await pending).map((r) => r.body.code).sort()
      }
      const admin = await h.admin()
      const same = draftBody()
      expect(await race([admin, admin], same)).toEqual([200, 395013])
      const other = draftBody()
      expect(await race([admin, await h.admin()], other)).toEqual([200, 395004])
      const [{ n }] = await h.sql`
        SELECT count(*)::int AS n FROM supplier WHERE full_name IN (${same.fullName}, ${other.fullName})`
      expect(n).toBe(2)
    },
  )
})

describe('error: the duplicate-submit window itself (1 s)', () => {
  const h = useHarness({ env: { DUPLICATE_SUBMIT_WINDOW_SECONDS: '1' } })

  it('blocks within the window and no longer after it', async () => {
    const admin = await h.admin()
    await createDraft(h, draftBody(), admin) // warm-up, so the timed part below is fast
    const body = draftBody()
    const first = await createDraft(h, body, admin)
    await h.call('DELETE', `${ITEMS}/${first.supplierId}`, { admin })
    const inside = await h.call('POST', ITEMS, { admin, body })
    expect(inside.body).toMatchObject({ code: 395013 })
    await sleep(1200)
    const after = await h.call('POST', ITEMS, { admin, body })
    expect(after.body, JSON.stringify(after.body)).toMatchObject({ code: 200, success: true })
  })
})

describe('Idempotency-Key (duplicate-submit window 0)', () => {
  const h = useHarness({ env: { DUPLICATE_SUBMIT_WINDOW_SECONDS: '0' } })
  const key = () => `k-${randomBytes(8).toString('hex')}`
  const post = (admin: string, body: Body, k: string) =>
    h.call('POST', ITEMS, { admin, body, headers: { 'Idempotency-Key': k } })
  const liveByTax = async (taxNo: string) => {
    const bidx = await h.cipher.blindIndex(taxNo, 'taxNo')
    const [{ n }] = await h.sql`SELECT count(*)::int AS n FROM supplier WHERE tax_no_bidx = ${bidx}`
    return n
  }

  describe('happy', () => {
    it('runs without the guard when the window is 0', async () => {
      const admin = await h.admin()
      const body = draftBody()
      const first = await createDraft(h, body, admin)
      await h.call('DELETE', `${ITEMS}/${first.supplierId}`, { admin })
      const again = await h.call('POST', ITEMS, { admin, body })
      expect(again.body).toMatchObject({ code: 200 })
    })

    it('replays the first response for the same key and body, writing nothing again', async () => {
      const admin = await h.admin()
      const body = draftBody()
      const k = key()
      const first = await post(admin, body, k)
      expect(first.body).toMatchObject({ code: 200, success: true })
      await unchanged(h, async () => {
        const second = await post(admin, body, k)
        expect(second.body).toEqual(first.body)
      })
      expect(await liveByTax(body.taxNo)).toBe(1)
      const [record] = await h.sql`
        SELECT status, response FROM idempotency_record WHERE admin_id = ${admin} AND idempotency_key = ${k}`
      expect(record.status).toBe('DONE')
      expect(record.response).toEqual(first.body.data)
    })

    it('runs for real after a failed first request with the same key', async () => {
      const admin = await h.admin()
      const k = key()
      const bad = draftBody({ types: [{ typeCode: 'NO_SUCH_TYPE' }] })
      await unchanged(h, async () => {
        const failed = await post(admin, bad, k)
        expect(failed.body).toMatchObject({ code: 395010 })
        const failedAgain = await post(admin, bad, k)
        expect(failedAgain.body).toMatchObject({ code: 395010 })
      })
      const good = draftBody()
      const ok = await post(admin, good, k)
      expect(ok.body).toMatchObject({ code: 200, success: true })
      expect(await liveByTax(good.taxNo)).toBe(1)
    })

    it('keeps keys per administrator', async () => {
      const a = await h.admin()
      const b = await h.admin()
      const k = key()
      const body = draftBody()
      const first = await post(a, body, k)
      expect(first.body).toMatchObject({ code: 200 })
      // The same key and body from another admin is not a replay: it runs and meets C-02.
      const theirs = await post(b, body, k)
      expect(theirs.body).toMatchObject({ code: 395004 })
      // And another body under the same key is theirs to use.
      const other = draftBody()
      const own = await post(b, other, k)
      expect(own.body).toMatchObject({ code: 200 })
      expect(own.body.data.supplierId).not.toBe(first.body.data.supplierId)
    })

    it('replays a submit: one approval, the same ApprovalCommandResult', async () => {
      const admin = await h.admin()
      const body = draftBody({ licenseImageUrl: LICENSE, initialAccounts: [account()] })
      const draft = await createDraft(h, body, admin)
      const k = key()
      const request = submitBodyFrom(body, draft.version)
      const first = await submit(h, draft.supplierId, request, {
        admin,
        headers: { 'Idempotency-Key': k },
      })
      expect(first.body).toMatchObject({ code: 200, data: { approvalStatus: 'APPLIED' } })
      const row = await supplierRow(h, draft.supplierId)
      await unchanged(h, async () => {
        const second = await submit(h, draft.supplierId, request, {
          admin,
          headers: { 'Idempotency-Key': k },
        })
        expect(second.body).toEqual(first.body)
      })
      expect(await supplierRow(h, draft.supplierId)).toEqual(row)
      // Without the key the same request runs and is refused: the supplier is no longer a DRAFT.
      const plain = await submit(h, draft.supplierId, request, { admin })
      expect(plain.body).toMatchObject({ code: 395005 })
    })

    it('lets one of two concurrent requests with the same key run', async () => {
      const admin = await h.admin()
      const body = draftBody()
      const k = key()
      const [a, b] = await Promise.all([post(admin, body, k), post(admin, body, k)])
      expect(await liveByTax(body.taxNo)).toBe(1)
      const bodies = [a.body, b.body]
      const winner = bodies.find((r) => r.code === 200)
      expect(winner).toBeDefined()
      for (const r of bodies) {
        if (r.code === 200) expect(r.data.supplierId).toBe(winner.data.supplierId)
        else expect(r.code).toBe(395028)
      }
    })
  })

  describe('error', () => {
    it('refuses the same key with a different body or another operation (395027)', async () => {
      const admin = await h.admin()
      const body = draftBody({ licenseImageUrl: LICENSE })
      const k = key()
      const first = await post(admin, body, k)
      expect(first.body).toMatchObject({ code: 200 })
      await unchanged(h, async () => {
        const other = draftBody()
        const changed = await post(admin, other, k)
        expect(changed.body).toMatchObject({ code: 395027, success: false })
        expect(await liveByTax(other.taxNo)).toBe(0)
        const onSubmit = await submit(
          h,
          first.body.data.supplierId,
          submitBodyFrom(body, first.body.data.updateTime),
          { admin, headers: { 'Idempotency-Key': k } },
        )
        expect(onSubmit.body).toMatchObject({ code: 395027 })
      })
      expect((await supplierRow(h, first.body.data.supplierId)).status).toBe('DRAFT')
    })

    it('refuses a malformed key with 400 and writes nothing', async () => {
      const admin = await h.admin()
      await unchanged(h, async () => {
        for (const k of [
          'x'.repeat(256),
          'x'.repeat(300),
          'has space',
          'key/slash',
          'key+plus',
          '',
        ]) {
          const body = draftBody()
          const res = await post(admin, body, k)
          expect(res.body, k).toMatchObject({ code: 400, success: false })
          expect(res.body.message).toContain('Idempotency-Key')
          expect(await liveByTax(body.taxNo)).toBe(0)
        }
      })
      const longest = await post(admin, draftBody(), 'k'.repeat(255))
      expect(longest.body).toMatchObject({ code: 200 })
    })
  })
})
