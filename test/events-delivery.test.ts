import { jetstreamManager } from '@nats-io/jetstream'
import { connect as natsConnect } from '@nats-io/transport-node'
import { afterAll, describe, expect, inject, it } from 'vitest'
import type { Sql } from '../sql/db'
import { insertEvent } from '../sql/outbox'
import {
  createEventRelay,
  longestRepublishDelayMs,
  RELAY_JOB,
  stableRelayHolder,
} from '../src/domain/events/relay'
import { connectJetStream, StreamConfigError, subjectMatches } from '../src/ports/event-broker'
import { useHarness } from './harness'
import { deleteStream, eventsPublishable, NATS_URL, ownStream, streamMessages } from './nats'

/*
 * What docs/events.md promises a consumer, each promise held here against the machine's NATS
 * server: per-supplier order with many acknowledgements in flight, the stream sequence (not the
 * event id) as the resume point, and the relay's start-up checks, lease and hold-back line.
 * At-least-once with Nats-Msg-Id de-duplication is test/events-relay.test.ts's kill -9 tests.
 */

const embedded = inject('database').kind === 'embedded'
const streams: string[] = []
afterAll(async () => {
  for (const s of streams) await deleteStream(s)
})

const h = useHarness({ env: { DUPLICATE_SUBMIT_WINDOW_SECONDS: '0' } })

function own(extra: Partial<typeof h.config.events> = {}) {
  const s = ownStream()
  streams.push(s.stream)
  const events = {
    ...h.config.events,
    natsServers: [NATS_URL],
    stream: s.stream,
    subjectPrefix: s.subjectPrefix,
    ...extra,
  }
  return { ...s, events }
}

let nextSupplier = 9_007_199_254_900_000n
const supplier = () => String(nextSupplier++)

const event = (supplierId: string, operatorId: string) =>
  ({
    aggregateType: 'SUPPLIER',
    aggregateId: supplierId,
    eventType: 'SupplierDraftDeleted',
    payload: { supplierId, operatorId },
  }) as const

const lastEventId = async (sql: Sql = h.sql) =>
  (await sql<{ id: string }[]>`SELECT max(event_id)::text AS id FROM domain_event`)[0].id

/** Lets another relay take over at once, as if the holder's lease had run out. */
const settleEarlier = async () => {
  await h.sql`UPDATE domain_event SET status = 'PUBLISHED' WHERE status = 'PENDING'`
}

/** Creates `name` on the machine's NATS with the given subjects and duplicate window. */
async function makeStream(name: string, subjects: string[], duplicateWindowSeconds: number) {
  const nc = await natsConnect({ servers: NATS_URL })
  try {
    const jsm = await jetstreamManager(nc)
    await jsm.streams.add({
      name,
      subjects,
      duplicate_window: duplicateWindowSeconds * 1_000_000_000,
    })
  } finally {
    await nc.close()
  }
}

