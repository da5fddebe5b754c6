import { expect, it } from 'vitest'
import {
  createDraft,
  detail,
  ok,
  refused,
  registerActive,
  remove,
  replaceContacts,
  update,
  type Caller,
} from './client'
import type { Harness } from './harness'
import {
  CERT_NO,
  CONTACT_PHONE,
  PHONE,
  draftBody,
  fullDraftBody,
  uniqueName,
  uniqueTaxNo,
} from './supplier-data'

/*
 * Shared by the SUP-ADM-004 update, contacts replace and SUP-ADM-011 delete tests. Each file
 * remembers every sensitive value it sends and every answer it receives (module state is per
 * test file), so that its last test can prove that none came back or was stored in plaintext.
 */

/** Every plaintext sensitive value this file sends; none may appear in any output. */
export const SECRETS = new Set<string>([PHONE, CONTACT_PHONE, CERT_NO])
/** Every response body this file received, as text. */
export const RESPONSES: string[] = []

let seq = 0
export const next = () => String(++seq % 10_000).padStart(4, '0')
export const secret = (v: string) => {
  SECRETS.add(v)
  return v
}
/** An 11-digit mobile number nobody else in this file uses. */
export const uniquePhone = () => secret(`137${String(Date.now()).slice(-4)}${next()}`)
/** A fresh tax number, remembered as a secret. */
export const taxNo = () => secret(uniqueTaxNo())
/** A fresh 16-digit account number, remembered as a secret. */
export const accountNo = () => secret(`6222${String(Date.now()).slice(-8)}${next()}`)

function remember(body: Record<string, any>) {
  for (const v of [body.taxNo, body.contactPhone]) if (typeof v === 'string') SECRETS.add(v)
  for (const c of body.contacts ?? []) if (c.contactPhone) SECRETS.add(c.contactPhone)
  for (const q of body.qualifications ?? []) if (q.certNo) SECRETS.add(q.certNo)
  for (const a of body.initialAccounts ?? []) if (a.accountNo) SECRETS.add(a.accountNo)
}

/**
 * The shared client (test/client.ts) through a harness whose calls are remembered, with the
 * shapes these tests use: `update` sends a changeReason unless the body has one (it is
 * required on every update), `detail` answers the data, `draft`/`active` answer `{ id, … }`.
 */
export function recordingClient(h: Harness) {
  const recorded: Caller = {
    async call(method, path, options = {}) {
      if (options.body && typeof options.body === 'object') remember(options.body as any)
      const res = await h.call(method, path, options)
      RESPONSES.push(JSON.stringify(res.body))
      return res
    },
  }
  const { call } = recorded

  /** A DRAFT supplier; `full` starts from the complete draft body (contacts, qualification…). */
  async function draft(overrides: Record<string, unknown> = {}, full = false) {
    const body = full ? fullBody(overrides) : draftBody({ taxNo: taxNo(), ...overrides })
    const created = await createDraft(recorded, body)
    return { id: created.supplierId, version: created.version, body }
  }

  /** A complete draft submitted through LOCAL_AUTO and applied: an ACTIVE supplier. */
  async function active(overrides: Record<string, unknown> = {}) {
    const registered = await registerActive(
      recorded,
      undefined,
      fullBody({ types: [{ typeCode: 'OTHER' }], ...overrides }),
    )
    const { supplierId: id, body, version, view } = registered
    return { id, body, version, view, submitted: registered.res.body.data }
  }

  return {
    call,
    ok,
    failed: refused,
    update: (id: string, body: Record<string, unknown>, admin?: string) =>
      update(
        recorded,
        id,
        'changeReason' in body ? body : { changeReason: 'profile upkeep', ...body },
        {
          admin,
        },
      ),
    replaceContacts: (id: string, body: Record<string, unknown>, admin?: string) =>
      replaceContacts(recorded, id, body, { admin }),
    remove: (id: string, admin?: string) => remove(recorded, id, { admin }),
    detail: async (id: string) => ok(await detail(recorded, id)),
    draft,
    active,
  }
}

/** The complete draft body, with a fresh brand name, tax number and account number. */
const fullBody = (overrides: Record<string, unknown>) =>
  fullDraftBody({
    shortName: uniqueName('Brand'),
    taxNo: taxNo(),
    initialAccounts: [
      {
        accountType: 'CORPORATE',
        bankName: 'ICBC Hangzhou',
        accountNo: accountNo(),
        settleMode: 'MONTHLY',
        accountPeriod: 30,
        invoiceType: 'SPECIAL',
        taxRate: 6,
      },
    ],
    ...overrides,
  })

// Direct database checks -------------------------------------------------------------------

