import { describe, expect, it } from 'vitest'
import { ALL_PERMISSIONS, useHarness, type CallOptions, type Harness } from './harness'
import {
  CERT_NO,
  CONTACT_PHONE,
  PHONE,
  STORAGE,
  draftBody,
  fullDraftBody,
  uniqueName,
  uniqueTaxNo,
} from './supplier-data'

/*
 * SUP-ADM-004 update (PUT /items/{id}), contacts replace (PUT /items/{id}/contacts) and
 * SUP-ADM-011 delete draft (DELETE /items/{id}), through the HTTP API on a real database.
 */

const ITEMS = '/admin/supplier/items'

// Sensitive values and everything that came back -------------------------------------------

/** Every plaintext sensitive value this file sends; none may appear in any output. */
const SECRETS = new Set<string>([PHONE, CONTACT_PHONE, CERT_NO])
/** Every response body this file received, as text. */
const RESPONSES: string[] = []

let seq = 0
const next = () => String(++seq % 10_000).padStart(4, '0')
const secret = (v: string) => {
  SECRETS.add(v)
  return v
}
/** An 11-digit mobile number nobody else in this file uses. */
const uniquePhone = () => secret(`137${String(Date.now()).slice(-4)}${next()}`)
/** A fresh tax number, remembered as a secret. */
const taxNo = () => secret(uniqueTaxNo())
/** A fresh 16-digit account number, remembered as a secret. */
const accountNo = () => secret(`6222${String(Date.now()).slice(-8)}${next()}`)
/** Full-width form of an ASCII string (U+FF01..U+FF5E, ideographic space). */
const fullWidth = (s: string) =>
  [...s]
    .map((ch) =>
      ch === ' '
        ? '\u3000'
        : ch >= '!' && ch <= '~'
          ? String.fromCharCode(ch.charCodeAt(0) + 0xfee0)
          : ch,
    )
    .join('')

function remember(body: Record<string, any>) {
  for (const v of [body.taxNo, body.contactPhone]) if (typeof v === 'string') SECRETS.add(v)
  for (const c of body.contacts ?? []) if (c.contactPhone) SECRETS.add(c.contactPhone)
  for (const q of body.qualifications ?? []) if (q.certNo) SECRETS.add(q.certNo)
  for (const a of body.initialAccounts ?? []) if (a.accountNo) SECRETS.add(a.accountNo)
}

// Calls ----------------------------------------------------------------------------------------

