import { describe, expect, it } from 'vitest'
import { AppError } from '../src/errors'
import { moveBy, moveTo, TRANSITIONS, type MoveCommand } from '../src/domain/lifecycle/transitions'
import { applyMove, claimVersion } from '../src/domain/lifecycle/move'
import {
  APPROVAL_FINAL,
  APPROVAL_IN_FLIGHT,
  APPROVAL_STATUSES,
  APPROVAL_TRANSITIONS,
  approvalSources,
  SUPPLIER_STATUSES,
  type SupplierStatus,
} from '../src/vocabulary'
import { insertSupplier, tag } from './fixtures'
import { useHarness } from './harness'
import { unchanged } from './unchanged'

/*
 * The transition table against a real database, move by move: every declared move succeeds from
 * its source state through the one guarded UPDATE; every pair of states the table does not
 * declare answers 395005 and changes nothing; the guard compares the caller's version, so it can
 * miss.
 */

const h = useHarness()
const ADMIN = '9007199254740999'
const COMMANDS: MoveCommand[] = ['REGISTRATION', 'APPLIER', 'STATUS', 'ARCHIVE']

/** A supplier in `status` that satisfies every guard (licence, unique tax number, no rules). */
async function supplierIn(status: SupplierStatus) {
  const numbered = !['DRAFT', 'VETTING'].includes(status)
  const s = await insertSupplier(h, {
    status,
    supplierNo: numbered ? `SPT${tag()}` : null,
    licenseImageUrl: 'https://storage.example.com/supplier/license.png',
    types: [{ typeCode: 'OTHER', isPrimary: true }],
    updateTime: '2026-01-01 10:00:00',
  })
  return s.supplierId
}

const statusOf = async (supplierId: string) => {
  const [row] = await h.sql`
    SELECT status, to_char(update_time, 'YYYY-MM-DD HH24:MI:SS') AS "updateTime", updated_by::text AS "updatedBy"
    FROM supplier WHERE supplier_id = ${supplierId}`
  return row as { status: string; updateTime: string; updatedBy: string }
}

const codeOf = async (work: () => Promise<unknown>) => {
  try {
    await work()
    return 200
  } catch (err) {
    if (err instanceof AppError) return err.code
    throw err
  }
}

