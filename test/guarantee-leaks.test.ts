import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ApprovalRow } from '../sql/approval'
import { localAutoProvider } from '../src/ports/approval-provider'
import { ALL_PERMISSIONS, useHarness } from './harness'
import { callerTrace, OWN_STATEMENT, startOtlpReceiver } from './otlp-receiver'
import { insertResource } from './resource-data'
import { ITEMS, LICENSE, newDraft, registerActive, submitBodyFrom, versionOf } from './client'
import { uniqueName } from './supplier-data'
import { confirmingFinance } from './valid-requests'
import { withCheckCharacter } from '../src/domain/supplier/uscc'
import { createEventRelay } from '../src/domain/events/relay'
import { CloudEvent, WITHHELD_EVENT_FIELDS } from '../src/schemas/events'
import { deleteStream, eventsPublishable, ownStream, streamMessages } from './nats'

/**
 * Leak scan: a scenario that carries distinctive sensitive values through every write and read,
 * its failure paths included, then a scan of every response, every log line, every change-log
 * row, every approval (its candidate snapshot), every event payload, every message the relay
 * published to NATS JetStream (the file's own stream), every span exported to a
 * real OTLP receiver (tracing on) and every text, varchar and json(b) column of every table.
 * Zero plaintext hits. The routes are read from the app itself (`app.routes`): every route
 * under /admin and /internal must have answered success in the scenario, so a route added
 * later fails the scan until the scenario goes through it.
 */

const INTERNAL_TOKEN = 'internal-token-of-the-leak-scan'
const stamp = String(Date.now()).slice(-6)
/** Values no other test uses, each distinctive enough to be found anywhere it leaked. */
const SECRETS = {
  taxNo: withCheckCharacter(`91330106MA${stamp}7`),
  companyPhone: `137${stamp}41`,
  newCompanyPhone: `136${stamp}42`,
  contactPhone: `139${stamp}43`,
  replacedContactPhone: `135${stamp}44`,
  certNo: `JY7731${stamp}LEAK`,
  initialAccountNo: `62220277${stamp}01234`,
  batchAccountNo: `62170077${stamp}09999`,
  changedAccountNo: `62284877${stamp}05555`,
  submitNote: `opinion-${stamp}-the-supplier-bribed-nobody`,
  approveNote: `approve-note-${stamp}-vetted-by-the-regional-desk`,
  changedApproveNote: `approve-note-${stamp}-second-look-at-the-licence`,
  // A second draft, deleted.
  deletedTaxNo: withCheckCharacter(`91330106MB${stamp}8`),
  deletedPhone: `138${stamp}45`,
  deletedAccountNo: `62220377${stamp}07777`,
}

/**
 * Personal data (names of natural persons) and free text: kept and shown where permitted (reads,
 * the change log), but never carried by an event, stored or published, in clear.
 */
const PERSONAL = {
  legalRepresentative: `Zhao Rep ${stamp}`,
  changedLegalRepresentative: `Qian Rep ${stamp}`,
  contactName: `Li Si ${stamp}`,
  replacedContactName: `Wang Wu ${stamp}`,
  remark: `remark ${stamp} on the owner's family`,
  changedRemark: `remark ${stamp} second thoughts`,
  contactRemark: `contact remark ${stamp}`,
}

/** The forms a value could leak in: as sent, and normalized (digits only, upper case). */
const forms = (value: string) =>
  [...new Set([value, value.replace(/[\s-]/g, ''), value.toUpperCase()])].filter(
    (v) => v.length >= 8,
  )

const nats = ownStream()
afterAll(() => deleteStream(nats.stream))