interface ChangeRow {
  operation_type: string
  target_type: string
  target_id: string | null
  field_name: string
  old_value_masked: string | null
  new_value_masked: string | null
  change_reason: string | null
  operator_id: string | null
}

export async function changeLogs(h: Harness, supplierId: string, operation?: string) {
  return (await h.sql`
    SELECT operation_type, target_type, target_id::text, field_name, old_value_masked,
           new_value_masked, change_reason, operator_id::text
    FROM change_log
    WHERE supplier_id = ${supplierId} ${operation ? h.sql`AND operation_type = ${operation}` : h.sql``}
    ORDER BY change_log_id
  `) as unknown as ChangeRow[]
}

export async function events(h: Harness, supplierId: string) {
  return (await h.sql`
    SELECT event_type, payload::text AS payload FROM domain_event
    WHERE aggregate_id = ${supplierId} ORDER BY event_id
  `) as unknown as { event_type: string; payload: string }[]
}

/** Fields whose values no event carries (docs/events.md): `******` when set, else null. */
const WITHHELD_IN_EVENTS = new Set(['legalRepresentative', 'contactName', 'contact', 'remark'])

/**
 * Change-log rows as an event's `changes` carries them: the same values, masked the same way,
 * but names of natural persons and remarks withheld.
 */
export const asEventChanges = (
  logs: Omit<ChangeRow, 'operation_type' | 'change_reason' | 'operator_id'>[],
) =>
  logs.map((l) => {
    const withheld = (v: string | null) => (v === null ? null : '******')
    const shown = WITHHELD_IN_EVENTS.has(l.field_name) ? withheld : (v: string | null) => v
    return {
      targetType: l.target_type,
      targetId: l.target_id,
      field: l.field_name,
      old: shown(l.old_value_masked),
      new: shown(l.new_value_masked),
    }
  })

export async function contactRows(h: Harness, supplierId: string) {
  return (await h.sql`
    SELECT contact_id::text AS id, contact_name AS name, deleted_at IS NOT NULL AS deleted
    FROM supplier_contact WHERE supplier_id = ${supplierId} ORDER BY contact_id
  `) as unknown as { id: string; name: string; deleted: boolean }[]
}

export async function bareRows(
  h: Harness,
  table: 'supplier_contract' | 'supplier_evaluation',
  id: string,
) {
  const key = table === 'supplier_contract' ? 'contract_id' : 'evaluation_id'
  return (await h.sql.unsafe(
    `SELECT ${key}::text AS id, to_char(update_time, 'YYYY-MM-DD HH24:MI:SS') AS version,
            deleted_at IS NOT NULL AS deleted
     FROM ${table} WHERE supplier_id = $1 ORDER BY ${key}`,
    [id],
  )) as unknown as { id: string; version: string; deleted: boolean }[]
}

/** Without the two keys that a write is expected to change. */
export const withoutVersion = (view: Record<string, unknown>, ...keys: string[]) => {
  const copy = { ...view }
  for (const k of ['updateTime', ...keys]) delete copy[k]
  return copy
}

/** Every stored or logged text a plaintext sensitive value could leak into. */
export async function leakSources(hh: Harness): Promise<[string, string[]][]> {
  const logs = await hh.sql`SELECT row_to_json(l)::text AS t FROM change_log l`
  const evs = await hh.sql`SELECT payload::text AS t FROM domain_event`
  const approvals = await hh.sql`
    SELECT candidate_snapshot::text || coalesce(failure_reason, '') AS t FROM approval_log`
  return [
    ['change_log', logs.map((x) => x.t as string)],
    ['domain_event', evs.map((x) => x.t as string)],
    ['approval_log', approvals.map((x) => x.t as string)],
    ['logs', hh.logs],
  ]
}

export function expectNoSecrets(sources: [string, string[]][]) {
  for (const [where, texts] of sources) {
    const all = texts.join('\n')
    for (const value of SECRETS) {
      expect(all.includes(value), `${where} contains a plaintext sensitive value`).toBe(false)
      // the normalized form too (lower-case and full-width input is stored upper-case, half-width)
      expect(
        all.includes(value.toUpperCase()),
        `${where} contains a normalized sensitive value`,
      ).toBe(false)
    }
  }
}

/**
 * Registers a file's last test: no sensitive value the file sent is in any answer it received,
 * its change log, events, approvals or log lines.
 */
export function itLeaksNothing(h: Harness) {
  it('security: no sensitive value this file sent is in its answers, change logs, events or log lines', async () => {
    const sources: [string, string[]][] = [['responses', RESPONSES], ...(await leakSources(h))]
    expect(RESPONSES.length).toBeGreaterThan(0)
    expect(sources.find(([where]) => where === 'change_log')![1].length).toBeGreaterThan(0)
    expectNoSecrets(sources)
  })
}
