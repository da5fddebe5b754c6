import { z } from 'zod'
import {
  CHANGE_TARGET_TYPES,
  RESOURCE_MODULES,
  RISK_FLAG_CODES,
  SUPPLIER_STATUSES,
} from '../vocabulary'
import { idString } from './id'

/*
 * The event catalog: every domain event the service records, with the aggregate it belongs to,
 * its version and the zod schema of its payload. `insertEvent` (sql/outbox.ts) takes only what is
 * declared here, so an unknown type or a wrong payload fails tsc, and it parses the payload before
 * storing it, so nothing undeclared (a plaintext sensitive value above all) reaches the outbox.
 * The relay publishes these payloads as the `data` of CloudEvents, and /asyncapi.json is generated
 * from this catalog. A payload carries ids, statuses, codes, and changed values only as the change
 * log masks them (`changes`): never a tax number, phone, account number or approval opinion.
 */

export const AGGREGATE_TYPES = ['SUPPLIER', 'ACCOUNT', 'RELATION', 'SUPPLIER_TYPE'] as const
export type AggregateType = (typeof AGGREGATE_TYPES)[number]

const id = idString.describe('id (a positive integer as a string)')
const supplierId = id.describe('the supplier')
const accountId = id.describe('the bank account')
const approvalLogId = id.describe('the approval that carries the change')
const operatorId = id.describe('the administrator who made the change')
const fields = z
  .array(z.string().min(1))
  .describe('names of the fields proposed (their values are in the approval, sealed)')
/**
 * Fields whose values no event carries: names of natural persons (the legal representative, a
 * contact; a contact added or removed is summarised by its name) and free text that may hold
 * anything (remarks). A subscriber learns that the field changed and whether it is set: each
 * value is `******`, or null when empty. Their values stay in the change log and the read API,
 * behind their permissions. docs/events.md lists what an event carries.
 */
export const WITHHELD_EVENT_FIELDS: readonly string[] = [
  'legalRepresentative',
  'contactName',
  'contact',
  'remark',
]
const withheld = new Set(WITHHELD_EVENT_FIELDS)
const WITHHELD_VALUE = '******'

/** A change as an event carries it: a withheld field's values as `******` (or null). */
export const forSubscribers = <C extends { field: string; old: string | null; new: string | null }>(
  changes: C[],
): C[] =>
  changes.map((c) =>
    withheld.has(c.field)
      ? {
          ...c,
          old: c.old === null ? null : WITHHELD_VALUE,
          new: c.new === null ? null : WITHHELD_VALUE,
        }
      : c,
  )

const maskedValue = z
  .string()
  .nullable()
  .describe(
    `the value as the change log keeps it: masked when sensitive, cut at 200 characters; for ${WITHHELD_EVENT_FIELDS.join(', ')} only \`${WITHHELD_VALUE}\` (set) or null (empty)`,
  )
const changes = z
  .array(
    z
      .strictObject({
        targetType: z.enum(CHANGE_TARGET_TYPES).describe('what the field belongs to'),
        targetId: id.nullable().describe('the supplier, contact, account, … the field belongs to'),
        field: z.string().min(1),
        old: maskedValue,
        new: maskedValue,
      })
      // Refused, not passed on: a builder that forgot forSubscribers fails its write.
      .refine(
        (c) =>
          !withheld.has(c.field) || [c.old, c.new].every((v) => v === null || v === WITHHELD_VALUE),
        { message: 'a withheld field carries only ****** or null', path: ['new'] },
      ),
  )
  .min(1)
  .describe(
    'the changed fields with their old and new values, masked as in the change log; names of natural persons and remarks withheld',
  )
const riskFlags = z.array(z.enum(RISK_FLAG_CODES)).describe('the account risk flags raised')
const accountNoMask = z.string().describe('the account number, masked (never plaintext)')
const supplierStatus = z.enum(SUPPLIER_STATUSES)
const date = z.iso.date().describe('a calendar date, YYYY-MM-DD')

interface Declared<A extends AggregateType, P extends z.ZodObject> {
  aggregate: A
  version: 1
  summary: string
  payload: P
  example: z.input<P>
}

