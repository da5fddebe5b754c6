import { describe, expect, inject, it } from 'vitest'
import {
  recordDueReminders,
  sweepQualificationReminders,
} from '../src/domain/supplier/qualification-reminders'
import { insertQualification, insertSupplier } from './fixtures'
import { useHarness } from './harness'

/*
 * Qualification-expiry reminders: QualificationExpiring on entering the rule's warningDays
 * window, QualificationExpired once the date has passed, each once per qualification, expiry
 * date and kind whatever the sweeps, replicas or concurrency, re-armed by a new expiry date. The
 * sweep is given the day to sweep for, so time passes without waiting for it.
 */

const embedded = inject('database').kind === 'embedded'
const h = useHarness()

const reminders = async (qualificationId: string) =>
  h.sql<{ type: string; payload: any }[]>`
    SELECT event_type AS type, payload FROM domain_event
    WHERE payload->>'qualificationId' = ${qualificationId} ORDER BY event_id`

const addDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10)

/** A live ACTIVE supplier of type `typeCode` holding one `qualType` expiring on `expiryDate`. */
async function qualification(
  qualType: string,
  expiryDate: string,
  status: 'ACTIVE' | 'ARCHIVED' = 'ACTIVE',
  typeCode = 'SCENIC',
) {
  const supplier = await insertSupplier(h, {
    status,
    supplierNo: `SUP${Date.now()}${Math.floor(Math.random() * 1e6)}`,
    types: [{ typeCode, isPrimary: true }],
  })
  const qualificationId = await insertQualification(h, supplier.supplierId, {
    qualType,
    expiryDate,
    certNo: 'CERT-REMINDER-0001',
  })
  return { supplierId: supplier.supplierId, qualificationId }
}

const rule = (typeCode: string, qualType: string, warningDays: number) => h.sql`
  INSERT INTO qualification_rule (type_code, qual_type, is_required, warning_days)
  VALUES (${typeCode}, ${qualType}, true, ${warningDays})`

const deps = () => ({ sql: h.sql, logger: h.deps.logger, config: h.config })

