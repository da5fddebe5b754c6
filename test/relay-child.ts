import pino from 'pino'
import { connect } from '../sql/db'
import { loadConfig } from '../src/config'
import { createEventRelay } from '../src/domain/events/relay'
import { connectJetStream } from '../src/ports/event-broker'

/*
 * A relay in a process of its own, for the kill -9 test (test/events-relay.test.ts): it publishes
 * to the machine's NATS, and once JetStream acknowledged the `stopAfter`-th event it says so on
 * stdout and waits, before its batch is marked PUBLISHED, to be killed.
 * Usage: relay-child.ts <database url> <stream> <subject prefix> <stopAfter>
 */

const [url, stream, subjectPrefix, stopAfter] = process.argv.slice(2)
const sql = connect({ url, max: 2, timezone: 'UTC' })
const events = {
  ...loadConfig({ NODE_ENV: 'test' }).events,
  natsServers: ['nats://127.0.0.1:4222'],
  stream,
  subjectPrefix,
}
let acked = 0
const relay = createEventRelay({
  sql,
  logger: pino({ level: 'silent' }),
  config: { events },
  connectBroker: async () => {
    const real = await connectJetStream(events)
    return {
      async publish(subject, body, msgId) {
        const ack = await real.publish(subject, body, msgId)
        if (++acked === Number(stopAfter)) {
          process.stdout.write(`acked ${msgId}\n`)
          setInterval(() => {}, 1000)
          await new Promise(() => {})
        }
        return ack
      },
      close: () => real.close(),
    }
  },
})
await relay.round()
