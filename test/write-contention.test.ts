import { describe, expect, inject, it } from 'vitest'
import { localAutoProvider } from '../src/ports/approval-provider'
import { ERRORS } from '../src/errors'
import { accountBody, registeredSupplier } from './account-data'
import { ITEMS, ok } from './client'
import { insertAccount, insertSupplier, randomAccountNo, randomPhone, tag } from './fixtures'
import { useHarness, type Answer, type Harness } from './harness'
import { insertResource } from './resource-data'

/*
 * Every write kind of the API fired at one supplier at once, from many administrators, for
 * several rounds: no answer is a fault, each is a success or a documented refusal, and the
 * database afterwards holds exactly what the successes wrote (one default account, a change log
 * and events for each success and for nothing else, every approval settled by its own request).
 * The embedded engine serves one connection, so nothing there runs concurrently: PostgreSQL only.
 */

const embedded = inject('database').kind === 'embedded'
const SKIP = 'contention needs concurrent sessions: the embedded engine serves one connection'
const CLIENTS = Number(process.env.CONTENTION_CLIENTS ?? 16)
const ROUNDS = Number(process.env.CONTENTION_ROUNDS ?? 5)
const SEED = Number(process.env.CONTENTION_SEED ?? Math.floor(Math.random() * 2 ** 31))

/** mulberry32: the same seed gives the same rounds. */
function random(seed: number) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** The refusals a concurrent client may be given: each means "not now" or "not any more". */
const REFUSALS = new Set<number>(
  [
    ERRORS.VERSION_STALE,
    ERRORS.CONCURRENT_MODIFICATION,
    ERRORS.OPERATION_NOT_ALLOWED_IN_STATUS,
    ERRORS.NO_ACTUAL_CHANGE,
    ERRORS.RELATION_CONFLICT,
    ERRORS.RELATION_NOT_FOUND,
    ERRORS.SUPPLIER_NOT_ELIGIBLE,
  ].map((e) => e.code),
)

const KINDS = [
  'profile',
  'contactsMerge',
  'qualifications',
  'contactsReplace',
  'accountBatch',
  'accountChange',
  'defaultSwitch',
  'status',
  'bind',
  'rebind',
  'unbind',
  'withdraw',
  'reapply',
] as const
type Kind = (typeof KINDS)[number]

/** What one round's writes aim at, read before they start. */
interface Round {
  version: string
  accounts: { accountId: string; version: string; isDefault: string }[]
  rebind: { url: string; from: string; version: string }
  unbind: { url: string; version: string }
  withdraw: string
  reapply: string
}

