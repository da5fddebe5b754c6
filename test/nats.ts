import { randomBytes } from 'node:crypto'
import { jetstreamManager } from '@nats-io/jetstream'
import { connect } from '@nats-io/transport-node'
import { expect } from 'vitest'
import type { Sql } from '../sql/db'

/** The machine's NATS server with JetStream (.ci/run starts it when it is down). */
export const NATS_URL = 'nats://127.0.0.1:4222'

/** A stream and subject prefix of the caller's own, so parallel test files never share one. */
export function ownStream(tag = randomBytes(4).toString('hex')) {
  const stream = `TEST_EVENTS_${tag.toUpperCase()}`
  const subjectPrefix = `test.${tag}.events`
  return {
    stream,
    subjectPrefix,
    env: (url = NATS_URL) => ({
      EVENTS_NATS_URL: url,
      EVENTS_NATS_STREAM: stream,
      EVENTS_NATS_SUBJECT_PREFIX: subjectPrefix,
    }),
  }
}

export interface Received {
  seq: number
  subject: string
  msgId: string | undefined
  text: string
  body: any
}

/** Every message the stream holds, in stream order (what a consumer from the start receives). */
export async function streamMessages(stream: string): Promise<Received[]> {
  const nc = await connect({ servers: NATS_URL })
  try {
    const jsm = await jetstreamManager(nc)
    const info = await jsm.streams.info(stream)
    const out: Received[] = []
    for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages; seq++) {
      const m = await jsm.streams.getMessage(stream, { seq })
      if (!m) continue
      const text = new TextDecoder().decode(m.data)
      out.push({
        seq: m.seq,
        subject: m.subject,
        msgId: m.header.get('Nats-Msg-Id') || undefined,
        text,
        body: JSON.parse(text),
      })
    }
    return out
  } finally {
    await nc.close()
  }
}

/** Removes a test's stream (a missing one is fine). */
export async function deleteStream(stream: string) {
  const nc = await connect({ servers: NATS_URL })
  try {
    const jsm = await jetstreamManager(nc)
    await jsm.streams.delete(stream).catch(() => false)
  } finally {
    await nc.close()
  }
}

/**
 * Waits until every PENDING event is publishable: the snapshot's xmin is cluster-wide, so on a
 * shared PostgreSQL a transaction of another database (another test file) can hold it back.
 */
export const eventsPublishable = (sql: Sql) =>
  expect
    .poll(
      async () =>
        (
          await sql<{ n: number }[]>`
            SELECT count(*)::int AS n FROM domain_event
            WHERE status = 'PENDING' AND NOT tx_id < pg_snapshot_xmin(pg_current_snapshot())`
        )[0].n,
      { timeout: 60_000, interval: 100 },
    )
    .toBe(0)