/** One catalog entry; the payload is strict: an undeclared key is refused, not passed on. */
const event = <A extends AggregateType, S extends z.ZodRawShape>(
  aggregate: A,
  summary: string,
  shape: S,
  example: z.input<z.ZodObject<S>>,
): Declared<A, z.ZodObject<S, z.core.$strict>> => ({
  aggregate,
  version: 1,
  summary,
  payload: z.strictObject(shape),
  example,
})

const S = '9007199254740993'
const A = '9007199254741101'
const P = '9007199254741207'
const OP = '10001'

const notApplied = z.enum(['REJECTED', 'APPLY_FAILED', 'WITHDRAWN'])
const accountOutcome = { supplierId, accountId, approvalLogId }
const accountOutcomeExample = { supplierId: S, accountId: A, approvalLogId: P }

export const EVENT_CATALOG = {
  SupplierDraftCreated: event(
    'SUPPLIER',
    'A supplier draft was created.',
    { supplierId, operatorId },
    { supplierId: S, operatorId: OP },
  ),
  SupplierProfileUpdated: event(
    'SUPPLIER',
    'Profile fields of a supplier changed (or of its contacts, qualifications, business types).',
    { supplierId, changes, operatorId },
    {
      supplierId: S,
      changes: [
        {
          targetType: 'SUPPLIER',
          targetId: S,
          field: 'shortName',
          old: 'Lakeside',
          new: 'Lakeview',
        },
        {
          targetType: 'SUPPLIER',
          targetId: S,
          field: 'taxNo',
          old: null,
          new: '91************712Q',
        },
      ],
      operatorId: OP,
    },
  ),
  SupplierContactsReplaced: event(
    'SUPPLIER',
    "A supplier's contacts were replaced.",
    { supplierId, changes, operatorId },
    {
      supplierId: S,
      changes: [
        {
          targetType: 'CONTACT',
          targetId: '9007199254741411',
          field: 'contactPhone',
          old: '138****5678',
          new: '139****4321',
        },
      ],
      operatorId: OP,
    },
  ),
  SupplierDraftDeleted: event(
    'SUPPLIER',
    'A supplier draft was deleted.',
    { supplierId, operatorId },
    { supplierId: S, operatorId: OP },
  ),
  SupplierRegistrationSubmitted: event(
    'SUPPLIER',
    'A draft was submitted for registration approval (the supplier is VETTING).',
    { supplierId, approvalLogId, operatorId },
    { supplierId: S, approvalLogId: P, operatorId: OP },
  ),
  SupplierActivated: event(
    'SUPPLIER',
    'The registration was approved and applied: the supplier is ACTIVE with its number.',
    { supplierId, supplierNo: z.string().min(1), approvalLogId },
    { supplierId: S, supplierNo: 'SUP202611260001', approvalLogId: P },
  ),
  SupplierRegistrationRejected: event(
    'SUPPLIER',
    'The registration approval was rejected (the supplier is back in DRAFT).',
    { supplierId, approvalLogId, outcome: notApplied },
    { supplierId: S, approvalLogId: P, outcome: 'REJECTED' },
  ),
  SupplierRegistrationWithdrawn: event(
    'SUPPLIER',
    'The registration approval was withdrawn (the supplier is back in DRAFT).',
    { supplierId, approvalLogId, outcome: notApplied },
    { supplierId: S, approvalLogId: P, outcome: 'WITHDRAWN' },
  ),
  SupplierStatusChangeRequested: event(
    'SUPPLIER',
    'A status change (suspend, freeze, blacklist, restore, …) was submitted for approval.',
    {
      supplierId,
      fromStatus: supplierStatus,
      targetStatus: supplierStatus,
      subType: z.string().min(1).nullable(),
      changeReason: z.string().describe("the administrator's stated reason"),
      approvalLogId,
      operatorId,
    },
    {
      supplierId: S,
      fromStatus: 'ACTIVE',
      targetStatus: 'SUSPENDED',
      subType: 'STATUS_SUSPEND',
      changeReason: 'quality audit pending',
      approvalLogId: P,
      operatorId: OP,
    },
  ),
  SupplierStatusChanged: event(
    'SUPPLIER',
    "A supplier's status changed (its approval was applied).",
    {
      supplierId,
      approvalLogId,
      fromStatus: supplierStatus,
      toStatus: supplierStatus,
      subType: z.string().min(1).nullable(),
      changeReason: z.string(),
    },
    {
      supplierId: S,
      approvalLogId: P,
      fromStatus: 'ACTIVE',
      toStatus: 'BLACKLIST',
      subType: 'STATUS_BLACKLIST',
      changeReason: 'fraud confirmed',
    },
  ),
  SupplierStatusChangeNotApplied: event(
    'SUPPLIER',
    'A status change was rejected, withdrawn or could not be applied: the status is unchanged.',
    {
      supplierId,
      approvalLogId,
      fromStatus: supplierStatus,
      targetStatus: supplierStatus,
      outcome: notApplied,
    },
    {
      supplierId: S,
      approvalLogId: P,
      fromStatus: 'ACTIVE',
      targetStatus: 'SUSPENDED',
      outcome: 'REJECTED',
    },
  ),
  SupplierArchived: event(
    'SUPPLIER',
    'A supplier was archived after finance confirmed everything settled.',
    {
      supplierId,
      fromStatus: supplierStatus,
      clearanceRequestId: z.string().min(1),
      checkedAt: z.string().min(1),
      ledgerRevision: z.string().min(1),
      operatorId,
    },
    {
      supplierId: S,
      fromStatus: 'SUSPENDED',
      clearanceRequestId: 'clr-5f0c2d1e',
      checkedAt: '2026-11-26T09:30:00Z',
      ledgerRevision: 'r-20261126-0042',
      operatorId: OP,
    },
  ),
  QualificationExpiring: event(
    'SUPPLIER',
    "A qualification entered its rule's warning window (warningDays before its expiry date).",
    {
      supplierId,
      qualificationId: id.describe('the qualification'),
      qualificationType: z.string().min(1),
      expiryDate: date,
      warningDays: z.number().int().min(0),
    },
    {
      supplierId: S,
      qualificationId: '9007199254741333',
      qualificationType: 'BUSINESS_LICENSE',
      expiryDate: '2026-12-20',
      warningDays: 30,
    },
  ),
  QualificationExpired: event(
    'SUPPLIER',
    'The expiry date of a qualification has passed.',
    {
      supplierId,
      qualificationId: id.describe('the qualification'),
      qualificationType: z.string().min(1),
      expiryDate: date,
    },
    {
      supplierId: S,
      qualificationId: '9007199254741333',
      qualificationType: 'BUSINESS_LICENSE',
      expiryDate: '2026-11-25',
    },
  ),
  BankAccountCreateSubmitted: event(
    'ACCOUNT',
    'A new bank account was submitted for approval.',
    { supplierId, accountId, accountNoMask, riskFlags, approvalLogId, operatorId },
    {
      supplierId: S,
      accountId: A,
      accountNoMask: '**** **** 0123',
      riskFlags: [],
      approvalLogId: P,
      operatorId: OP,
    },
  ),
  BankAccountActivated: event(
    'ACCOUNT',
    'A bank account became ACTIVE (its approval, or the registration it came with, was applied).',
    {
      supplierId,
      accountId,
      approvalLogId,
      accountNoMask: accountNoMask.nullable().optional(),
      riskFlags: riskFlags.optional(),
    },
    {
      supplierId: S,
      accountId: A,
      approvalLogId: P,
      accountNoMask: '**** **** 0123',
      riskFlags: [],
    },
  ),
  BankAccountRejected: event(
    'ACCOUNT',
    'The approval of a new bank account was rejected.',
    accountOutcome,
    accountOutcomeExample,
  ),
  BankAccountApplyFailed: event(
    'ACCOUNT',
    'A new bank account was approved but could not be applied.',
    accountOutcome,
    accountOutcomeExample,
  ),
  BankAccountWithdrawn: event(
    'ACCOUNT',
    'The approval of a new bank account was withdrawn.',
    accountOutcome,
    accountOutcomeExample,
  ),
  BankAccountChangeSubmitted: event(
    'ACCOUNT',
    'A change of a bank account was submitted for approval.',
    { supplierId, accountId, fields, riskFlags, approvalLogId, operatorId },
    {
      supplierId: S,
      accountId: A,
      fields: ['accountNo', 'bankName'],
      riskFlags: [],
      approvalLogId: P,
      operatorId: OP,
    },
  ),
  BankAccountChanged: event(
    'ACCOUNT',
    'A change of a bank account was approved and applied.',
    { supplierId, accountId, approvalLogId, changes, accountNoMask, riskFlags },
    {
      supplierId: S,
      accountId: A,
      approvalLogId: P,
      changes: [
        {
          targetType: 'ACCOUNT',
          targetId: A,
          field: 'accountNo',
          old: '**** **** 0123',
          new: '**** **** 0456',
        },
      ],
      accountNoMask: '**** **** 0456',
      riskFlags: [],
    },
  ),
  BankAccountChangeRejected: event(
    'ACCOUNT',
    'A change of a bank account was rejected: the account is unchanged.',
    accountOutcome,
    accountOutcomeExample,
  ),
  BankAccountChangeApplyFailed: event(
    'ACCOUNT',
    'A change of a bank account was approved but could not be applied: the account is unchanged.',
    accountOutcome,
    accountOutcomeExample,
  ),
  BankAccountChangeWithdrawn: event(
    'ACCOUNT',
    'A change of a bank account was withdrawn: the account is unchanged.',
    accountOutcome,
    accountOutcomeExample,
  ),
  BankAccountDefaultChanged: event(
    'ACCOUNT',
    "The supplier's default bank account changed.",
    { supplierId, accountId, previousAccountId: accountId.nullable(), operatorId },
    { supplierId: S, accountId: A, previousAccountId: null, operatorId: OP },
  ),
  SupplierResourceRelationSet: event(
    'RELATION',
    'A resource (vehicle, driver, …) was bound to a supplier, or rebound from another.',
    {
      relationId: id.describe('the relation'),
      supplierId,
      resourceModule: z.enum(RESOURCE_MODULES),
      resourceId: z.string().min(1),
      previousRelationId: id.nullable(),
      previousSupplierId: id.nullable(),
    },
    {
      relationId: '9007199254741501',
      supplierId: S,
      resourceModule: RESOURCE_MODULES[0],
      resourceId: 'V-1024',
      previousRelationId: '9007199254741499',
      previousSupplierId: '9007199254740995',
    },
  ),
  SupplierResourceRelationUnbound: event(
    'RELATION',
    'A resource was unbound from its supplier.',
    {
      relationId: id.describe('the relation'),
      supplierId,
      resourceModule: z.enum(RESOURCE_MODULES),
      resourceId: z.string().min(1),
    },
    {
      relationId: '9007199254741501',
      supplierId: S,
      resourceModule: RESOURCE_MODULES[0],
      resourceId: 'V-1024',
    },
  ),
  QualificationRulesReplaced: event(
    'SUPPLIER_TYPE',
    'The qualification rules of a supplier type were replaced.',
    { typeCode: z.string().min(1), ruleIds: z.array(id), operatorId },
    { typeCode: 'LOGISTICS', ruleIds: ['9007199254741601'], operatorId: OP },
  ),
} as const

