import { z } from 'zod'
import type { Config } from '../config'
import {
  CloudEvent,
  cloudEventType,
  EVENT_CATALOG,
  EVENT_TYPES,
  type EventType,
} from '../schemas/events'

type Json = Record<string, unknown>

/** zod → JSON Schema draft-07, the dialect of AsyncAPI's default schema format. */
const jsonSchema = (schema: z.ZodType): Json => {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, {
    target: 'draft-7',
    unrepresentable: 'any',
    reused: 'inline',
  }) as Json
  return rest
}

/** The aggregate id of an example: the payload's own id of that aggregate where it has one. */
function exampleSubject(aggregate: string, data: Record<string, unknown>) {
  const key = { SUPPLIER: 'supplierId', ACCOUNT: 'accountId', RELATION: 'relationId' }[aggregate]
  return key && typeof data[key] === 'string' ? data[key] : '9007199254741701'
}

/**
 * The AsyncAPI 3.0 document of the events the relay sends, generated from the event catalog:
 * one channel (the NATS subject) and one message per event type, the message's payload the
 * CloudEvent with that type's `data`, and an example of each. The document names no server: where
 * the broker is, is a deployment's (EVENTS_NATS_URL, never published).
 */
export function buildAsyncApi(events: Config['events'], info: { title: string; version: string }) {
  const envelope = jsonSchema(CloudEvent) as Json & { properties: Record<string, Json> }
  const channels: Json = {}
  const operations: Json = {}
  const messages: Json = {}
  for (const type of EVENT_TYPES as EventType[]) {
    const entry = EVENT_CATALOG[type]
    const ceType = cloudEventType(events, type)
    const subject = `${events.subjectPrefix}.${entry.aggregate}.${type}`
    const example = {
      specversion: '1.0',
      id: '9007199254741777',
      source: events.source,
      type: ceType,
      subject: exampleSubject(entry.aggregate, entry.example),
      time: '2026-11-26T09:30:00.123456Z',
      datacontenttype: 'application/json',
      aggregatetype: entry.aggregate,
      data: entry.example,
    }
    messages[type] = {
      name: type,
      title: type,
      summary: entry.summary,
      contentType: 'application/json',
      headers: {
        type: 'object',
        properties: {
          'Nats-Msg-Id': {
            type: 'string',
            description: 'the event id: JetStream drops a re-publish within its duplicate window',
          },
        },
        required: ['Nats-Msg-Id'],
      },
      payload: {
        ...envelope,
        description: `CloudEvent 1.0 (structured JSON) of ${type} v${entry.version}`,
        properties: {
          ...envelope.properties,
          type: { type: 'string', const: ceType },
          aggregatetype: { type: 'string', const: entry.aggregate },
          data: jsonSchema(entry.payload),
        },
      },
      examples: [
        {
          name: `${type}Example`,
          summary: entry.summary,
          headers: { 'Nats-Msg-Id': example.id },
          payload: example,
        },
      ],
    }
    channels[type] = {
      address: subject,
      title: type,
      description: `${entry.summary} (aggregate ${entry.aggregate})`,
      messages: { [type]: { $ref: `#/components/messages/${type}` } },
    }
    operations[`send${type}`] = {
      action: 'send',
      title: `Publish ${type}`,
      summary: `The relay publishes ${type} once its transaction committed`,
      channel: { $ref: `#/channels/${type}` },
      messages: [{ $ref: `#/channels/${type}/messages/${type}` }],
    }
  }
  return {
    asyncapi: '3.0.0',
    info: {
      ...info,
      description:
        'Domain events of the supplier administration service, published by its relay to NATS JetStream (stream `' +
        events.stream +
        '`) as CloudEvents 1.0 in structured JSON mode, each with `Nats-Msg-Id` = the event id. Order: the events of one supplier arrive in the order they committed; across suppliers there is no order, and event ids are not in publication order (resume from the stream sequence, not from an event id). Delivery: at least once; JetStream drops a re-publish within the stream duplicate window, and a consumer that must be exact de-duplicates on the CloudEvent `id`. Payloads carry ids, statuses, codes, field names and masks only, never a plaintext sensitive value. See docs/events.md.',
    },
    defaultContentType: 'application/json',
    channels,
    operations,
    components: { messages },
  }
}