describe('leak scan: no plaintext sensitive value anywhere', () => {
  let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>
  beforeAll(async () => {
    otlp = await startOtlpReceiver()
  })
  afterAll(() => otlp?.close())
  /** Statements sent while a request runs (one at a time here): each must have its span. */
  let traced = 0
  let inRequest = false
  const finance = confirmingFinance()
  beforeAll(() => finance.start())
  afterAll(() => finance.stop())
  /**
   * Done, once, before the next approval is decided: how an APPLY_FAILED approval is made. Its
   * statements are the test's, behind the service's back, so no span is expected of them.
   */
  let spoil: ((approval: ApprovalRow) => Promise<void>) | undefined
  const h = useHarness({
    onStatement: (text) => {
      if (inRequest && !OWN_STATEMENT.test(text)) traced++
    },
    env: () => ({
      DUPLICATE_SUBMIT_WINDOW_SECONDS: '0',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      INTERNAL_TOKEN,
      ...finance.env(),
      ...nats.env(),
    }),
    approvalProvider: () => ({
      ...localAutoProvider,
      submit: async (approval) => {
        const before = spoil
        spoil = undefined
        inRequest = false
        try {
          await before?.(approval)
        } finally {
          inRequest = true
        }
        return localAutoProvider.submit(approval)
      },
    }),
  })

  it('after a scenario through every write and read, nothing holds a plaintext value', async () => {
    const responses: string[] = []
    const request = h.app.request.bind(h.app)
    h.app.request = (async (...args: Parameters<typeof request>) => {
      inRequest = true
      try {
        return await request(...args)
      } finally {
        inRequest = false
      }
    }) as typeof h.app.request
    // Every request continues a caller's trace, so that every one of them is exported.
    const answered: { method: string; path: string; success: boolean }[] = []
    const call = async (...[method, path, options]: Parameters<typeof h.call>) => {
      const headers = { ...callerTrace().headers, ...options?.headers }
      const res = await h.call(method, path, { ...options, headers })
      responses.push(JSON.stringify(res.body))
      answered.push({ method, path: path.split('?')[0], success: res.body?.success === true })
      return res
    }
    const caller = { call }
    const success = (res: Awaited<ReturnType<typeof call>>, what: string) => {
      expect(res.body, `${what}: ${JSON.stringify(res.body)}`).toMatchObject({
        code: 200,
        success: true,
      })
      return res.body.data
    }
    const internal = { admin: null, token: null, headers: { 'x-internal-token': INTERNAL_TOKEN } }
    // An administrator who may do everything but read approval opinions (which are returned,
    // audited, to holders of supplier:approval:opinion only).
    const admin = await h.admin(ALL_PERMISSIONS.filter((p) => p !== 'supplier:approval:opinion'))

    // Draft with every sensitive field, and its failure paths.
    const { body, supplierId } = await newDraft(caller, admin, {
      taxNo: SECRETS.taxNo,
      contactPhone: SECRETS.companyPhone,
      approveNote: SECRETS.approveNote,
      legalRepresentative: PERSONAL.legalRepresentative,
      remark: PERSONAL.remark,
      contacts: [
        {
          contactName: PERSONAL.contactName,
          contactPhone: SECRETS.contactPhone,
          remark: PERSONAL.contactRemark,
        },
      ],
      qualifications: [
        {
          qualType: 'BUSINESS_LICENSE',
          certNo: SECRETS.certNo,
          imageUrl: 'https://storage.example.com/supplier/bl.png',
          expiryDate: '2099-12-31',
        },
      ],
      initialAccounts: [
        {
          accountType: 'CORPORATE',
          bankName: 'ICBC Hangzhou',
          accountNo: SECRETS.initialAccountNo,
          settleMode: 'MONTHLY',
          accountPeriod: 30,
          invoiceType: 'SPECIAL',
          taxRate: 6,
        },
      ],
    })
    const again = await call('POST', ITEMS, {
      admin,
      body: { ...body, fullName: uniqueName(), taxNo: SECRETS.taxNo },
    })
    expect(again.body.code).toBe(395004)
    await call('POST', `${ITEMS}?taxNo=${SECRETS.taxNo}`, { admin, body })
    await call('POST', ITEMS, {
      admin,
      body: {
        ...body,
        fullName: uniqueName(),
        taxNo: `${SECRETS.taxNo}\u0000`,
        contactPhone: `${SECRETS.companyPhone}x`,
      },
    })

    // Update, contacts replacement, submit with an opinion.
    const updated = await call('PUT', `${ITEMS}/${supplierId}`, {
      admin,
      body: {
        contactPhone: SECRETS.newCompanyPhone,
        approveNote: SECRETS.changedApproveNote,
        legalRepresentative: PERSONAL.changedLegalRepresentative,
        remark: PERSONAL.changedRemark,
        changeReason: 'new switchboard',
        expectedUpdateTime: await versionOf(h, supplierId),
      },
    })
    expect(updated.body.code, JSON.stringify(updated.body)).toBe(200)
    const replaced = await call('PUT', `${ITEMS}/${supplierId}/contacts`, {
      admin,
      body: {
        contacts: [
          { contactName: PERSONAL.replacedContactName, contactPhone: SECRETS.replacedContactPhone },
        ],
        changeReason: 'staff change',
        expectedUpdateTime: await versionOf(h, supplierId),
      },
    })
    expect(replaced.body.code, JSON.stringify(replaced.body)).toBe(200)
    // The registration fails to apply (its licence removed behind the service's back while it
    // is decided), then the internal route re-applies it once the licence is back.
    spoil = async () => {
      await h.sql`UPDATE supplier SET license_image_url = NULL WHERE supplier_id = ${supplierId}`
    }
    const submitted = await call('POST', `${ITEMS}/${supplierId}/submit`, {
      admin,
      body: submitBodyFrom(
        { ...body, contactPhone: SECRETS.newCompanyPhone, approveNote: SECRETS.changedApproveNote },
        await versionOf(h, supplierId),
        { submitNote: SECRETS.submitNote },
      ),
    })
    expect(submitted.body.data?.approvalStatus, JSON.stringify(submitted.body)).toBe('APPLY_FAILED')
    await h.sql`UPDATE supplier SET license_image_url = ${LICENSE} WHERE supplier_id = ${supplierId}`
    const applied = await call(
      'POST',
      `/internal/supplier/approvals/${submitted.body.data.approvalLogId}/apply`,
      internal,
    )
    expect(success(applied, 'the re-apply').approvalStatus).toBe('APPLIED')

    // Accounts after registration: batch create, change, default; a malformed number refused.
    const batch = await call('POST', `${ITEMS}/${supplierId}/accounts/batch`, {
      admin,
      body: {
        accounts: [
          {
            accountType: 'CORPORATE',
            bankName: 'Bank of Hangzhou',
            accountNo: SECRETS.batchAccountNo,
            settleMode: 'MONTHLY',
            accountPeriod: 30,
            invoiceType: 'SPECIAL',
            taxRate: 6,
          },
        ],
      },
    })
    expect(batch.body.code, JSON.stringify(batch.body)).toBe(200)
    await call('POST', `${ITEMS}/${supplierId}/accounts/batch`, {
      admin,
      body: {
        accounts: [
          { accountType: 'CORPORATE', bankName: 'B', accountNo: `${SECRETS.batchAccountNo}ab` },
        ],
      },
    })
    const accounts = await call('GET', `${ITEMS}/${supplierId}/accounts`, { admin })
    const account = accounts.body.data.find((a: any) => a.status === 'ACTIVE')
    const changed = await call(
      'POST',
      `${ITEMS}/${supplierId}/accounts/${account.accountId}/change`,
      {
        admin,
        body: {
          accountNo: SECRETS.changedAccountNo,
          changeReason: 'bank merger',
          expectedUpdateTime: account.updateTime,
        },
      },
    )
    expect(changed.body.code, JSON.stringify(changed.body)).toBe(200)
    const fresh = await call('GET', `${ITEMS}/${supplierId}/accounts/${account.accountId}`, {
      admin,
    })
    await call('PUT', `${ITEMS}/${supplierId}/accounts/${account.accountId}/default`, {
      admin,
      body: { expectedUpdateTime: fresh.body.data.updateTime },
    })
    // Qualification rules of the supplier's type (global: a type no other file of this
    // database uses).
    success(
      await call('PUT', '/admin/supplier/types/OTHER/qualification-rules', {
        admin,
        body: {
          rules: [
            { qualType: 'TAX_REGISTRATION', isRequired: false, warningDays: 30, sortOrder: 1 },
          ],
        },
      }),
      'the qualification rules',
    )
    // A relation, and every read.
    const resourceId = await insertResource(h, 'SCENIC')
    const relation = success(
      await call('PUT', `/admin/supplier/resource-relations/SCENIC/${resourceId}`, {
        admin,
        body: { supplierId, changeReason: 'contract signed' },
      }),
      'the bind',
    )
    for (const path of [
      `${ITEMS}/${supplierId}`,
      `${ITEMS}/${supplierId}/account-info`,
      `${ITEMS}/${supplierId}/accounts`,
      `${ITEMS}/${supplierId}/accounts/${account.accountId}`,
      `${ITEMS}?keyword=${encodeURIComponent(body.fullName)}`,
      `/admin/supplier/approval-records?supplierId=${supplierId}&pageSize=100`,
      `${ITEMS}/${supplierId}/resource-info/page`,
      `/admin/supplier/resource-relations/SCENIC/${resourceId}`,
      '/admin/supplier/types/OTHER/qualification-rules',
      '/admin/supplier/qualifications/expiring?withinDays=3650',
      '/admin/supplier/lifecycle/transitions',
      '/admin/dict/data/supplier_type',
      '/admin/dict/data/supplier_lifecycle_status',
    ]) {
      success(await call('GET', path, { admin }), path)
    }
    // The tax-number lookup: the number in a body, the supplier answered masked.
    const holder = success(
      await call('POST', '/admin/supplier/tax-number-lookup', {
        admin,
        body: { taxNo: SECRETS.taxNo },
      }),
      'the tax-number lookup',
    )
    expect(holder.supplier?.supplierId).toBe(supplierId)
    // A rebind to a second supplier, then the unbind.
    const other = await registerActive(caller, admin)
    const rebound = success(
      await call('PUT', `/admin/supplier/resource-relations/SCENIC/${resourceId}`, {
        admin,
        body: {
          supplierId: other.supplierId,
          expectedCurrentSupplierId: supplierId,
          expectedRelationUpdateTime: relation.updateTime,
          changeReason: 'contract moved',
        },
      }),
      'the rebind',
    )
    success(
      await call('POST', `/admin/supplier/resource-relations/SCENIC/${resourceId}/unbind`, {
        admin,
        body: {
          expectedCurrentSupplierId: other.supplierId,
          expectedRelationUpdateTime: rebound.updateTime,
          changeReason: 'contract ended',
        },
      }),
      'the unbind',
    )

    // Status: a suspension that fails to apply (the supplier written meanwhile), withdrawn; one
    // that applies; then the archive, cleared by finance.
    spoil = async () => {
      await h.sql`UPDATE supplier SET update_time = update_time + interval '5 seconds'
                  WHERE supplier_id = ${supplierId}`
    }
    const suspend = () =>
      versionOf(h, supplierId).then((expectedUpdateTime) =>
        call('POST', `${ITEMS}/${supplierId}/status`, {
          admin,
          body: { targetStatus: 'SUSPENDED', changeReason: 'inspection', expectedUpdateTime },
        }),
      )
    const failed = success(await suspend(), 'the suspension that fails to apply')
    expect(failed.approvalStatus).toBe('APPLY_FAILED')
    success(
      await call('POST', `/admin/supplier/approvals/${failed.approvalLogId}/withdraw`, { admin }),
      'the withdrawal',
    )
    expect(success(await suspend(), 'the suspension').approvalStatus).toBe('APPLIED')
    success(await call('POST', `${ITEMS}/${supplierId}/archive`, { admin }), 'the archive')

    // A second draft with its own sensitive values, deleted.
    const doomed = await newDraft(caller, admin, {
      taxNo: SECRETS.deletedTaxNo,
      contactPhone: SECRETS.deletedPhone,
      initialAccounts: [
        {
          accountType: 'CORPORATE',
          bankName: 'ICBC Hangzhou',
          accountNo: SECRETS.deletedAccountNo,
          settleMode: 'MONTHLY',
          accountPeriod: 30,
          invoiceType: 'SPECIAL',
          taxRate: 6,
        },
      ],
    })
    success(await call('DELETE', `${ITEMS}/${doomed.supplierId}`, { admin }), 'the delete')

    // Every route of the app under /admin and /internal answered success at least once.
    const pattern = (path: string) => new RegExp(`^${path.replace(/:\w+/g, '[^/]+')}$`)
    const routes = [
      ...new Set(
        h.app.routes
          .filter((r) => r.method !== 'ALL' && /^\/(admin|internal)\//.test(r.path))
          .map((r) => `${r.method} ${r.path}`),
      ),
    ]
    expect(routes.length).toBeGreaterThan(25)
    const missed = routes.filter((route) => {
      const [method, path] = route.split(' ')
      return !answered.some((a) => a.success && a.method === method && pattern(path).test(a.path))
    })
    expect(missed, 'routes the scenario did not go through').toEqual([])

    // Every event of the scenario goes out through the relay, to the file's own stream.
    await eventsPublishable(h.sql)
    inRequest = false
    const relay = createEventRelay({ sql: h.sql, logger: h.deps.logger, config: h.config })
    const stored = await h.sql<{ id: string; type: string; supplierId: string | null }[]>`
      SELECT event_id::text AS id, event_type AS type, payload->>'supplierId' AS "supplierId"
      FROM domain_event WHERE status = 'PENDING' ORDER BY event_id`
    expect((await relay.round()).published).toBe(stored.length)
    await relay.stop()
    const published = await streamMessages(nats.stream)
    // Each once, each supplier's in commit (id) order, as CloudEvents (docs/events.md: the relay
    // publishes many suppliers at once, so there is no order across suppliers).
    expect(published.map((m) => m.msgId).sort()).toEqual(stored.map((e) => e.id).sort())
    const supplierOf = new Map(stored.map((e) => [e.id, e.supplierId]))
    for (const s of new Set(stored.map((e) => e.supplierId).filter((id) => id !== null))) {
      expect(published.map((m) => m.msgId).filter((id) => supplierOf.get(id!) === s)).toEqual(
        stored.filter((e) => e.supplierId === s).map((e) => e.id),
      )
    }
    for (const m of published) CloudEvent.parse(m.body)
    const types = published.map((m) => m.body.type as string)
    for (const type of [
      'SupplierRegistrationSubmitted',
      'SupplierActivated',
      'BankAccountChangeSubmitted',
      'BankAccountChanged',
      'SupplierStatusChanged',
      'SupplierArchived',
      'SupplierResourceRelationSet',
    ]) {
      expect(types).toContain(`com.example.supplier.${type}.v1`)
    }
    const rebind = published.find(
      (m) => m.body.data.previousSupplierId === supplierId && m.body.data.supplierId !== supplierId,
    )
    expect(rebind?.body.type).toBe('com.example.supplier.SupplierResourceRelationSet.v1')
    // Per supplier the stream order is the order of its events' ids, which its row lock makes
    // the commit order.
    const ofSupplier = published.filter((m) => m.body.data.supplierId === supplierId)
    const ids = ofSupplier.map((m) => BigInt(m.body.id))
    expect(ids).toEqual([...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)))
    expect(ofSupplier.length).toBeGreaterThan(8)
    // The messages carry masks of the values the scan looks for: it would see the values.
    expect(published.map((m) => m.text).join('\n')).toContain(SECRETS.changedAccountNo.slice(-4))

    // The scan.
    const hits: string[] = []
    const needles = Object.entries(SECRETS).flatMap(([name, value]) =>
      forms(value).map((form) => ({ name, form })),
    )
    const scanText = (where: string, text: string) => {
      for (const { name, form } of needles)
        if (text.includes(form)) hits.push(`${name} in ${where}`)
    }
    responses.forEach((text, i) => scanText(`response #${i}`, text))
    h.logs.forEach((line, i) => scanText(`log line #${i}`, line))
    published.forEach((m, i) => scanText(`published message #${i} (${m.subject})`, m.text))
    await h.tracing!.flush()
    otlp.texts().forEach((text, i) => scanText(`exported span batch #${i}`, text))
    const columns = await h.sql<{ table: string; column: string }[]>`
      SELECT c.table_name AS table, c.column_name AS column
      FROM information_schema.columns c JOIN pg_tables t
        ON t.schemaname = c.table_schema AND t.tablename = c.table_name
      WHERE c.table_schema = 'public'
        AND c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb')
      ORDER BY 1, 2`
    expect(columns.map((c) => `${c.table}.${c.column}`)).toEqual(
      expect.arrayContaining([
        'change_log.new_value_masked',
        'change_log.old_value_masked',
        'domain_event.payload',
        'approval_log.candidate_snapshot',
        'supplier.tax_no_mask',
      ]),
    )
    for (const { table, column } of columns) {
      const [row] = await h.sql.unsafe<{ text: string | null }[]>(
        `SELECT string_agg("${column}"::text, ' | ') AS text FROM public."${table}"`,
      )
      if (row.text) scanText(`${table}.${column}`, row.text)
    }
    // Events carry no personal data: the fields changed, their values withheld.
    const personal = Object.entries(PERSONAL).flatMap(([name, value]) =>
      forms(value).map((form) => ({ name, form })),
    )
    const [{ payloads }] = await h.sql<{ payloads: string }[]>`
      SELECT string_agg(payload::text, ' | ') AS payloads FROM domain_event`
    const eventTexts = [
      ['domain_event.payload', payloads],
      ...published.map((m, i) => [`published message #${i} (${m.subject})`, m.text]),
    ]
    const personalHits = eventTexts.flatMap(([where, text]) =>
      personal.filter(({ form }) => text.includes(form)).map(({ name }) => `${name} in ${where}`),
    )
    expect(personalHits).toEqual([])
    const withheld = published.flatMap((m) =>
      ((m.body.data.changes ?? []) as { field: string; old: unknown; new: unknown }[]).filter((c) =>
        WITHHELD_EVENT_FIELDS.includes(c.field),
      ),
    )
    // The scan sees where they would be: each field's change is there, its values `******`.
    expect(new Set(withheld.map((c) => c.field))).toEqual(
      new Set(['legalRepresentative', 'remark', 'contact']),
    )
    for (const c of withheld) {
      expect(
        [c.old, c.new].every((v) => v === null || v === '******'),
        JSON.stringify(c),
      ).toBe(true)
    }
    // The values are kept where they belong: the change log, behind its permission.
    const [{ logged }] = await h.sql<{ logged: string }[]>`
      SELECT string_agg(coalesce(old_value_masked, '') || ' ' || coalesce(new_value_masked, ''), ' | ')
        AS logged FROM change_log WHERE supplier_id = ${supplierId}`
    expect(logged).toContain(PERSONAL.changedLegalRepresentative)

    // The scan itself sees what it looks for: the masks of the same values are there.
    expect(responses.join('\n')).toContain(SECRETS.taxNo.slice(-4))
    expect(hits).toEqual([])
    // The scan sees the spans of the whole scenario: every request's, its statements and writes.
    const names = new Set(otlp.spans.map((s) => s.name))
    expect(names).toContain('POST /admin/supplier/items')
    expect(names).toContain('POST /admin/supplier/items/:supplierId/accounts/:accountId/change')
    expect([...names].some((n) => n.startsWith('INSERT supplier_bank_account'))).toBe(true)
    // Every statement of every request, writes and failure paths included, has its span.
    const statements = otlp.spans.filter((s) => s.attributes['db.system.name'] === 'postgresql')
    expect(statements.length).toBeGreaterThan(50)
    expect(statements.length).toBe(traced)
  }, 60_000)
})