export type EventType = keyof typeof EVENT_CATALOG
export const EVENT_TYPES = Object.keys(EVENT_CATALOG) as EventType[]

/** What a writer records: the catalog decides the aggregate and the payload of each type. */
export type DomainEvent = {
  [T in EventType]: {
    aggregateType: (typeof EVENT_CATALOG)[T]['aggregate']
    aggregateId: string
    eventType: T
    payload: z.input<(typeof EVENT_CATALOG)[T]['payload']>
  }
}[EventType]

/**
 * The events an approval command opens with (`openApproval`): the writer gives the payload
 * without the approval's id and the operator, which the approval command adds.
 */
export type OpeningEvent = DomainEvent extends infer E
  ? E extends DomainEvent & { payload: { approvalLogId: string; operatorId: string } }
    ? Omit<E, 'payload'> & { payload: Omit<E['payload'], 'approvalLogId' | 'operatorId'> }
    : never
  : never

/** The payload of `type`, or an error naming what is wrong (never echoing a value). */
export function parseEventPayload(type: string, payload: unknown) {
  if (!Object.hasOwn(EVENT_CATALOG, type)) {
    return { success: false as const, error: `"${type}" is not in the event catalog` }
  }
  const parsed = EVENT_CATALOG[type as EventType].payload.safeParse(payload)
  if (parsed.success) return { success: true as const, data: parsed.data }
  const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(payload)'}: ${i.code}`)
  return { success: false as const, error: `${type} payload: ${problems.join('; ')}` }
}

