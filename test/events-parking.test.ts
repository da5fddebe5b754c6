import { spawnSync } from 'node:child_process'
import { afterAll, describe, expect, inject, it } from 'vitest'
import { insertEvent } from '../sql/outbox'
import { createEventRelay } from '../src/domain/events/relay'
import { listParked, requeueParked } from '../src/domain/events/parked'
import { createMetrics } from '../src/metrics'
import { connectJetStream } from '../src/ports/event-broker'
import { useHarness } from './harness'
import { sampleSum } from './metrics-page'
import { deleteStream, eventsPublishable, NATS_URL, ownStream, streamMessages } from './nats'

/*
 * Parking (src/domain/events/relay.ts, docs/events.md): an event the relay cannot publish is
 * PARKED with its reason, the relay goes on with the others, the later events of its supplier
 * wait behind it, and an operator re-queues it once fixed (src/domain/events/parked.ts,
 * scripts/events.ts). Against the machine's NATS server, on a stream of the test's own.
 */

const embedded = inject('database').kind === 'embedded'
const streams: string[] = []
afterAll(async () => {
  for (const s of streams) await deleteStream(s)
})

const h = useHarness({ env: { DUPLICATE_SUBMIT_WINDOW_SECONDS: '0' } })

function own() {
  const s = ownStream()
  streams.push(s.stream)
  const events = {
    ...h.config.events,
    natsServers: [NATS_URL],
    stream: s.stream,
    subjectPrefix: s.subjectPrefix,
  }
  return { ...s, events }
}

let nextSupplier = 9_007_199_254_800_000n
/** A supplier id of the test's own (the outbox has no foreign key on it). */
const supplier = () => String(nextSupplier++)

/** Records one valid event of `supplierId` and returns its id. */
async function recordEvent(supplierId: string, operator: string) {
  return h.sql.begin(async (tx) => {
    await insertEvent(tx, {
      aggregateType: 'SUPPLIER',
      aggregateId: supplierId,
      eventType: 'SupplierDraftDeleted',
      payload: { supplierId, operatorId: operator },
    })
    const [{ id }] = await tx<{ id: string }[]>`SELECT max(event_id)::text AS id FROM domain_event`
    return id
  })
}

const statusOf = async (id: string) =>
  (
    await h.sql<{ status: string; reason: string | null }[]>`
      SELECT status, parked_reason AS reason FROM domain_event WHERE event_id = ${id}`
  )[0]

/** Puts every stored event other than `keep` out of the relay's way (earlier tests' events). */
const publishedExcept = (keep: string[]) =>
  h.sql`UPDATE domain_event SET status = 'PUBLISHED'
        WHERE status = 'PENDING' AND NOT event_id = ANY(${keep}::bigint[])`

