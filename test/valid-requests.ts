import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { accountBody, registeredSupplier } from './account-data'
import { ITEMS, LICENSE, ok } from './client'
import { failedApproval } from './failed-approvals'
import { insertSupplier, randomAccountNo, randomPhone, tag } from './fixtures'
import type { Harness } from './harness'
import { insertResource } from './resource-data'
import { fullDraftBody, uniqueName } from './supplier-data'

/*
 * A request that succeeds, for every route the guarantee tests enumerate from the app's own
 * document: a fresh target of its own (made with SQL, or through the API where only the API can
 * make it) and a body the route accepts. The authorization matrix sends it as its control (the
 * refused caller's request would have written), the hostile-input properties break it in one
 * place. A route added later without an entry here fails those tests until it gets one.
 *
 * The harness must approve with `spoilingProvider` (withdraw, re-apply) and ask a confirming
 * finance service (`confirmingFinance`, archive).
 */

export interface ValidRequest {
  url: string
  /**
   * A new valid body at each call (fresh names and numbers), or none for a route without one.
   * Versions are tokens that `resolveVersions` fills in at send time.
   */
  body?: () => Record<string, unknown>
}

const supplierVersion = (supplierId: string) => `@supplier-version:${supplierId}`
const accountVersion = (accountId: string) => `@account-version:${accountId}`

/** The body with every version token replaced by the target's current version. */
export async function resolveVersions(h: Pick<Harness, 'sql'>, body: unknown): Promise<unknown> {
  if (body === undefined) return undefined
  const text = JSON.stringify(body)
  const tokens = [...new Set(text.match(/@(supplier|account)-version:\d+/g) ?? [])]
  let resolved = text
  for (const token of tokens) {
    const [kind, id] = token.slice(1).split('-version:')
    const [row] =
      kind === 'supplier'
        ? await h.sql`
            SELECT to_char(update_time, 'YYYY-MM-DD HH24:MI:SS') AS v FROM supplier
            WHERE supplier_id = ${id}`
        : await h.sql`
            SELECT to_char(update_time, 'YYYY-MM-DD HH24:MI:SS') AS v FROM supplier_bank_account
            WHERE account_id = ${id}`
    resolved = resolved.split(token).join(row?.v ?? '2030-01-01 00:00:00')
  }
  return JSON.parse(resolved)
}

const draft = async (h: Harness) => (await insertSupplier(h)).supplierId
const active = async (h: Harness, typeCode = 'HOTEL') =>
  (
    await insertSupplier(h, {
      status: 'ACTIVE',
      supplierNo: `SPV${tag()}`,
      types: [{ typeCode, isPrimary: true }],
    })
  ).supplierId
/** A registered supplier with two ACTIVE accounts, the first its default. */
const withAccounts = (h: Harness) =>
  registeredSupplier(h, { accounts: [{ isDefault: 'YES' }, { isDefault: 'NO' }] })

/** A HOTEL resource bound to an ACTIVE supplier through the API; the relation as answered. */
async function boundRelation(h: Harness) {
  const supplierId = await active(h)
  const resourceId = await insertResource(h, 'HOTEL')
  const url = `/admin/supplier/resource-relations/HOTEL/${resourceId}`
  const relation = ok(await h.call('PUT', url, { body: { supplierId, changeReason: '签约' } }))
  return { url, supplierId, relation }
}