/** An event as the outbox stores it (sql/outbox.ts reads it back in this shape). */
export interface StoredEvent {
  eventId: string
  aggregateType: string
  aggregateId: string
  eventType: string
  payload: unknown
  /** RFC 3339, UTC. */
  createTime: string
}

/** How the service names its events as CloudEvents (EVENTS_TYPE_PREFIX, EVENTS_SOURCE). */
export interface CloudEventNaming {
  typePrefix: string
  source: string
}

/** The CloudEvents `type` of a catalog type: `<prefix>.<EventType>.v<version>`. */
export const cloudEventType = (naming: Pick<CloudEventNaming, 'typePrefix'>, type: EventType) =>
  `${naming.typePrefix}.${type}.v${EVENT_CATALOG[type].version}`

/** A CloudEvent 1.0 in structured JSON mode, as the relay publishes it. */
export const CloudEvent = z.strictObject({
  specversion: z.literal('1.0'),
  id: idString.describe('the event id (unique per source; the same on every re-publish)'),
  source: z.string().min(1).describe('EVENTS_SOURCE'),
  type: z.string().min(1).describe('<EVENTS_TYPE_PREFIX>.<event type>.v<version>'),
  subject: idString.describe('the id of the aggregate the event is about'),
  time: z.iso
    .datetime()
    .describe(
      'when the writing transaction began (RFC 3339, UTC): not its commit time, and not an order',
    ),
  datacontenttype: z.literal('application/json'),
  aggregatetype: z.enum(AGGREGATE_TYPES).describe('extension: the aggregate `subject` names'),
  data: z.record(z.string(), z.unknown()).describe('the payload, as the catalog declares it'),
})
export type CloudEvent = z.output<typeof CloudEvent>

