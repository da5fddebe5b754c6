import { markPublished, publishableEvents } from '../../../sql/outbox'
import { releaseLease, takeLease } from '../../../sql/lease'
import { toCloudEvent, type StoredEvent } from '../../schemas/events'
import { connectJetStream, type EventBroker } from '../../ports/event-broker'
import type { Deps } from '../deps'

/*
 * The relay: PENDING events of the outbox to NATS JetStream, as CloudEvents, in event_id order,
 * each marked PUBLISHED only once JetStream acknowledged it. One replica at a time (the lease
 * row); the others wait and take over when its lease runs out. A broker outage fails a round:
 * the events stay PENDING, the relay connects again after a back-off that doubles up to
 * EVENTS_RELAY_BACKOFF_MAX_MS, and requests never wait for it. A crash between the ack and the
 * mark re-publishes that event on the next round; its Nats-Msg-Id (the event id) makes JetStream
 * drop the copy within the stream's duplicate window (docs/events.md).
 */

/** The lease (sql/lease.ts) that lets one replica at a time relay. */
export const RELAY_JOB = 'event-relay'
/** Renewed every round; a holder killed mid-round holds the others up this long at most. */
export const RELAY_LEASE_SECONDS = 30

export type RelayDeps = Pick<Deps, 'sql' | 'logger' | 'observer'> & {
  config: Pick<Deps['config'], 'events'>
  /** The broker to publish to; JetStream at EVENTS_NATS_URL unless a test gives its own. */
  connectBroker?: () => Promise<EventBroker>
}

/** The subject of an event: `<EVENTS_NATS_SUBJECT_PREFIX>.<aggregate type>.<event type>`. */
export const eventSubject = (prefix: string, e: Pick<StoredEvent, 'aggregateType' | 'eventType'>) =>
  `${prefix}.${e.aggregateType}.${e.eventType}`

export interface RoundOutcome {
  /** False when another replica holds the relay lease. */
  ran: boolean
  published: number
}

export interface EventRelay {
  /** One round: under the lease, publishes until nothing publishable is left. Throws on failure. */
  round(): Promise<RoundOutcome>
  /** Rounds every EVENTS_RELAY_INTERVAL_MS, backing off after failures, until `stop`. */
  start(): void
  /** Ends the loop, waits for the round in flight, closes the connection, frees the lease. */
  stop(): Promise<void>
}

export function createEventRelay(deps: RelayDeps): EventRelay {
  const { events } = deps.config
  const holder = crypto.randomUUID()
  const connectBroker =
    deps.connectBroker ??
    (() => connectJetStream({ ...events, natsServers: events.natsServers ?? [] }))
  let broker: EventBroker | undefined
  let timer: ReturnType<typeof setTimeout> | undefined
  let running: Promise<unknown> = Promise.resolve()
  let stopped = false
  let failures = 0

  const dropBroker = async () => {
    const was = broker
    broker = undefined
    await was?.close()
  }

  async function round(): Promise<RoundOutcome> {
    const outcome: RoundOutcome = { ran: false, published: 0 }
    for (;;) {
      // Taken (or renewed) before each batch: a round never outlives its lease by a batch.
      if (!(await takeLease(deps.sql, RELAY_JOB, holder, RELAY_LEASE_SECONDS))) return outcome
      outcome.ran = true
      const batch = await publishableEvents(deps.sql, events.relayBatch)
      if (batch.length === 0) return outcome
      broker ??= await connectBroker()
      for (const event of batch) {
        const body = new TextEncoder().encode(JSON.stringify(toCloudEvent(events, event)))
        try {
          await broker.publish(eventSubject(events.subjectPrefix, event), body, event.eventId)
        } catch (err) {
          deps.observer?.eventPublishFailed()
          throw err
        }
        await markPublished(deps.sql, event.eventId)
        deps.observer?.eventPublished()
        outcome.published++
      }
      if (batch.length < events.relayBatch) return outcome
    }
  }

  const schedule = (ms: number) => {
    if (stopped) return
    timer = setTimeout(loop, ms)
    timer.unref()
  }

  function loop() {
    running = round().then(
      () => {
        failures = 0
        schedule(events.relayIntervalMs)
      },
      async (err: unknown) => {
        failures++
        await dropBroker()
        // Doubling from the interval, with jitter so that replicas do not retry in step.
        const backoff = Math.min(
          events.backoffMaxMs,
          events.relayIntervalMs * 2 ** Math.min(failures, 20),
        )
        const delay = Math.round(backoff * (0.5 + Math.random() / 2))
        deps.logger.warn(
          { err: (err as Error).message, failures, retryInMs: delay },
          'event relay: round failed; events stay PENDING',
        )
        schedule(delay)
      },
    )
  }

  return {
    round,
    start() {
      stopped = false
      schedule(0)
    },
    async stop() {
      stopped = true
      clearTimeout(timer)
      await running
      await dropBroker()
      await releaseLease(deps.sql, RELAY_JOB, holder).catch(() => {})
    },
  }
}

/** The relay when EVENTS_NATS_URL is set; otherwise nothing runs and events stay PENDING. */
export function startEventRelay(deps: RelayDeps): () => Promise<void> {
  if (!deps.config.events.natsServers) return async () => {}
  const relay = createEventRelay(deps)
  relay.start()
  return () => relay.stop()
}
