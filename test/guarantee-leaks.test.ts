import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ALL_PERMISSIONS, useHarness } from './harness'
import { callerTrace, OWN_STATEMENT, startOtlpReceiver } from './otlp-receiver'
import { insertResource } from './resource-data'
import { ITEMS, newDraft, submitBodyFrom, versionOf } from './client'
import { uniqueName } from './supplier-data'
import { withCheckCharacter } from '../src/domain/supplier/uscc'

/**
 * Leak scan: a scenario that carries distinctive sensitive values through every write and read,
 * its failure paths included, then a scan of every response, every log line, every change-log
 * row, every event payload, every span exported to a real OTLP receiver (tracing on) and every
 * text, varchar and json(b) column of every table. Zero plaintext hits.
 */

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
}

/** The forms a value could leak in: as sent, and normalized (digits only, upper case). */
const forms = (value: string) =>
  [...new Set([value, value.replace(/[\s-]/g, ''), value.toUpperCase()])].filter(
    (v) => v.length >= 8,
  )

describe('leak scan: no plaintext sensitive value anywhere', () => {
  let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>
  beforeAll(async () => {
    otlp = await startOtlpReceiver()
  })
  afterAll(() => otlp?.close())
  /** Statements sent while a request runs (one at a time here): each must have its span. */
  let traced = 0
  let inRequest = false
  const h = useHarness({
    onStatement: (text) => {
      if (inRequest && !OWN_STATEMENT.test(text)) traced++
    },
    env: () => ({
      DUPLICATE_SUBMIT_WINDOW_SECONDS: '0',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
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
    const call = async (...[method, path, options]: Parameters<typeof h.call>) => {
      const headers = { ...callerTrace().headers, ...options?.headers }
      const res = await h.call(method, path, { ...options, headers })
      responses.push(JSON.stringify(res.body))
      return res
    }
    // An administrator who may do everything but read approval opinions (which are returned,
    // audited, to holders of supplier:approval:opinion only).
    const admin = await h.admin(ALL_PERMISSIONS.filter((p) => p !== 'supplier:approval:opinion'))

    // Draft with every sensitive field, and its failure paths.
    const { body, supplierId } = await newDraft(h, admin, {
      taxNo: SECRETS.taxNo,
      contactPhone: SECRETS.companyPhone,
      contacts: [{ contactName: 'Li Si', contactPhone: SECRETS.contactPhone, remark: 'sales' }],
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
        changeReason: 'new switchboard',
        expectedUpdateTime: await versionOf(h, supplierId),
      },
    })
    expect(updated.body.code, JSON.stringify(updated.body)).toBe(200)
    const replaced = await call('PUT', `${ITEMS}/${supplierId}/contacts`, {
      admin,
      body: {
        contacts: [{ contactName: 'Wang Wu', contactPhone: SECRETS.replacedContactPhone }],
        changeReason: 'staff change',
        expectedUpdateTime: await versionOf(h, supplierId),
      },
    })
    expect(replaced.body.code, JSON.stringify(replaced.body)).toBe(200)
    const submitted = await call('POST', `${ITEMS}/${supplierId}/submit`, {
      admin,
      body: submitBodyFrom(
        { ...body, contactPhone: SECRETS.newCompanyPhone },
        await versionOf(h, supplierId),
        { submitNote: SECRETS.submitNote },
      ),
    })
    expect(submitted.body.data?.approvalStatus, JSON.stringify(submitted.body)).toBe('APPLIED')

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
    // A relation, and every read.
    const resourceId = await insertResource(h, 'SCENIC')
    await call('PUT', `/admin/supplier/resource-relations/SCENIC/${resourceId}`, {
      admin,
      body: { supplierId, changeReason: 'contract signed' },
    })
    for (const path of [
      `${ITEMS}/${supplierId}`,
      `${ITEMS}/${supplierId}/account-info`,
      `${ITEMS}/${supplierId}/accounts`,
      `${ITEMS}?keyword=${encodeURIComponent(body.fullName)}`,
      `/admin/supplier/approval-records?supplierId=${supplierId}&pageSize=100`,
      `${ITEMS}/${supplierId}/resource-info/page`,
      `/admin/supplier/resource-relations/SCENIC/${resourceId}`,
    ]) {
      const res = await call('GET', path, { admin })
      expect(res.body.code, path).toBe(200)
    }

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
    await h.tracing!.flush()
    otlp.texts().forEach((text, i) => scanText(`exported span batch #${i}`, text))
    // The scan sees the spans of the whole scenario: every request's, its statements and writes.
    const names = new Set(otlp.spans.map((s) => s.name))
    expect(names).toContain('POST /admin/supplier/items')
    expect(names).toContain('POST /admin/supplier/items/:supplierId/accounts/:accountId/change')
    expect([...names].some((n) => n.startsWith('INSERT supplier_bank_account'))).toBe(true)
    // Every statement of every request, writes and failure paths included, has its span.
    const statements = otlp.spans.filter((s) => s.attributes['db.system.name'] === 'postgresql')
    expect(statements.length).toBeGreaterThan(50)
    expect(statements.length).toBe(traced)
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
    // The scan itself sees what it looks for: the masks of the same values are there.
    expect(responses.join('\n')).toContain(SECRETS.taxNo.slice(-4))
    expect(hits).toEqual([])
  }, 60_000)
})
