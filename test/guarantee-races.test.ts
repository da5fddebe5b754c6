import { beforeAll, describe, expect, inject, it } from 'vitest'
import { insertSupplier } from './fixtures'
import { useHarness, type Harness } from './harness'
import { ITEMS, newDraft, submitBodyFrom, versionOf } from './client'
import { tally } from './guarantees'
import { insertResource } from './resource-data'
import { draftBody, uniqueTaxNo } from './supplier-data'

/**
 * Races: 20+ clients at once on the same target, repeated, with the invariant checked in SQL
 * afterwards. The single-connection embedded engine serializes every statement, so there is no
 * race to lose there: these run on PostgreSQL only.
 */

const embedded = inject('database').kind === 'embedded'
const SKIP =
  'races need concurrent sessions: the embedded engine (pglite-socket) serves one connection'
const CLIENTS = 20
const ROUNDS = 3

/** 20 administrators with every permission: the duplicate-submit guard is per administrator. */
async function admins(h: Harness) {
  return Promise.all(Array.from({ length: CLIENTS }, () => h.admin()))
}

describe('races on PostgreSQL: one winner, invariants in SQL', () => {
  // Failed approvals are made by a provider that removes the licence before deciding.
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
  let team: string[]
  beforeAll(async () => {
    if (!embedded) team = await admins(h)
  })

  it('updates with one expectedUpdateTime: one winner, one version step, one change-log row', async (ctx) => {
    if (embedded) ctx.skip(SKIP)
    const { supplierId } = await newDraft(h, team[0])
    for (let round = 0; round < ROUNDS; round++) {
      const version = await versionOf(h, supplierId)
      const answers = await Promise.all(
        team.map((admin, i) =>
          h.call('PUT', `${ITEMS}/${supplierId}`, {
            admin,
            body: {
              shortName: `Short ${round}-${i}`,
              changeReason: 'race',
              expectedUpdateTime: version,
            },
          }),
        ),
      )
      const codes = tally(answers)
      expect(codes[200], JSON.stringify(codes)).toBe(1)
      for (const code of Object.keys(codes)) expect(['200', '395003', '395014']).toContain(code)
      const winner = answers.find((a) => a.body.code === 200)!
      const [row] = await h.sql`
        SELECT s.short_name AS "shortName",
               to_char(s.update_time, 'YYYY-MM-DD HH24:MI:SS') AS version,
               (SELECT count(*)::int FROM change_log c
                WHERE c.supplier_id = s.supplier_id AND c.field_name = 'shortName'
                  AND c.new_value_masked LIKE ${`Short ${round}-%`}) AS logs,
               (SELECT count(*)::int FROM domain_event e
                WHERE e.aggregate_id = s.supplier_id AND e.event_type = 'SupplierProfileUpdated'
                  AND e.payload::text LIKE ${`%Short ${round}-%`}) AS events
        FROM supplier s WHERE s.supplier_id = ${supplierId}`
      expect(row.logs).toBe(1)
      expect(row.version).toBe(winner.body.data.updateTime)
      expect(row.version > version).toBe(true)
      expect(row.shortName).toMatch(new RegExp(`^Short ${round}-\\d+$`))
      expect(row.events).toBeLessThanOrEqual(1)
    }
  })

  it('submits of one draft: one approval, one supplierNo', async (ctx) => {
    if (embedded) ctx.skip(SKIP)
    for (let round = 0; round < ROUNDS; round++) {
      const { body, supplierId, version } = await newDraft(h, team[0])
      const submitBody = submitBodyFrom(body, version)
      const answers = await Promise.all(
        team.map((admin) =>
          h.call('POST', `${ITEMS}/${supplierId}/submit`, { admin, body: submitBody }),
        ),
      )
      const codes = tally(answers)
      expect(codes[200], JSON.stringify(codes)).toBe(1)
      const [row] = await h.sql`
        SELECT s.status, s.supplier_no AS "supplierNo",
               (SELECT count(*)::int FROM approval_log a WHERE a.supplier_id = s.supplier_id) AS approvals,
               (SELECT count(*)::int FROM supplier o WHERE o.supplier_no = s.supplier_no) AS holders,
               (SELECT count(*)::int FROM change_log c WHERE c.supplier_id = s.supplier_id
                  AND c.operation_type = 'REGISTRATION_SUBMIT' AND c.field_name = 'status') AS submits
        FROM supplier s WHERE s.supplier_id = ${supplierId}`
      expect(row).toMatchObject({ status: 'ACTIVE', approvals: 1, holders: 1, submits: 1 })
      expect(row.supplierNo).toMatch(/^SP/)
    }
  })

  it('drafts with one tax number: exactly one survives', async (ctx) => {
    if (embedded) ctx.skip(SKIP)
    for (let round = 0; round < ROUNDS; round++) {
      const taxNo = uniqueTaxNo()
      const answers = await Promise.all(
        team.map((admin) => h.call('POST', ITEMS, { admin, body: draftBody({ taxNo }) })),
      )
      const codes = tally(answers)
      expect(codes, JSON.stringify(codes)).toEqual({ 200: 1, 395004: CLIENTS - 1 })
      const bidx = await h.cipher.blindIndex(taxNo.toUpperCase(), 'taxNo')
      const [row] = await h.sql`
        SELECT count(*)::int AS live FROM supplier WHERE tax_no_bidx = ${bidx} AND deleted_at IS NULL`
      expect(row.live).toBe(1)
    }
  })

  it('binds and rebinds of one resource: one valid relation, the winner’s', async (ctx) => {
    if (embedded) ctx.skip(SKIP)
    const suppliers = await Promise.all(
      team.map(
        async (_, i) =>
          (
            await insertSupplier(h, {
              status: 'ACTIVE',
              supplierNo: `SPR${Date.now()}${i}`,
              types: [{ typeCode: 'HOTEL', isPrimary: true }],
            })
          ).supplierId,
      ),
    )
    for (let round = 0; round < ROUNDS; round++) {
      const resourceId = await insertResource(h, 'HOTEL')
      const path = `/admin/supplier/resource-relations/HOTEL/${resourceId}`
      const binds = await Promise.all(
        team.map((admin, i) =>
          h.call('PUT', path, {
            admin,
            body: { supplierId: suppliers[i], changeReason: `bind ${i}` },
          }),
        ),
      )
      expect(tally(binds)[200], JSON.stringify(tally(binds))).toBe(1)
      const bound = binds.find((a) => a.body.code === 200)!.body.data
      // Everyone rebinds from what they saw: one wins, the others find the relation moved.
      const rebinds = await Promise.all(
        team.map((admin, i) =>
          h.call('PUT', path, {
            admin,
            body: {
              supplierId: suppliers[(i + 1) % CLIENTS],
              expectedCurrentSupplierId: bound.supplierId,
              expectedRelationUpdateTime: bound.updateTime,
              changeReason: `rebind ${i}`,
            },
          }),
        ),
      )
      const codes = tally(rebinds)
      const winners = rebinds.filter((a) => a.body.code === 200)
      expect(winners.length, JSON.stringify(codes)).toBe(1)
      const [row] = await h.sql`
        SELECT count(*)::int AS valid, min(supplier_id)::text AS "supplierId"
        FROM supplier_resource_relation
        WHERE resource_module = 'HOTEL' AND resource_id = ${resourceId} AND deleted_at IS NULL`
      expect(row).toEqual({ valid: 1, supplierId: winners[0].body.data.supplierId })
    }
  })

  it('default switches across one supplier’s accounts: one default', async (ctx) => {
    if (embedded) ctx.skip(SKIP)
    for (let round = 0; round < ROUNDS; round++) {
      const s = await insertSupplier(h, {
        status: 'ACTIVE',
        supplierNo: `SPD${Date.now()}${round}`,
        accounts: Array.from({ length: CLIENTS }, () => ({})),
      })
      const versions = await h.sql<{ id: string; v: string }[]>`
        SELECT account_id::text AS id, to_char(update_time, 'YYYY-MM-DD HH24:MI:SS') AS v
        FROM supplier_bank_account WHERE supplier_id = ${s.supplierId} ORDER BY account_id`
      const answers = await Promise.all(
        versions.map(({ id, v }, i) =>
          h.call('PUT', `${ITEMS}/${s.supplierId}/accounts/${id}/default`, {
            admin: team[i],
            body: { expectedUpdateTime: v },
          }),
        ),
      )
      const codes = tally(answers)
      expect(codes[200], JSON.stringify(codes)).toBeGreaterThanOrEqual(1)
      for (const code of Object.keys(codes)) expect(['200', '395014']).toContain(code)
      const [row] = await h.sql`
        SELECT count(*) FILTER (WHERE is_default = 'YES')::int AS defaults,
               (SELECT count(*)::int FROM change_log c WHERE c.supplier_id = ${s.supplierId}
                  AND c.field_name = 'isDefault' AND c.new_value_masked = 'YES') AS switches
        FROM supplier_bank_account WHERE supplier_id = ${s.supplierId} AND deleted_at IS NULL`
      expect(row.defaults).toBe(1)
      // Every answered switch left its change log, and no other did.
      expect(row.switches).toBe(codes[200])
    }
  })

  it('status commands on one version: one transition', async (ctx) => {
    if (embedded) ctx.skip(SKIP)
    for (let round = 0; round < ROUNDS; round++) {
      const { supplierId } = await insertSupplier(h, {
        status: 'ACTIVE',
        supplierNo: `SPS${Date.now()}${round}`,
      })
      const version = await versionOf(h, supplierId)
      const answers = await Promise.all(
        team.map((admin, i) =>
          h.call('POST', `${ITEMS}/${supplierId}/status`, {
            admin,
            body: {
              targetStatus: i % 2 ? 'SUSPENDED' : 'FROZEN',
              changeReason: `race ${i}`,
              expectedUpdateTime: version,
            },
          }),
        ),
      )
      const codes = tally(answers)
      expect(codes[200], JSON.stringify(codes)).toBe(1)
      for (const code of Object.keys(codes)) expect(['200', '395003', '395014']).toContain(code)
      const winner = answers.find((a) => a.body.code === 200)!
      const [row] = await h.sql`
        SELECT s.status,
               (SELECT count(*)::int FROM approval_log a WHERE a.supplier_id = s.supplier_id
                  AND a.biz_type = 'STATUS_CHANGE') AS approvals,
               (SELECT count(*)::int FROM change_log c WHERE c.supplier_id = s.supplier_id
                  AND c.operation_type = 'STATUS_CHANGE' AND c.field_name = 'status'
                  AND c.status = 'APPLIED') AS moves
        FROM supplier s WHERE s.supplier_id = ${supplierId}`
      expect(winner.body.data.approvalStatus).toBe('APPLIED')
      expect(row.approvals).toBe(1)
      expect(row.moves).toBe(1)
      expect(['SUSPENDED', 'FROZEN']).toContain(row.status)
    }
  })

  it('one approval applied by 20 reconciliations at once: applied exactly once', async (ctx) => {
    if (embedded) ctx.skip(SKIP)
    for (let round = 0; round < ROUNDS; round++) {
      const { body, supplierId, version } = await newDraft(h, team[0])
      dropLicence = true
      const submitted = await h.call('POST', `${ITEMS}/${supplierId}/submit`, {
        admin: team[0],
        body: submitBodyFrom(body, version),
      })
      dropLicence = false
      expect(submitted.body.data.approvalStatus, JSON.stringify(submitted.body)).toBe(
        'APPLY_FAILED',
      )
      const approvalLogId = submitted.body.data.approvalLogId
      await h.sql`UPDATE supplier SET license_image_url = ${body.licenseImageUrl}
                  WHERE supplier_id = ${supplierId}`
      const retries = await Promise.all(
        team.map(() =>
          h.call('POST', `/internal/supplier/approvals/${approvalLogId}/apply`, {
            admin: null,
            token: null,
            headers: { 'x-internal-token': h.config.internalToken },
          }),
        ),
      )
      for (const r of retries) expect(r.status).toBe(200)
      expect(retries.filter((r) => r.body.data?.approvalStatus === 'APPLIED').length).toBe(
        retries.filter((r) => r.body.code === 200).length,
      )
      const [row] = await h.sql`
        SELECT s.status, s.supplier_no AS "supplierNo", a.status AS approval,
               (SELECT count(*)::int FROM change_log c WHERE c.supplier_id = s.supplier_id
                  AND c.operation_type = 'REGISTRATION_APPLY' AND c.field_name = 'status') AS applies,
               (SELECT count(*)::int FROM domain_event e WHERE e.aggregate_id = s.supplier_id
                  AND e.event_type = 'SupplierActivated') AS activations,
               (SELECT count(*)::int FROM supplier o WHERE o.supplier_no = s.supplier_no) AS holders
        FROM supplier s JOIN approval_log a ON a.supplier_id = s.supplier_id
        WHERE s.supplier_id = ${supplierId}`
      expect(row).toMatchObject({
        status: 'ACTIVE',
        approval: 'APPLIED',
        applies: 1,
        activations: 1,
        holders: 1,
      })
    }
  })
})
