import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { promisify } from 'node:util'
import type postgres from 'postgres'
import { describe, expect, it } from 'vitest'
import { APPROVAL_LOG_SEALED_COLUMNS, CHANGE_LOG_SEALED_COLUMNS } from '../sql/audit-trail'
import { sealLegacyRows, sealUnsealedRows } from '../src/domain/audit/trail'
import { verifyAuditTrail, type Finding } from '../src/domain/audit/verify'
import { ITEMS, ok, register, registerActive, retry } from './client'
import { FIXTURE_ADMIN, insertSupplier } from './fixtures'
import { useHarness } from './harness'
import { insertResource } from './resource-data'

/*
 * The audit trail (docs/audit-trail.md): every change-log and approval-log row the service
 * writes is sealed into its supplier's chain, `npm run audit:verify` reports a whole trail as
 * whole, and each kind of tampering (made with the triggers disabled, as a DBA could) is
 * detected and the row named.
 */

let providerDown = false
const h = useHarness({
  auditTrail: 'tampered',
  env: { DUPLICATE_SUBMIT_WINDOW_SECONDS: '0' },
  approvalProvider: () => ({
    name: 'LOCAL_AUTO',
    submit: async (approval) => {
      if (providerDown) throw new Error('approval platform unreachable')
      return { approvalLogId: approval.approvalLogId, decision: 'APPROVED', schemaVersion: 1 }
    },
  }),
})
const run = promisify(execFile)

const chainOf = (supplierId: string) => `supplier:${supplierId}`

