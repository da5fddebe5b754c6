import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest'
import { httpPermissionLookup } from '../src/ports/permission'
import { useHarness } from './harness'
import { ITEMS, newDraft, submitBodyFrom, versionOf } from './client'
import { unchanged } from './unchanged'

/**
 * Faults: a backend killed inside a write's transaction leaves nothing behind and the next
 * request succeeds; the permission port timing out refuses; a failed application is re-applied
 * exactly once.
 */

const embedded = inject('database').kind === 'embedded'

describe('a backend killed in the middle of a write transaction', () => {
  const h = useHarness({ env: { DUPLICATE_SUBMIT_WINDOW_SECONDS: '3' } })
  let holder: postgres.Sql
  let admin: string
  beforeAll(async () => {
    if (embedded) return
    holder = postgres(h.db.url, { max: 1, onnotice: () => {} })
    admin = await h.admin()
  })
  afterAll(async () => {
    await holder?.end({ timeout: 1 })
  })

  /**
   * Sends `send()` while another session holds the supplier row, so that the write stops inside
   * its transaction (after its duplicate-submit and Idempotency-Key claims, at the row lock);
   * kills the write's backend there, then lets go.
   */
  async function killInside(supplierId: string, send: () => Promise<{ body: any }>) {
    const held = await holder.reserve()
    await held`BEGIN`
    await held`SELECT 1 FROM supplier WHERE supplier_id = ${supplierId} FOR UPDATE`
    const answer = send()
    let victims: { pid: number }[] = []
    await vi.waitFor(
      async () => {
        victims = await held<{ pid: number }[]>`
          SELECT pid FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock'
            AND application_name = 'supplier-admin'`
        expect(victims).toHaveLength(1)
      },
      { timeout: 10_000, interval: 20 },
    )
    await held`SELECT pg_terminate_backend(${victims[0].pid})`
    const res = await answer
    await held`ROLLBACK`
    held.release()
    return res
  }

  it('an update: nothing partial (no row, change log, event, claim or key); the retry succeeds', async (ctx) => {
    if (embedded) ctx.skip('needs pg_terminate_backend and a second session (PostgreSQL only)')
    const { supplierId } = await newDraft(h, admin)
    const body = {
      shortName: 'After the fault',
      changeReason: 'fault test',
      expectedUpdateTime: await versionOf(h, supplierId),
    }
    const headers = { 'idempotency-key': `fault-${supplierId}` }
    const res = await unchanged(
      h,
      () =>
        killInside(supplierId, () =>
          h.call('PUT', `${ITEMS}/${supplierId}`, { admin, body, headers }),
        ),
      { grants: true },
    )
    expect(res.body).toMatchObject({ code: 395030, success: false, data: null })
    // The database is back: the same request, same key, goes through once.
    const retry = await h.call('PUT', `${ITEMS}/${supplierId}`, { admin, body, headers })
    expect(retry.body).toMatchObject({ code: 200, data: { supplierId } })
    const [row] = await h.sql`
      SELECT (SELECT count(*)::int FROM change_log WHERE supplier_id = ${supplierId}
                AND field_name = 'shortName') AS logs,
             (SELECT count(*)::int FROM domain_event WHERE aggregate_id = ${supplierId}
                AND event_type = 'SupplierProfileUpdated') AS events`
    expect(row).toEqual({ logs: 1, events: 1 })
  })

  it('a registration submit: no approval, status move or claim is left; the retry registers once', async (ctx) => {
    if (embedded) ctx.skip('needs pg_terminate_backend and a second session (PostgreSQL only)')
    const { body, supplierId, version } = await newDraft(h, admin)
    const submit = submitBodyFrom(body, version)
    const res = await unchanged(
      h,
      () =>
        killInside(supplierId, () =>
          h.call('POST', `${ITEMS}/${supplierId}/submit`, { admin, body: submit }),
        ),
      { grants: true },
    )
    expect(res.body).toMatchObject({ code: 395030, success: false })
    const retry = await h.call('POST', `${ITEMS}/${supplierId}/submit`, { admin, body: submit })
    expect(retry.body).toMatchObject({ code: 200, data: { approvalStatus: 'APPLIED' } })
    const [row] = await h.sql`
      SELECT s.status, (SELECT count(*)::int FROM approval_log a WHERE a.supplier_id = s.supplier_id) AS approvals
      FROM supplier s WHERE s.supplier_id = ${supplierId}`
    expect(row).toEqual({ status: 'ACTIVE', approvals: 1 })
  })
})

