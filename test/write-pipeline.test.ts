import { editApproval } from './fixtures'
import { describe, expect, it } from 'vitest'
import { sweepStuckApprovals } from '../src/domain/approval/reconcile'
import { CONSTRAINT_ERRORS } from '../src/domain/write/constraints'
import { ERRORS } from '../src/errors'
import { allSettled, transaction } from '../src/domain/write/transaction'
import type { Sql } from '../sql/db'
import { useHarness, type Harness } from './harness'
import { ITEMS, newDraft, submit, submitBodyFrom } from './client'
import { draftBody, uniqueName } from './supplier-data'
import { unchanged } from './unchanged'

/*
 * The one write pipeline: the Idempotency-Key record commits with the write it answers, a
 * committed write never answers a failure, constraint violations map to the catalog, and the
 * service reconciles approvals left between a command's two transactions.
 */

let providerDown = false

const h: Harness = useHarness({
  env: { DUPLICATE_SUBMIT_WINDOW_SECONDS: '0' },
  approvalProvider: () => ({
    name: 'LOCAL_AUTO',
    submit: async (approval) => {
      if (providerDown) throw new Error('approval platform unreachable')
      return { approvalLogId: approval.approvalLogId, decision: 'APPROVED', schemaVersion: 1 }
    },
  }),
})

const count = async (table: string) =>
  (await h.sql`SELECT count(*)::int AS n FROM ${h.sql(table)}`)[0].n as number

const statusOf = async (supplierId: string) =>
  (await h.sql`SELECT status FROM supplier WHERE supplier_id = ${supplierId}`)[0].status

const approvalStatus = async (approvalLogId: string) =>
  (await h.sql`SELECT status FROM approval_log WHERE approval_log_id = ${approvalLogId}`)[0].status

describe('Idempotency-Key: the kept answer commits with the write', () => {
  it('a failure while keeping the answer writes nothing; the retry with the key runs and then replays', async () => {
    const admin = await h.admin()
    const key = `create-${Date.now()}`
    const body = draftBody()
    // Keeping the answer fails (as a full disk or a lost connection would, at that very step).
    await h.sql.unsafe(`
      CREATE FUNCTION refuse_keep() RETURNS trigger LANGUAGE plpgsql AS
        $$ BEGIN IF NEW.status = 'DONE' THEN RAISE EXCEPTION 'cannot keep the answer'; END IF; RETURN NEW; END $$;
      CREATE TRIGGER refuse_keep BEFORE UPDATE ON idempotency_record
        FOR EACH ROW EXECUTE FUNCTION refuse_keep();
    `)
    try {
      // Not committed, so nothing to learn: no draft, no log, no event, no key held.
      const failed = await unchanged(h, () =>
        h.call('POST', ITEMS, {
          admin,
          body,
          headers: { 'idempotency-key': key },
        }),
      )
      expect(failed.body).toMatchObject({ success: false })
    } finally {
      await h.sql.unsafe(
        `DROP TRIGGER refuse_keep ON idempotency_record; DROP FUNCTION refuse_keep();`,
      )
    }

    const created = await h.call('POST', ITEMS, {
      admin,
      body,
      headers: { 'idempotency-key': key },
    })
    expect(created.body, JSON.stringify(created.body)).toMatchObject({ code: 200 })
    const { supplierId } = created.body.data
    const replayed = await h.call('POST', ITEMS, {
      admin,
      body,
      headers: { 'idempotency-key': key },
    })
    expect(replayed.body).toEqual(created.body)
    const [{ n }] = await h.sql`
      SELECT count(*)::int AS n FROM supplier WHERE full_name = ${body.fullName}`
    expect(n).toBe(1)
    const [kept] = await h.sql`
      SELECT status, response->>'supplierId' AS "supplierId" FROM idempotency_record
      WHERE admin_id = ${admin} AND idempotency_key = ${key}`
    expect(kept).toEqual({ status: 'DONE', supplierId })
  })

  it('a replayed submit reports the approval as it is now, not as it was kept', async () => {
    const admin = await h.admin()
    const { body, data } = await newDraft(h, admin)
    const key = `submit-${Date.now()}`
    const request = { ...body, expectedUpdateTime: data.updateTime }
    const headers = { 'idempotency-key': key }
    providerDown = true
    const first = await h.call('POST', `${ITEMS}/${data.supplierId}/submit`, {
      admin,
      body: request,
      headers,
    })
    providerDown = false
    expect(first.body.data).toMatchObject({ approvalStatus: 'SUBMITTED', businessApplied: false })
    await sweepStuckApprovals(h.deps, { olderThanSeconds: 0 })
    const approvals = await count('approval_log')
    const replayed = await h.call('POST', `${ITEMS}/${data.supplierId}/submit`, {
      admin,
      body: request,
      headers,
    })
    expect(replayed.body.data).toMatchObject({
      approvalLogId: first.body.data.approvalLogId,
      approvalStatus: 'APPLIED',
      businessApplied: true,
    })
    expect(await count('approval_log')).toBe(approvals)
    expect(await statusOf(data.supplierId)).toBe('ACTIVE')
  })
})