/** `npm run audit:verify` against the test database: its exit status and output. */
async function audit(args: string[] = []) {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ['--import', 'tsx', 'scripts/audit-verify.ts', ...args],
      { env: { ...process.env, NODE_ENV: 'test', DATABASE_URL: h.db.url } },
    )
    return { status: 0, stdout, stderr }
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string }
    return { status: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

/** The first finding of one supplier's chain (the verifier reports one per broken chain). */
async function findingOf(supplierId: string): Promise<Finding | undefined> {
  const report = await verifyAuditTrail(h.sql, h.cipher.audit)
  return report.findings.find((f) => f.chain === chainOf(supplierId))
}

/** Work done as a DBA could: with every trigger of the session disabled. */
const tamper = (work: (tx: postgres.TransactionSql) => Promise<unknown>) =>
  h.sql.begin(async (tx) => {
    await tx`SET LOCAL session_replication_role = replica`
    await work(tx)
  })

interface Place {
  table: 'change_log' | 'approval_log'
  id: string
  seq: string
  hash: string
}

/** A chain's rows in seq order. */
const chainRows = async (supplierId: string) =>
  h.sql<Place[]>`
    SELECT t.table, t.id, t.seq::text AS seq, t.hash FROM (
      SELECT 'change_log' AS table, change_log_id::text AS id, audit_seq AS seq, audit_hash AS hash
      FROM change_log WHERE supplier_id = ${supplierId}
      UNION ALL
      SELECT 'approval_log', approval_log_id::text, audit_seq, audit_hash
      FROM approval_log WHERE supplier_id = ${supplierId}
    ) t
    ORDER BY t.seq`

/**
 * A supplier with a history written through the API: registered (draft, submit, approved,
 * applied) and then suspended, so its chain holds change-log rows and approval rows sealed
 * again as their approvals moved on.
 */
async function history() {
  const { supplierId, version } = await registerActive(h)
  ok(
    await h.call('POST', `${ITEMS}/${supplierId}/status`, {
      body: { targetStatus: 'SUSPENDED', changeReason: '巡检', expectedUpdateTime: version },
    }),
  )
  return supplierId
}

describe('the audit trail', () => {
  it('covers every column of change_log and approval_log but its own', async () => {
    const columns = async (table: string) =>
      (
        await h.sql<{ name: string }[]>`
          SELECT column_name AS name FROM information_schema.columns
          WHERE table_schema = 'public' AND table_name = ${table}
            AND column_name NOT LIKE 'audit\\_%' AND is_generated = 'NEVER'
          ORDER BY ordinal_position`
      ).map((c) => c.name)
    expect([...CHANGE_LOG_SEALED_COLUMNS]).toEqual(await columns('change_log'))
    expect([...APPROVAL_LOG_SEALED_COLUMNS]).toEqual(await columns('approval_log'))
  })

  it('seals every row a registration and a status change write, and verifies them whole', async () => {
    const supplierId = await history()
    const rows = await chainRows(supplierId)
    expect(rows.every((r) => /^[0-9a-f]{64}$/.test(r.hash))).toBe(true)
    expect(new Set(rows.map((r) => r.table))).toEqual(new Set(['change_log', 'approval_log']))
    // Each approval was sealed again when it was decided and when it was applied, leaving the
    // places it held before, which it keeps accounted for.
    const approvals = await h.sql<{ vacated: string }[]>`
      SELECT audit_vacated AS vacated FROM approval_log WHERE supplier_id = ${supplierId}`
    expect(approvals).toHaveLength(2)
    const left = approvals.flatMap((a) => a.vacated.split(',').map((v) => v.split(':')[0]))
    expect(left).toHaveLength(4)
    const [head] = await h.sql`
      SELECT seq::text, hash FROM audit_chain_head WHERE chain = ${chainOf(supplierId)}`
    const places = [...rows.map((r) => r.seq), ...left].map(Number).sort((a, b) => a - b)
    expect(places).toEqual(places.map((_, i) => i + 1))
    expect(head).toEqual({ seq: String(places.length), hash: rows.at(-1)!.hash })

    const report = await verifyAuditTrail(h.sql, h.cipher.audit)
    expect(report.findings).toEqual([])
    expect(report.chains).toBeGreaterThanOrEqual(1)

    const clean = await audit()
    expect(clean, clean.stderr).toMatchObject({ status: 0 })
    expect(clean.stdout).toMatch(
      new RegExp(`checked ${report.rows} row\\(s\\) in ${report.chains} chain\\(s\\)`),
    )
    expect(clean.stdout).toContain('the audit trail is whole')
  })

  it('npm run audit:verify asks a DBA for the database and the audit key only', async () => {
    await history()
    const secrets = [
      'AUTH_JWT_SECRET',
      'DATA_ENCRYPTION_KEYS',
      'BLIND_INDEX_KEY',
      'AUDIT_HMAC_KEY',
      'INTERNAL_TOKEN',
    ]
    const bare = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !secrets.includes(name)),
    )
    const verify = async (env: Record<string, string>) => {
      try {
        const { stdout, stderr } = await run(
          process.execPath,
          ['--import', 'tsx', 'scripts/audit-verify.ts'],
          { env: { ...bare, NODE_ENV: 'production', DATABASE_URL: h.db.url, ...env } },
        )
        return { status: 0, stdout, stderr }
      } catch (err) {
        const e = err as { code: number; stdout: string; stderr: string }
        return { status: e.code, stdout: e.stdout, stderr: e.stderr }
      }
    }
    // Without the audit key: it cannot run, and says so naming that key alone.
    const keyless = await verify({})
    expect(keyless.status, keyless.stderr).toBe(2)
    expect(keyless.stderr).toMatch(/AUDIT_HMAC_KEY/)
    for (const other of secrets.filter((s) => s !== 'AUDIT_HMAC_KEY')) {
      expect(keyless.stderr).not.toContain(other)
    }
    // With an audit key (another one than the trail's, so every chain reads as broken): it runs.
    const ran = await verify({ AUDIT_HMAC_KEY: randomBytes(32).toString('base64') })
    expect(ran.stdout, ran.stderr).toMatch(/checked \d+ row\(s\) in \d+ chain\(s\)/)
    expect(ran.status).toBe(1)
  })

  it('keeps one unbroken chain when writes to one supplier run at once', async () => {
    const { supplierId } = await insertSupplier(h, {
      status: 'ACTIVE',
      supplierNo: `SPA${randomBytes(4).toString('hex')}`,
      types: [{ typeCode: 'HOTEL', isPrimary: true }],
    })
    const resources = await Promise.all(
      Array.from({ length: 12 }, () => insertResource(h, 'HOTEL')),
    )
    const answers = await Promise.all(
      resources.map((resourceId) =>
        h.call('PUT', `/admin/supplier/resource-relations/HOTEL/${resourceId}`, {
          body: { supplierId, requiredTypeCode: 'HOTEL', changeReason: '签约' },
        }),
      ),
    )
    for (const a of answers) ok(a)
    const rows = await chainRows(supplierId)
    expect(rows.length).toBeGreaterThanOrEqual(12)
    expect(rows.map((r) => r.seq)).toEqual(rows.map((_, i) => String(i + 1)))
    expect(await findingOf(supplierId)).toBeUndefined()
  })

  it('refuses to change a sealed change-log row, and lets an unsealed one be sealed only', async () => {
    const supplierId = await history()
    const [row] = await chainRows(supplierId)
    await expect(
      h.sql`UPDATE change_log SET audit_hash = 'x' WHERE change_log_id = ${row.id}`,
    ).rejects.toThrow(/append-only/)
    const [unsealed] = await h.sql`
      INSERT INTO change_log (supplier_id, operation_type, target_type, field_name, operator_id)
      VALUES (${supplierId}, 'PROFILE_UPDATE', 'SUPPLIER', 'shortName', ${FIXTURE_ADMIN})
      RETURNING change_log_id::text AS id`
    await expect(
      h.sql`UPDATE change_log SET audit_hash = 'x', field_name = 'y' WHERE change_log_id = ${unsealed.id}`,
    ).rejects.toThrow(/append-only/)
    await h.sql`UPDATE change_log SET audit_hash = 'x' WHERE change_log_id = ${unsealed.id}`
    await expect(
      h.sql`DELETE FROM audit_chain_head WHERE chain = ${chainOf(supplierId)}`,
    ).rejects.toThrow(/append-only/)
  })
})