const VALID: Record<string, (h: Harness) => Promise<ValidRequest>> = {
  'GET /admin/supplier/items': async () => ({ url: `${ITEMS}?page=1&pageSize=10` }),
  'POST /admin/supplier/items': async () => ({
    url: ITEMS,
    body: () =>
      fullDraftBody({
        initialAccounts: [
          {
            accountType: 'CORPORATE',
            bankName: 'ICBC Hangzhou',
            accountNo: randomAccountNo(),
            settleMode: 'MONTHLY',
            accountPeriod: 30,
            invoiceType: 'SPECIAL',
            taxRate: 6,
          },
        ],
      }),
  }),
  'GET /admin/supplier/items/{supplierId}': async (h) => ({ url: `${ITEMS}/${await draft(h)}` }),
  'PUT /admin/supplier/items/{supplierId}': async (h) => {
    const id = await draft(h)
    return {
      url: `${ITEMS}/${id}`,
      body: () => ({
        shortName: uniqueName('Short'),
        changeReason: 'hostile',
        remark: 'note',
        contacts: [{ contactName: 'Li Si', contactPhone: randomPhone() }],
        expectedUpdateTime: supplierVersion(id),
      }),
    }
  },
  'DELETE /admin/supplier/items/{supplierId}': async (h) => ({ url: `${ITEMS}/${await draft(h)}` }),
  'GET /admin/supplier/items/{supplierId}/account-info': async (h) => ({
    url: `${ITEMS}/${(await withAccounts(h)).supplierId}/account-info`,
  }),
  'POST /admin/supplier/tax-number-lookup': async (h) => {
    const { taxNo } = await insertSupplier(h, { status: 'ACTIVE', supplierNo: `SPV${tag()}` })
    return { url: '/admin/supplier/tax-number-lookup', body: () => ({ taxNo }) }
  },
  'GET /admin/supplier/approval-records': async () => ({
    url: '/admin/supplier/approval-records?page=1&pageSize=10',
  }),
  'GET /admin/supplier/types/{typeCode}/qualification-rules': async () => ({
    url: '/admin/supplier/types/OTHER/qualification-rules',
  }),
  'PUT /admin/supplier/types/{typeCode}/qualification-rules': async () => ({
    url: '/admin/supplier/types/OTHER/qualification-rules',
    // A new set each time (never "no change"), none of it required of any supplier.
    body: () => ({
      rules: [{ qualType: `PERMIT_${tag()}`, isRequired: false, warningDays: 30, sortOrder: 1 }],
    }),
  }),
  'GET /admin/supplier/qualifications/expiring': async () => ({
    url: '/admin/supplier/qualifications/expiring?withinDays=30',
  }),
  'PUT /admin/supplier/items/{supplierId}/contacts': async (h) => {
    const id = await draft(h)
    return {
      url: `${ITEMS}/${id}/contacts`,
      body: () => ({
        contacts: [{ contactName: 'Wang Wu', contactPhone: randomPhone(), remark: 'r' }],
        changeReason: 'why',
        expectedUpdateTime: supplierVersion(id),
      }),
    }
  },
  'POST /admin/supplier/items/{supplierId}/submit': async (h) => {
    const id = await draft(h)
    return {
      url: `${ITEMS}/${id}/submit`,
      body: () =>
        fullDraftBody({
          licenseImageUrl: LICENSE,
          initialAccounts: undefined,
          expectedUpdateTime: supplierVersion(id),
        }),
    }
  },
  'POST /admin/supplier/approvals/{approvalLogId}/withdraw': async (h) => ({
    url: `/admin/supplier/approvals/${(await failedApproval(h, 'STATUS_CHANGE')).approvalLogId}/withdraw`,
  }),
  'GET /admin/supplier/lifecycle/transitions': async () => ({
    url: '/admin/supplier/lifecycle/transitions',
  }),
  'POST /admin/supplier/items/{supplierId}/status': async (h) => {
    const id = await active(h)
    return {
      url: `${ITEMS}/${id}/status`,
      body: () => ({
        targetStatus: 'SUSPENDED',
        changeReason: 'hostile',
        expectedUpdateTime: supplierVersion(id),
      }),
    }
  },
  'POST /admin/supplier/items/{supplierId}/archive': async (h) => {
    const { supplierId } = await insertSupplier(h, {
      status: 'SUSPENDED',
      supplierNo: `SPV${tag()}`,
    })
    return { url: `${ITEMS}/${supplierId}/archive` }
  },
  'GET /admin/supplier/items/{supplierId}/resource-info/page': async (h) => ({
    url: `${ITEMS}/${await active(h)}/resource-info/page`,
  }),
  'GET /admin/supplier/resource-relations/{resourceModule}/{resourceId}': async (h) => ({
    url: (await boundRelation(h)).url,
  }),
  'PUT /admin/supplier/resource-relations/{resourceModule}/{resourceId}': async (h) => {
    const supplierId = await active(h)
    return {
      url: `/admin/supplier/resource-relations/HOTEL/${await insertResource(h, 'HOTEL')}`,
      body: () => ({ supplierId, remark: 'r', changeReason: 'bind' }),
    }
  },
  'POST /admin/supplier/resource-relations/{resourceModule}/{resourceId}/unbind': async (h) => {
    const { url, supplierId, relation } = await boundRelation(h)
    return {
      url: `${url}/unbind`,
      body: () => ({
        expectedCurrentSupplierId: supplierId,
        expectedRelationUpdateTime: relation.updateTime,
        changeReason: 'contract ended',
      }),
    }
  },
  'GET /admin/supplier/items/{supplierId}/accounts': async (h) => ({
    url: `${ITEMS}/${(await withAccounts(h)).supplierId}/accounts`,
  }),
  'GET /admin/supplier/items/{supplierId}/accounts/{accountId}': async (h) => {
    const s = await withAccounts(h)
    return { url: `${ITEMS}/${s.supplierId}/accounts/${s.accountIds[0]}` }
  },
  'POST /admin/supplier/items/{supplierId}/accounts/batch': async (h) => {
    const { supplierId } = await registeredSupplier(h)
    return {
      url: `${ITEMS}/${supplierId}/accounts/batch`,
      body: () => ({ accounts: [accountBody()] }),
    }
  },
  'POST /admin/supplier/items/{supplierId}/accounts/{accountId}/change': async (h) => {
    const s = await withAccounts(h)
    const accountId = s.accountIds[0]
    return {
      url: `${ITEMS}/${s.supplierId}/accounts/${accountId}/change`,
      body: () => ({
        bankName: 'Bank of Hangzhou',
        accountNo: randomAccountNo(),
        changeReason: 'moved',
        expectedUpdateTime: accountVersion(accountId),
      }),
    }
  },
  'PUT /admin/supplier/items/{supplierId}/accounts/{accountId}/default': async (h) => {
    const s = await withAccounts(h)
    const accountId = s.accountIds[1]
    return {
      url: `${ITEMS}/${s.supplierId}/accounts/${accountId}/default`,
      body: () => ({ expectedUpdateTime: accountVersion(accountId) }),
    }
  },
  'POST /internal/supplier/approvals/{approvalLogId}/apply': async (h) => ({
    url: `/internal/supplier/approvals/${(await failedApproval(h, 'STATUS_CHANGE')).approvalLogId}/apply`,
  }),
}

