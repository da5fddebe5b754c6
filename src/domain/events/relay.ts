import cluster from 'node:cluster'
import { hostname } from 'node:os'
import {
  markPublished,
  parkEvent,
  publishableEvents,
  publishingHeldBy,
  type PublishableEvent,
} from '../../../sql/outbox'
import { releaseLease, takeLease } from '../../../sql/lease'
import { EVENT_CATALOG, EVENT_TYPES, toCloudEvent } from '../../schemas/events'
import {
  connectJetStream,
  StreamConfigError,
  type EventBroker,
  type StreamRequirements,
} from '../../ports/event-broker'
import type { Deps } from '../deps'

/*
 * The relay: PENDING events of the outbox to NATS JetStream, as CloudEvents, each marked
 * PUBLISHED only once JetStream acknowledged it. One replica at a time (the lease row); the
 * others wait and take over when its lease runs out. A batch is published with many
 * acknowledgements in flight, one at a time per supplier (the order key) in event_id order, and
 * its acknowledged events are marked in one statement. An event that cannot be published (its
 * payload fails today's catalog, it is larger than the server takes) is PARKED with the reason and
 * the relay goes on; the later events of its supplier wait behind it until an operator re-queues
 * it (scripts/events.ts). A broker outage fails a round: the events stay PENDING, the relay
 * connects again after a back-off that doubles up to EVENTS_RELAY_BACKOFF_MAX_MS, and requests
 * never wait for it. A crash between the ack and the mark re-publishes those events on the next
 * round; their Nats-Msg-Id (the event id) makes JetStream drop the copies within the stream's
 * duplicate window, which the relay checks at connection to be longer than its longest
 * re-publish delay (docs/events.md).
 */

/** The lease (sql/lease.ts) that lets one replica at a time relay. */
export const RELAY_JOB = 'event-relay'
/** Renewed every batch; a holder killed mid-round holds the others up this long at most. */
export const RELAY_LEASE_SECONDS = 30
/** The connect and publish deadline (src/ports/event-broker.ts). */
const BROKER_TIMEOUT_MS = 5000
/** Held back by the xmin rule longer than this, the relay names the transaction holding it. */
export const RELAY_HOLD_WARN_MS = 60_000

export type RelayDeps = Pick<Deps, 'sql' | 'logger' | 'observer'> & {
  config: Pick<Deps['config'], 'events'>
  /** The broker to publish to; JetStream at EVENTS_NATS_URL unless a test gives its own. */
  connectBroker?: () => Promise<EventBroker>
  /**
   * Who holds the lease: stable across restarts of one instance (`stableRelayHolder`), so that a
   * restarted process takes its lease back at once; random when not given.
   */
  holder?: string
  /** RELAY_HOLD_WARN_MS unless a test gives a shorter bound. */
  holdWarnMs?: number
}

/** The subject of an event: `<EVENTS_NATS_SUBJECT_PREFIX>.<aggregate type>.<event type>`. */
export const eventSubject = (
  prefix: string,
  e: Pick<PublishableEvent, 'aggregateType' | 'eventType'>,
) => `${prefix}.${e.aggregateType}.${e.eventType}`

/**
 * The lease holder of the instance listening on `port` of this host (and, under node:cluster,
 * its worker): two live instances never share it, a restarted one has it again.
 */
export const stableRelayHolder = (port: number) =>
  `${hostname()}:${port}${cluster.isWorker ? `#${cluster.worker?.id}` : ''}`

/**
 * The relay's longest delay before an event JetStream acknowledged is published again when it
 * was not marked (a crash, a failed round): another replica's takeover after the lease ran out,
 * or the back-off after a failure, then a round's interval and a publish deadline.
 */
export const longestRepublishDelayMs = (events: Deps['config']['events']) =>
  Math.max(RELAY_LEASE_SECONDS * 1000, events.backoffMaxMs) +
  events.relayIntervalMs +
  BROKER_TIMEOUT_MS

/** What the stream must take: every subject of the catalog, a long enough duplicate window. */
export const relayStreamNeeds = (events: Deps['config']['events']): StreamRequirements => ({
  subjects: EVENT_TYPES.map((t) =>
    eventSubject(events.subjectPrefix, { aggregateType: EVENT_CATALOG[t].aggregate, eventType: t }),
  ),
  minDuplicateWindowMs: longestRepublishDelayMs(events),
})

export interface RoundOutcome {
  /** False when another replica holds the relay lease. */
  ran: boolean
  published: number
}

export interface EventRelay {
  /** One round: under the lease, publishes until nothing publishable is left. Throws on failure. */
  round(): Promise<RoundOutcome>
  /**
   * Rounds every EVENTS_RELAY_INTERVAL_MS (a tenth of it after a round that published), backing
   * off after failures, until `stop`.
   */
  start(): void
  /** Ends the loop, waits for the round in flight, closes the connection, frees the lease. */
  stop(): Promise<void>
}