describe('a committed write never answers a failure', () => {
  it('the provider failing after commit answers success with the recorded state, and pending', async () => {
    const admin = await h.admin()
    const { body, data } = await newDraft(h, admin)
    providerDown = true
    const res = await submit(h, data.supplierId, submitBodyFrom(body, data.updateTime), { admin })
    providerDown = false
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({
      code: 200,
      success: true,
      data: { approvalStatus: 'SUBMITTED', businessApplied: false, finishedAt: null },
    })
    expect(await statusOf(data.supplierId)).toBe('VETTING')
  })
})

describe('the stuck-approval sweep', () => {
  it('applies approvals left SUBMITTED or APPROVED, older than the configured age, once', async () => {
    const admin = await h.admin()
    const a = await newDraft(h, admin)
    const b = await newDraft(h, admin)
    providerDown = true
    const submittedA = await submit(
      h,
      a.data.supplierId,
      submitBodyFrom(a.body, a.data.updateTime),
      { admin },
    )
    const submittedB = await submit(
      h,
      b.data.supplierId,
      submitBodyFrom(b.body, b.data.updateTime),
      { admin },
    )
    providerDown = false
    const idA = submittedA.body.data.approvalLogId
    const idB = submittedB.body.data.approvalLogId
    // B was decided but its application never ran (the process died between the two).
    await editApproval(
      h,
      idB,
      (tx) =>
        tx`UPDATE approval_log SET status = 'APPROVED', finished_at = now() WHERE approval_log_id = ${idB}`,
    )

    const deps = h.deps
    // Younger than the age: left alone.
    const early = await sweepStuckApprovals(deps, { olderThanSeconds: 3600 })
    expect(early).toMatchObject({ ran: true, applied: 0 })
    expect(await approvalStatus(idA)).toBe('SUBMITTED')

    const swept = await sweepStuckApprovals(deps, { olderThanSeconds: 0 })
    expect(swept.ran).toBe(true)
    expect(swept.applied).toBeGreaterThanOrEqual(2)
    expect(await approvalStatus(idA)).toBe('APPLIED')
    expect(await approvalStatus(idB)).toBe('APPLIED')
    expect(await statusOf(a.data.supplierId)).toBe('ACTIVE')
    expect(await statusOf(b.data.supplierId)).toBe('ACTIVE')

    // A second sweep finds nothing and changes nothing.
    const again = await unchanged(h, () => sweepStuckApprovals(deps, { olderThanSeconds: 0 }))
    expect(again.examined).toBe(0)
  })

  it('one replica at a time: while another holds the sweep lease, a sweep does nothing; an expired lease is taken over', async () => {
    const admin = await h.admin()
    const { body, data } = await newDraft(h, admin)
    providerDown = true
    const res = await submit(h, data.supplierId, submitBodyFrom(body, data.updateTime), { admin })
    providerDown = false
    const approvalLogId = res.body.data.approvalLogId
    // Another replica's lease, running for another minute.
    await h.sql`
      INSERT INTO job_lease (job, holder, expires_at)
      VALUES ('approval-sweep', 'another replica', now() + interval '1 minute')
      ON CONFLICT (job) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at`
    const blocked = await sweepStuckApprovals(h.deps, { olderThanSeconds: 0 })
    expect(blocked).toMatchObject({ ran: false, examined: 0 })
    expect(await approvalStatus(approvalLogId)).toBe('SUBMITTED')
    expect(await h.sql`SELECT holder FROM job_lease WHERE job = 'approval-sweep'`).toEqual([
      { holder: 'another replica' },
    ])

    // That replica died: once its lease has run out, this one sweeps, and lets go after.
    await h.sql`UPDATE job_lease SET expires_at = now() - interval '1 second'`
    const ran = await sweepStuckApprovals(h.deps, { olderThanSeconds: 0 })
    expect(ran.ran).toBe(true)
    expect(await approvalStatus(approvalLogId)).toBe('APPLIED')
    const [lease] = await h.sql`
      SELECT holder <> 'another replica' AS "taken", expires_at <= now() AS "released"
      FROM job_lease WHERE job = 'approval-sweep'`
    expect(lease).toEqual({ taken: true, released: true })
  })
})

