import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { afterAll, describe, expect, inject, it } from 'vitest'
import { insertEvent } from '../sql/outbox'
import { createEventRelay, RELAY_JOB, startEventRelay } from '../src/domain/events/relay'
import { createMetrics } from '../src/metrics'
import { connectJetStream, type EventBroker } from '../src/ports/event-broker'
import { CloudEvent } from '../src/schemas/events'
import { createDraft, update } from './client'
import { useHarness } from './harness'
import { sampleSum } from './metrics-page'
import { deleteStream, eventsPublishable, NATS_URL, ownStream, streamMessages } from './nats'
import { draftBody } from './supplier-data'
import { tcpProxy } from './tcp-proxy'

/*
 * The relay (src/domain/events/relay.ts) against the machine's NATS server with JetStream, each
 * test on a stream of its own: what a consumer receives, the lease, commit order, a crash
 * between the ack and the mark, a broker outage, the metrics, and nothing at all when
 * EVENTS_NATS_URL is unset.
 */

const embedded = inject('database').kind === 'embedded'
const streams: string[] = []
afterAll(async () => {
  for (const s of streams) await deleteStream(s)
})

const h = useHarness({ env: { DUPLICATE_SUBMIT_WINDOW_SECONDS: '0' } })

/** The relay's configuration on a stream of the test's own. */
function own(url = NATS_URL, extra: Partial<typeof h.config.events> = {}) {
  const s = ownStream()
  streams.push(s.stream)
  const events = {
    ...h.config.events,
    natsServers: [url],
    stream: s.stream,
    subjectPrefix: s.subjectPrefix,
    ...extra,
  }
  return { ...s, events }
}

const relayOf = (
  events: typeof h.config.events,
  more: Partial<Parameters<typeof createEventRelay>[0]> = {},
) => createEventRelay({ sql: h.sql, logger: h.deps.logger, config: { events }, ...more })

const pendingIds = async () =>
  (
    await h.sql<{ id: string }[]>`
      SELECT event_id::text AS id FROM domain_event WHERE status = 'PENDING' ORDER BY event_id`
  ).map((r) => r.id)

const settled = () => eventsPublishable(h.sql)

/** Lets another relay take over at once, as if the holder's lease had run out. */
const expireLease = () => h.sql`UPDATE job_lease SET expires_at = now() WHERE job = ${RELAY_JOB}`