export function createEventRelay(deps: RelayDeps): EventRelay {
  const { events } = deps.config
  const holder = deps.holder ?? crypto.randomUUID()
  const holdWarnMs = deps.holdWarnMs ?? RELAY_HOLD_WARN_MS
  const connectBroker =
    deps.connectBroker ??
    (() =>
      connectJetStream(
        { ...events, natsServers: events.natsServers ?? [] },
        relayStreamNeeds(events),
        BROKER_TIMEOUT_MS,
      ))
  let broker: EventBroker | undefined
  let timer: ReturnType<typeof setTimeout> | undefined
  let running: Promise<unknown> = Promise.resolve()
  let stopped = false
  let failures = 0
  let lastHoldCheck = Date.now()

  const dropBroker = async () => {
    const was = broker
    broker = undefined
    await was?.close()
  }

  /** Connects when not connected; a failed connection counts as a failed publish attempt. */
  async function connected(): Promise<EventBroker> {
    if (broker) return broker
    try {
      broker = await connectBroker()
    } catch (err) {
      deps.observer?.eventPublishFailed()
      throw err
    }
    return broker
  }

  /** The CloudEvent of `event` as bytes, or why it cannot be published. */
  function encode(event: PublishableEvent, to: EventBroker): Uint8Array | { reason: string } {
    let body: Uint8Array
    try {
      body = new TextEncoder().encode(JSON.stringify(toCloudEvent(events, event)))
    } catch (err) {
      return { reason: (err as Error).message }
    }
    if (to.maxPayload && body.byteLength > to.maxPayload) {
      return {
        reason: `event ${event.eventId}: a message of ${body.byteLength} bytes, larger than the server's max_payload (${to.maxPayload})`,
      }
    }
    return body
  }

  async function park(event: PublishableEvent, reason: string) {
    if (!(await parkEvent(deps.sql, event.eventId, reason))) return
    deps.observer?.eventParked?.()
    deps.logger.error(
      {
        eventId: event.eventId,
        eventType: event.eventType,
        aggregateType: event.aggregateType,
        aggregateId: event.aggregateId,
        orderKey: event.orderKey,
        reason,
      },
      'event relay: event PARKED, it cannot be published; the later events of its supplier wait ' +
        'behind it until it is re-queued (npm run events -- requeue <eventId>)',
    )
  }

  /**
   * Publishes a batch, many at once but one at a time per order key, in event_id order within
   * it; a key's chain stops at a parked event or a failure. Marks the acknowledged ones in one
   * statement, then throws the first failure, if any.
   */
  async function publishBatch(to: EventBroker, batch: PublishableEvent[]) {
    const chains = new Map<string, PublishableEvent[]>()
    for (const e of batch) {
      const chain = chains.get(e.orderKey)
      if (chain) chain.push(e)
      else chains.set(e.orderKey, [e])
    }
    const acked: string[] = []
    let failure: { err: unknown } | undefined
    await Promise.all(
      [...chains.values()].map(async (chain) => {
        for (const event of chain) {
          if (failure) return
          const body = encode(event, to)
          if (!(body instanceof Uint8Array)) return park(event, body.reason)
          try {
            await to.publish(eventSubject(events.subjectPrefix, event), body, event.eventId)
          } catch (err) {
            deps.observer?.eventPublishFailed()
            failure ??= { err }
            return
          }
          acked.push(event.eventId)
        }
      }),
    )
    if (acked.length) {
      await markPublished(deps.sql, acked)
      deps.observer?.eventPublished(acked.length)
    }
    if (failure) throw failure.err
    return acked.length
  }

  /** Names the transaction holding publishing back, once it has for longer than the bound. */
  async function watchHold() {
    if (Date.now() - lastHoldCheck < holdWarnMs) return
    lastHoldCheck = Date.now()
    const held = await publishingHeldBy(deps.sql).catch(() => null)
    if (!held || held.held === 0) return
    if (held.ageSeconds !== null && held.ageSeconds * 1000 < holdWarnMs) return
    deps.logger.warn(
      held,
      held.pid === null
        ? 'event relay: committed events held back by a transaction this role cannot see ' +
            '(grant it pg_read_all_stats to have it named)'
        : 'event relay: committed events held back by a long transaction (the xmin rule)',
    )
  }

  async function round(): Promise<RoundOutcome> {
    const outcome: RoundOutcome = { ran: false, published: 0 }
    for (;;) {
      // Taken (or renewed) before each batch: a round never outlives its lease by a batch.
      if (!(await takeLease(deps.sql, RELAY_JOB, holder, RELAY_LEASE_SECONDS))) return outcome
      outcome.ran = true
      // Connected (and the stream checked) before reading: a wrong stream is said at start.
      const to = await connected()
      const batch = await publishableEvents(deps.sql, events.relayBatch)
      outcome.published += batch.length ? await publishBatch(to, batch) : 0
      if (batch.length < events.relayBatch) {
        await watchHold()
        return outcome
      }
    }
  }

  const schedule = (ms: number) => {
    if (stopped) return
    timer = setTimeout(loop, ms)
    timer.unref()
  }

  function loop() {
    running = round().then(
      ({ published }) => {
        failures = 0
        // Under load the next round comes sooner: the backlog waits a tenth of the interval.
        schedule(published > 0 ? Math.ceil(events.relayIntervalMs / 10) : events.relayIntervalMs)
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
        const line = { err: (err as Error).message, failures, retryInMs: delay }
        if (err instanceof StreamConfigError) {
          deps.logger.error(line, 'event relay: the stream does not fit; events stay PENDING')
        } else {
          deps.logger.warn(line, 'event relay: round failed; events stay PENDING')
        }
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