describe('withdrawing an approval', () => {
  it('only an APPLY_FAILED approval can be withdrawn, with supplier:approval:submit', async () => {
    const admin = await h.admin()
    const { body, data } = await newDraft(h, admin)
    const res = await submit(h, data.supplierId, submitBodyFrom(body, data.updateTime), { admin })
    const id = res.body.data.approvalLogId
    expect(res.body.data.approvalStatus).toBe('APPLIED')
    const viewer = await h.admin(['supplier:view'])
    await unchanged(h, async () => {
      const applied = await h.call('POST', `/admin/supplier/approvals/${id}/withdraw`, { admin })
      expect(applied.body).toMatchObject({ code: ERRORS.OPERATION_NOT_ALLOWED_IN_STATUS.code })
      const unknown = await h.call('POST', `/admin/supplier/approvals/9007199254000777/withdraw`, {
        admin,
      })
      expect(unknown.body).toMatchObject({ code: ERRORS.APPROVAL_NOT_FOUND.code })
      const denied = await h.call('POST', `/admin/supplier/approvals/${id}/withdraw`, {
        admin: viewer,
      })
      expect(denied.body).toMatchObject({ code: ERRORS.PERMISSION_DENIED.code })
    })
  })
})

describe('constraint violations map to the catalog', () => {
  it('every unique index and check constraint of a table the service writes has an entry', async () => {
    const written = [
      'supplier',
      'supplier_type',
      'supplier_contact',
      'supplier_qualification',
      'supplier_contract',
      'supplier_evaluation',
      'supplier_bank_account',
      'qualification_rule',
      'supplier_resource_relation',
      'approval_log',
      'change_log',
      'domain_event',
      'idempotency_record',
      'submit_guard',
    ]
    const rows = await h.sql<{ name: string }[]>`
      SELECT c.conname AS name FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
      WHERE t.relname = ANY(${written}) AND c.contype IN ('c', 'u', 'x')
      UNION
      SELECT i.relname FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
      JOIN pg_class t ON t.oid = x.indrelid
      WHERE t.relname = ANY(${written}) AND x.indisunique AND NOT x.indisprimary
    `
    const missing = rows.map((r) => r.name).filter((n) => !(n in CONSTRAINT_ERRORS))
    expect(missing).toEqual([])
  })

  it('a race past the pre-check answers the catalog code, never a 500', async () => {
    const admin = await h.admin()
    const body = draftBody()
    // Two drafts with one tax number at once: the pre-check passes for both, the unique index
    // decides, and the loser answers C-02. B's name is far from A's: a name like A's would let a
    // loser that starts after A commits answer "similar suppliers exist" (395006), which is
    // right, but is not the race this test is about.
    const answers = await Promise.all([
      h.call('POST', ITEMS, { admin, body }),
      h.call('POST', ITEMS, { admin, body: { ...body, fullName: uniqueName('Other') } }),
    ])
    const codes = answers.map((a) => a.body.code).sort()
    expect(codes).toContain(200)
    for (const a of answers) expect(a.status).toBe(200)
    expect(
      codes.every((c) => c === 200 || c === ERRORS.TAX_NO_DUPLICATE.code),
      JSON.stringify(answers.map((a) => a.body)),
    ).toBe(true)
  })
})

describe('parts of one transaction sent together', () => {
  it('a part that fails first ends the transaction only once the others have settled', async () => {
    await h.sql`CREATE TABLE parallel_part (n int)`
    const deps = { sql: h.sql, logger: { warn: () => {} } }
    // A part whose statement goes out after a pause (as one after an encryption would), beside
    // one that fails at once: its statement must run inside the transaction, never after it.
    const late = async (tx: Sql) => {
      await new Promise((resolve) => setTimeout(resolve, 50))
      await tx`INSERT INTO parallel_part VALUES (1)`
    }
    const refused = async () => {
      throw new Error('part refused')
    }
    await expect(
      transaction(deps, { requestId: 'parallel' }, (tx) => allSettled([late(tx), refused()])),
    ).rejects.toThrow('part refused')
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(await count('parallel_part')).toBe(0)
  })
})