describe('qualification-expiry reminders', () => {
  it('QualificationExpiring on entering warningDays, QualificationExpired after the date, each once', async () => {
    const qualType = `REMIND_${Date.now()}`
    await rule('SCENIC', qualType, 30)
    const expiry = '2031-03-31'
    const { supplierId, qualificationId } = await qualification(qualType, expiry)

    await sweepQualificationReminders(deps(), addDays(expiry, -31))
    expect(await reminders(qualificationId)).toEqual([])

    const entering = await sweepQualificationReminders(deps(), addDays(expiry, -30))
    expect(entering).toMatchObject({ ran: true })
    expect(entering.expiring).toBeGreaterThanOrEqual(1)
    for (const day of [-30, -29, -1, 0])
      await sweepQualificationReminders(deps(), addDays(expiry, day))
    expect(await reminders(qualificationId)).toEqual([
      {
        type: 'QualificationExpiring',
        payload: {
          supplierId,
          qualificationId,
          qualificationType: qualType,
          expiryDate: expiry,
          warningDays: 30,
        },
      },
    ])

    for (const day of [1, 2, 40]) await sweepQualificationReminders(deps(), addDays(expiry, day))
    expect((await reminders(qualificationId)).map((r) => r.type)).toEqual([
      'QualificationExpiring',
      'QualificationExpired',
    ])
    const [, expired] = await reminders(qualificationId)
    expect(expired.payload).toEqual({
      supplierId,
      qualificationId,
      qualificationType: qualType,
      expiryDate: expiry,
    })
    // No sensitive value: the certificate number is not in the events.
    expect(JSON.stringify(await reminders(qualificationId))).not.toContain('CERT-REMINDER')
  })

  it('a new expiry date re-arms both reminders', async () => {
    const qualType = `REARM_${Date.now()}`
    await rule('SCENIC', qualType, 10)
    const first = '2031-06-30'
    const { qualificationId } = await qualification(qualType, first)
    await sweepQualificationReminders(deps(), addDays(first, 1))
    // First seen after the date: only Expired.
    expect((await reminders(qualificationId)).map((r) => r.type)).toEqual(['QualificationExpired'])
    const renewed = '2032-06-30'
    await h.sql`UPDATE supplier_qualification SET expiry_date = ${renewed}
      WHERE qualification_id = ${qualificationId} AND deleted_at IS NULL`
    await sweepQualificationReminders(deps(), addDays(first, 2))
    expect(await reminders(qualificationId)).toHaveLength(1)
    await sweepQualificationReminders(deps(), addDays(renewed, -10))
    await sweepQualificationReminders(deps(), addDays(renewed, 5))
    const all = await reminders(qualificationId)
    expect(all.map((r) => [r.type, r.payload.expiryDate])).toEqual([
      ['QualificationExpired', first],
      ['QualificationExpiring', renewed],
      ['QualificationExpired', renewed],
    ])
  })

  it('no rule naming the type: no Expiring, but Expired; archived or deleted: nothing', async () => {
    const qualType = `NORULE_${Date.now()}`
    const expiry = '2031-09-30'
    const { qualificationId } = await qualification(qualType, expiry)
    await sweepQualificationReminders(deps(), addDays(expiry, -1))
    expect(await reminders(qualificationId)).toEqual([])
    await sweepQualificationReminders(deps(), addDays(expiry, 1))
    expect((await reminders(qualificationId)).map((r) => r.type)).toEqual(['QualificationExpired'])

    const gone = await qualification(qualType, expiry)
    await h.sql`UPDATE supplier_qualification SET deleted_at = now()
      WHERE qualification_id = ${gone.qualificationId} AND deleted_at IS NULL`
    const archived = await qualification(qualType, expiry, 'ARCHIVED')
    await sweepQualificationReminders(deps(), addDays(expiry, 1))
    expect(await reminders(gone.qualificationId)).toEqual([])
    expect(await reminders(archived.qualificationId)).toEqual([])
  })

  it('replicas: while one holds the lease the other does nothing', async () => {
    await h.sql`INSERT INTO job_lease (job, holder, expires_at)
      VALUES ('qualification-expiry-sweep', 'another replica', now() + interval '1 minute')
      ON CONFLICT (job) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at`
    expect(await sweepQualificationReminders(deps(), '2040-01-01')).toEqual({
      ran: false,
      expiring: 0,
      expired: 0,
    })
    await h.sql`UPDATE job_lease SET expires_at = now() WHERE job = 'qualification-expiry-sweep'`
  })

  it('a sweep asked to stop ends after its batch in flight and frees its lease', async () => {
    // Dated before every other test's, so that these three are the only ones due.
    const qualType = `STOP_${Date.now()}`
    const expiry = '1999-01-01'
    const made: { qualificationId: string }[] = []
    for (let i = 0; i < 3; i++) made.push(await qualification(qualType, expiry))
    const expired = async () => {
      let n = 0
      for (const { qualificationId } of made) n += (await reminders(qualificationId)).length
      return n
    }
    // The stop request arrives while the first batch's transaction runs (a service told to stop).
    const stop = new AbortController()
    const sql = new Proxy(h.sql, {
      get: (target, key, receiver) =>
        key === 'begin'
          ? (...args: Parameters<typeof target.begin>) => {
              stop.abort()
              return target.begin(...args)
            }
          : Reflect.get(target, key, receiver),
    })
    const on = '1999-01-10'
    expect(
      await sweepQualificationReminders({ ...deps(), sql }, on, { batch: 1, signal: stop.signal }),
    ).toEqual({ ran: true, expiring: 0, expired: 1 })
    expect(await expired()).toBe(1)
    // The lease is free at once, and the next sweep goes on batch after batch to the end.
    expect(await sweepQualificationReminders(deps(), on, { batch: 1 })).toEqual({
      ran: true,
      expiring: 0,
      expired: 2,
    })
    expect(await expired()).toBe(3)
  })

  it.skipIf(embedded)(
    'concurrent sweeps past the lease (two instances at once) still record each reminder once',
    async () => {
      const qualType = `RACE_${Date.now()}`
      await rule('SCENIC', qualType, 5)
      const expiry = '2033-01-31'
      const made = []
      for (let i = 0; i < 5; i++) made.push(await qualification(qualType, expiry))
      await Promise.all(
        Array.from({ length: 4 }, () => recordDueReminders(h, addDays(expiry, -2), 1000)),
      )
      for (const { qualificationId } of made) {
        expect((await reminders(qualificationId)).map((r) => r.type)).toEqual([
          'QualificationExpiring',
        ])
      }
    },
  )
})