describe('the permission port timing out fails closed', () => {
  const open = new Set<ServerResponse>()
  // A permission service that accepts and never answers.
  const silent = createServer((_req, res) => void open.add(res))
  beforeAll(() => new Promise<void>((r) => silent.listen(0, '127.0.0.1', r)))
  afterAll(
    () =>
      new Promise<void>((r) => {
        for (const res of open) res.destroy()
        silent.close(() => r())
      }),
  )
  const h = useHarness({
    env: { PERMISSION_TIMEOUT_MS: '300' },
    permissions: () =>
      httpPermissionLookup({
        baseUrl: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/`,
        timeoutMs: 300,
      }),
  })

  it('395002 within the deadline, for a write, with nothing written', async () => {
    const admin = await h.admin()
    await unchanged(
      h,
      async () => {
        const started = Date.now()
        const res = await h.call('POST', ITEMS, { admin, body: { fullName: 'x' } })
        expect(res.body).toMatchObject({ code: 395002, success: false, data: null })
        expect(Date.now() - started).toBeLessThan(300 + 1_500)
        // Refused because the lookup failed (timed out), not because it answered false.
        expect(h.logs.join('\n')).toContain('permission lookup failed: denied')
      },
      { grants: true },
    )
  })
})

describe('an APPLY_FAILED approval re-applied through the internal route', () => {
  let dropLicence = false
  const h = useHarness({
    approvalProvider: (hh) => ({
      name: 'LOCAL_AUTO',
      submit: async (approval) => {
        if (dropLicence) {
          await hh.sql`UPDATE supplier SET license_image_url = NULL
                       WHERE supplier_id = ${approval.supplierId}`
        }
        return { approvalLogId: approval.approvalLogId, decision: 'APPROVED', schemaVersion: 1 }
      },
    }),
  })
  const apply = (approvalLogId: string) =>
    h.call('POST', `/internal/supplier/approvals/${approvalLogId}/apply`, {
      admin: null,
      token: null,
      headers: { 'x-internal-token': h.config.internalToken },
    })

  it('applies exactly once: a second re-application changes nothing', async () => {
    const admin = await h.admin()
    const { body, supplierId, version } = await newDraft(h, admin)
    dropLicence = true
    const submitted = await h.call('POST', `${ITEMS}/${supplierId}/submit`, {
      admin,
      body: submitBodyFrom(body, version),
    })
    dropLicence = false
    expect(submitted.body.data.approvalStatus).toBe('APPLY_FAILED')
    const approvalLogId = submitted.body.data.approvalLogId
    await h.sql`UPDATE supplier SET license_image_url = ${body.licenseImageUrl}
                WHERE supplier_id = ${supplierId}`

    const first = await apply(approvalLogId)
    expect(first.body).toMatchObject({ code: 200, data: { approvalStatus: 'APPLIED' } })
    const [{ supplierNo }] = await h.sql`
      SELECT supplier_no AS "supplierNo" FROM supplier WHERE supplier_id = ${supplierId}`
    expect(supplierNo).toMatch(/^SP/)
    const second = await unchanged(h, () => apply(approvalLogId), { grants: true })
    expect(second.body).toMatchObject({ code: 200, data: { approvalStatus: 'APPLIED' } })
  })
})
