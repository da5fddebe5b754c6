import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { httpPermissionLookup } from '../src/ports/permission'
import { spoilingProvider } from './failed-approvals'
import { ALL_PERMISSIONS, useHarness, type Harness } from './harness'
import { confirmingFinance, resolveVersions, validRequest } from './valid-requests'
import { unchanged } from './unchanged'

/**
 * The authorization matrix, enumerated from the routes' own declarations (x-permissions and
 * x-roles of /openapi.json, generated from `authorize(...)`), so that a route added later is in
 * it: each required permission, and the role, removed in turn → 395002 with nothing written; and
 * the permission port answering false, failing, answering non-success or not at all → 395002.
 * Every request is one that succeeds (test/valid-requests.ts), and it is sent again, allowed,
 * after the refusals as the control: so "nothing written" is about a write that would have
 * written, on a target the refusals found as it was.
 */

interface GuardedRoute {
  method: string
  path: string
  permissions: string[]
  roles?: string[]
}

const PERMISSION_DENIED = 395002

/** Every route that declares permissions, from the document the app generates. */
async function guardedRoutes(h: Harness): Promise<GuardedRoute[]> {
  const doc = (await (await h.app.request('/openapi.json')).json()) as {
    paths: Record<string, Record<string, { 'x-permissions'?: string[]; 'x-roles'?: string[] }>>
  }
  const routes: GuardedRoute[] = []
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      if (!op['x-permissions']) continue
      routes.push({
        method: method.toUpperCase(),
        path,
        permissions: op['x-permissions'],
        roles: op['x-roles'],
      })
    }
  }
  return routes
}

/** The route's valid request, its body with the target's current versions. */
async function prepared(h: Harness, route: GuardedRoute) {
  const request = await validRequest(h, route)
  return { url: request.url, body: await resolveVersions(h, request.body?.()) }
}

/** The control, sent after the refusals: with every permission the same request succeeds. */
async function expectSuccess(
  h: Harness,
  route: GuardedRoute,
  admin: string,
  body: unknown,
  url: string,
) {
  const res = await h.call(route.method, url, { admin, body })
  expect(
    res.body,
    `control ${route.method} ${route.path}: ${JSON.stringify(res.body)}`,
  ).toMatchObject({
    code: 200,
    success: true,
  })
}

const finance = confirmingFinance()
beforeAll(() => finance.start())
afterAll(() => finance.stop())

describe('authorization matrix over every declared route', () => {
  const h = useHarness({ approvalProvider: spoilingProvider, env: () => finance.env() })
  let routes: GuardedRoute[]
  let everyPermission: string[]
  let everyRole: string[]
  beforeAll(async () => {
    routes = await guardedRoutes(h)
    everyPermission = [...new Set([...ALL_PERMISSIONS, ...routes.flatMap((r) => r.permissions)])]
    everyRole = [...new Set(['ADMIN', ...routes.flatMap((r) => r.roles ?? [])])]
  })

  it('finds the routes: every write route of the supplier API is among them', () => {
    const keys = routes.map((r) => `${r.method} ${r.path}`)
    expect(keys).toEqual(
      expect.arrayContaining([
        'POST /admin/supplier/items',
        'PUT /admin/supplier/items/{supplierId}',
        'POST /admin/supplier/items/{supplierId}/submit',
        'DELETE /admin/supplier/items/{supplierId}',
        'PUT /admin/supplier/types/{typeCode}/qualification-rules',
        'PUT /admin/supplier/resource-relations/{resourceModule}/{resourceId}',
      ]),
    )
    expect(routes.length).toBeGreaterThanOrEqual(12)
  })

  it('each required permission removed in turn → 395002, nothing written; with all of them the same request succeeds', async () => {
    let checked = 0
    for (const route of routes) {
      const { url, body } = await prepared(h, route)
      const refusals: [string, string][] = []
      for (const missing of route.permissions) {
        const admin = await h.admin(
          everyPermission.filter((p) => p !== missing),
          everyRole,
        )
        refusals.push([`without ${missing}`, admin])
      }
      if (route.roles) refusals.push(['without a role', await h.admin(everyPermission, [])])
      const full = await h.admin(everyPermission, everyRole)
      // The refusals first, on the target as it is: each writes nothing at all.
      for (const [what, admin] of refusals) {
        const where = `${route.method} ${route.path} ${what}`
        const res = await unchanged(h, () => h.call(route.method, url, { admin, body }), {
          grants: true,
          message: where,
        })
        expect(res.status, where).toBe(200)
        expect(res.body, where).toMatchObject({
          code: PERMISSION_DENIED,
          success: false,
          data: null,
        })
        checked++
      }
      // Then the control: the very same request, allowed, succeeds (a write would have written).
      await expectSuccess(h, route, full, body, url)
    }
    expect(checked).toBeGreaterThanOrEqual(routes.length)
  })
})

describe('the permission port misbehaving (HTTP adapter, real local server) → refused on every route', () => {
  type Mode = 'true' | 'false' | 'http-error' | 'non-success' | 'malformed' | 'silent'
  let mode: Mode = 'true'
  const hanging = new Set<ServerResponse>()
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(JSON.stringify(body))
  }
  const service = createServer((req: IncomingMessage, res: ServerResponse) => {
    const roles = req.url!.endsWith('/roles')
    switch (mode) {
      case 'true':
        return json(res, 200, { code: 200, success: true, data: roles ? ['ADMIN'] : true })
      case 'false':
        return json(res, 200, { code: 200, success: true, data: roles ? [] : false })
      case 'http-error':
        return json(res, 500, { code: 500, success: false, data: null })
      case 'non-success':
        return json(res, 200, { code: 403001, success: false, data: roles ? ['ADMIN'] : true })
      case 'malformed':
        res.writeHead(200, { 'content-type': 'application/json' })
        return res.end('{"code":200,"success":true,"data":')
      case 'silent':
        hanging.add(res)
    }
  })
  beforeAll(() => new Promise<void>((r) => service.listen(0, '127.0.0.1', r)))
  afterAll(
    () =>
      new Promise<void>((r) => {
        for (const res of hanging) res.destroy()
        service.close(() => r())
      }),
  )
  const h = useHarness({
    // Every request asks the port (a granted read is otherwise remembered for a few seconds).
    env: () => ({
      PERMISSION_TIMEOUT_MS: '250',
      PERMISSION_READ_CACHE_SECONDS: '0',
      ...finance.env(),
    }),
    approvalProvider: spoilingProvider,
    permissions: () =>
      httpPermissionLookup({
        baseUrl: `http://127.0.0.1:${(service.address() as AddressInfo).port}/`,
        timeoutMs: 250,
      }),
  })

  it.each<Mode>(['false', 'http-error', 'non-success', 'malformed', 'silent'])(
    'the port answering %s: 395002 on every route, nothing written; answering true, the same request succeeds',
    async (m) => {
      const routes = await guardedRoutes(h)
      const admin = await h.admin()
      for (const route of routes) {
        mode = 'true'
        const { url, body } = await prepared(h, route)
        mode = m
        const where = `${m}: ${route.method} ${route.path}`
        const res = await unchanged(h, () => h.call(route.method, url, { admin, body }), {
          grants: true,
          message: where,
        })
        expect(res.body, where).toMatchObject({ code: PERMISSION_DENIED, success: false })
        mode = 'true'
        await expectSuccess(h, route, admin, body, url)
      }
    },
    120_000,
  )
})
