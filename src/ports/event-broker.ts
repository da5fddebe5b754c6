import { jetstream, jetstreamManager, JetStreamApiError } from '@nats-io/jetstream'
import { connect } from '@nats-io/transport-node'
import type { Config } from '../config'

/** Where the relay publishes: JetStream, or a stand-in in tests. */
export interface EventBroker {
  /**
   * Publishes one message and resolves once the stream stored it; `msgId` goes out as the
   * `Nats-Msg-Id` header, so a re-publish within the stream's duplicate window is dropped by
   * JetStream (`duplicate: true`) instead of stored twice. Several may be in flight at once; on
   * one connection the server stores them in the order they were sent.
   */
  publish(subject: string, body: Uint8Array, msgId: string): Promise<{ duplicate: boolean }>
  /** The largest message the server takes, in bytes (undefined: not known). */
  maxPayload?: number
  close(): Promise<void>
}

/**
 * The stream exists but cannot serve the relay as configured (its subjects miss what the relay
 * publishes, its duplicate window is too short): an operator's fix, said in the message.
 */
export class StreamConfigError extends Error {
  override name = 'StreamConfigError'
}

/** JetStream's code for "stream not found". */
const STREAM_NOT_FOUND = 10059

/** Whether the NATS subject pattern `pattern` matches the literal subject `subject`. */
export function subjectMatches(pattern: string, subject: string): boolean {
  const p = pattern.split('.')
  const s = subject.split('.')
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return s.length > i
    if (i >= s.length || (p[i] !== '*' && p[i] !== s[i])) return false
  }
  return p.length === s.length
}

export interface StreamRequirements {
  /** Every subject the relay may publish to; each must be one of the stream's. */
  subjects: readonly string[]
  /** The relay's longest delay before it publishes an acknowledged event again, in ms. */
  minDuplicateWindowMs: number
}

/**
 * What is wrong with a stream for the relay, or undefined: a subject it would publish to that the
 * stream does not take (JetStream would then answer "no responders", which the client reports as
 * "jetstream is not enabled"), or a duplicate window shorter than the relay's longest re-publish
 * delay (a re-published event would then be stored twice).
 */
export function streamProblem(
  stream: { name: string; subjects?: string[]; duplicateWindowMs: number },
  needs: StreamRequirements,
): string | undefined {
  const subjects = stream.subjects ?? []
  const missed = needs.subjects.filter((s) => !subjects.some((p) => subjectMatches(p, s)))
  if (missed.length) {
    return (
      `stream ${stream.name} (subjects ${JSON.stringify(subjects)}) does not take ` +
      `${missed[0]}${missed.length > 1 ? ` nor ${missed.length - 1} more subjects` : ''} ` +
      'the relay publishes to: add the prefix (EVENTS_NATS_SUBJECT_PREFIX) followed by ".>" to ' +
      'its subjects, or name another stream (EVENTS_NATS_STREAM)'
    )
  }
  if (stream.duplicateWindowMs < needs.minDuplicateWindowMs) {
    const s = (ms: number) => `${Math.ceil(ms / 1000)} s`
    return (
      `stream ${stream.name} keeps a duplicate window of ${s(stream.duplicateWindowMs)}, shorter ` +
      `than the relay's longest re-publish delay (${s(needs.minDuplicateWindowMs)}): a ` +
      're-published event would be stored twice; raise its duplicate_window (or ' +
      'EVENTS_NATS_DUPLICATE_WINDOW_SECONDS for a stream the relay creates)'
    )
  }
  return undefined
}

/**
 * Connects to the NATS servers of EVENTS_NATS_URL and makes sure the stream exists (created with
 * the subjects `<prefix>.>` and the configured duplicate window when it does not; an existing one
 * is used as it is) and fits `needs`, else throws a StreamConfigError saying what is wrong. No
 * reconnection of its own: when the connection drops the relay closes it and connects again
 * after its back-off, so an outage is one failure path.
 */
export async function connectJetStream(
  events: Config['events'] & { natsServers: string[] },
  needs?: StreamRequirements,
  timeoutMs = 5000,
): Promise<EventBroker> {
  const nc = await connect({
    servers: events.natsServers,
    name: 'supplier-admin event relay',
    timeout: timeoutMs,
    reconnect: false,
  })
  try {
    const jsm = await jetstreamManager(nc, { timeout: timeoutMs })
    let info
    try {
      info = await jsm.streams.info(events.stream)
    } catch (err) {
      if (!(err instanceof JetStreamApiError) || err.code !== STREAM_NOT_FOUND) throw err
      info = await jsm.streams.add({
        name: events.stream,
        subjects: [`${events.subjectPrefix}.>`],
        duplicate_window: events.duplicateWindowSeconds * 1_000_000_000,
      })
    }
    const problem =
      needs &&
      streamProblem(
        {
          name: events.stream,
          subjects: info.config.subjects,
          duplicateWindowMs: info.config.duplicate_window / 1_000_000,
        },
        needs,
      )
    if (problem) throw new StreamConfigError(problem)
  } catch (err) {
    await nc.close().catch(() => {})
    throw err
  }
  const js = jetstream(nc, { timeout: timeoutMs })
  return {
    async publish(subject, body, msgId) {
      const ack = await js.publish(subject, body, { msgID: msgId, timeout: timeoutMs })
      return { duplicate: ack.duplicate }
    },
    maxPayload: nc.info?.max_payload,
    async close() {
      await nc.close().catch(() => {})
    },
  }
}
