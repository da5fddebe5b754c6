import SwaggerParser from '@apidevtools/swagger-parser'
import { createConfig, lintFromString } from '@redocly/openapi-core'
import { Document as SpectralDocument, Spectral } from '@stoplight/spectral-core'
import { Json } from '@stoplight/spectral-parsers'
import { oas } from '@stoplight/spectral-rulesets'
import { beforeAll, describe, expect, it } from 'vitest'
import { mismatch } from './contract'
import { useHarness } from './harness'
import { WRITE_OPERATIONS } from '../src/schemas/lifecycle'

interface Operation {
  operationId?: string
  summary?: string
  security?: Record<string, string[]>[]
  'x-permissions'?: string[]
  'x-operation-number'?: string
  'x-business-codes'?: { code: number; name: string; message: string }[]
  requestBody?: { content: Record<string, { schema: any }> }
  responses: Record<string, any>
  parameters?: { name?: string; in?: string; $ref?: string }[]
}
type Document = {
  openapi: string
  servers: { url: string }[]
  paths: Record<string, Record<string, Operation>>
  components: Record<'schemas' | 'responses' | 'parameters', Record<string, any>>
}

const h = useHarness()

/** Every (path, method) the app serves, as OpenAPI keys ("/items/{supplierId}", "get"). */
const servedRoutes = () => {
  const keys = new Set<string>()
  for (const route of h.app.routes) {
    if (route.method === 'ALL') continue
    keys.add(`${route.method.toLowerCase()} ${route.path.replace(/:(\w+)/g, '{$1}')}`)
  }
  return [...keys].sort().map((key) => {
    const [method, path] = key.split(' ')
    return { method, path }
  })
}

/** A value for a path parameter that passes its own validation, so a body check is reached. */
const sampleParam = (name: string) => (/id$/i.test(name) ? '9007199254740993' : 'SCENIC')

const fill = (path: string) => path.replace(/\{(\w+)\}/g, (_, name) => sampleParam(name))

let doc: Document

const operations = () =>
  Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ path, method, op, where: `${method} ${path}` })),
  )

/** Follows one `$ref` inside the document. */
const deref = (value: any): any =>
  value?.$ref
    ? value.$ref
        .slice(2)
        .split('/')
        .reduce((node: any, key: string) => node[key.replace(/~1/g, '/')], doc)
    : value

const envelopeOf = (op: Operation) => op.responses['200'].content['application/json'].schema

/** The codes of the 200 envelope's branches: 200 for success, then each failure's. */
const codesOf = (op: Operation) =>
  (envelopeOf(op).oneOf ?? [envelopeOf(op)]).map((b: any) => deref(b).properties.code.const)

beforeAll(async () => {
  const res = await h.call('GET', '/openapi.json', { admin: null })
  expect(res.status).toBe(200)
  doc = res.body
})

