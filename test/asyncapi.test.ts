import { Parser } from '@asyncapi/parser'
import { describe, expect, it } from 'vitest'
import { CloudEvent, EVENT_CATALOG, EVENT_TYPES, parseEventPayload } from '../src/schemas/events'
import { useHarness } from './harness'

/*
 * /asyncapi.json: generated from the event catalog, valid for the official AsyncAPI parser, one
 * message per catalog type (every type the suite can store: the harness refuses any other), each
 * with an example that is a CloudEvent its own type accepts.
 */

const h = useHarness({ env: { EVENTS_TYPE_PREFIX: 'org.acme.suppliers' } })

describe('/asyncapi.json', () => {
  it('is public, valid AsyncAPI 3.0 for @asyncapi/parser, and lists every catalog type', async () => {
    const res = await h.call('GET', '/asyncapi.json', { admin: null })
    expect(res.status).toBe(200)
    const doc = res.body
    expect(doc.asyncapi).toBe('3.0.0')
    const { document, diagnostics } = await new Parser().parse(doc)
    // Severity 0 is an error; warnings (hints of style) are shown when the test fails.
    const errors = diagnostics.filter((d) => d.severity === 0)
    expect(errors.map((d) => `${d.path.join('.')}: ${d.message}`)).toEqual([])
    expect(document).toBeDefined()
    // The parser does refuse a broken document: the check above can fail.
    const broken = structuredClone(doc)
    broken.operations[`send${EVENT_TYPES[0]}`].action = 'publish'
    const refused = await new Parser().parse(broken)
    expect(refused.diagnostics.filter((d) => d.severity === 0).length).toBeGreaterThan(0)
    const parsed = document!.allMessages().all()
    expect(parsed.map((m) => m.name()).sort()).toEqual([...EVENT_TYPES].sort())
    for (const m of parsed) {
      expect(m.examples().all().length, m.name()!).toBeGreaterThanOrEqual(1)
    }
    for (const type of EVENT_TYPES) {
      expect(doc.channels[type].address).toBe(
        `supplier.events.${EVENT_CATALOG[type].aggregate}.${type}`,
      )
      const [example] = doc.components.messages[type].examples
      const ce = CloudEvent.parse(example.payload)
      expect(ce.type).toBe(`org.acme.suppliers.${type}.v1`)
      expect(parseEventPayload(type, ce.data)).toMatchObject({ success: true })
      expect(doc.components.messages[type].payload.properties.data.additionalProperties).toBe(false)
    }
  })

  it('is described in /openapi.json as a public route and refuses a query', async () => {
    const openapi = (await h.call('GET', '/openapi.json', { admin: null })).body
    expect(openapi.paths['/asyncapi.json'].get.operationId).toBe('getAsyncApiDocument')
    expect((await h.call('GET', '/asyncapi.json?x=1', { admin: null })).status).toBe(400)
  })
})