describe('the transition table', () => {
  it('declares each (from, to) pair once, no self-loop, nothing out of ARCHIVED', () => {
    const pairs = TRANSITIONS.map((t) => `${t.from}>${t.to}`)
    expect(new Set(pairs).size).toBe(pairs.length)
    expect(TRANSITIONS.filter((t) => t.from === t.to)).toEqual([])
    expect(TRANSITIONS.filter((t) => (t.from as SupplierStatus) === 'ARCHIVED')).toEqual([])
  })

  it('chooses the STATUS_CHANGE subType from the target and the spec level counts', () => {
    const status = TRANSITIONS.filter((t) => t.command === 'STATUS').map((t) => [
      t.from,
      t.to,
      t.approval.subType,
      t.approval.levels,
    ])
    expect(status).toEqual([
      ['ACTIVE', 'SUSPENDED', 'STATUS_SUSPEND', 1],
      ['ACTIVE', 'FROZEN', 'STATUS_FREEZE', 1],
      ['ACTIVE', 'BLACKLIST', 'STATUS_BLACKLIST', 1],
      ['SUSPENDED', 'ACTIVE', 'STATUS_RESUME', 1],
      ['SUSPENDED', 'BLACKLIST', 'STATUS_BLACKLIST', 1],
      ['FROZEN', 'ACTIVE', 'STATUS_UNFREEZE', 1],
      ['FROZEN', 'BLACKLIST', 'STATUS_BLACKLIST', 1],
      ['BLACKLIST', 'SUSPENDED', 'STATUS_UNBLACKLIST', 2],
    ])
    expect(moveBy('DRAFT', 'SUBMIT_REGISTRATION').approval).toEqual({
      bizType: 'PROFILE_CREATE',
      subType: null,
      levels: 4,
    })
  })

  for (const move of TRANSITIONS) {
    it(`happy: ${move.from} → ${move.to} (${move.trigger}) moves with the caller's version`, async () => {
      const supplierId = await supplierIn(move.from)
      const moved = await h.sql.begin((tx) =>
        applyMove(tx, h.deps, {
          supplier: { supplierId, status: move.from, expectedUpdateTime: '2026-01-01 10:00:00' },
          move,
          adminId: ADMIN,
          evidence: { clearance: { cleared: true } },
        }),
      )
      expect(moved.from).toBe(move.from)
      expect(moved.to).toBe(move.to)
      const after = await statusOf(supplierId)
      expect(after).toEqual({ status: move.to, updateTime: moved.updateTime, updatedBy: ADMIN })
      expect(after.updateTime > '2026-01-01 10:00:00').toBe(true)
    })
  }

  const declared = new Set(TRANSITIONS.map((t) => `${t.from}>${t.to}`))
  const undeclared = SUPPLIER_STATUSES.flatMap((from) =>
    SUPPLIER_STATUSES.filter((to) => !declared.has(`${from}>${to}`)).map((to) => [from, to]),
  )

  it(`error: each of the ${undeclared.length} undeclared pairs answers 395005 for every command and changes nothing`, async () => {
    expect(undeclared.length).toBe(49 - TRANSITIONS.length)
    for (const [from, to] of undeclared) {
      const supplierId = await supplierIn(from)
      await unchanged(h, async () => {
        for (const command of COMMANDS) {
          const code = await codeOf(() =>
            h.sql.begin(async (tx) => {
              const move = moveTo(from, to, command)
              await applyMove(tx, h.deps, {
                supplier: { supplierId, status: from, expectedUpdateTime: '2026-01-01 10:00:00' },
                move,
                adminId: ADMIN,
                evidence: { clearance: { cleared: true } },
              })
            }),
          )
          expect(code, `${from} → ${to} by ${command}`).toBe(395005)
        }
      })
    }
  })

  it('error: a declared move asked by another command is not declared for it (395005)', () => {
    expect(() => moveTo('SUSPENDED', 'ARCHIVED', 'STATUS')).toThrow(AppError)
    expect(() => moveTo('VETTING', 'ACTIVE', 'STATUS')).toThrow(AppError)
    expect(() => moveTo('ACTIVE', 'SUSPENDED', 'ARCHIVE')).toThrow(AppError)
  })

  it('error: a move applied to a supplier in another status answers 395005, nothing changes', async () => {
    const supplierId = await supplierIn('FROZEN')
    const code = await unchanged(h, () =>
      codeOf(() =>
        h.sql.begin((tx) =>
          applyMove(tx, h.deps, {
            supplier: { supplierId, status: 'FROZEN', expectedUpdateTime: '2026-01-01 10:00:00' },
            move: moveBy('SUSPENDED', 'ARCHIVE'),
            adminId: ADMIN,
            evidence: { clearance: { cleared: true } },
          }),
        ),
      ),
    )
    expect(code).toBe(395005)
  })

  it("error: the guard compares the caller's version: a stale one misses (395014), nothing changes", async () => {
    const supplierId = await supplierIn('ACTIVE')
    const code = await unchanged(h, () =>
      codeOf(() =>
        h.sql.begin((tx) =>
          applyMove(tx, h.deps, {
            supplier: { supplierId, status: 'ACTIVE', expectedUpdateTime: '2026-01-01 09:59:59' },
            move: moveBy('ACTIVE', 'SUSPEND'),
            adminId: ADMIN,
          }),
        ),
      ),
    )
    expect(code).toBe(395014)
  })

  it('error: a soft-deleted supplier is never moved (395014)', async () => {
    const s = await insertSupplier(h, { status: 'DRAFT', deletedAt: 'now' })
    const code = await codeOf(() =>
      h.sql.begin(async (tx) => {
        const [row] = await tx`
          SELECT to_char(update_time, 'YYYY-MM-DD HH24:MI:SS') AS v FROM supplier WHERE supplier_id = ${s.supplierId}`
        await applyMove(tx, h.deps, {
          supplier: { supplierId: s.supplierId, status: 'DRAFT', expectedUpdateTime: row.v },
          move: moveBy('DRAFT', 'SUBMIT_REGISTRATION'),
          adminId: ADMIN,
        })
      }),
    )
    expect(code).toBe(395014)
  })

  it('error: resume and unfreeze are refused while a required qualification is expired or missing (395008), rolled back', async () => {
    const type = `T_${tag().toUpperCase()}`
    await h.sql`
      INSERT INTO qualification_rule (type_code, qual_type, is_required, warning_days, sort_order)
      VALUES (${type}, 'PERMIT_A', true, 30, 1), (${type}, 'PERMIT_B', true, 30, 2)`
    for (const [from, trigger] of [
      ['SUSPENDED', 'RESUME'],
      ['FROZEN', 'UNFREEZE'],
    ] as const) {
      const s = await insertSupplier(h, {
        status: from,
        supplierNo: `SPT${tag()}`,
        types: [{ typeCode: type, isPrimary: true }],
        qualifications: [{ qualType: 'PERMIT_A', expiryDate: '2020-01-01' }],
        updateTime: '2026-01-01 10:00:00',
      })
      let error: AppError | undefined
      await unchanged(h, () =>
        h.sql
          .begin((tx) =>
            applyMove(tx, h.deps, {
              supplier: {
                supplierId: s.supplierId,
                status: from,
                expectedUpdateTime: '2026-01-01 10:00:00',
              },
              move: moveBy(from, trigger),
              adminId: ADMIN,
            }),
          )
          .catch((err) => (error = err)),
      )
      expect(error?.code).toBe(395008)
      expect(error?.data).toEqual({
        missing: [
          { typeCode: type, qualType: 'PERMIT_A', state: 'EXPIRED' },
          { typeCode: type, qualType: 'PERMIT_B', state: 'MISSING' },
        ],
      })
    }
  })

  it('error: archive without a confirmed clearance is refused (395032), rolled back', async () => {
    const supplierId = await supplierIn('SUSPENDED')
    const code = await unchanged(h, () =>
      codeOf(() =>
        h.sql.begin((tx) =>
          applyMove(tx, h.deps, {
            supplier: {
              supplierId,
              status: 'SUSPENDED',
              expectedUpdateTime: '2026-01-01 10:00:00',
            },
            move: moveBy('SUSPENDED', 'ARCHIVE'),
            adminId: ADMIN,
          }),
        ),
      ),
    )
    expect(code).toBe(395032)
  })

  it('concurrency: two claims on the same version, exactly one wins (the other 395014)', async () => {
    const supplierId = await supplierIn('ACTIVE')
    const claim = () =>
      codeOf(() =>
        h.sql.begin((tx) =>
          claimVersion(
            tx,
            { supplierId, status: 'ACTIVE', expectedUpdateTime: '2026-01-01 10:00:00' },
            ADMIN,
          ),
        ),
      )
    const codes = await Promise.all([claim(), claim()])
    expect(codes.sort()).toEqual([200, 395014])
    expect((await statusOf(supplierId)).status).toBe('ACTIVE')
  })
})

describe('the approval statuses table', () => {
  it('declares the moves of rule 9 and what the SQL relies on', async () => {
    expect(APPROVAL_FINAL).toEqual(['REJECTED', 'APPLIED', 'WITHDRAWN'])
    expect(approvalSources('APPLY')).toEqual(['APPROVED', 'APPLY_FAILED'])
    // sql/approval.ts stuckApprovals and the partial index approval_log_pending spell this out.
    expect(APPROVAL_IN_FLIGHT).toEqual(['SUBMITTED', 'APPROVED'])
    expect(APPROVAL_TRANSITIONS.every((t) => APPROVAL_STATUSES.includes(t.to))).toBe(true)
    // The table's statuses are exactly the ones the database accepts.
    const [row] = await h.sql`
      SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conname = 'approval_log_status_check'`
    for (const s of APPROVAL_STATUSES) expect(row.def).toContain(`'${s}'`)
    expect(row.def.match(/'[A-Z_]+'/g)).toHaveLength(APPROVAL_STATUSES.length)
  })
})
