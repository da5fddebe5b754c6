import { editApproval } from './fixtures'
import { serve } from '@hono/node-server'
import type { AddressInfo } from 'node:net'
import { beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../src/app'
import { createLogger } from '../src/logger'
import { sqlPermissionLookup } from '../src/ports/permission'
import { useHarness } from './harness'
import { ITEMS, register } from './client'

const TOKEN = 'metrics-token-0123456789'

let providerDown = false
let lookupBroken: string | undefined
const h = useHarness({
  env: { METRICS_TOKEN: TOKEN, STUCK_APPROVAL_AGE_SECONDS: '600' },
  // A lookup that fails for one administrator: the request is denied and the failure counted.
  permissions: (sql) => {
    const lookup = sqlPermissionLookup(sql)
    return {
      has: (adminId, code) =>
        adminId === lookupBroken ? Promise.reject(new Error('down')) : lookup.has(adminId, code),
      roles: (adminId) => lookup.roles(adminId),
    }
  },
  approvalProvider: () => ({
    name: 'LOCAL_AUTO',
    submit: async (approval) => {
      if (providerDown) throw new Error('provider down')
      return { approvalLogId: approval.approvalLogId, decision: 'APPROVED', schemaVersion: 1 }
    },
  }),
})

const scrape = async (token: string | null = TOKEN) => {
  const res = await h.call('GET', '/metrics', {
    admin: null,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  })
  return res
}

/** The value of one series, e.g. value(text, 'name{a="b"}'). */
const value = (text: string, series: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

describe('GET /metrics', () => {
  let admin: string
  beforeAll(async () => {
    admin = await h.admin()
  })

  it('needs the METRICS_TOKEN bearer when one is configured', async () => {
    expect((await scrape(null)).status).toBe(401)
    expect((await scrape('wrong-token-0123456789')).status).toBe(401)
    const res = await scrape()
    expect(res.status).toBe(200)
    expect(res.body).toContain('# TYPE supplier_http_requests_total counter')
  })

  it('counts requests and their latency by route template and business code, never by raw path', async () => {
    const missing = '9007199254740999'
    await h.call('GET', `${ITEMS}/${missing}`, { admin })
    await h.call('GET', `${ITEMS}/${missing}`, { admin })
    const text = (await scrape()).body as string
    const labels = 'method="GET",route="/admin/supplier/items/:supplierId"'
    expect(value(text, `supplier_http_requests_total{${labels},status="200",code="395001"}`)).toBe(
      2,
    )
    expect(
      value(text, `supplier_http_request_duration_seconds_count{${labels},code="395001"}`),
    ).toBe(2)
    expect(
      value(
        text,
        `supplier_http_request_duration_seconds_bucket{le="+Inf",${labels},code="395001"}`,
      ),
    ).toBe(2)
    expect(text).not.toContain(missing)
  })

  it('labels a 401 with the route it was meant for, and only an unmatched path with the frame', async () => {
    const missing = '9007199254740998'
    const refused = await h.call('GET', `${ITEMS}/${missing}/account-info`, { admin: null })
    expect(refused.body.code).toBe(401)
    const unknown = await h.call('GET', '/admin/supplier/no-such-route', { admin: null })
    expect(unknown.body.code).toBe(401)
    const text = (await scrape()).body as string
    const route = 'route="/admin/supplier/items/:supplierId/account-info"'
    expect(
      value(text, `supplier_http_requests_total{method="GET",${route},status="200",code="401"}`),
    ).toBe(1)
    expect(
      value(
        text,
        `supplier_http_requests_total{method="GET",route="/admin/*",status="200",code="401"}`,
      ),
    ).toBe(1)
  })

  it('counts permission-lookup failures (each one denied its request)', async () => {
    const before = value((await scrape()).body, 'supplier_permission_lookup_failures_total')
    lookupBroken = await h.admin()
    try {
      const res = await h.call('GET', ITEMS, { admin: lookupBroken })
      expect(res.body.code).toBe(395002)
    } finally {
      lookupBroken = undefined
    }
    const after = value((await scrape()).body, 'supplier_permission_lookup_failures_total')
    expect(after).toBe(before! + 1)
  })

  it('counts approval outcomes, and reports approvals stuck longer than the configured age', async () => {
    const applied = 'supplier_approval_outcomes_total{biz_type="PROFILE_CREATE",outcome="APPLIED"}'
    const appliedBefore = value((await scrape()).body, applied) ?? 0
    expect((await register(h, admin)).res.body.data.approvalStatus).toBe('APPLIED')
    expect(value((await scrape()).body, applied)).toBe(appliedBefore + 1)

    // The provider does not answer: the approval stays SUBMITTED. Stuck only once old enough.
    providerDown = true
    let approvalLogId: string
    try {
      const submitted = (await register(h, admin)).res
      expect(submitted.body.data.approvalStatus).toBe('SUBMITTED')
      approvalLogId = submitted.body.data.approvalLogId
    } finally {
      providerDown = false
    }
    const stuckBefore = value((await scrape()).body, 'supplier_approvals_stuck')
    await editApproval(
      h,
      approvalLogId,
      (tx) => tx`
        UPDATE approval_log SET submitted_at = now() - interval '11 minutes'
        WHERE approval_log_id = ${approvalLogId}`,
    )
    expect(value((await scrape()).body, 'supplier_approvals_stuck')).toBe(stuckBefore! + 1)
  })

  it('reports the database pool: its size and this process’s connections by state', async () => {
    const text = (await scrape()).body as string
    expect(value(text, 'supplier_db_pool_max_connections')).toBe(Number(h.sql.options.max))
    const states = text
      .split('\n')
      .filter((l) => l.startsWith('supplier_db_pool_connections{'))
      .map((l) => Number(l.split(' ')[1]))
    expect(states.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1)
    expect(value(text, 'supplier_metrics_database_errors_total')).toBe(0)
  })
})

describe('GET /metrics without METRICS_TOKEN', () => {
  it('answers a loopback client on the socket, and nobody behind a proxy', async () => {
    const app = createApp({
      config: { ...h.config, metrics: { ...h.config.metrics, token: undefined } },
      sql: h.sql,
      logger: createLogger({ level: 'silent' }),
      cipher: h.cipher,
      permissions: sqlPermissionLookup(h.sql),
    })
    const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 })
    await new Promise((resolve) => server.once('listening', resolve))
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      const direct = await fetch(`${base}/metrics`)
      expect(direct.status).toBe(200)
      expect(direct.headers.get('content-type')).toMatch(/^text\/plain/)
      expect(await direct.text()).toContain('supplier_db_pool_max_connections')
      const proxied = await fetch(`${base}/metrics`, { headers: { 'x-forwarded-for': '10.0.0.1' } })
      expect(proxied.status).toBe(401)
      // Without a socket (no client address), nothing is served either.
      expect((await app.request('/metrics')).status).toBe(401)
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })
})