describe('event relay: parking', () => {
  it('a payload today’s catalog refuses is PARKED with its reason, the relay goes on, its supplier’s later events wait; re-queued after a fix, all follow in order', async () => {
    const { events, stream } = own()
    const [s1, s2] = [supplier(), supplier()]
    const e1 = await recordEvent(s1, '1')
    const e2 = await recordEvent(s2, '2')
    const e3 = await recordEvent(s1, '3')
    const e4 = await recordEvent(s2, '4')
    const e5 = await recordEvent(s1, '5')
    await publishedExcept([e1, e2, e3, e4, e5])
    // An older version's event, or an operator's edit: a key the catalog does not declare (with
    // a value that must never reach a log) and a missing one.
    await h.sql`
      UPDATE domain_event SET payload = (payload - 'operatorId') || '{"contactPhone": "13812345678"}'
      WHERE event_id = ${e1}`
    await eventsPublishable(h.sql)

    const errors: Record<string, unknown>[] = []
    const logger = Object.create(h.deps.logger, {
      error: { value: (o: Record<string, unknown>) => void errors.push(o) },
    })
    const metrics = createMetrics({ sql: h.sql, config: h.config, logger: h.deps.logger })
    const relay = createEventRelay({
      sql: h.sql,
      logger,
      config: { events },
      observer: metrics.observer,
    })
    // The round does not fail: it publishes the other supplier's events and parks the bad one.
    expect(await relay.round()).toEqual({ ran: true, published: 2 })
    const parked = await statusOf(e1)
    expect(parked.status).toBe('PARKED')
    expect(parked.reason).toContain(`event ${e1}`)
    expect(parked.reason).toContain('operatorId')
    expect(parked.reason).not.toContain('13812345678')
    // The supplier's later events wait behind it, PENDING, round after round.
    expect((await statusOf(e3)).status).toBe('PENDING')
    expect((await statusOf(e5)).status).toBe('PENDING')
    expect(await relay.round()).toEqual({ ran: true, published: 0 })
    expect((await statusOf(e3)).status).toBe('PENDING')

    // One ERROR line names it; the metrics count it once.
    expect(errors).toHaveLength(1)
    expect(errors[0]).toMatchObject({
      eventId: e1,
      eventType: 'SupplierDraftDeleted',
      orderKey: s1,
      reason: parked.reason,
    })
    expect(JSON.stringify(errors[0])).not.toContain('13812345678')
    const page = await metrics.registry.metrics()
    expect(sampleSum(page, 'supplier_events_parked_total')).toBe(1)
    expect(sampleSum(page, 'supplier_events_parked')).toBe(1)
    expect(sampleSum(page, 'supplier_events_publish_failures_total')).toBe(0)
    expect(sampleSum(page, 'supplier_events_pending')).toBe(2)

    // The operator's list says what is parked, why, and what waits on it.
    expect(await listParked(h.sql)).toEqual([
      expect.objectContaining({ eventId: e1, orderKey: s1, reason: parked.reason, held: 2 }),
    ])
    // Re-queued while the catalog still refuses it: refused, nothing changes.
    expect(await requeueParked(h.sql, e1)).toMatchObject({ requeued: false, why: 'STILL_REFUSED' })
    expect((await statusOf(e1)).status).toBe('PARKED')
    expect(await requeueParked(h.sql, e2)).toMatchObject({ requeued: false, why: 'NOT_PARKED' })

    // The fix, then the re-queue: it is published, then the events that waited, in order.
    await h.sql`
      UPDATE domain_event SET payload = jsonb_build_object('supplierId', ${s1}::text, 'operatorId', '1')
      WHERE event_id = ${e1}`
    expect(await requeueParked(h.sql, e1)).toEqual({ requeued: true })
    expect(await statusOf(e1)).toEqual({ status: 'PENDING', reason: null })
    expect(await relay.round()).toEqual({ ran: true, published: 3 })
    await relay.stop()
    const received = (await streamMessages(stream)).map((m) => m.msgId)
    expect(received).toEqual([e2, e4, e1, e3, e5])
    expect(await listParked(h.sql)).toEqual([])
  })

  it('a message larger than the server takes is PARKED, and the relay goes on', async () => {
    const { events, stream } = own()
    const [big, small] = [supplier(), supplier()]
    // Within the catalog, but longer than this server's (stand-in) max_payload.
    const e1 = await h.sql.begin(async (tx) => {
      await insertEvent(tx, {
        aggregateType: 'SUPPLIER',
        aggregateId: big,
        eventType: 'SupplierStatusChanged',
        payload: {
          supplierId: big,
          approvalLogId: '9007199254741207',
          fromStatus: 'ACTIVE',
          toStatus: 'BLACKLIST',
          subType: 'BLACKLIST',
          changeReason: 'r'.repeat(400),
        },
      })
      return (await tx<{ id: string }[]>`SELECT max(event_id)::text AS id FROM domain_event`)[0].id
    })
    const e2 = await recordEvent(small, '2')
    await publishedExcept([e1, e2])
    await eventsPublishable(h.sql)
    const relay = createEventRelay({
      sql: h.sql,
      logger: h.deps.logger,
      config: { events },
      connectBroker: async () => ({ ...(await connectJetStream(events)), maxPayload: 400 }),
    })
    expect(await relay.round()).toEqual({ ran: true, published: 1 })
    await relay.stop()
    const parked = await statusOf(e1)
    expect(parked.status).toBe('PARKED')
    expect(parked.reason).toMatch(
      /^event [0-9]+: a message of [0-9]+ bytes, larger than the server's max_payload \(400\)$/,
    )
    expect((await streamMessages(stream)).map((m) => m.msgId)).toEqual([e2])
    // Out of the way of the next test's list of parked events.
    await h.sql`UPDATE domain_event SET status = 'PUBLISHED' WHERE event_id = ${e1}`
  })

  it.skipIf(embedded)(
    'npm run events: lists the parked events and re-queues one',
    async () => {
      const { events } = own()
      const s = supplier()
      const bad = await recordEvent(s, '7')
      const later = await recordEvent(s, '8')
      await publishedExcept([bad, later])
      await h.sql`UPDATE domain_event SET payload = payload - 'operatorId' WHERE event_id = ${bad}`
      await eventsPublishable(h.sql)
      const relay = createEventRelay({ sql: h.sql, logger: h.deps.logger, config: { events } })
      expect(await relay.round()).toEqual({ ran: true, published: 0 })
      const run = (...args: string[]) =>
        spawnSync(process.execPath, ['--import', 'tsx', 'scripts/events.ts', ...args], {
          env: { ...process.env, DATABASE_URL: h.db.url },
          encoding: 'utf8',
        })
      const listed = run('parked')
      expect(listed.status).toBe(0)
      expect(listed.stdout).toContain(`${bad}  SupplierDraftDeleted  SUPPLIER ${s}`)
      expect(listed.stdout).toContain('holding 1 later event(s)')
      expect(listed.stdout).toContain('operatorId')
      const refused = run('requeue', bad)
      expect(refused.status).toBe(1)
      expect(refused.stderr).toContain('STILL_REFUSED')
      await h.sql`
        UPDATE domain_event SET payload = payload || '{"operatorId": "7"}' WHERE event_id = ${bad}`
      const requeued = run('requeue', bad)
      expect(requeued.stderr).toBe('')
      expect(requeued.status).toBe(0)
      expect(await relay.round()).toEqual({ ran: true, published: 2 })
      await relay.stop()
      expect(run('parked').stdout.trim()).toBe('no parked events')
    },
    60_000,
  )
})