/** A fresh target and a valid request for the route; fails for a route without an entry. */
export async function validRequest(
  h: Harness,
  route: { method: string; path: string },
): Promise<ValidRequest> {
  const make = VALID[`${route.method} ${route.path}`]
  if (!make) {
    throw new Error(
      `no valid request for ${route.method} ${route.path}: add one to test/valid-requests.ts`,
    )
  }
  return make(h)
}

/**
 * A finance clearance service on 127.0.0.1 that confirms whatever supplier it is asked about;
 * `env()` is the harness configuration that points the service at it.
 */
export function confirmingFinance() {
  let server: Server | undefined
  return {
    async start() {
      server = createServer((req, res) => {
        let raw = ''
        req.on('data', (chunk) => (raw += chunk))
        req.on('end', () => {
          const { supplierId } = JSON.parse(raw || '{}')
          res.writeHead(200, { 'content-type': 'application/json' })
          res.end(
            JSON.stringify({
              code: 200,
              success: true,
              data: {
                supplierId,
                cleared: true,
                clearanceRequestId: `FC-${supplierId}`,
                checkedAt: '2026-11-23 09:30:00',
                ledgerRevision: '77120',
              },
            }),
          )
        })
      })
      await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
    },
    env: () => ({
      FINANCE_CLEARANCE_URL: `http://127.0.0.1:${(server!.address() as AddressInfo).port}/clearance`,
      FINANCE_CLEARANCE_TIMEOUT_MS: '2000',
    }),
    async stop() {
      server?.closeAllConnections()
      await new Promise((resolve) => server?.close(resolve))
    },
  }
}