describe('/openapi.json, checked by validators we did not write', () => {
  it('swagger-parser validates it (OpenAPI 3.1 schema and $refs)', async () => {
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy()
  })

  it("Redocly's recommended rules report no error and no warning", async () => {
    const problems = await lintFromString({
      source: JSON.stringify(doc),
      absoluteRef: 'openapi.json',
      config: await createConfig({ extends: ['recommended'] }),
    })
    expect(
      problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`),
    ).toEqual([])
  })

  it("Spectral's spectral:oas ruleset reports nothing, not even a hint", async () => {
    const spectral = new Spectral()
    spectral.setRuleset({ extends: [oas] } as never)
    const results = await spectral.run(new SpectralDocument(JSON.stringify(doc), Json))
    expect(results.map((r) => `${r.code}: ${r.message} at ${r.path.join('.')}`)).toEqual([])
  })
})

describe('/openapi.json', () => {
  it('is an OpenAPI 3.1 document with a server and a default security requirement', () => {
    expect(doc.openapi).toBe('3.1.0')
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })])
  })

  it('describes every route the app serves, and nothing else', () => {
    const served = servedRoutes()
    expect(served.length).toBeGreaterThanOrEqual(6)
    expect(served.filter(({ path, method }) => !doc.paths[path]?.[method])).toEqual([])
    const keys = new Set(served.map(({ method, path }) => `${method} ${path}`))
    expect(operations().filter(({ where }) => !keys.has(where))).toEqual([])
  })

  it('declares every path parameter', () => {
    for (const { path, op, where } of operations()) {
      const names = [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => name)
      const declared = (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name)
      expect(declared.sort(), where).toEqual([...names].sort())
    }
  })

  it('public routes say security: [], /admin routes bearer + X-Admin-Id, /internal the token', () => {
    for (const { path, op, where } of operations()) {
      if (path.startsWith('/admin/'))
        expect(op.security, where).toEqual([{ bearer: [], adminId: [] }])
      else if (path.startsWith('/internal/'))
        expect(op.security, where).toEqual([{ internalToken: [] }])
      else if (path !== '/metrics') expect(op.security, where).toEqual([])
    }
    expect(doc.paths['/healthz'].get.security).toEqual([])
  })

  it('operationIds are unique camelCase; SUP-ADM numbers stay in the summary and x-operation-number', () => {
    const ids = operations().map(({ op }) => op.operationId)
    expect(
      ids.every((id) => /^[a-z][A-Za-z0-9]+$/.test(id ?? '')),
      ids.join(' '),
    ).toBe(true)
    expect(new Set(ids).size).toBe(ids.length)
    const create = doc.paths['/admin/supplier/items'].post
    expect(create.operationId).toBe('createSupplierDraft')
    expect(create.summary).toMatch(/^SUP-ADM-003: /)
    expect(create['x-operation-number']).toBe('SUP-ADM-003')
    expect(doc.paths['/admin/supplier/items/{supplierId}'].get.operationId).toBe(
      'getSupplierDetail',
    )
    for (const { op, where } of operations()) {
      const number = /^(SUP-ADM-\d{3})/.exec(op.summary ?? '')?.[1]
      expect(op['x-operation-number'], where).toBe(number)
    }
  })

  it('every write takes an optional Idempotency-Key; every answer documents X-Request-Id', () => {
    const param = doc.components.parameters
    expect(param.IdempotencyKey).toMatchObject({ name: 'Idempotency-Key', in: 'header' })
    for (const { op, where } of operations()) {
      const takesKey = (op.parameters ?? []).some(
        (p) => p.$ref === '#/components/parameters/IdempotencyKey',
      )
      // The writes of WRITE_OPERATIONS; a POST that only reads (the tax-number lookup) takes none.
      expect(takesKey, where).toBe((op.operationId ?? '') in WRITE_OPERATIONS)
      for (const [status, response] of Object.entries(op.responses)) {
        expect(deref(response).headers?.['X-Request-Id'], `${where} ${status}`).toBeDefined()
      }
    }
  })

  it('documents the HTTP 400, 404 and 500 envelopes on every operation', () => {
    for (const { op, where } of operations()) {
      expect(op.responses['400'], where).toEqual({ $ref: '#/components/responses/BadRequest' })
      expect(op.responses['404'], where).toEqual({ $ref: '#/components/responses/NotFound' })
      expect(op.responses['500'], where).toEqual({ $ref: '#/components/responses/InternalError' })
    }
    const internal = deref(
      doc.components.responses.InternalError.content['application/json'].schema,
    )
    expect(internal.properties.code.const).toBe(500)
    expect(internal.properties.data).toEqual({ $ref: '#/components/schemas/InternalErrorData' })
  })

  it('the envelope: success and each business failure are their own shapes, listed per operation', () => {
    for (const { path, op, where } of operations()) {
      if (!path.startsWith('/admin/')) continue
      const codes = codesOf(op)
      expect(codes[0], where).toBe(200)
      expect(codes, where).toContain(401)
      if (op['x-permissions']) expect(codes, where).toEqual(expect.arrayContaining([400, 395002]))
      // The table of codes with their messages says the same as the schema.
      expect(
        op['x-business-codes']!.map((c) => c.code),
        where,
      ).toEqual(codes.slice(1))
      const success = envelopeOf(op).oneOf[0]
      expect(success.properties.success.const, where).toBe(true)
      for (const branch of envelopeOf(op).oneOf.slice(1)) {
        const failure = deref(branch)
        expect(failure.properties.success.const, where).toBe(false)
        expect(failure.description, where).toBeTruthy()
      }
    }
  })

  it("each operation's codes come from its route's declared errors", () => {
    const op = (path: string, method: string) => doc.paths[path][method]
    expect(codesOf(op('/admin/supplier/items/{supplierId}', 'get'))).toContain(395001)
    expect(codesOf(op('/admin/supplier/items', 'get'))).not.toContain(395001)
    const submit = codesOf(op('/admin/supplier/items/{supplierId}/submit', 'post'))
    expect(submit).toEqual(expect.arrayContaining([395001, 395005, 395006, 395007, 395008]))
    // Writes add the Idempotency-Key and duplicate-submit codes; reads do not.
    expect(submit).toEqual(expect.arrayContaining([395013, 395027, 395028]))
    expect(codesOf(op('/admin/supplier/items/{supplierId}', 'get'))).not.toContain(395027)
  })

  it('codes that carry data document its schema (395006 count + token, 395008 missing list)', () => {
    const s = doc.components.schemas
    expect(s.NearDuplicateConfirmRequiredFailure.properties.data).toEqual({
      $ref: '#/components/schemas/NearDuplicateConfirmation',
    })
    // The candidates themselves only for callers who may see suppliers: not required.
    expect(s.NearDuplicateConfirmation.required).toEqual(
      expect.arrayContaining(['candidateCount', 'duplicateConfirmToken']),
    )
    expect(s.NearDuplicateConfirmation.required).not.toContain('candidates')
    expect(s.QualificationsMissingFailure.properties.data).toEqual({
      $ref: '#/components/schemas/MissingQualifications',
    })
    expect(s.SupplierNotFoundFailure.properties.data).toEqual({ type: 'null' })
    expect(s.SupplierNotFoundFailure.properties.code).toEqual({ type: 'integer', const: 395001 })
  })

  it("names the spec's VOs and requests as component schemas and refers to them", () => {
    const names = Object.keys(doc.components.schemas)
    expect(names).toEqual(
      expect.arrayContaining([
        'SupplierBasicInfoVO',
        'SupplierListItemVO',
        'SupplierAccountInfoVO',
        'SupplierApprovalRecordVO',
        'SupplierWriteResultVO',
        'ApprovalCommandResultVO',
        'SupplierContactVO',
        'QualificationRuleVO',
        'SupplierDraftUpsertRequest',
        'SupplierUpdateRequest',
        'SupplierSubmitRequest',
        'ContactReplaceRequest',
        'QualificationRuleReplaceRequest',
      ]),
    )
    const detail = doc.paths['/admin/supplier/items/{supplierId}'].get
    expect(envelopeOf(detail).oneOf[0].properties.data).toEqual({
      $ref: '#/components/schemas/SupplierBasicInfoVO',
    })
    expect(
      doc.paths['/admin/supplier/items'].post.requestBody!.content['application/json'],
    ).toMatchObject({ schema: { $ref: '#/components/schemas/SupplierDraftUpsertRequest' } })
    // Enumerations reach the document (the reference page shows them).
    expect(doc.components.schemas.SupplierWriteResultVO.properties.status.enum).toContain('DRAFT')
  })

  it('one SupplierBankAccountVO: the account-info list and every account answer refer to it', () => {
    const s = doc.components.schemas as Record<string, any>
    expect(s.SupplierAccountInfoVO.properties.bankAccounts.items).toEqual({
      $ref: '#/components/schemas/SupplierBankAccountVO',
    })
    const account = doc.paths['/admin/supplier/items/{supplierId}/accounts/{accountId}'].get
    expect(envelopeOf(account).oneOf[0].properties.data).toEqual({
      $ref: '#/components/schemas/SupplierBankAccountVO',
    })
    expect(Object.keys(s.SupplierBankAccountVO.properties)).toEqual(
      expect.arrayContaining(['accountNoMask', 'riskFlags', 'proofFileUrls', 'updateTime']),
    )
  })

  it('every route that parses a JSON body documents its requestBody, and vice versa', async () => {
    // Observable test of "has a JSON validator": a malformed JSON body is refused with HTTP 400
    // only by routes that parse JSON. Every write route is probed; GET routes never take a body.
    const writes = servedRoutes().filter(({ method }) => method !== 'get')
    expect(writes.length, 'the app serves no write route yet').toBeGreaterThan(0)
    const parsesJson: string[] = []
    for (const { method, path } of writes) {
      const res = await h.call(method.toUpperCase(), fill(path), {
        raw: '{"malformed": ',
        headers: {
          'idempotency-key': crypto.randomUUID(),
          'x-internal-token': h.config.internalToken,
        },
      })
      if (res.status === 400) parsesJson.push(`${method} ${path}`)
    }
    const documented = writes
      .filter(({ method, path }) => doc.paths[path]?.[method]?.requestBody)
      .map(({ method, path }) => `${method} ${path}`)
    expect(parsesJson.length).toBeGreaterThan(0)
    expect(parsesJson.sort()).toEqual(documented.sort())
    for (const key of documented) {
      const [method, path] = key.split(' ')
      const body = doc.paths[path][method].requestBody!
      expect(deref(body.content['application/json']?.schema), key).toMatchObject({
        type: 'object',
      })
    }
  })

  it('the qualification-rule replace request documents its body schema', () => {
    const op = doc.paths['/admin/supplier/types/{typeCode}/qualification-rules']?.put
    expect(deref(op?.requestBody?.content['application/json']?.schema)).toMatchObject({
      type: 'object',
      properties: { rules: { type: 'array' } },
    })
  })
})

describe('the harness check against the document', () => {
  const answer = (body: unknown, status = 200) => ({
    method: 'GET',
    path: '/admin/supplier/items/9007199254740993?x=1',
    status,
    contentType: 'application/json',
    headers: new Headers({ 'x-request-id': 'r' }),
    body,
  })
  const notFound = { code: 395001, message: 'gone', success: false, data: null }

  it('accepts a declared failure and names what is wrong with anything else', () => {
    expect(mismatch(doc, answer(notFound))).toBeUndefined()
    expect(mismatch(doc, answer({ ...notFound, code: 395012 }))).toMatch(
      /GET \/admin\/supplier\/items\/\{supplierId\}: code 395012 is not declared/,
    )
    expect(mismatch(doc, answer({ ...notFound, data: { leaked: true } }))).toMatch(/\/data/)
    expect(mismatch(doc, answer({ ...notFound, extra: 1 }))).toMatch(/additional/)
    expect(mismatch(doc, answer({ code: 200, message: '成功', success: true, data: {} }))).toMatch(
      /required/,
    )
    expect(mismatch(doc, answer(notFound, 418))).toMatch(/HTTP 418 is not documented/)
    expect(mismatch(doc, { ...answer(notFound), headers: new Headers() })).toMatch(
      /X-Request-Id header missing/,
    )
  })

  it('an unknown route must answer the 404 envelope', async () => {
    const res = await h.call('GET', '/no/such/route', { admin: null })
    expect(res.status).toBe(404)
    expect(
      mismatch(doc, { ...answer({ ...res.body, code: 400 }, 404), path: '/no/such/route' }),
    ).toMatch(/code|const/)
  })
})

describe('/docs', () => {
  it('is the Swagger UI page over /openapi.json, its script and stylesheet served here', async () => {
    const res = await h.call('GET', '/docs', { admin: null })
    expect(res.status).toBe(200)
    const page = res.body as string
    expect(page).toMatch(/^<!doctype html>/i)
    expect(page).toContain("url: 'openapi.json'")
    const assets = [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map(([, url]) => url)
    expect(assets.sort()).toEqual([
      'docs/assets/swagger-ui-bundle.js',
      'docs/assets/swagger-ui.css',
    ])
    for (const asset of assets) {
      const file = await h.app.request(`/${asset}`)
      expect(file.status, asset).toBe(200)
      expect(file.headers.get('content-type'), asset).toMatch(/^text\/(javascript|css)/)
      expect((await file.arrayBuffer()).byteLength, asset).toBeGreaterThan(100_000)
    }
    expect((await h.call('GET', '/docs/assets/package.json', { admin: null })).status).toBe(404)
  })

  it('loads nothing from another origin and calls no validator service', async () => {
    const page = (await h.call('GET', '/docs', { admin: null })).body as string
    expect(page).not.toMatch(/(?:src|href)=["'](?:https?:)?\/\//i)
    expect(page).toContain('validatorUrl: null')
  })
})