function client(h: Harness) {
  const call = async (method: string, path: string, options: CallOptions = {}) => {
    if (options.body && typeof options.body === 'object') remember(options.body as any)
    const res = await h.call(method, path, options)
    RESPONSES.push(JSON.stringify(res.body))
    return res
  }

  const ok = (res: { status: number; body: any }) => {
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body, JSON.stringify(res.body)).toMatchObject({ code: 200, success: true })
    return res.body.data
  }

  const failed = (res: { status: number; body: any }, code: number, field?: string) => {
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body, JSON.stringify(res.body)).toMatchObject({ code, success: false })
    if (field) expect(res.body.message).toContain(field)
  }

  /** changeReason is required on every update: a body that leaves it out gets one. */
  const update = (id: string, body: Record<string, unknown>, admin?: string) =>
    call('PUT', `${ITEMS}/${id}`, {
      body: 'changeReason' in body ? body : { changeReason: 'profile upkeep', ...body },
      admin,
    })
  const replaceContacts = (id: string, body: Record<string, unknown>, admin?: string) =>
    call('PUT', `${ITEMS}/${id}/contacts`, { body, admin })
  const remove = (id: string, admin?: string) => call('DELETE', `${ITEMS}/${id}`, { admin })
  const detail = async (id: string) => ok(await call('GET', `${ITEMS}/${id}`))

  /** A DRAFT supplier; `full` starts from the complete draft body (contacts, qualification…). */
  async function draft(overrides: Record<string, unknown> = {}, full = false) {
    const body = full
      ? fullDraftBody({
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
      : draftBody({ taxNo: taxNo(), ...overrides })
    const data = ok(await call('POST', ITEMS, { body }))
    expect(data.status).toBe('DRAFT')
    return { id: data.supplierId as string, version: data.updateTime as string, body }
  }

  /** A complete draft submitted through LOCAL_AUTO and applied: an ACTIVE supplier. */
  async function active(overrides: Record<string, unknown> = {}) {
    const created = await draft({ types: [{ typeCode: 'OTHER' }], ...overrides }, true)
    const {
      contacts: _c,
      qualifications: _q,
      initialAccounts: _a,
      ...subject
    } = created.body as Record<string, unknown>
    const submitted = ok(
      await call('POST', `${ITEMS}/${created.id}/submit`, {
        body: { ...subject, expectedUpdateTime: created.version },
      }),
    )
    const view = await detail(created.id)
    return { ...created, submitted, version: view.updateTime as string, view }
  }

  return { call, ok, failed, update, replaceContacts, remove, detail, draft, active }
}

// Direct database checks -------------------------------------------------------------------

const STATE_TABLES = [
  'supplier',
  'supplier_type',
  'supplier_contact',
  'supplier_qualification',
  'supplier_contract',
  'supplier_evaluation',
  'supplier_bank_account',
  'change_log',
  'domain_event',
  'approval_log',
  'submit_guard',
  'idempotency_record',
] as const

/** Row count and a digest of every row of every table a write may touch. */
async function state(h: Harness) {
  const out: Record<string, string> = {}
  for (const table of STATE_TABLES) {
    const [row] = await h.sql.unsafe(
      `SELECT count(*)::text AS n, coalesce(md5(string_agg(t::text, '|' ORDER BY t::text)), '') AS d FROM ${table} t`,
    )
    out[table] = `${row.n}:${row.d}`
  }
  return out
}

/** Runs a failing request and proves that it wrote nothing at all. */
async function unchanged(h: Harness, work: () => Promise<void>) {
  const before = await state(h)
  await work()
  expect(await state(h)).toEqual(before)
}

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

async function changeLogs(h: Harness, supplierId: string, operation?: string) {
  return (await h.sql`
    SELECT operation_type, target_type, target_id::text, field_name, old_value_masked,
           new_value_masked, change_reason, operator_id::text
    FROM change_log
    WHERE supplier_id = ${supplierId} ${operation ? h.sql`AND operation_type = ${operation}` : h.sql``}
    ORDER BY change_log_id
  `) as unknown as ChangeRow[]
}

async function events(h: Harness, supplierId: string) {
  return (await h.sql`
    SELECT event_type, payload::text AS payload FROM domain_event
    WHERE aggregate_id = ${supplierId} ORDER BY event_id
  `) as unknown as { event_type: string; payload: string }[]
}

async function contactRows(h: Harness, supplierId: string) {
  return (await h.sql`
    SELECT contact_id::text AS id, contact_name AS name, deleted_at IS NOT NULL AS deleted
    FROM supplier_contact WHERE supplier_id = ${supplierId} ORDER BY contact_id
  `) as unknown as { id: string; name: string; deleted: boolean }[]
}

async function bareRows(
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
const withoutVersion = (view: Record<string, unknown>, ...keys: string[]) => {
  const copy = { ...view }
  for (const k of ['updateTime', ...keys]) delete copy[k]
  return copy
}

/** Every stored or logged text a plaintext sensitive value could leak into. */
async function leakSources(hh: Harness): Promise<[string, string[]][]> {
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

function expectNoSecrets(sources: [string, string[]][]) {
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

const h = useHarness()
const c = client(h)

// ----------------------------------------------------------------------------------------------

describe('SUP-ADM-004 patch semantics', () => {
  it('sending only shortName changes only shortName; everything else in the detail stays', async () => {
    const s = await c.draft({}, true)
    const before = await c.detail(s.id)
    const shortName = uniqueName('Renamed')
    const written = c.ok(
      await c.update(s.id, { shortName, changeReason: 'brand', expectedUpdateTime: s.version }),
    )
    expect(written).toEqual({
      supplierId: s.id,
      supplierNo: null,
      status: 'DRAFT',
      onboardingStage: expect.any(String),
      initialAccounts: [expect.objectContaining({ status: 'DRAFT' })],
      updateTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
    })
    expect(written.updateTime).not.toBe(s.version)
    const after = await c.detail(s.id)
    expect(after.shortName).toBe(shortName)
    expect(after.updateTime).toBe(written.updateTime)
    expect(withoutVersion(after, 'shortName')).toEqual(withoutVersion(before, 'shortName'))
    const logs = await changeLogs(h, s.id, 'DRAFT_UPDATE')
    expect(logs).toHaveLength(1)
    expect(logs[0]).toMatchObject({
      target_type: 'SUPPLIER',
      target_id: s.id,
      field_name: 'shortName',
      old_value_masked: s.body.shortName,
      new_value_masked: shortName,
      change_reason: 'brand',
    })
  })

  it('null clears an optional field and is logged as a change to null', async () => {
    const s = await c.draft({}, true)
    const written = c.ok(
      await c.update(s.id, {
        address: null,
        legalRepresentative: null,
        expectedUpdateTime: s.version,
      }),
    )
    const after = await c.detail(s.id)
    expect(after.address).toBeNull()
    expect(after.legalRepresentative).toBeNull()
    expect(after.businessScope).toBe(s.body.businessScope)
    expect(after.updateTime).toBe(written.updateTime)
    const logs = await changeLogs(h, s.id, 'DRAFT_UPDATE')
    expect(logs.map((l) => [l.field_name, l.old_value_masked, l.new_value_masked]).sort()).toEqual(
      [
        ['address', s.body.address, null],
        ['legalRepresentative', s.body.legalRepresentative, null],
      ].sort(),
    )
  })

  it('approveNote is logged only as a mask and never shown in the detail', async () => {
    const s = await c.draft()
    const note = 'Checked by Zhang, call back later'
    c.ok(await c.update(s.id, { approveNote: note, expectedUpdateTime: s.version }))
    const [log] = await changeLogs(h, s.id, 'DRAFT_UPDATE')
    expect(log).toMatchObject({
      field_name: 'approveNote',
      old_value_masked: null,
      new_value_masked: '******',
    })
    const view = await c.detail(s.id)
    expect(view).not.toHaveProperty('approveNote')
    expect(JSON.stringify(view)).not.toContain(note)
    const [row] = await h.sql`
      SELECT approve_note, approve_note_enc FROM supplier WHERE supplier_id = ${s.id}
    `
    expect(row.approve_note).toBeNull()
    expect(await h.cipher.decrypt(row.approve_note_enc)).toBe(note)
  })

  it('writes exactly one change-log row per changed field, masked, with the reason (DRAFT_UPDATE)', async () => {
    const s = await c.draft({}, true)
    const admin = await h.admin()
    const newPhone = uniquePhone()
    const newTax = taxNo()
    const evBefore = (await events(h, s.id)).length
    c.ok(
      await c.update(
        s.id,
        {
          shortName: s.body.shortName, // unchanged: no row
          address: 'Ningbo, Haishu district',
          contactPhone: newPhone,
          taxNo: newTax,
          changeReason: 'licence renewed',
          expectedUpdateTime: s.version,
        },
        admin,
      ),
    )
    const logs = await changeLogs(h, s.id, 'DRAFT_UPDATE')
    expect(logs.map((l) => l.field_name).sort()).toEqual(['address', 'contactPhone', 'taxNo'])
    for (const l of logs) {
      expect(l).toMatchObject({ change_reason: 'licence renewed', operator_id: admin })
    }
    const byField = Object.fromEntries(logs.map((l) => [l.field_name, l]))
    expect(byField.contactPhone).toMatchObject({
      old_value_masked: '138****5678',
      new_value_masked: `137****${newPhone.slice(-4)}`,
    })
    expect(byField.taxNo.old_value_masked).toBe(
      `${s.body.taxNo.slice(0, 2)}${'*'.repeat(s.body.taxNo.length - 6)}${s.body.taxNo.slice(-4)}`,
    )
    expect(byField.taxNo.new_value_masked).toBe(
      `${newTax.slice(0, 2)}${'*'.repeat(newTax.length - 6)}${newTax.slice(-4)}`,
    )
    const text = JSON.stringify(logs)
    for (const v of [PHONE, newPhone, s.body.taxNo, newTax]) expect(text).not.toContain(v)
    const view = await c.detail(s.id)
    expect(view.contactPhoneMask).toBe(`137****${newPhone.slice(-4)}`)
    expect(view.taxNoMask).toBe(byField.taxNo.new_value_masked)
    const evs = await events(h, s.id)
    expect(evs).toHaveLength(evBefore + 1)
    expect(evs.at(-1)!.event_type).toBe('SupplierProfileUpdated')
    for (const v of [newPhone, newTax]) expect(evs.at(-1)!.payload).not.toContain(v)
  })

  it('logs PROFILE_UPDATE for an ACTIVE supplier', async () => {
    const s = await c.active()
    expect(s.view.status).toBe('ACTIVE')
    c.ok(
      await c.update(s.id, {
        businessScope: 'Hotels and tickets',
        changeReason: 'scope widened',
        expectedUpdateTime: s.version,
      }),
    )
    const logs = (await changeLogs(h, s.id)).filter(
      (l) => l.operation_type === 'PROFILE_UPDATE' || l.operation_type === 'DRAFT_UPDATE',
    )
    expect(logs).toHaveLength(1)
    expect(logs[0]).toMatchObject({
      operation_type: 'PROFILE_UPDATE',
      field_name: 'businessScope',
      old_value_masked: 'Travel services',
      new_value_masked: 'Hotels and tickets',
      change_reason: 'scope widened',
    })
    expect((await c.detail(s.id)).businessScope).toBe('Hotels and tickets')
  })

  it('every write moves the version to a later second, even several writes in one second', async () => {
    const s = await c.draft()
    const versions = [s.version]
    for (let i = 0; i < 4; i++) {
      const data = c.ok(
        await c.update(s.id, { remark: `note ${i}`, expectedUpdateTime: versions.at(-1) }),
      )
      versions.push(data.updateTime)
    }
    expect(new Set(versions).size).toBe(versions.length)
    for (let i = 1; i < versions.length; i++) expect(versions[i] > versions[i - 1]).toBe(true)
    expect((await c.detail(s.id)).updateTime).toBe(versions.at(-1))
    // the old versions are all stale now
    c.failed(await c.update(s.id, { remark: 'late', expectedUpdateTime: versions[3] }), 395003)
  })
})

describe('SUP-ADM-004 at least one actual change', () => {
  it('a body with only changeReason and expectedUpdateTime is 395012 and writes nothing', async () => {
    const s = await c.draft({}, true)
    await unchanged(h, async () => {
      c.failed(
        await c.update(s.id, { changeReason: 'nothing', expectedUpdateTime: s.version }),
        395012,
      )
    })
  })

  it('resending identical values (subject fields and collections) is 395012 and writes nothing', async () => {
    const s = await c.draft({}, true)
    const view = await c.detail(s.id)
    await unchanged(h, async () => {
      c.failed(
        await c.update(s.id, {
          fullName: ` ${s.body.fullName} `,
          taxNo: s.body.taxNo.toLowerCase(),
          shortName: s.body.shortName,
          address: s.body.address,
          contactPhone: PHONE,
          establishDate: s.body.establishDate,
          staffScale: s.body.staffScale,
          types: [{ typeCode: 'OTHER' }],
          changeReason: 'same',
          expectedUpdateTime: s.version,
        }),
        395012,
      )
      c.failed(
        await c.update(s.id, {
          contacts: view.contacts.map((ct: any) => ({
            contactId: ct.contactId,
            expectedUpdateTime: ct.updateTime,
            contactName: ct.contactName,
            contactPhone: CONTACT_PHONE,
            contactRole: ct.contactRole,
          })),
          qualifications: view.qualifications.map((q: any) => ({
            qualificationId: q.qualificationId,
            expectedUpdateTime: q.updateTime,
            qualType: q.qualType,
            certNo: CERT_NO,
            imageUrl: q.imageUrl,
            expiryDate: q.expiryDate,
          })),
          expectedUpdateTime: s.version,
        }),
        395012,
      )
    })
  })
})

describe('SUP-ADM-004 version', () => {
  it('a stale expectedUpdateTime is 395003 and writes nothing', async () => {
    const s = await c.draft()
    const first = c.ok(await c.update(s.id, { remark: 'first', expectedUpdateTime: s.version }))
    await unchanged(h, async () => {
      c.failed(await c.update(s.id, { remark: 'second', expectedUpdateTime: s.version }), 395003)
    })
    expect((await c.detail(s.id)).remark).toBe('first')
    expect((await c.detail(s.id)).updateTime).toBe(first.updateTime)
  })

  it('a malformed or missing expectedUpdateTime is 400 naming the field', async () => {
    const s = await c.draft()
    await unchanged(h, async () => {
      for (const expectedUpdateTime of ['2024-01-01T00:00:00', '2024-01-01', s.version + '.000']) {
        c.failed(
          await c.update(s.id, { remark: 'x', expectedUpdateTime }),
          400,
          'expectedUpdateTime',
        )
      }
      c.failed(await c.update(s.id, { remark: 'x' }), 400, 'expectedUpdateTime')
    })
  })

  it('two concurrent updates with the same version: exactly one wins, five rounds', async () => {
    const s = await c.draft()
    for (let round = 0; round < 5; round++) {
      const version = (await c.detail(s.id)).updateTime as string
      const logsBefore = (await changeLogs(h, s.id)).length
      const eventsBefore = (await events(h, s.id)).length
      const [adminA, adminB] = [await h.admin(), await h.admin()]
      const values = [`Alpha ${round} ${uniqueName('A')}`, `Beta ${round} ${uniqueName('B')}`]
      const results = await Promise.all([
        c.update(s.id, { shortName: values[0], expectedUpdateTime: version }, adminA),
        c.update(s.id, { shortName: values[1], expectedUpdateTime: version }, adminB),
      ])
      const codes = results.map((r) => r.body.code)
      const winners = codes.flatMap((code, i) => (code === 200 ? [i] : []))
      expect(winners, JSON.stringify(codes)).toHaveLength(1)
      const loser = codes[1 - winners[0]]
      expect([395014, 395003]).toContain(loser)
      expect(results[1 - winners[0]].body.success).toBe(false)
      const view = await c.detail(s.id)
      expect(view.shortName).toBe(values[winners[0]])
      expect(view.updateTime).toBe(results[winners[0]].body.data.updateTime)
      const logs = (await changeLogs(h, s.id)).slice(logsBefore)
      expect(logs).toHaveLength(1)
      expect(logs[0]).toMatchObject({
        field_name: 'shortName',
        new_value_masked: values[winners[0]],
        operator_id: [adminA, adminB][winners[0]],
      })
      expect((await events(h, s.id)).length).toBe(eventsBefore + 1)
    }
  })

  it('an update and a contacts replace racing on the same version: exactly one wins, three rounds', async () => {
    const s = await c.draft({
      contacts: [{ contactName: 'Race One', contactPhone: uniquePhone() }],
    })
    for (let round = 0; round < 3; round++) {
      const view = await c.detail(s.id)
      const logsBefore = (await changeLogs(h, s.id)).length
      const results = await Promise.all([
        c.update(s.id, { remark: `race ${round}`, expectedUpdateTime: view.updateTime }),
        c.replaceContacts(s.id, {
          contacts: [
            ...view.contacts.map((x: any) => ({
              contactId: x.contactId,
              expectedUpdateTime: x.updateTime,
              contactName: x.contactName,
              contactPhone: '13700000000',
            })),
            { contactName: `Racer ${round}`, contactPhone: uniquePhone() },
          ],
          expectedUpdateTime: view.updateTime,
        }),
      ])
      const codes = results.map((r) => r.body.code)
      const winner = codes.indexOf(200)
      expect(
        codes.filter((code) => code === 200),
        JSON.stringify(codes),
      ).toHaveLength(1)
      expect([395014, 395003]).toContain(codes[1 - winner])
      const after = await c.detail(s.id)
      const logs = (await changeLogs(h, s.id)).slice(logsBefore)
      if (winner === 0) {
        expect(after.remark).toBe(`race ${round}`)
        expect(after.contacts).toEqual(view.contacts)
        expect(logs.map((l) => l.operation_type)).toEqual(['DRAFT_UPDATE'])
      } else {
        expect(after.remark).toBe(view.remark)
        expect(after.contacts.map((x: any) => x.contactName)).toContain(`Racer ${round}`)
        expect(new Set(logs.map((l) => l.operation_type))).toEqual(new Set(['CONTACT_REPLACE']))
      }
    }
  })
})

describe('SUP-ADM-004 contacts as a snapshot', () => {
  async function withTwoContacts() {
    const phones = [uniquePhone(), uniquePhone()]
    const s = await c.draft({
      contacts: [
        { contactName: 'Wang Wu', contactPhone: phones[0], contactRole: 'SALES' },
        { contactName: 'Zhao Liu', contactPhone: phones[1], contactRole: 'FINANCE' },
      ],
    })
    const view = await c.detail(s.id)
    expect(view.contacts).toHaveLength(2)
    const [a, b] = view.contacts
    return { ...s, phones, a, b }
  }

  it('same id updates (phone masked in the log), no id adds, absent ones are soft-deleted', async () => {
    const s = await withTwoContacts()
    const newPhone = uniquePhone()
    const thirdPhone = uniquePhone()
    const w1 = c.ok(
      await c.update(s.id, {
        contacts: [
          {
            contactId: s.a.contactId,
            expectedUpdateTime: s.a.updateTime,
            contactName: 'Wang Wu',
            contactPhone: newPhone,
            contactRole: 'SALES',
          },
          {
            contactId: s.b.contactId,
            expectedUpdateTime: s.b.updateTime,
            contactName: 'Zhao Liu',
            contactPhone: s.phones[1],
            contactRole: 'FINANCE',
          },
          { contactName: 'Sun Qi', contactPhone: thirdPhone, contactRole: 'OPS' },
        ],
        changeReason: 'new sales phone',
        expectedUpdateTime: s.version,
      }),
    )
    let view = await c.detail(s.id)
    expect(view.contacts).toHaveLength(3)
    const a = view.contacts.find((x: any) => x.contactId === s.a.contactId)
    const b = view.contacts.find((x: any) => x.contactId === s.b.contactId)
    const added = view.contacts.find((x: any) => x.contactName === 'Sun Qi')
    expect(a.contactPhoneMask).toBe(`137****${newPhone.slice(-4)}`)
    expect(a.updateTime).not.toBe(s.a.updateTime)
    expect(b).toEqual(s.b)
    expect(added.contactPhoneMask).toBe(`137****${thirdPhone.slice(-4)}`)
    let logs = await changeLogs(h, s.id, 'DRAFT_UPDATE')
    expect(logs).toHaveLength(2)
    const phoneLog = logs.find((l) => l.field_name === 'contactPhone')
    expect(phoneLog).toMatchObject({
      target_type: 'CONTACT',
      target_id: s.a.contactId,
      old_value_masked: `137****${s.phones[0].slice(-4)}`,
      new_value_masked: `137****${newPhone.slice(-4)}`,
      change_reason: 'new sales phone',
    })
    expect(logs.find((l) => l.field_name === 'contact')).toMatchObject({
      target_type: 'CONTACT',
      old_value_masked: null,
    })
    expect(JSON.stringify(logs)).not.toContain(newPhone)
    expect(JSON.stringify(logs)).not.toContain(thirdPhone)

    // only a in the snapshot: b and the added one are soft-deleted, rows kept
    c.ok(
      await c.update(s.id, {
        contacts: [
          {
            contactId: a.contactId,
            expectedUpdateTime: a.updateTime,
            contactName: 'Wang Wu',
            contactPhone: newPhone,
            contactRole: 'SALES',
          },
        ],
        expectedUpdateTime: w1.updateTime,
      }),
    )
    view = await c.detail(s.id)
    expect(view.contacts.map((x: any) => x.contactId)).toEqual([a.contactId])
    const rows = await contactRows(h, s.id)
    expect(rows).toHaveLength(3)
    expect(
      rows
        .filter((r) => r.deleted)
        .map((r) => r.id)
        .sort(),
    ).toEqual([s.b.contactId, added.contactId].sort())
    logs = (await changeLogs(h, s.id, 'DRAFT_UPDATE')).slice(2)
    expect(logs).toHaveLength(2)
    expect(logs.every((l) => l.field_name === 'contact' && l.new_value_masked === null)).toBe(true)
    expect(logs.map((l) => l.target_id).sort()).toEqual([s.b.contactId, added.contactId].sort())

    // a soft-deleted contact's id is no longer this supplier's
    await unchanged(h, async () => {
      c.failed(
        await c.update(s.id, {
          contacts: [
            {
              contactId: s.b.contactId,
              expectedUpdateTime: s.b.updateTime,
              contactName: 'Zhao Liu',
              contactPhone: s.phones[1],
            },
          ],
          expectedUpdateTime: view.updateTime,
        }),
        395011,
      )
    })
  })

  it('contacts: [] soft-deletes every contact', async () => {
    const s = await withTwoContacts()
    c.ok(await c.update(s.id, { contacts: [], expectedUpdateTime: s.version }))
    expect((await c.detail(s.id)).contacts).toEqual([])
    const rows = await contactRows(h, s.id)
    expect(rows).toHaveLength(2)
    expect(rows.every((r) => r.deleted)).toBe(true)
    expect(await changeLogs(h, s.id, 'DRAFT_UPDATE')).toHaveLength(2)
  })

  it('a contactId of another supplier is 395011 and writes nothing', async () => {
    const s = await withTwoContacts()
    const other = await withTwoContacts()
    await unchanged(h, async () => {
      c.failed(
        await c.update(s.id, {
          contacts: [
            {
              contactId: other.a.contactId,
              expectedUpdateTime: other.a.updateTime,
              contactName: 'Hijack',
              contactPhone: uniquePhone(),
            },
          ],
          expectedUpdateTime: s.version,
        }),
        395011,
      )
      // also together with a valid change and a nonexistent id
      c.failed(
        await c.update(s.id, {
          remark: 'with a foreign contact',
          contacts: [
            {
              contactId: '9223372036854775000',
              expectedUpdateTime: s.a.updateTime,
              contactName: 'Ghost',
              contactPhone: uniquePhone(),
            },
          ],
          expectedUpdateTime: s.version,
        }),
        395011,
      )
    })
    expect((await c.detail(other.id)).contacts.map((x: any) => x.contactName)).toEqual([
      'Wang Wu',
      'Zhao Liu',
    ])
  })

  it('contactId without expectedUpdateTime (and the reverse) is 400 naming contacts', async () => {
    const s = await withTwoContacts()
    await unchanged(h, async () => {
      c.failed(
        await c.update(s.id, {
          contacts: [{ contactId: s.a.contactId, contactName: 'Wang Wu', contactPhone: PHONE }],
          expectedUpdateTime: s.version,
        }),
        400,
        'contacts',
      )
      c.failed(
        await c.update(s.id, {
          contacts: [
            { expectedUpdateTime: s.a.updateTime, contactName: 'Wang Wu', contactPhone: PHONE },
          ],
          expectedUpdateTime: s.version,
        }),
        400,
        'contacts',
      )
    })
  })

  it('a stale contact expectedUpdateTime is 395003 and writes nothing', async () => {
    const s = await withTwoContacts()
    const item = (phone: string, version: string) => ({
      contactId: s.a.contactId,
      expectedUpdateTime: version,
      contactName: 'Wang Wu',
      contactPhone: phone,
      contactRole: 'SALES',
    })
    const bItem = {
      contactId: s.b.contactId,
      expectedUpdateTime: s.b.updateTime,
      contactName: 'Zhao Liu',
      contactPhone: s.phones[1],
      contactRole: 'FINANCE',
    }
    const w = c.ok(
      await c.update(s.id, {
        contacts: [item(uniquePhone(), s.a.updateTime), bItem],
        expectedUpdateTime: s.version,
      }),
    )
    // supplier version is current, the contact's version is the old one
    await unchanged(h, async () => {
      c.failed(
        await c.update(s.id, {
          contacts: [item(uniquePhone(), s.a.updateTime), bItem],
          expectedUpdateTime: w.updateTime,
        }),
        395003,
      )
    })
  })

  it('the same contactId twice in the snapshot is 400', async () => {
    const s = await withTwoContacts()
    const item = {
      contactId: s.a.contactId,
      expectedUpdateTime: s.a.updateTime,
      contactName: 'Wang Wu',
      contactPhone: s.phones[0],
      contactRole: 'SALES',
    }
    await unchanged(h, async () => {
      c.failed(
        await c.update(s.id, {
          contacts: [item, { ...item, contactName: 'Wang Wu II' }],
          expectedUpdateTime: s.version,
        }),
        400,
        'contact',
      )
    })
  })
})

describe('SUP-ADM-004 qualifications as a snapshot', () => {
  const CERT_B = () => secret(`JY${String(Date.now()).slice(-8)}${next()}77`)

  async function withTwoQualifications() {
    const certs = [CERT_B(), CERT_B()]
    const s = await c.draft({
      qualifications: [
        {
          qualType: 'BUSINESS_LICENSE',
          certNo: certs[0],
          imageUrl: `${STORAGE}bl.png`,
          expiryDate: '2099-12-31',
        },
        {
          qualType: 'FOOD_PERMIT',
          certNo: certs[1],
          imageUrl: `${STORAGE}fp.png`,
          expiryDate: '2098-01-31',
        },
      ],
    })
    const view = await c.detail(s.id)
    expect(view.qualifications).toHaveLength(2)
    const a = view.qualifications.find((q: any) => q.qualType === 'BUSINESS_LICENSE')
    const b = view.qualifications.find((q: any) => q.qualType === 'FOOD_PERMIT')
    return { ...s, certs, a, b }
  }
  const keep = (q: any, certNo: string, overrides: Record<string, unknown> = {}) => ({
    qualificationId: q.qualificationId,
    expectedUpdateTime: q.updateTime,
    qualType: q.qualType,
    certNo,
    imageUrl: q.imageUrl,
    expiryDate: q.expiryDate,
    ...overrides,
  })

  it('same id updates (certificate masked), no id adds, absent ones are soft-deleted, [] removes all', async () => {
    const s = await withTwoQualifications()
    const newCert = CERT_B()
    const w1 = c.ok(
      await c.update(s.id, {
        qualifications: [
          keep(s.a, newCert, { expiryDate: '2097-06-30' }),
          keep(s.b, s.certs[1]),
          { qualType: 'TRAVEL_PERMIT', certNo: null, imageUrl: `${STORAGE}tp.png` },
        ],
        expectedUpdateTime: s.version,
      }),
    )
    let view = await c.detail(s.id)
    expect(view.qualifications).toHaveLength(3)
    const a = view.qualifications.find((q: any) => q.qualificationId === s.a.qualificationId)
    expect(a).toMatchObject({
      certNoMask: `JY${'*'.repeat(newCert.length - 6)}${newCert.slice(-4)}`,
      expiryDate: '2097-06-30',
    })
    expect(view.qualifications.find((q: any) => q.qualificationId === s.b.qualificationId)).toEqual(
      s.b,
    )
    let logs = await changeLogs(h, s.id, 'DRAFT_UPDATE')
    expect(logs.map((l) => `${l.target_type}.${l.field_name}`).sort()).toEqual([
      'QUALIFICATION.certNo',
      'QUALIFICATION.expiryDate',
      'QUALIFICATION.qualification',
    ])
    expect(logs.find((l) => l.field_name === 'certNo')).toMatchObject({
      target_id: s.a.qualificationId,
      old_value_masked: s.a.certNoMask,
      new_value_masked: a.certNoMask,
    })
    expect(JSON.stringify(logs)).not.toContain(newCert)
    expect(JSON.stringify(logs)).not.toContain(s.certs[0])

    // only a: b and the added one are soft-deleted
    const w2 = c.ok(
      await c.update(s.id, {
        qualifications: [keep(a, newCert)],
        expectedUpdateTime: w1.updateTime,
      }),
    )
    view = await c.detail(s.id)
    expect(view.qualifications.map((q: any) => q.qualificationId)).toEqual([a.qualificationId])
    let rows = await h.sql`
      SELECT qualification_id::text AS id, deleted_at IS NOT NULL AS deleted
      FROM supplier_qualification WHERE supplier_id = ${s.id} ORDER BY qualification_id`
    expect(rows).toHaveLength(3)
    expect(rows.filter((r) => r.deleted)).toHaveLength(2)
    logs = (await changeLogs(h, s.id, 'DRAFT_UPDATE')).slice(3)
    expect(logs).toHaveLength(2)
    expect(logs.every((l) => l.field_name === 'qualification' && !l.new_value_masked)).toBe(true)

    // the removed id is no longer this supplier's
    await unchanged(h, async () => {
      c.failed(
        await c.update(s.id, {
          qualifications: [keep(s.b, s.certs[1])],
          expectedUpdateTime: w2.updateTime,
        }),
        395011,
      )
    })

    c.ok(await c.update(s.id, { qualifications: [], expectedUpdateTime: w2.updateTime }))
    expect((await c.detail(s.id)).qualifications).toEqual([])
    rows = await h.sql`
      SELECT deleted_at IS NOT NULL AS deleted FROM supplier_qualification WHERE supplier_id = ${s.id}`
    expect(rows.every((r) => r.deleted)).toBe(true)
  })

  it('foreign id is 395011, id without version is 400, stale item version is 395003, duplicate id is 400', async () => {
    const s = await withTwoQualifications()
    const other = await withTwoQualifications()
    const w = c.ok(
      await c.update(s.id, {
        qualifications: [
          keep(s.a, s.certs[0], { expiryDate: '2096-01-01' }),
          keep(s.b, s.certs[1]),
        ],
        expectedUpdateTime: s.version,
      }),
    )
    await unchanged(h, async () => {
      c.failed(
        await c.update(s.id, {
          qualifications: [keep(other.a, other.certs[0])],
          expectedUpdateTime: w.updateTime,
        }),
        395011,
      )
      const { expectedUpdateTime: _v, ...noVersion } = keep(s.b, s.certs[1])
      c.failed(
        await c.update(s.id, { qualifications: [noVersion], expectedUpdateTime: w.updateTime }),
        400,
        'qualifications',
      )
      // s.a's version moved with the first update: the old one is stale
      c.failed(
        await c.update(s.id, {
          qualifications: [
            keep(s.a, s.certs[0], { expiryDate: '2095-01-01' }),
            keep(s.b, s.certs[1]),
          ],
          expectedUpdateTime: w.updateTime,
        }),
        395003,
      )
      c.failed(
        await c.update(s.id, {
          qualifications: [
            keep(s.b, s.certs[1]),
            keep(s.b, s.certs[1], { expiryDate: '2090-01-01' }),
          ],
          expectedUpdateTime: w.updateTime,
        }),
        400,
        'qualification',
      )
    })
  })
})

describe('SUP-ADM-004 types', () => {
  it('types: [] and a repeated typeCode are 400; an unknown type is 395010; nothing written', async () => {
    const s = await c.draft()
    await unchanged(h, async () => {
      c.failed(await c.update(s.id, { types: [], expectedUpdateTime: s.version }), 400, 'types')
      c.failed(
        await c.update(s.id, {
          types: [{ typeCode: 'HOTEL' }, { typeCode: 'HOTEL' }],
          expectedUpdateTime: s.version,
        }),
        400,
        'types',
      )
      c.failed(
        await c.update(s.id, {
          types: [{ typeCode: 'OTHER' }, { typeCode: 'NOT_A_TYPE' }],
          expectedUpdateTime: s.version,
        }),
        395010,
      )
      c.failed(
        await c.update(s.id, { types: [{ typeName: '酒店' }], expectedUpdateTime: s.version }),
        400,
      )
    })
    expect((await c.detail(s.id)).types.map((t: any) => t.typeCode)).toEqual(['OTHER'])
  })

  it('[OTHER] → [HOTEL, OTHER] adds HOTEL; → [HOTEL] soft-deletes OTHER and keeps HOTEL', async () => {
    const s = await c.draft()
    const w1 = c.ok(
      await c.update(s.id, {
        types: [{ typeCode: 'HOTEL' }, { typeCode: 'OTHER' }],
        expectedUpdateTime: s.version,
      }),
    )
    expect((await c.detail(s.id)).types.map((t: any) => t.typeCode).sort()).toEqual([
      'HOTEL',
      'OTHER',
    ])
    let logs = await changeLogs(h, s.id, 'DRAFT_UPDATE')
    expect(logs).toHaveLength(1)
    expect(logs[0]).toMatchObject({
      target_type: 'TYPE',
      field_name: 'type',
      old_value_masked: null,
      new_value_masked: 'HOTEL',
    })
    c.ok(
      await c.update(s.id, { types: [{ typeCode: 'HOTEL' }], expectedUpdateTime: w1.updateTime }),
    )
    expect((await c.detail(s.id)).types.map((t: any) => t.typeCode)).toEqual(['HOTEL'])
    const rows = await h.sql`
      SELECT type_code, deleted_at IS NOT NULL AS deleted FROM supplier_type
      WHERE supplier_id = ${s.id} ORDER BY id`
    expect(rows.map((r) => [r.type_code, r.deleted])).toEqual([
      ['OTHER', true],
      ['HOTEL', false],
    ])
    logs = (await changeLogs(h, s.id, 'DRAFT_UPDATE')).slice(1)
    expect(logs).toHaveLength(1)
    expect(logs[0]).toMatchObject({ old_value_masked: 'OTHER', new_value_masked: null })
  })
})

describe('SUP-ADM-004 contracts and evaluations (merge shape only)', () => {
  for (const kind of ['contract', 'evaluation'] as const) {
    const table = kind === 'contract' ? 'supplier_contract' : 'supplier_evaluation'
    const field = kind === 'contract' ? 'contracts' : 'evaluations'
    const idKey = kind === 'contract' ? 'contractId' : 'evaluationId'

    it(`${field}: [{}] adds a row, resending it keeps it, [] removes it`, async () => {
      const s = await c.draft()
      const w1 = c.ok(await c.update(s.id, { [field]: [{}], expectedUpdateTime: s.version }))
      let rows = await bareRows(h, table, s.id)
      expect(rows).toHaveLength(1)
      expect(rows[0].deleted).toBe(false)
      const [row] = rows
      const logCount = (await changeLogs(h, s.id)).length

      // kept: same id and version, with another real change
      const w2 = c.ok(
        await c.update(s.id, {
          remark: `keep the ${kind}`,
          [field]: [{ [idKey]: row.id, expectedUpdateTime: row.version }],
          expectedUpdateTime: w1.updateTime,
        }),
      )
      rows = await bareRows(h, table, s.id)
      expect(rows).toEqual([row])
      const newLogs = (await changeLogs(h, s.id)).slice(logCount)
      expect(newLogs.map((l) => l.field_name)).toEqual(['remark'])

      // resending alone is no actual change
      await unchanged(h, async () => {
        c.failed(
          await c.update(s.id, {
            [field]: [{ [idKey]: row.id, expectedUpdateTime: row.version }],
            expectedUpdateTime: w2.updateTime,
          }),
          395012,
        )
        c.failed(
          await c.update(s.id, {
            [field]: [{ [idKey]: row.id }],
            expectedUpdateTime: w2.updateTime,
          }),
          400,
          field,
        )
        c.failed(
          await c.update(s.id, {
            [field]: [{ [idKey]: row.id, expectedUpdateTime: row.version, amount: 1 }],
            expectedUpdateTime: w2.updateTime,
          }),
          400,
        )
      })

      c.ok(await c.update(s.id, { [field]: [], expectedUpdateTime: w2.updateTime }))
      rows = await bareRows(h, table, s.id)
      expect(rows).toHaveLength(1)
      expect(rows[0]).toMatchObject({ id: row.id, deleted: true })
      const removed = (await changeLogs(h, s.id)).at(-1)!
      expect(removed).toMatchObject({
        target_type: kind.toUpperCase(),
        target_id: row.id,
        new_value_masked: null,
      })
    })

    it(`${field}: an id of another supplier is 395011 and writes nothing`, async () => {
      const other = await c.draft()
      c.ok(await c.update(other.id, { [field]: [{}], expectedUpdateTime: other.version }))
      const [row] = await bareRows(h, table, other.id)
      const s = await c.draft()
      await unchanged(h, async () => {
        c.failed(
          await c.update(s.id, {
            [field]: [{ [idKey]: row.id, expectedUpdateTime: row.version }],
            expectedUpdateTime: s.version,
          }),
          395011,
        )
      })
    })
  }
})

describe('SUP-ADM-004 identity (fullName, taxNo)', () => {
  it('a DRAFT may change fullName and taxNo; a taxNo held by another supplier is 395004', async () => {
    const s = await c.draft({}, true)
    const other = await c.draft()
    const fullName = uniqueName('Renamed')
    const newTax = taxNo()
    const w = c.ok(await c.update(s.id, { fullName, taxNo: newTax, expectedUpdateTime: s.version }))
    const view = await c.detail(s.id)
    expect(view.fullName).toBe(fullName)
    expect(view.taxNoMask).toBe(
      `${newTax.slice(0, 2)}${'*'.repeat(newTax.length - 6)}${newTax.slice(-4)}`,
    )
    expect((await changeLogs(h, s.id, 'DRAFT_UPDATE')).map((l) => l.field_name).sort()).toEqual([
      'fullName',
      'taxNo',
    ])
    // the old tax number is free again, the new one is taken
    const [{ n }] = await h.sql`
      SELECT count(*)::int AS n FROM supplier
      WHERE tax_no_bidx = ${await h.cipher.blindIndex(newTax, 'taxNo')} AND deleted_at IS NULL`
    expect(n).toBe(1)
    await unchanged(h, async () => {
      c.failed(
        await c.update(s.id, { taxNo: other.body.taxNo, expectedUpdateTime: w.updateTime }),
        395004,
      )
      c.failed(
        await c.update(s.id, {
          taxNo: fullWidth(other.body.taxNo.toLowerCase()),
          remark: 'take theirs',
          expectedUpdateTime: w.updateTime,
        }),
        395004,
      )
    })
  })

  it('after approval fullName and taxNo are 395009; the original values (any form) pass with another change', async () => {
    const s = await c.active()
    expect(s.submitted).toMatchObject({ approvalStatus: 'APPLIED' })
    expect(s.view.supplierNo).toBeTruthy()
    await unchanged(h, async () => {
      c.failed(
        await c.update(s.id, { fullName: uniqueName('Other'), expectedUpdateTime: s.version }),
        395009,
      )
      c.failed(await c.update(s.id, { taxNo: taxNo(), expectedUpdateTime: s.version }), 395009)
      c.failed(
        await c.update(s.id, {
          fullName: s.body.fullName,
          taxNo: taxNo(),
          remark: 'sneak',
          expectedUpdateTime: s.version,
        }),
        395009,
      )
      // the original values alone are no change
      c.failed(
        await c.update(s.id, {
          fullName: s.body.fullName,
          taxNo: s.body.taxNo,
          expectedUpdateTime: s.version,
        }),
        395012,
      )
    })
    const before = (await changeLogs(h, s.id)).length
    const w = c.ok(
      await c.update(s.id, {
        fullName: `  ${fullWidth(s.body.fullName)} `,
        taxNo: fullWidth(s.body.taxNo.toLowerCase()),
        remark: 'original identity resent',
        expectedUpdateTime: s.version,
      }),
    )
    expect(w.status).toBe('ACTIVE')
    const logs = (await changeLogs(h, s.id)).slice(before)
    expect(logs.map((l) => [l.operation_type, l.field_name])).toEqual([
      ['PROFILE_UPDATE', 'remark'],
    ])
    const view = await c.detail(s.id)
    expect(view.fullName).toBe(s.body.fullName)
    expect(view.taxNoMask).toBe(s.view.taxNoMask)
    expect(view.supplierNo).toBe(s.view.supplierNo)
  })

  it('a DRAFT replaces its initial accounts as a whole, logged with masked numbers', async () => {
    const s = await c.draft({}, true)
    const [old] = (await c.call('GET', `${ITEMS}/${s.id}/account-info`)).body.data.bankAccounts
    const number = accountNo()
    const w = c.ok(
      await c.update(s.id, {
        initialAccounts: [
          {
            accountType: 'CORPORATE',
            bankName: 'Bank of Ningbo',
            accountNo: number,
            settleMode: 'PER_ORDER',
          },
        ],
        expectedUpdateTime: s.version,
      }),
    )
    expect(w.initialAccounts).toHaveLength(1)
    expect(w.initialAccounts[0]).toMatchObject({
      accountNoMask: `**** **** ${number.slice(-4)}`,
      status: 'DRAFT',
    })
    const rows = await h.sql`
      SELECT account_id::text AS id, deleted_at IS NOT NULL AS deleted FROM supplier_bank_account
      WHERE supplier_id = ${s.id} ORDER BY account_id`
    expect(rows.map((r) => [r.id, r.deleted])).toEqual([
      [old.accountId, true],
      [w.initialAccounts[0].accountId, false],
    ])
    const logs = await changeLogs(h, s.id, 'DRAFT_UPDATE')
    expect(
      logs.map((l) => [l.target_type, l.old_value_masked === null, l.new_value_masked === null]),
    ).toEqual(
      expect.arrayContaining([
        ['ACCOUNT', false, true],
        ['ACCOUNT', true, false],
      ]),
    )
    expect(logs).toHaveLength(2)
    expect(JSON.stringify(logs)).not.toContain(number)
  })

  it('initialAccounts on an ACTIVE supplier is 395009; creditLevel, deletedIds, accountNo are 400', async () => {
    const s = await c.active()
    await unchanged(h, async () => {
      c.failed(
        await c.update(s.id, {
          initialAccounts: [{ accountType: 'CORPORATE', bankName: 'BOC', accountNo: accountNo() }],
          expectedUpdateTime: s.version,
        }),
        395009,
      )
      c.failed(
        await c.update(s.id, { creditLevel: 'A', remark: 'x', expectedUpdateTime: s.version }),
        400,
        'creditLevel',
      )
      c.failed(
        await c.update(s.id, {
          deletedIds: [s.view.contacts[0].contactId],
          remark: 'x',
          expectedUpdateTime: s.version,
        }),
        400,
        'deletedIds',
      )
      c.failed(
        await c.update(s.id, {
          accountNo: accountNo(),
          remark: 'x',
          expectedUpdateTime: s.version,
        }),
        400,
        'accountNo',
      )
      c.failed(
        await c.update(s.id, { supplierNo: 'SP1', remark: 'x', expectedUpdateTime: s.version }),
        400,
        'supplierNo',
      )
      c.failed(
        await c.update(s.id, { status: 'ACTIVE', remark: 'x', expectedUpdateTime: s.version }),
        400,
        'status',
      )
    })
  })
})

describe('SUP-ADM-004 and SUP-ADM-011 by status', () => {
  async function inStatus(status: 'BLACKLIST' | 'ARCHIVED') {
    const s = await c.draft({}, true)
    await h.sql`
      UPDATE supplier SET status = ${status}, supplier_no = 'X-' || supplier_id
      WHERE supplier_id = ${s.id}`
    const view = await c.detail(s.id)
    expect(view.status).toBe(status)
    return { ...s, view, version: view.updateTime as string }
  }

  for (const status of ['BLACKLIST', 'ARCHIVED'] as const) {
    it(`a ${status} supplier cannot be edited, have its contacts replaced or be deleted (395021)`, async () => {
      const s = await inStatus(status)
      await unchanged(h, async () => {
        c.failed(await c.update(s.id, { remark: 'edit', expectedUpdateTime: s.version }), 395021)
        c.failed(
          await c.replaceContacts(s.id, { contacts: [], expectedUpdateTime: s.version }),
          395021,
        )
        c.failed(await c.remove(s.id), 395021)
      })
    })
  }

  it('an ACTIVE supplier cannot be deleted (395021) and nothing changes', async () => {
    const s = await c.active()
    await unchanged(h, async () => {
      c.failed(await c.remove(s.id), 395021)
    })
    expect((await c.detail(s.id)).status).toBe('ACTIVE')
  })

  it('a SUSPENDED or FROZEN supplier allows remediation edits (PROFILE_UPDATE)', async () => {
    const s = await c.active()
    await h.sql`UPDATE supplier SET status = 'FROZEN' WHERE supplier_id = ${s.id}`
    c.ok(await c.update(s.id, { address: 'Fixed address', expectedUpdateTime: s.version }))
    const [log] = (await changeLogs(h, s.id)).slice(-1)
    expect(log).toMatchObject({ operation_type: 'PROFILE_UPDATE', field_name: 'address' })
    const view = await c.detail(s.id)
    expect(view).toMatchObject({ status: 'FROZEN', address: 'Fixed address' })
  })
})

describe('SUP-ADM-004 permissions', () => {
  it('without supplier:update an update or contacts replace is 395002 and writes nothing', async () => {
    const s = await c.draft({}, true)
    const admin = await h.admin(ALL_PERMISSIONS.filter((p) => p !== 'supplier:update'))
    await unchanged(h, async () => {
      c.failed(
        await c.update(s.id, { remark: 'no right', expectedUpdateTime: s.version }, admin),
        395002,
      )
      c.failed(
        await c.replaceContacts(s.id, { contacts: [], expectedUpdateTime: s.version }, admin),
        395002,
      )
    })
    expect((await c.detail(s.id)).contacts).toHaveLength(1)
  })
})

describe('contacts replace (PUT /items/{id}/contacts)', () => {
  it('merges the snapshot, answers the live contacts masked, logs CONTACT_REPLACE', async () => {
    const phones = [uniquePhone(), uniquePhone()]
    const s = await c.draft({
      contacts: [
        { contactName: 'Qian Ba', contactPhone: phones[0], contactRole: 'SALES' },
        { contactName: 'Zhou Jiu', contactPhone: phones[1] },
      ],
    })
    const view = await c.detail(s.id)
    const [a, b] = view.contacts
    const newPhone = uniquePhone()
    const addedPhone = uniquePhone()
    const res = await c.replaceContacts(s.id, {
      contacts: [
        {
          contactId: a.contactId,
          expectedUpdateTime: a.updateTime,
          contactName: 'Qian Ba',
          contactPhone: newPhone,
          contactRole: 'SALES',
        },
        { contactName: 'Wu Shi', contactPhone: addedPhone, remark: 'night shift' },
      ],
      changeReason: 'staff changed',
      expectedUpdateTime: s.version,
    })
    const data = c.ok(res)
    expect(data).toHaveLength(2)
    for (const item of data) {
      expect(Object.keys(item).sort()).toEqual(
        [
          'contactId',
          'contactName',
          'contactPhoneMask',
          'contactRole',
          'remark',
          'status',
          'updateTime',
        ].sort(),
      )
    }
    expect(data.find((x: any) => x.contactId === a.contactId).contactPhoneMask).toBe(
      `137****${newPhone.slice(-4)}`,
    )
    expect(data.find((x: any) => x.contactName === 'Wu Shi')).toMatchObject({
      contactPhoneMask: `137****${addedPhone.slice(-4)}`,
      remark: 'night shift',
    })
    const text = JSON.stringify(res.body)
    for (const p of [...phones, newPhone, addedPhone]) expect(text).not.toContain(p)

    const after = await c.detail(s.id)
    expect(after.contacts).toEqual(data)
    expect(after.updateTime > s.version).toBe(true)
    const rows = await contactRows(h, s.id)
    expect(rows.find((r) => r.id === b.contactId)).toMatchObject({ deleted: true })

    const logs = await changeLogs(h, s.id, 'CONTACT_REPLACE')
    expect(logs.map((l) => l.field_name).sort()).toEqual(['contact', 'contact', 'contactPhone'])
    expect(logs.every((l) => l.change_reason === 'staff changed')).toBe(true)
    expect(logs.find((l) => l.field_name === 'contactPhone')).toMatchObject({
      target_id: a.contactId,
      old_value_masked: `137****${phones[0].slice(-4)}`,
      new_value_masked: `137****${newPhone.slice(-4)}`,
    })
    expect(await changeLogs(h, s.id, 'DRAFT_UPDATE')).toHaveLength(0)
    const evs = await events(h, s.id)
    expect(evs.at(-1)!.event_type).toBe('SupplierContactsReplaced')
    const all = JSON.stringify([logs, evs])
    for (const p of [...phones, newPhone, addedPhone]) expect(all).not.toContain(p)

    // identical snapshot: nothing to do
    await unchanged(h, async () => {
      c.failed(
        await c.replaceContacts(s.id, {
          contacts: after.contacts.map((x: any) => ({
            contactId: x.contactId,
            expectedUpdateTime: x.updateTime,
            contactName: x.contactName,
            contactPhone: x.contactId === a.contactId ? newPhone : addedPhone,
            contactRole: x.contactRole,
            remark: x.remark,
          })),
          expectedUpdateTime: after.updateTime,
        }),
        395012,
      )
    })

    // contacts: [] soft-deletes all
    const emptied = c.ok(
      await c.replaceContacts(s.id, { contacts: [], expectedUpdateTime: after.updateTime }),
    )
    expect(emptied).toEqual([])
    expect((await c.detail(s.id)).contacts).toEqual([])
    expect((await contactRows(h, s.id)).every((r) => r.deleted)).toBe(true)
  })

  it('refuses a foreign id (395011), a stale supplier or item version (395003), bad shapes (400)', async () => {
    const s = await c.draft({
      contacts: [{ contactName: 'Zheng Yi', contactPhone: uniquePhone() }],
    })
    const other = await c.draft({
      contacts: [{ contactName: 'Feng Er', contactPhone: uniquePhone() }],
    })
    const [mine] = (await c.detail(s.id)).contacts
    const [theirs] = (await c.detail(other.id)).contacts
    const item = (x: any, overrides: Record<string, unknown> = {}) => ({
      contactId: x.contactId,
      expectedUpdateTime: x.updateTime,
      contactName: x.contactName,
      contactPhone: uniquePhone(),
      ...overrides,
    })
    await unchanged(h, async () => {
      c.failed(
        await c.replaceContacts(s.id, { contacts: [item(theirs)], expectedUpdateTime: s.version }),
        395011,
      )
      c.failed(
        await c.replaceContacts(s.id, {
          contacts: [item(mine, { expectedUpdateTime: '2001-01-01 00:00:00' })],
          expectedUpdateTime: s.version,
        }),
        395003,
      )
      c.failed(
        await c.replaceContacts(s.id, {
          contacts: [item(mine)],
          expectedUpdateTime: '2001-01-01 00:00:00',
        }),
        395003,
      )
      c.failed(
        await c.replaceContacts(s.id, {
          contacts: [item(mine, { expectedUpdateTime: undefined })],
          expectedUpdateTime: s.version,
        }),
        400,
        'contacts',
      )
      c.failed(
        await c.replaceContacts(s.id, {
          contacts: [item(mine), item(mine)],
          expectedUpdateTime: s.version,
        }),
        400,
      )
      c.failed(
        await c.replaceContacts(s.id, {
          contacts: [item(mine)],
          expectedUpdateTime: '2024-01-01T00:00:00',
        }),
        400,
        'expectedUpdateTime',
      )
      c.failed(
        await c.replaceContacts(s.id, {
          contacts: [{ contactName: 'No phone' }],
          expectedUpdateTime: s.version,
        }),
        400,
        'contactPhone',
      )
      c.failed(
        await c.replaceContacts('9223372036854775000', {
          contacts: [],
          expectedUpdateTime: s.version,
        }),
        395001,
      )
    })
  })
})

describe('SUP-ADM-011 delete draft', () => {
  it('soft-deletes the draft and its children, logs DRAFT_DELETE and SupplierDraftDeleted', async () => {
    const s = await c.draft({ types: [{ typeCode: 'OTHER' }, { typeCode: 'HOTEL' }] }, true)
    c.ok(
      await c.update(s.id, { contracts: [{}], evaluations: [{}], expectedUpdateTime: s.version }),
    )
    const listed = c.ok(
      await c.call('GET', `${ITEMS}?keyword=${encodeURIComponent(s.body.fullName)}&pageSize=100`),
    )
    expect(listed.records.map((r: any) => r.supplierId)).toContain(s.id)
    const admin = await h.admin()

    const res = await c.remove(s.id, admin)
    expect(res.body).toEqual({ code: 200, success: true, message: expect.any(String), data: null })

    c.failed(await c.call('GET', `${ITEMS}/${s.id}`), 395001)
    c.failed(await c.call('GET', `${ITEMS}/${s.id}/account-info`), 395001)
    const after = c.ok(
      await c.call('GET', `${ITEMS}?keyword=${encodeURIComponent(s.body.fullName)}&pageSize=100`),
    )
    expect(after.records.map((r: any) => r.supplierId)).not.toContain(s.id)

    const [supplier] = await h.sql`
      SELECT status, deleted_at IS NOT NULL AS deleted FROM supplier WHERE supplier_id = ${s.id}`
    expect(supplier).toMatchObject({ status: 'DRAFT', deleted: true })
    for (const table of [
      'supplier_type',
      'supplier_contact',
      'supplier_qualification',
      'supplier_bank_account',
      'supplier_contract',
      'supplier_evaluation',
    ]) {
      const rows = await h.sql.unsafe(
        `SELECT deleted_at IS NOT NULL AS deleted FROM ${table} WHERE supplier_id = $1`,
        [s.id],
      )
      expect(rows.length, table).toBeGreaterThan(0)
      expect(
        rows.every((r) => r.deleted),
        table,
      ).toBe(true)
    }
    const logs = await changeLogs(h, s.id, 'DRAFT_DELETE')
    expect(logs).toHaveLength(1)
    expect(logs[0]).toMatchObject({ target_type: 'SUPPLIER', target_id: s.id, operator_id: admin })
    const evs = await events(h, s.id)
    expect(evs.at(-1)!.event_type).toBe('SupplierDraftDeleted')
    expect(evs.filter((e) => e.event_type === 'SupplierDraftDeleted')).toHaveLength(1)

    // gone for every further command
    await unchanged(h, async () => {
      c.failed(await c.remove(s.id), 395001)
      c.failed(await c.update(s.id, { remark: 'ghost', expectedUpdateTime: s.version }), 395001)
      c.failed(
        await c.replaceContacts(s.id, { contacts: [], expectedUpdateTime: s.version }),
        395001,
      )
    })

    // its tax number is free for a new supplier (uniqueness counts live suppliers only)
    c.ok(await c.call('POST', ITEMS, { body: draftBody({ taxNo: s.body.taxNo }) }))
  })

  const badIdCalls = {
    'DELETE /items/{id}': (id: string) => c.remove(id),
    'PUT /items/{id}': (id: string) =>
      c.update(id, { remark: 'x', expectedUpdateTime: '2024-01-01 00:00:00' }),
    'PUT /items/{id}/contacts': (id: string) =>
      c.replaceContacts(id, { contacts: [], expectedUpdateTime: '2024-01-01 00:00:00' }),
  }
  for (const [route, send] of Object.entries(badIdCalls)) {
    it(`${route}: ids 'abc' and '0' are 400 naming supplierId; an unknown id is 395001`, async () => {
      await unchanged(h, async () => {
        c.failed(await send('abc'), 400, 'supplierId')
        c.failed(await send('0'), 400, 'supplierId')
        c.failed(await send('9223372036854775000'), 395001)
      })
    })
  }

  it('without supplier:delete it is 395002 and the draft stays', async () => {
    const s = await c.draft({}, true)
    const admin = await h.admin(ALL_PERMISSIONS.filter((p) => p !== 'supplier:delete'))
    await unchanged(h, async () => {
      c.failed(await c.remove(s.id, admin), 395002)
    })
    expect((await c.detail(s.id)).status).toBe('DRAFT')
  })

  it('a VETTING supplier cannot be deleted either', async () => {
    const s = await c.draft()
    await h.sql`UPDATE supplier SET status = 'VETTING' WHERE supplier_id = ${s.id}`
    await unchanged(h, async () => {
      c.failed(await c.remove(s.id), 395021)
    })
  })
})

describe('VETTING (approval provider down)', () => {
  const hv = useHarness({
    approvalProvider: () => ({
      name: 'LOCAL_AUTO',
      submit: async () => {
        throw new Error('provider down')
      },
    }),
  })
  const v = client(hv)

  it('keeps identity and the submitted snapshot; other fields can still change', async () => {
    const s = await v.draft({ types: [{ typeCode: 'OTHER' }] }, true)
    const { contacts: _c, qualifications: _q, initialAccounts: _a, ...subject } = s.body
    const submitted = v.ok(
      await v.call('POST', `${ITEMS}/${s.id}/submit`, {
        body: { ...subject, expectedUpdateTime: s.version },
      }),
    )
    expect(submitted).toMatchObject({ approvalStatus: 'SUBMITTED', provider: 'LOCAL_AUTO' })
    const view = await v.detail(s.id)
    expect(view.status).toBe('VETTING')
    expect(view.supplierNo).toBeNull()
    const snapshot = async () => {
      const [row] = await hv.sql`
        SELECT s.submitted_snapshot::text AS supplier, a.candidate_snapshot::text AS approval, a.status
        FROM supplier s JOIN approval_log a ON a.supplier_id = s.supplier_id
        WHERE s.supplier_id = ${s.id}`
      return row
    }
    const frozen = await snapshot()
    expect(frozen.status).toBe('SUBMITTED')
    expect(frozen.supplier).toContain(s.body.fullName)

    await unchanged(hv, async () => {
      v.failed(
        await v.update(s.id, {
          fullName: uniqueName('Vetting'),
          expectedUpdateTime: view.updateTime,
        }),
        395009,
      )
      v.failed(
        await v.update(s.id, { taxNo: taxNo(), expectedUpdateTime: view.updateTime }),
        395009,
      )
      v.failed(
        await v.update(s.id, {
          initialAccounts: [{ accountType: 'CORPORATE', bankName: 'BOC', accountNo: accountNo() }],
          expectedUpdateTime: view.updateTime,
        }),
        395009,
      )
      v.failed(
        await v.update(s.id, {
          types: [{ typeCode: 'OTHER' }, { typeCode: 'TICKET' }],
          expectedUpdateTime: view.updateTime,
        }),
        395009,
      )
      v.failed(await v.remove(s.id), 395021)
    })

    const w = v.ok(
      await v.update(s.id, {
        address: 'Suzhou, Gusu district',
        fullName: s.body.fullName,
        changeReason: 'moved office',
        expectedUpdateTime: view.updateTime,
      }),
    )
    expect(w.status).toBe('VETTING')
    const after = await v.detail(s.id)
    expect(after).toMatchObject({
      status: 'VETTING',
      address: 'Suzhou, Gusu district',
      fullName: s.body.fullName,
      taxNoMask: view.taxNoMask,
    })
    const [log] = (await changeLogs(hv, s.id)).slice(-1)
    expect(log).toMatchObject({
      operation_type: 'PROFILE_UPDATE',
      field_name: 'address',
      change_reason: 'moved office',
    })
    expect(await snapshot()).toEqual(frozen)
    expectNoSecrets(await leakSources(hv))
    expect(hv.logs.some((l) => l.includes('provider down'))).toBe(true)
  })
})

describe('no plaintext sensitive value anywhere', () => {
  it('responses, change logs, domain events and log lines of this file hold no tax number or phone', async () => {
    // one more round trip that carries every kind of sensitive value through these endpoints
    const s = await c.draft({}, true)
    const phone = uniquePhone()
    const tax = taxNo()
    const w = c.ok(
      await c.update(s.id, {
        taxNo: tax,
        contactPhone: phone,
        contacts: [{ contactName: 'He Shisan', contactPhone: uniquePhone() }],
        expectedUpdateTime: s.version,
      }),
    )
    const r = c.ok(
      await c.replaceContacts(s.id, {
        contacts: [{ contactName: 'Lv Shisi', contactPhone: uniquePhone() }],
        expectedUpdateTime: w.updateTime,
      }),
    )
    expect(r).toHaveLength(1)
    c.ok(await c.remove(s.id))

    const sources: [string, string[]][] = [['responses', RESPONSES], ...(await leakSources(h))]
    expect(SECRETS.size).toBeGreaterThan(20)
    for (const [where, texts] of sources) expect(texts.length, where).toBeGreaterThan(0)
    expectNoSecrets(sources)
  })
})