describe('npm run audit:verify names the first row that breaks its chain', () => {
  /** The row to tamper with: its place among the chain's rows. */
  const pick = async (supplierId: string, table: Place['table'], index: number) =>
    (await chainRows(supplierId)).filter((r) => r.table === table).at(index)!

  it('an edited change-log value: content, that row', async () => {
    const supplierId = await history()
    const row = await pick(supplierId, 'change_log', 3)
    await tamper(
      (tx) => tx`
      UPDATE change_log SET new_value_masked = 'rewritten' WHERE change_log_id = ${row.id}`,
    )
    expect(await findingOf(supplierId)).toMatchObject({
      kind: 'content',
      table: 'change_log',
      id: row.id,
      seq: row.seq,
    })
  })

  it('an edited approval (its outcome): content, that row', async () => {
    const supplierId = await history()
    const row = await pick(supplierId, 'approval_log', 0)
    await tamper(
      (tx) => tx`
      UPDATE approval_log SET status = 'REJECTED' WHERE approval_log_id = ${row.id}`,
    )
    expect(await findingOf(supplierId)).toMatchObject({
      kind: 'content',
      table: 'approval_log',
      id: row.id,
    })
  })

  it('a deleted row: absence, at its place', async () => {
    const supplierId = await history()
    const row = await pick(supplierId, 'change_log', 2)
    await tamper((tx) => tx`DELETE FROM change_log WHERE change_log_id = ${row.id}`)
    expect(await findingOf(supplierId)).toMatchObject({
      kind: 'absence',
      seq: row.seq,
      id: null,
    })
  })

  it('the deleted last row: absence, at the last place the head names', async () => {
    const supplierId = await history()
    const last = (await chainRows(supplierId)).at(-1)!
    // An approval row accounts for the places it left: the first of them is missing first.
    const vacated: string | null =
      last.table === 'approval_log'
        ? (
            await h.sql`SELECT audit_vacated FROM approval_log WHERE approval_log_id = ${last.id}`
          )[0].audit_vacated
        : null
    const first = vacated ? vacated.split(',')[0].split(':')[0] : last.seq
    await tamper((tx) =>
      last.table === 'change_log'
        ? tx`DELETE FROM change_log WHERE change_log_id = ${last.id}`
        : tx`DELETE FROM approval_log WHERE approval_log_id = ${last.id}`,
    )
    expect(await findingOf(supplierId)).toMatchObject({ kind: 'absence', seq: first, id: null })
  })

  it('two swapped rows: order, naming the row moved forward', async () => {
    const supplierId = await history()
    const rows = (await chainRows(supplierId)).filter((r) => r.table === 'change_log')
    const [a, b] = [rows[1], rows[2]]
    await tamper(async (tx) => {
      await tx`UPDATE change_log SET audit_seq = ${b.seq} WHERE change_log_id = ${a.id}`
      await tx`UPDATE change_log SET audit_seq = ${a.seq} WHERE change_log_id = ${b.id}`
    })
    expect(await findingOf(supplierId)).toMatchObject({
      kind: 'order',
      table: 'change_log',
      id: b.id,
      seq: a.seq,
    })
  })

  it('a row inserted with a forged hash (and the head moved past it): content, that row', async () => {
    const supplierId = await history()
    const chain = chainOf(supplierId)
    let forged = ''
    await tamper(async (tx) => {
      const [head] =
        await tx`SELECT seq + 1 AS seq, hash FROM audit_chain_head WHERE chain = ${chain}`
      const hash = randomBytes(32).toString('hex')
      ;[{ id: forged }] = await tx`
        INSERT INTO change_log (supplier_id, operation_type, target_type, target_id, field_name,
                                new_value_masked, operator_id, audit_chain, audit_seq, audit_prev, audit_hash)
        VALUES (${supplierId}, 'PROFILE_UPDATE', 'SUPPLIER', ${supplierId}, 'bankName', 'Elsewhere Bank',
                ${FIXTURE_ADMIN}, ${chain}, ${head.seq}, ${head.hash}, ${hash})
        RETURNING change_log_id::text AS id`
      await tx`UPDATE audit_chain_head SET seq = ${head.seq}, hash = ${hash} WHERE chain = ${chain}`
    })
    expect(await findingOf(supplierId)).toMatchObject({
      kind: 'content',
      table: 'change_log',
      id: forged,
    })
  })

  it('an approval edited around the service is never sealed over: its next write is refused', async () => {
    providerDown = true
    let registered
    try {
      registered = await register(h)
    } finally {
      providerDown = false
    }
    const approvalLogId = registered.res.body.data.approvalLogId
    expect(registered.res.body.data.approvalStatus).toBe('SUBMITTED')
    await tamper(
      (tx) => tx`
      UPDATE approval_log SET candidate_snapshot = candidate_snapshot || '{"forged": true}'
      WHERE approval_log_id = ${approvalLogId}`,
    )
    const sealed = async () =>
      (
        await h.sql`SELECT audit_seq::text, audit_hash FROM approval_log WHERE approval_log_id = ${approvalLogId}`
      )[0]
    const before = await sealed()
    const res = await retry(h, approvalLogId)
    expect(res.body.success).toBe(false)
    expect(h.logs.join('\n')).toContain(
      `approval_log ${approvalLogId} does not match its audit seal`,
    )
    expect(await sealed()).toEqual(before)
    expect(await findingOf(registered.supplierId)).toMatchObject({
      kind: 'content',
      table: 'approval_log',
      id: approvalLogId,
    })
  })

  it('a row inserted without a seal: unsealed, that row; the start-up seal of earlier rows runs once', async () => {
    const supplierId = await history()
    const insert = async () =>
      (
        await h.sql`
          INSERT INTO change_log (supplier_id, operation_type, target_type, field_name, operator_id)
          VALUES (${supplierId}, 'PROFILE_UPDATE', 'SUPPLIER', 'remark', ${FIXTURE_ADMIN})
          RETURNING change_log_id::text AS id`
      )[0].id as string
    // Written before the audit trail: sealed (appended to its chain) by the next start.
    const early = await insert()
    const unsealed = (await verifyAuditTrail(h.sql, h.cipher.audit)).findings.filter(
      (f) => f.id === early,
    )
    expect(unsealed).toMatchObject([{ kind: 'unsealed', table: 'change_log', id: early }])
    expect(await sealLegacyRows(h.sql, h.cipher.audit)).toBeGreaterThanOrEqual(1)
    expect(await findingOf(supplierId)).toBeUndefined()
    // Any later one stays a finding: starts seal nothing any more.
    const later = await insert()
    expect(await sealLegacyRows(h.sql, h.cipher.audit)).toBe(0)
    const report = await verifyAuditTrail(h.sql, h.cipher.audit)
    expect(report.findings.filter((f) => f.id === later)).toMatchObject([
      { kind: 'unsealed', id: later },
    ])
    const res = await audit()
    expect(res.status).toBe(1)
    expect(res.stderr).toContain(`unsealed: change_log ${later}`)
  })

  it('exits 1 and names each of them, and how much it checked', async () => {
    const res = await audit()
    expect(res.status, res.stderr).toBe(1)
    expect(res.stdout).toMatch(/checked \d+ row\(s\) in \d+ chain\(s\)/)
    for (const kind of ['content', 'absence', 'order', 'unsealed']) {
      expect(res.stderr).toMatch(new RegExp(`^${kind}: `, 'm'))
    }
    expect(res.stderr).toMatch(/the audit trail is broken: \d+ problem\(s\)/)
  })

  it('seals unsealed rows of many chains in one pass, a chain longer than a batch or a statement included', async () => {
    // A chain of 14,000 rows crosses the reader's 2,000-row batches and is more rows than one
    // statement can carry; its rows follow its sealed history, and the short chains around it
    // are sealed in the same pass.
    const long = await history()
    const short = [await history(), await history()]
    const unsealed = async () =>
      (
        await h.sql`
          SELECT (SELECT count(*) FROM change_log WHERE audit_hash IS NULL)
               + (SELECT count(*) FROM approval_log WHERE audit_hash IS NULL) AS n`
      )[0].n as number
    const before = Number(await unsealed())
    for (const [supplierId, rows] of [
      [long, 14000],
      [short[0], 3],
      [short[1], 1],
    ] as const) {
      await h.sql`
        INSERT INTO change_log (supplier_id, operation_type, target_type, field_name, operator_id)
        SELECT ${supplierId}, 'PROFILE_UPDATE', 'SUPPLIER', 'remark-' || n, ${FIXTURE_ADMIN}
        FROM generate_series(1, ${rows}::int) AS n`
    }
    expect(await sealUnsealedRows(h.sql, h.cipher.audit)).toBe(before + 14004)
    expect(Number(await unsealed())).toBe(0)
    for (const supplierId of [long, ...short]) expect(await findingOf(supplierId)).toBeUndefined()
    // The 14,000 rows follow the chain's sealed history in the order they were written, one run.
    const [run] = await h.sql`
      SELECT count(*)::int AS n, (max(audit_seq) - min(audit_seq) + 1)::int AS span,
             bool_and(audit_seq > (SELECT max(s.audit_seq) FROM change_log s
                                   WHERE s.supplier_id = ${long} AND s.field_name NOT LIKE 'remark-%'))
               AS after_history
      FROM change_log WHERE supplier_id = ${long} AND field_name LIKE 'remark-%'`
    expect(run).toEqual({ n: 14000, span: 14000, after_history: true })
  })
})
