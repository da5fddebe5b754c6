import { describe, expect, it } from 'vitest'
import { insertEvent, type DomainEvent } from '../sql/outbox'
import { EVENT_CATALOG, EVENT_TYPES, parseEventPayload } from '../src/schemas/events'
import { createDraft } from './client'
import { expectCatalogedEvents, useHarness } from './harness'
import { draftBody } from './supplier-data'

/*
 * The event catalog (src/schemas/events.ts): every writer records through it (tsc checks the
 * type and payload), insertEvent parses the payload before storing it, and every test file's
 * database is checked against it when it closes (test/harness.ts).
 */

const h = useHarness()

const count = async () =>
  Number((await h.sql`SELECT count(*)::int AS n FROM domain_event`)[0].n as number)

describe('event catalog', () => {
  it('each type has version 1, a summary and an example its own schema accepts', () => {
    expect(EVENT_TYPES.length).toBeGreaterThanOrEqual(27)
    for (const type of EVENT_TYPES) {
      const entry = EVENT_CATALOG[type]
      expect(entry.version, type).toBe(1)
      expect(entry.summary.length, type).toBeGreaterThan(10)
      expect(parseEventPayload(type, entry.example), type).toMatchObject({ success: true })
    }
  })

  it('a payload with an undeclared key (a plaintext phone) is refused and nothing is stored', async () => {
    const before = await count()
    const smuggled = {
      aggregateType: 'SUPPLIER',
      aggregateId: '9007199254740993',
      eventType: 'SupplierDraftCreated',
      payload: { supplierId: '9007199254740993', operatorId: '10001', contactPhone: '13912345678' },
    } as DomainEvent
    await expect(insertEvent(h.sql, smuggled)).rejects.toThrow(
      /SupplierDraftCreated payload: \(payload\): unrecognized_keys/,
    )
    await expect(
      insertEvent(h.sql, { ...smuggled, eventType: 'SupplierDeleted' } as unknown as DomainEvent),
    ).rejects.toThrow(/"SupplierDeleted" is not in the event catalog/)
    expect(await count()).toBe(before)
  })

  it('an id as a JSON number is refused: ids are strings', () => {
    const parsed = parseEventPayload('SupplierDraftCreated', { supplierId: 42, operatorId: '1' })
    expect(parsed).toMatchObject({ success: false })
    // The error names the field, never the value.
    expect(JSON.stringify(parsed)).not.toContain('42')
  })

  it('the check the harness runs on close sees a stored event that breaks its schema', async () => {
    await createDraft(h, draftBody())
    await expectCatalogedEvents(h.sql)
    const [row] = await h.sql<{ eventId: string }[]>`
      INSERT INTO domain_event (aggregate_type, aggregate_id, event_type, payload)
      VALUES ('ACCOUNT', 9007199254740993, 'SupplierDraftCreated', '{"supplierId": 1}')
      RETURNING event_id::text AS "eventId"`
    await expect(expectCatalogedEvents(h.sql)).rejects.toThrow(/supplierId/)
    await h.sql`UPDATE domain_event SET payload = '{"supplierId": "1", "operatorId": "2"}'
      WHERE event_id = ${row.eventId}`
    await expect(expectCatalogedEvents(h.sql)).rejects.toThrow(/stored on ACCOUNT/)
    await h.sql`DELETE FROM domain_event WHERE event_id = ${row.eventId}`
  })
})