describe('event relay', () => {
  it('unset EVENTS_NATS_URL: no relay runs, events stay PENDING, no lease is taken', async () => {
    expect(h.config.events.natsServers).toBeUndefined()
    const stop = startEventRelay({ sql: h.sql, logger: h.deps.logger, config: h.config })
    await createDraft(h, draftBody())
    await new Promise((r) => setTimeout(r, 300))
    await stop()
    expect((await pendingIds()).length).toBeGreaterThan(0)
    expect(await h.sql`SELECT 1 FROM job_lease WHERE job = ${RELAY_JOB}`).toHaveLength(0)
    expect(await h.sql`SELECT 1 FROM domain_event WHERE status = 'PUBLISHED'`).toHaveLength(0)
  })

  it('publishes every pending event once, in id order, as a CloudEvent with Nats-Msg-Id', async () => {
    const { events, stream, subjectPrefix } = own()
    const draft = await createDraft(h, draftBody())
    const updated = await update(h, draft.supplierId, {
      shortName: 'Relay Short',
      changeReason: 'relay test',
      expectedUpdateTime: draft.version,
    })
    expect(updated.body, JSON.stringify(updated.body)).toMatchObject({ success: true })
    const pending = await pendingIds()
    const metrics = createMetrics({ sql: h.sql, config: h.config, logger: h.deps.logger })
    const relay = relayOf(events, { observer: metrics.observer })
    const before = await metrics.registry.getSingleMetricAsString('supplier_events_pending')
    expect(before).toContain(`supplier_events_pending ${pending.length}`)
    await settled()
    expect(await relay.round()).toEqual({ ran: true, published: pending.length })
    // A second round finds nothing left.
    expect(await relay.round()).toEqual({ ran: true, published: 0 })
    await relay.stop()

    const received = await streamMessages(stream)
    expect(received.map((m) => m.msgId)).toEqual(pending)
    expect(received.map((m) => m.body.id)).toEqual(pending)
    const stored = await h.sql<
      { id: string; type: string; aggregate: string; aggregateId: string; payload: unknown }[]
    >`
      SELECT event_id::text AS id, event_type AS type, aggregate_type AS aggregate,
             aggregate_id::text AS "aggregateId", payload
      FROM domain_event WHERE event_id = ANY(${pending}::bigint[]) ORDER BY event_id`
    for (const [i, m] of received.entries()) {
      const ce = CloudEvent.parse(m.body)
      const row = stored[i]
      expect(m.subject).toBe(`${subjectPrefix}.${row.aggregate}.${row.type}`)
      expect(ce).toMatchObject({
        specversion: '1.0',
        id: row.id,
        source: '/supplier-admin',
        type: `com.example.supplier.${row.type}.v1`,
        subject: row.aggregateId,
        datacontenttype: 'application/json',
        aggregatetype: row.aggregate,
      })
      expect(ce.data).toEqual(row.payload)
    }
    expect(received.map((m) => m.body.type)).toContain(
      'com.example.supplier.SupplierDraftCreated.v1',
    )
    expect(received.map((m) => m.body.type)).toContain(
      'com.example.supplier.SupplierProfileUpdated.v1',
    )
    expect(await pendingIds()).toEqual([])
    const published = await h.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM domain_event
      WHERE event_id = ANY(${pending}::bigint[]) AND status = 'PUBLISHED' AND published_at IS NOT NULL`
    expect(published[0].n).toBe(pending.length)
    const text = await metrics.registry.metrics()
    expect(text).toContain(`supplier_events_published_total ${pending.length}`)
    expect(text).toContain('supplier_events_publish_failures_total 0')
    expect(text).toContain('supplier_events_pending 0')
    expect(text).toContain('supplier_events_oldest_pending_age_seconds 0')
  })

  it('one relay at a time: a second replica does nothing while the first holds the lease', async () => {
    const { events, stream } = own()
    await createDraft(h, draftBody())
    const first = relayOf(events)
    const second = relayOf(events)
    await settled()
    expect((await first.round()).ran).toBe(true)
    await createDraft(h, draftBody())
    expect(await second.round()).toEqual({ ran: false, published: 0 })
    expect((await pendingIds()).length).toBe(1)
    await first.stop()
    await settled()
    // Stopping frees the lease: the other one takes over.
    expect(await second.round()).toEqual({ ran: true, published: 1 })
    await second.stop()
    expect((await streamMessages(stream)).length).toBeGreaterThan(1)
  })

  it('kill -9 between the ack and the mark: the next relay re-publishes and JetStream keeps one copy', async () => {
    const { events, stream } = own()
    for (let i = 0; i < 3; i++) await createDraft(h, draftBody())
    const pending = await pendingIds()
    await settled()
    // The dying relay: JetStream acknowledges the batch, and the process is gone before it
    // marks it PUBLISHED (one statement for the batch, once every acknowledgement is in).
    let acked = 0
    let dyingBroker: EventBroker | undefined
    const dying = relayOf(events, {
      connectBroker: async () => {
        const real = await connectJetStream(events)
        dyingBroker = real
        return {
          async publish(subject, body, msgId) {
            const ack = await real.publish(subject, body, msgId)
            if (++acked === 2) await new Promise(() => {})
            return ack
          },
          close: () => real.close(),
        } satisfies EventBroker
      },
    })
    void dying.round()
    await expect.poll(async () => (await streamMessages(stream)).length).toBe(3)
    await dyingBroker?.close()
    // Killed: no stop(), no lease release, nothing marked; the lease runs out.
    expect(await pendingIds()).toEqual(pending)
    await expireLease()
    const duplicates: boolean[] = []
    const next = relayOf(events, {
      connectBroker: async () => {
        const real = await connectJetStream(events)
        return {
          async publish(subject, body, msgId) {
            const ack = await real.publish(subject, body, msgId)
            duplicates.push(ack.duplicate)
            return ack
          },
          close: () => real.close(),
        }
      },
    })
    expect(await next.round()).toEqual({ ran: true, published: 3 })
    await next.stop()
    // Every re-published one was recognized as a duplicate.
    expect(duplicates).toEqual([true, true, true])
    const received = await streamMessages(stream)
    expect(received.map((m) => m.msgId)).toEqual(pending)
    expect(await pendingIds()).toEqual([])
  })

  it.skipIf(embedded)(
    'kill -9 of a relay process after an ack: the next relay re-publishes, the stream keeps each event once',
    async () => {
      const { events, stream, subjectPrefix } = own()
      for (let i = 0; i < 3; i++) await createDraft(h, draftBody())
      const pending = await pendingIds()
      await settled()
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', 'test/relay-child.ts', h.db.url, stream, subjectPrefix, '2'],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      )
      let out = ''
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
      await expect.poll(() => out, { timeout: 60_000, interval: 50 }).toContain('acked ')
      const exited = once(child, 'exit')
      child.kill('SIGKILL')
      expect((await exited)[1]).toBe('SIGKILL')
      // The second was acknowledged, and the process died before the batch was marked.
      expect(out.trim()).toMatch(/^acked [0-9]+$/)
      expect(await pendingIds()).toEqual(pending)
      await expireLease()
      const next = relayOf(events)
      expect(await next.round()).toEqual({ ran: true, published: 3 })
      await next.stop()
      expect((await streamMessages(stream)).map((m) => m.msgId)).toEqual(pending)
    },
    90_000,
  )

  it('broker outage: requests answer, events wait, the relay backs off and then publishes all', async () => {
    const proxy = await tcpProxy({ host: '127.0.0.1', port: 4222 })
    const { events, stream } = own(`nats://127.0.0.1:${proxy.port}`, {
      relayIntervalMs: 50,
      backoffMaxMs: 400,
    })
    const metrics = createMetrics({ sql: h.sql, config: h.config, logger: h.deps.logger })
    const warnings: { failures: number; retryInMs: number }[] = []
    const logger = Object.create(h.deps.logger, {
      warn: {
        value: (o: { failures: number; retryInMs: number }) => void warnings.push(o),
      },
    })
    const relay = createEventRelay({
      sql: h.sql,
      logger,
      config: { events },
      observer: metrics.observer,
    })
    await proxy.cut()
    relay.start()
    const created = []
    for (let i = 0; i < 3; i++) created.push(await createDraft(h, draftBody()))
    expect(created.every((d) => /^[1-9][0-9]*$/.test(d.supplierId))).toBe(true)
    await expect.poll(() => warnings.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(4)
    expect((await pendingIds()).length).toBe(3)
    // Every failed reconnection counts, not the outage once: each is counted before it is logged.
    const logged = warnings.length
    const failed = sampleSum(
      await metrics.registry.metrics(),
      'supplier_events_publish_failures_total',
    )
    expect(failed).toBeGreaterThanOrEqual(logged)
    expect(failed).toBeLessThanOrEqual(warnings.length + 1)
    // Back-off: doubling from the interval up to the ceiling, each with jitter in [½, 1].
    for (const w of warnings.slice(0, 4)) {
      const ceiling = Math.min(400, 50 * 2 ** w.failures)
      expect(w.retryInMs).toBeGreaterThanOrEqual(ceiling / 2)
      expect(w.retryInMs).toBeLessThanOrEqual(ceiling)
    }
    await proxy.restore()
    await expect.poll(pendingIds, { timeout: 30_000, interval: 100 }).toEqual([])
    await relay.stop()
    await proxy.stop()
    expect((await streamMessages(stream)).length).toBe(3)
    const text = await metrics.registry.metrics()
    expect(text).toContain('supplier_events_published_total 3')
  })

  it.skipIf(embedded)(
    'commit order: an event whose smaller id commits last holds back the larger one, and none is skipped',
    async () => {
      const { events, stream } = own()
      const relay = relayOf(events)
      await settled()
      await relay.round()
      const supplierId = '9007199254740993'
      const event = (n: number) =>
        ({
          aggregateType: 'SUPPLIER',
          aggregateId: supplierId,
          eventType: 'SupplierDraftDeleted',
          payload: { supplierId, operatorId: String(n) },
        }) as const
      let releaseA!: () => void
      const held = new Promise<void>((r) => (releaseA = r))
      let idA!: string
      let inserted!: () => void
      const aInserted = new Promise<void>((r) => (inserted = r))
      // A takes the smaller id and stays open; B takes the larger one and commits first.
      const a = h.sql.begin(async (tx) => {
        await insertEvent(tx, event(1))
        idA = (await tx`SELECT max(event_id)::text AS id FROM domain_event`)[0].id as string
        inserted()
        await held
      })
      await aInserted
      await h.sql.begin((tx) => insertEvent(tx, event(2)))
      const [{ id: idB }] = await h.sql<{ id: string }[]>`
        SELECT max(event_id)::text AS id FROM domain_event`
      expect(BigInt(idB)).toBeGreaterThan(BigInt(idA))
      // B is committed, but A could still commit before it: nothing is published yet.
      expect(await relay.round()).toEqual({ ran: true, published: 0 })
      releaseA()
      await a
      await settled()
      await expect
        .poll(async () => (await relay.round()).published, { timeout: 30_000 })
        .toBeGreaterThan(0)
      await relay.stop()
      expect((await streamMessages(stream)).map((m) => m.msgId)).toEqual([idA, idB])
    },
  )
})