describe('every write kind at one supplier from many clients (PostgreSQL)', () => {
  // While set, a status approval is spoiled before it is decided (a write behind the service's
  // back moves the version), so that it fails to apply: the rounds' withdraw and re-apply targets.
  let spoiling = false
  const h = useHarness({
    approvalProvider: (hh) => ({
      ...localAutoProvider,
      submit: async (approval) => {
        if (spoiling && approval.bizType === 'STATUS_CHANGE') {
          await hh.sql`UPDATE supplier SET update_time = update_time + interval '1 second'
                       WHERE supplier_id = ${approval.supplierId}`
        }
        return localAutoProvider.submit(approval)
      },
    }),
  })

  /** Every answer of the file, setup included: their request ids are the writes that may log. */
  const answers: Answer[] = []
  const call = async (...args: Parameters<Harness['call']>) => {
    const answer = await h.call(...args)
    answers.push(answer)
    return answer
  }

  const version = async (table: 'supplier' | 'account', id: string) => {
    const [row] =
      table === 'supplier'
        ? await h.sql`SELECT to_char(update_time, 'YYYY-MM-DD HH24:MI:SS') AS v
                      FROM supplier WHERE supplier_id = ${id}`
        : await h.sql`SELECT to_char(update_time, 'YYYY-MM-DD HH24:MI:SS') AS v
                      FROM supplier_bank_account WHERE account_id = ${id}`
    return row.v as string
  }

  /** An APPLY_FAILED status approval of the supplier, made through the API. */
  async function failedStatusApproval(admin: string, supplierId: string) {
    spoiling = true
    try {
      const answer = ok(
        await call('POST', `${ITEMS}/${supplierId}/status`, {
          admin,
          body: {
            targetStatus: 'SUSPENDED',
            changeReason: '准备',
            expectedUpdateTime: await version('supplier', supplierId),
          },
        }),
      )
      expect(answer.approvalStatus).toBe('APPLY_FAILED')
      return answer.approvalLogId as string
    } finally {
      spoiling = false
    }
  }

  /** A HOTEL resource bound to `supplierId` through the API, and its relation's version. */
  async function bound(admin: string, supplierId: string) {
    const url = `/admin/supplier/resource-relations/HOTEL/${await insertResource(h, 'HOTEL')}`
    const relation = ok(
      await call('PUT', url, { admin, body: { supplierId, changeReason: '签约' } }),
    )
    return { url, version: relation.updateTime as string }
  }

  /** Sets the supplier up for the next round: ACTIVE, with targets for every kind. */
  async function prepare(admin: string, supplierId: string, other: string): Promise<Round> {
    const [s] = await h.sql`SELECT status FROM supplier WHERE supplier_id = ${supplierId}`
    if (s.status !== 'ACTIVE') {
      ok(
        await call('POST', `${ITEMS}/${supplierId}/status`, {
          admin,
          body: {
            targetStatus: 'ACTIVE',
            changeReason: '恢复',
            expectedUpdateTime: await version('supplier', supplierId),
          },
        }),
      )
    }
    const withdraw = await failedStatusApproval(admin, supplierId)
    const reapply = await failedStatusApproval(admin, supplierId)
    const rebind = await bound(admin, other)
    const unbind = await bound(admin, supplierId)
    const accounts = await h.sql<{ accountId: string; version: string; isDefault: string }[]>`
      SELECT account_id::text AS "accountId", is_default AS "isDefault",
             to_char(update_time, 'YYYY-MM-DD HH24:MI:SS') AS version
      FROM supplier_bank_account
      WHERE supplier_id = ${supplierId} AND status = 'ACTIVE' AND deleted_at IS NULL
      ORDER BY account_id`
    return {
      version: await version('supplier', supplierId),
      accounts: [...accounts],
      rebind: { ...rebind, from: other },
      unbind,
      withdraw,
      reapply,
    }
  }

  function request(kind: Kind, supplierId: string, r: Round, pick: () => number) {
    const account = r.accounts[Math.floor(pick() * r.accounts.length)]
    const notDefault = r.accounts.filter((a) => a.isDefault === 'NO')
    const other = notDefault[Math.floor(pick() * notDefault.length)] ?? account
    const item = `${ITEMS}/${supplierId}`
    const reason = `${kind} ${tag()}`
    switch (kind) {
      case 'profile':
        return {
          method: 'PUT',
          url: item,
          body: { shortName: `湖畔${tag()}`, changeReason: reason, expectedUpdateTime: r.version },
        }
      case 'contactsMerge':
        return {
          method: 'PUT',
          url: item,
          body: {
            contacts: [{ contactName: '李四', contactPhone: randomPhone() }],
            changeReason: reason,
            expectedUpdateTime: r.version,
          },
        }
      case 'qualifications':
        return {
          method: 'PUT',
          url: item,
          body: {
            qualifications: [
              { qualType: `PERMIT_${tag()}`, certNo: `JY${tag()}`, expiryDate: '2099-12-31' },
            ],
            changeReason: reason,
            expectedUpdateTime: r.version,
          },
        }
      case 'contactsReplace':
        return {
          method: 'PUT',
          url: `${item}/contacts`,
          body: {
            contacts: [{ contactName: '王五', contactPhone: randomPhone() }],
            changeReason: reason,
            expectedUpdateTime: r.version,
          },
        }
      case 'accountBatch':
        return {
          method: 'POST',
          url: `${item}/accounts/batch`,
          body: { accounts: [accountBody(), accountBody()] },
        }
      case 'accountChange':
        return {
          method: 'POST',
          url: `${item}/accounts/${account.accountId}/change`,
          body: {
            bankName: `杭州银行${tag()}`,
            accountNo: randomAccountNo(),
            changeReason: reason,
            expectedUpdateTime: account.version,
          },
        }
      case 'defaultSwitch':
        return {
          method: 'PUT',
          url: `${item}/accounts/${other.accountId}/default`,
          body: { expectedUpdateTime: other.version },
        }
      case 'status':
        return {
          method: 'POST',
          url: `${item}/status`,
          body: { targetStatus: 'SUSPENDED', changeReason: reason, expectedUpdateTime: r.version },
        }
      case 'bind':
        return { method: 'PUT', url: '', body: { supplierId, changeReason: reason } }
      case 'rebind':
        return {
          method: 'PUT',
          url: r.rebind.url,
          body: {
            supplierId,
            expectedCurrentSupplierId: r.rebind.from,
            expectedRelationUpdateTime: r.rebind.version,
            changeReason: reason,
          },
        }
      case 'unbind':
        return {
          method: 'POST',
          url: `${r.unbind.url}/unbind`,
          body: {
            expectedCurrentSupplierId: supplierId,
            expectedRelationUpdateTime: r.unbind.version,
            changeReason: reason,
          },
        }
      case 'withdraw':
        return { method: 'POST', url: `/admin/supplier/approvals/${r.withdraw}/withdraw` }
      case 'reapply':
        return { method: 'POST', url: `/internal/supplier/approvals/${r.reapply}/apply` }
    }
  }

  async function send(kind: Kind, admin: string, req: ReturnType<typeof request>) {
    if (kind === 'bind') {
      req.url = `/admin/supplier/resource-relations/HOTEL/${await insertResource(h, 'HOTEL')}`
    }
    if (kind === 'reapply') {
      return call(req.method, req.url, {
        admin: null,
        token: null,
        headers: { 'x-internal-token': h.config.internalToken },
      })
    }
    return call(req.method, req.url, { admin, body: 'body' in req ? req.body : undefined })
  }

  it('answers every write with a success or a refusal and leaves what the successes wrote', async (ctx) => {
    if (embedded) ctx.skip(SKIP)
    process.stdout.write(
      `write contention: seed ${SEED}, ${CLIENTS} clients, ${ROUNDS} rounds ` +
        '(CONTENTION_SEED, CONTENTION_CLIENTS, CONTENTION_ROUNDS repeat it)\n',
    )
    const pick = random(SEED)
    const admins = await Promise.all(Array.from({ length: CLIENTS }, () => h.admin()))
    const { supplierId } = await registeredSupplier(h, {
      types: [{ typeCode: 'HOTEL', isPrimary: true }],
    })
    await insertAccount(h, supplierId, { isDefault: 'YES' })
    await insertAccount(h, supplierId)
    await insertAccount(h, supplierId)
    const other = (
      await insertSupplier(h, {
        status: 'ACTIVE',
        supplierNo: `SPO${tag()}`,
        types: [{ typeCode: 'HOTEL', isPrimary: true }],
      })
    ).supplierId
    const all: { kind: Kind; answer: Answer }[] = []
    const faults: string[] = []
    for (let round = 0; round < ROUNDS; round++) {
      const r = await prepare(admins[0], supplierId, other)
      // Every kind at least once a round, the rest drawn at random.
      const kinds: Kind[] = [...KINDS]
      while (kinds.length < CLIENTS) kinds.push(KINDS[Math.floor(pick() * KINDS.length)])
      const requests = kinds.map((kind) => ({ kind, req: request(kind, supplierId, r, pick) }))
      const burst = await Promise.all(
        requests.map(({ kind, req }, i) => send(kind, admins[i % CLIENTS], req)),
      )
      burst.forEach((answer, i) => {
        const { kind } = requests[i]
        all.push({ kind, answer })
        const { status, body } = answer
        if (status !== 200 || (body.code !== 200 && !REFUSALS.has(body.code))) {
          faults.push(`round ${round} ${kind}: HTTP ${status} ${JSON.stringify(body)}`)
        }
      })
    }
    expect(faults, `seed ${SEED}`).toEqual([])

    const successes = all.filter((a) => a.answer.body.code === 200)
    const byKind = Object.fromEntries(
      KINDS.map((k) => [k, all.filter((a) => a.kind === k && a.answer.body.code === 200).length]),
    )
    process.stdout.write(`write contention: successes by kind ${JSON.stringify(byKind)}\n`)
    // The rounds are not all refusals: writes without a version to race on went through.
    expect(byKind.accountBatch + byKind.bind, `seed ${SEED}`).toBeGreaterThan(0)

    const [accounts] = await h.sql`
      SELECT count(*) FILTER (WHERE is_default = 'YES')::int AS defaults,
             count(*) FILTER (WHERE status = 'PENDING')::int AS pending
      FROM supplier_bank_account WHERE supplier_id = ${supplierId} AND deleted_at IS NULL`
    expect(accounts, `seed ${SEED}`).toEqual({ defaults: 1, pending: 0 })

    // Every approval was settled by the request that opened it, none left to the sweep.
    const unsettled = await h.sql`
      SELECT approval_log_id::text AS id, biz_type AS "bizType", status FROM approval_log
      WHERE supplier_id = ${supplierId} AND status IN ('SUBMITTED', 'APPROVED')`
    expect([...unsettled], `seed ${SEED}`).toEqual([])

    // The change log holds rows of successful requests only, and of each successful burst write.
    const okIds = new Set(answers.filter((a) => a.body.code === 200).map((a) => a.requestId ?? ''))
    const logged = await h.sql<{ requestId: string; created: string }[]>`
      SELECT DISTINCT c.request_id AS "requestId", c.create_time::text AS created
      FROM change_log c WHERE c.supplier_id = ${supplierId} AND c.request_id IS NOT NULL`
    const loggedIds = new Set(logged.map((l) => l.requestId))
    for (const s of successes) {
      expect(loggedIds.has(s.answer.requestId!), `${s.kind} ${s.answer.requestId}`).toBe(true)
    }
    const refusedIds = new Set(
      all.filter((a) => a.answer.body.code !== 200).map((a) => a.answer.requestId),
    )
    expect(
      logged.filter((l) => refusedIds.has(l.requestId)),
      'change-log rows of refused requests',
    ).toEqual([])

    // Each event was written by a transaction that also wrote a change-log row of a success
    // (both carry the transaction's start time), and each successful write has an event.
    const events = await h.sql<{ eventType: string; created: string }[]>`
      SELECT e.event_type AS "eventType", e.create_time::text AS created FROM domain_event e
      WHERE e.payload->>'supplierId' = ${supplierId}
         OR (e.aggregate_type = 'SUPPLIER' AND e.aggregate_id = ${supplierId})`
    const requestAt = new Map(logged.map((l) => [l.created, l.requestId]))
    const strays = events.filter((e) => !okIds.has(requestAt.get(e.created) ?? ''))
    expect(strays, `events without a successful write: ${JSON.stringify(strays)}`).toEqual([])
    const withEvent = new Set(events.map((e) => requestAt.get(e.created)))
    for (const s of successes) {
      expect(withEvent.has(s.answer.requestId!), `${s.kind} ${s.answer.requestId}`).toBe(true)
    }
  }, 600_000)
})
