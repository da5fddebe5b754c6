import { jetstream, jetstreamManager, JetStreamApiError } from '@nats-io/jetstream'
import { connect } from '@nats-io/transport-node'
import type { Config } from '../config'

/** Where the relay publishes: JetStream, or a stand-in in tests. */
export interface EventBroker {
  /**
   * Publishes one message and resolves once the stream stored it; `msgId` goes out as the
   * `Nats-Msg-Id` header, so a re-publish within the stream's duplicate window is dropped by
   * JetStream (`duplicate: true`) instead of stored twice.
   */
  publish(subject: string, body: Uint8Array, msgId: string): Promise<{ duplicate: boolean }>
  close(): Promise<void>
}

/** JetStream's code for "stream not found". */
const STREAM_NOT_FOUND = 10059

/**
 * Connects to the NATS servers of EVENTS_NATS_URL and makes sure the stream exists (created with
 * the subjects `<prefix>.>` and the configured duplicate window when it does not; an existing one
 * is used as it is). No reconnection of its own: when the connection drops the relay closes it
 * and connects again after its back-off, so an outage is one failure path.
 */
export async function connectJetStream(
  events: Config['events'] & { natsServers: string[] },
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
    try {
      await jsm.streams.info(events.stream)
    } catch (err) {
      if (!(err instanceof JetStreamApiError) || err.code !== STREAM_NOT_FOUND) throw err
      await jsm.streams.add({
        name: events.stream,
        subjects: [`${events.subjectPrefix}.>`],
        duplicate_window: events.duplicateWindowSeconds * 1_000_000_000,
      })
    }
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
    async close() {
      await nc.close().catch(() => {})
    },
  }
}