describe('event delivery contract', () => {
  it('many acknowledgements in flight, one at a time per supplier: each supplier’s events arrive in order, the batch is marked by one statement', async () => {
    const { events, stream } = own()
    await settleEarlier()
    const suppliers = Array.from({ length: 12 }, supplier)
    const ids = new Map<string, string[]>()
    // Interleaved: supplier 0, 1, …, 11, then again, four times.
    for (let round = 0; round < 4; round++) {
      for (const s of suppliers) {
        await h.sql.begin((tx) => insertEvent(tx, event(s, String(round + 1))))
        ids.set(s, [...(ids.get(s) ?? []), await lastEventId()])
      }
    }
    await eventsPublishable(h.sql)
    let inFlight = 0
    let most = 0
    const perSupplier = new Map<string, number>()
    let mostPerSupplier = 0
    const relay = createEventRelay({
      sql: h.sql,
      logger: h.deps.logger,
      config: { events },
      connectBroker: async () => {
        const real = await connectJetStream(events)
        return {
          async publish(subject, body, msgId) {
            const s = (JSON.parse(new TextDecoder().decode(body)) as { subject: string }).subject
            inFlight++
            perSupplier.set(s, (perSupplier.get(s) ?? 0) + 1)
            most = Math.max(most, inFlight)
            mostPerSupplier = Math.max(mostPerSupplier, perSupplier.get(s)!)
            // Acknowledgements come back in any order.
            await new Promise((r) => setTimeout(r, Math.random() * 20))
            try {
              return await real.publish(subject, body, msgId)
            } finally {
              inFlight--
              perSupplier.set(s, perSupplier.get(s)! - 1)
            }
          },
          close: () => real.close(),
        }
      },
    })
    expect(await relay.round()).toEqual({ ran: true, published: 48 })
    await relay.stop()
    expect(most).toBeGreaterThan(1)
    expect(mostPerSupplier).toBe(1)
    const received = await streamMessages(stream)
    expect(received).toHaveLength(48)
    for (const s of suppliers) {
      expect(received.filter((m) => m.body.subject === s).map((m) => m.msgId)).toEqual(ids.get(s))
    }
    const all = [...ids.values()].flat()
    // One UPDATE for the batch: one transaction time for all of them.
    const marks = await h.sql<{ n: number }[]>`
      SELECT count(DISTINCT published_at)::int AS n FROM domain_event
      WHERE event_id = ANY(${all}::bigint[]) AND status = 'PUBLISHED'`
    expect(marks[0].n).toBe(1)
  })

  it.skipIf(embedded)(
    'the event id is not a resume point: a smaller id of another supplier can follow a larger one; the stream sequence orders what was published',
    async () => {
      const { events, stream } = own()
      await settleEarlier()
      const relay = createEventRelay({ sql: h.sql, logger: h.deps.logger, config: { events } })
      const [a, b] = [supplier(), supplier()]
      // T takes its transaction id first; X inserts event N; T inserts N+1 and commits first.
      let releaseX!: () => void
      const xHeld = new Promise<void>((r) => (releaseX = r))
      let xInserted!: () => void
      const xReady = new Promise<void>((r) => (xInserted = r))
      let tStarted!: () => void
      const tReady = new Promise<void>((r) => (tStarted = r))
      let goT!: () => void
      const tGo = new Promise<void>((r) => (goT = r))
      let idN!: string
      let idN1!: string
      const t = h.sql.begin(async (tx) => {
        await tx`SELECT pg_current_xact_id()`
        tStarted()
        await tGo
        await insertEvent(tx, event(b, '2'))
        idN1 = await lastEventId(tx)
      })
      await tReady
      const x = h.sql.begin(async (tx) => {
        await insertEvent(tx, event(a, '1'))
        idN = await lastEventId(tx)
        xInserted()
        await xHeld
      })
      await xReady
      goT()
      await t
      expect(BigInt(idN1)).toBeGreaterThan(BigInt(idN))
      // N+1's transaction is older than X, the only one running: it is published before N.
      await expect
        .poll(async () => (await relay.round()).published, { timeout: 30_000 })
        .toBeGreaterThan(0)
      releaseX()
      await x
      await eventsPublishable(h.sql)
      expect(await relay.round()).toEqual({ ran: true, published: 1 })
      await relay.stop()
      const received = await streamMessages(stream)
      expect(received.map((m) => m.msgId)).toEqual([idN1, idN])
      // A consumer that kept the largest event id seen (N+1) would skip N; one that resumes
      // after the stream sequence it last acknowledged receives it.
      const resumeAfter = received[0].seq
      expect(received.filter((m) => m.seq > resumeAfter).map((m) => m.msgId)).toEqual([idN])
      expect(received.filter((m) => BigInt(m.msgId!) > BigInt(idN1))).toEqual([])
    },
    60_000,
  )

  it('a stream whose subjects miss the prefix is refused at connection, saying so', async () => {
    const { events, stream, subjectPrefix } = own()
    await makeStream(stream, ['elsewhere.>'], 120)
    const errors: { err: string }[] = []
    const logger = Object.create(h.deps.logger, {
      error: { value: (o: { err: string }) => void errors.push(o) },
    })
    const relay = createEventRelay({ sql: h.sql, logger, config: { events } })
    // Said when the relay starts, with no event to publish.
    relay.start()
    await expect.poll(() => errors.length, { timeout: 10_000 }).toBeGreaterThan(0)
    await relay.stop()
    expect(errors[0].err).toContain(`stream ${stream}`)
    expect(errors[0].err).toContain(`${subjectPrefix}.SUPPLIER.`)
    expect(errors[0].err).toContain('EVENTS_NATS_SUBJECT_PREFIX')
    const again = createEventRelay({ sql: h.sql, logger, config: { events } })
    await expect(again.round()).rejects.toThrow(StreamConfigError)
    await again.stop()
  })

  it('a stream whose duplicate window is shorter than the relay’s longest re-publish delay is refused', async () => {
    const { events, stream, subjectPrefix } = own()
    const longest = longestRepublishDelayMs(events)
    expect(longest).toBe(30_000 + events.relayIntervalMs + 5000)
    await makeStream(stream, [`${subjectPrefix}.>`], 30)
    const relay = createEventRelay({ sql: h.sql, logger: h.deps.logger, config: { events } })
    await expect(relay.round()).rejects.toThrow(
      `keeps a duplicate window of 30 s, shorter than the relay's longest re-publish delay (${Math.ceil(longest / 1000)} s)`,
    )
    await relay.stop()
    // A stream the relay creates itself gets EVENTS_NATS_DUPLICATE_WINDOW_SECONDS, and is checked
    // the same way.
    const short = own({ duplicateWindowSeconds: 60, backoffMaxMs: 90_000 })
    const created = createEventRelay({ sql: h.sql, logger: h.deps.logger, config: short })
    await expect(created.round()).rejects.toThrow(StreamConfigError)
    await created.stop()
  })

  it('CloudEvents time is when the writing transaction began, not its commit; /asyncapi.json claims no id order', async () => {
    const { events, stream } = own()
    await settleEarlier()
    const s = supplier()
    const began = await h.sql.begin(async (tx) => {
      const [{ t }] = await tx<{ t: string }[]>`
        SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS t`
      await tx`SELECT pg_sleep(0.3)`
      await insertEvent(tx, event(s, '1'))
      return t
    })
    await eventsPublishable(h.sql)
    const relay = createEventRelay({ sql: h.sql, logger: h.deps.logger, config: { events } })
    expect(await relay.round()).toEqual({ ran: true, published: 1 })
    await relay.stop()
    const [m] = await streamMessages(stream)
    expect(m.body.time).toBe(began)

    const res = await h.call('GET', '/asyncapi.json', { admin: null })
    const doc = res.body as { info: { description: string } }
    expect(doc.info.description).not.toContain('commit order')
    expect(doc.info.description).toContain(
      'the events of one supplier arrive in the order they committed',
    )
    expect(doc.info.description).toContain('resume from the stream sequence, not from an event id')
  })

  it('subject patterns: what a stream subject takes', () => {
    expect(subjectMatches('supplier.events.>', 'supplier.events.SUPPLIER.SupplierActivated')).toBe(
      true,
    )
    expect(subjectMatches('>', 'a.b')).toBe(true)
    expect(subjectMatches('supplier.*.SUPPLIER.*', 'supplier.events.SUPPLIER.X')).toBe(true)
    expect(subjectMatches('supplier.events.ACCOUNT.>', 'supplier.events.SUPPLIER.X')).toBe(false)
    expect(subjectMatches('supplier.events.*', 'supplier.events.SUPPLIER.X')).toBe(false)
    expect(subjectMatches('supplier.events.SUPPLIER.X.>', 'supplier.events.SUPPLIER.X')).toBe(false)
  })

  it('a restarted instance takes its own lease back at once; another instance waits', async () => {
    const { events } = own()
    await settleEarlier()
    const holder = stableRelayHolder(8080)
    expect(stableRelayHolder(8080)).toBe(holder)
    expect(stableRelayHolder(8081)).not.toBe(holder)
    const before = createEventRelay({
      sql: h.sql,
      logger: h.deps.logger,
      config: { events },
      holder,
    })
    expect((await before.round()).ran).toBe(true)
    // Killed: no stop(), the lease still runs for 30 s.
    const other = createEventRelay({ sql: h.sql, logger: h.deps.logger, config: { events } })
    expect((await other.round()).ran).toBe(false)
    const restarted = createEventRelay({
      sql: h.sql,
      logger: h.deps.logger,
      config: { events },
      holder,
    })
    expect((await restarted.round()).ran).toBe(true)
    await restarted.stop()
    await before.stop()
    await other.stop()
    expect(
      await h.sql`SELECT 1 FROM job_lease WHERE job = ${RELAY_JOB} AND expires_at > now()`,
    ).toHaveLength(0)
  })

  it.skipIf(embedded)(
    'held back by a long transaction past the bound: a line names its pid, age and database',
    async () => {
      const { events } = own()
      await settleEarlier()
      const warnings: { pid: number; database: string; ageSeconds: number; held: number }[] = []
      const logger = Object.create(h.deps.logger, {
        warn: { value: (o: (typeof warnings)[number]) => void warnings.push(o) },
      })
      const relay = createEventRelay({
        sql: h.sql,
        logger,
        config: { events },
        holdWarnMs: 300,
      })
      let release!: () => void
      const held = new Promise<void>((r) => (release = r))
      let pid!: number
      let opened!: () => void
      const isOpen = new Promise<void>((r) => (opened = r))
      const long = h.sql.begin(async (tx) => {
        pid = (await tx<{ pid: number }[]>`SELECT pg_backend_pid() AS pid, pg_current_xact_id()`)[0]
          .pid
        opened()
        await held
      })
      await isOpen
      await h.sql.begin((tx) => insertEvent(tx, event(supplier(), '1')))
      const [{ db }] = await h.sql<{ db: string }[]>`SELECT current_database() AS db`
      try {
        await expect
          .poll(
            async () => {
              await relay.round()
              return warnings.some((w) => w.pid === pid)
            },
            { timeout: 20_000, interval: 200 },
          )
          .toBe(true)
      } finally {
        release()
        await long
      }
      await relay.stop()
      const line = warnings.find((w) => w.pid === pid)!
      expect(line).toMatchObject({ database: db, held: 1 })
      expect(line.ageSeconds).toBeGreaterThanOrEqual(0.3)
    },
    60_000,
  )
})