/**
 * A stored payload with its withheld fields withheld: an event recorded before they were (with a
 * contact's name in `changes`) is published as one recorded now would be, not refused.
 */
function withheldFromStored(payload: unknown): unknown {
  if (typeof payload !== 'object' || payload === null || !('changes' in payload)) return payload
  const { changes } = payload as { changes: unknown }
  const isChange = (c: unknown): c is { field: string; old: string | null; new: string | null } =>
    typeof c === 'object' && c !== null && typeof (c as { field?: unknown }).field === 'string'
  if (!Array.isArray(changes) || !changes.every(isChange)) return payload
  return { ...payload, changes: forSubscribers(changes) }
}

/**
 * The CloudEvent of a stored event. The payload is parsed by its catalog schema again, so a row
 * changed by hand or written before the catalog is refused here rather than published (the
 * relay parks it, with this error as the reason: it names fields and checks, never a value).
 */
export function toCloudEvent(naming: CloudEventNaming, event: StoredEvent): CloudEvent {
  const parsed = parseEventPayload(event.eventType, withheldFromStored(event.payload))
  if (!parsed.success) throw new Error(`event ${event.eventId}: ${parsed.error}`)
  const type = event.eventType as EventType
  const aggregate = EVENT_CATALOG[type].aggregate
  if (aggregate !== event.aggregateType) {
    throw new Error(`event ${event.eventId}: ${type} is an event of ${aggregate}`)
  }
  return {
    specversion: '1.0',
    id: event.eventId,
    source: naming.source,
    type: cloudEventType(naming, type),
    subject: event.aggregateId,
    time: event.createTime,
    datacontenttype: 'application/json',
    aggregatetype: aggregate,
    data: parsed.data,
  }
}
