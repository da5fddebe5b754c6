import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import openapiTS, { astToString } from 'openapi-typescript'
import ts from 'typescript'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useHarness } from './harness'

/**
 * What a client team does with /openapi.json: generate types with openapi-typescript and
 * compile against them. The client below reads a success, narrows a failure by its code to
 * reach the 395006 candidates, and must compile; the misuses after it must not.
 */

const h = useHarness()
let dir: string

const CLIENT = `
import type { components, operations } from './api'

type Json<O extends keyof operations> = operations[O]['responses'][200]['content'] extends {
  'application/json': infer T
}
  ? T
  : never

export type SupplierBasicInfoVO = components['schemas']['SupplierBasicInfoVO']
export type DraftRequest = components['schemas']['SupplierDraftUpsertRequest']

export async function createDraft(
  body: DraftRequest,
  post: (body: DraftRequest) => Promise<Json<'createSupplierDraft'>>,
): Promise<string> {
  const answer = await post(body)
  if (answer.success) return answer.data.supplierId
  // The error branch: 395006 carries the count, the token to send back and, for a caller who
  // may see suppliers, the candidates.
  if (answer.code === 395006) {
    const count: number = answer.data.candidateCount
    const names: string[] = (answer.data.candidates ?? []).map((c) => \`\${c.fullName} (\${c.reason})\`)
    if (!count) throw new Error('a 395006 always counts its candidates')
    return post({ ...body, duplicateConfirmToken: answer.data.duplicateConfirmToken }).then(
      (again) => (again.success ? again.data.supplierId : names.join(', ')),
    )
  }
  const none: null = answer.data
  throw new Error(\`\${answer.code} \${answer.message} \${none}\`)
}

export function fullNameOf(answer: Json<'getSupplierDetail'>): string {
  if (!answer.success) return answer.code === 395001 ? 'no such supplier' : answer.message
  const detail: SupplierBasicInfoVO = answer.data
  return detail.fullName
}

export function missingOf(answer: Json<'submitSupplierRegistration'>): string[] {
  if (!answer.success && answer.code === 395008) return answer.data.missing.map((m) => m.qualType)
  return []
}

type Query<O extends keyof operations> = NonNullable<operations[O]['parameters']['query']>

// Integer query parameters are numbers for the caller; the service still parses them strictly.
export const firstPage: Query<'listSuppliers'> = { page: 1, pageSize: 50, status: 'ACTIVE' }
export const expiring: Query<'listExpiringQualifications'> = { withinDays: 30, page: 2 }

export function stageOf(result: components['schemas']['SupplierWriteResultVO']): string {
  switch (result.onboardingStage) {
    case 'PROFILE_DRAFT':
      return 'draft'
    case 'REGISTRATION_VETTING':
      return 'under approval'
    case 'ONBOARDED':
      return result.initialAccounts.every((a) => a.status === 'ACTIVE') ? 'ready' : 'accounts pending'
  }
}

export const draft: DraftRequest = {
  fullName: 'Hangzhou Lake Travel',
  taxNo: '91330106MA2KXY712Q',
  mainCooperation: 'guides',
  types: [{ typeCode: 'OTHER' }],
  staffScale: 'LT50',
}
`

/** Misuses the generated types must refuse, one per file. */
const MISUSES: Record<string, [code: string, error: RegExp]> = {
  'data before checking success': [
    `export const f = (a: Json<'getSupplierDetail'>) => a.data.fullName`,
    /Property 'fullName' does not exist|'a\.data' is possibly 'null'/,
  ],
  'candidates without narrowing the code': [
    `export const f = (a: Json<'createSupplierDraft'>) => (a.success ? [] : a.data.candidates)`,
    /Property 'candidates' does not exist|'a\.data' is possibly 'null'/,
  ],
  'a code the operation cannot answer': [
    `export const f = (a: Json<'getSupplierDetail'>) => !a.success && a.code === 395008`,
    /no overlap/,
  ],
  'an unknown request field': [
    `export const d: components['schemas']['SupplierDraftUpsertRequest'] = { fullName: 'a', taxNo: 'b', mainCooperation: 'c', types: [], adminId: '1' }`,
    /may only specify known properties/,
  ],
  'a page number sent as a string': [
    `export const q: NonNullable<operations['listSuppliers']['parameters']['query']> = { page: '1' }`,
    /'string' is not assignable to type 'number'/,
  ],
  'an onboarding stage the service never answers': [
    `export const f = (r: components['schemas']['SupplierWriteResultVO']) => r.onboardingStage === 'APPROVED'`,
    /no overlap/,
  ],
  'an account status the service never answers': [
    `export const f = (r: components['schemas']['SupplierWriteResultVO']) => r.initialAccounts[0].status === 'OPEN'`,
    /no overlap/,
  ],
  'a value outside an enum': [
    `export const d: components['schemas']['SupplierDraftUpsertRequest'] = { fullName: 'a', taxNo: 'b', mainCooperation: 'c', types: [], staffScale: 'HUGE' }`,
    /'"HUGE"' is not assignable/,
  ],
}

const HEADER = `import type { components, operations } from './api'
type Json<O extends keyof operations> = operations[O]['responses'][200]['content'] extends {
  'application/json': infer T
}
  ? T
  : never
`

/** Type-checks the files with the compiler API (strict), returning the diagnostics per file. */
function typeCheck(files: string[]) {
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    skipLibCheck: true,
    types: [],
  })
  const byFile = new Map<string, string[]>()
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const file = d.file?.fileName ?? '(global)'
    byFile.set(file, [
      ...(byFile.get(file) ?? []),
      ts.flattenDiagnosticMessageText(d.messageText, '\n'),
    ])
  }
  return byFile
}

describe('types generated from /openapi.json by openapi-typescript', () => {
  let diagnostics: Map<string, string[]>
  let api: string

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'supplier-client-'))
    const doc = (await h.call('GET', '/openapi.json', { admin: null })).body
    api = astToString(await openapiTS(doc))
    await writeFile(join(dir, 'api.ts'), api)
    await writeFile(join(dir, 'client.ts'), CLIENT)
    const misuses = Object.keys(MISUSES).map((_, i) => join(dir, `misuse${i}.ts`))
    await Promise.all(
      Object.values(MISUSES).map(([code], i) => writeFile(misuses[i], `${HEADER}${code}\n`)),
    )
    diagnostics = typeCheck([join(dir, 'client.ts'), ...misuses])
  })
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('export the named component schemas and the operations by operationId', () => {
    expect(api).toMatch(/SupplierBasicInfoVO: \{/)
    expect(api).toMatch(/NearDuplicateConfirmation: \{/)
    expect(api).toMatch(/createSupplierDraft: \{/)
  })

  it("a client's success and error branches type-check", () => {
    expect(diagnostics.get(join(dir, 'client.ts')) ?? []).toEqual([])
    expect(diagnostics.get(join(dir, 'api.ts')) ?? []).toEqual([])
  })

  it.each(Object.keys(MISUSES).map((name, i) => [name, i] as const))('refuse %s', (name, i) => {
    const found = diagnostics.get(join(dir, `misuse${i}.ts`)) ?? []
    expect(found.join('\n')).toMatch(MISUSES[name][1])
  })
})

describe('types in /openapi.json that generate good clients', () => {
  type Schema = Record<string, any>
  let doc: { paths: Record<string, Record<string, Schema>>; components: { schemas: Schema } }
  beforeAll(async () => {
    doc = (await h.call('GET', '/openapi.json', { admin: null })).body
  })

  /** Every schema object anywhere in the document, with where it is. */
  const schemasIn = (node: unknown, at = '#'): [string, Schema][] => {
    if (node === null || typeof node !== 'object') return []
    const here: [string, Schema][] = 'type' in node ? [[at, node as Schema]] : []
    return here.concat(
      Object.entries(node).flatMap(([key, child]) => schemasIn(child, `${at}/${key}`)),
    )
  }

  const integerQueries = () =>
    Object.entries(doc.paths).flatMap(([path, ops]) =>
      (ops.get?.parameters ?? [])
        .filter((p: Schema) => p.in === 'query' && p.schema?.type === 'integer')
        .map((p: Schema) => ({ path, name: p.name as string, schema: p.schema as Schema })),
    )

  it('integer query parameters are integers with their bounds, not digit strings', () => {
    const names = new Set(integerQueries().map((q) => q.name))
    expect([...names].sort()).toEqual(['page', 'pageNo', 'pageSize', 'withinDays'])
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const p of ops.get?.parameters ?? []) {
        if (p.in === 'query' && names.has(p.name))
          expect(p.schema.type, `${path} ${p.name}`).toBe('integer')
      }
    }
    const list = doc.paths['/admin/supplier/items'].get.parameters
    expect(list.find((p: Schema) => p.name === 'pageSize').schema).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: 100,
      default: 20,
    })
  })

  it('and are still parsed strictly: a fraction, an exponent, a sign or a leading zero is 400', async () => {
    const admin = await h.admin(undefined, ['ADMIN', 'FINANCE', 'SUPER_ADMIN'])
    expect(integerQueries().length).toBeGreaterThanOrEqual(10)
    for (const { path, name } of integerQueries()) {
      const url = path.replace(/\{\w+\}/g, '9007199254740993')
      for (const value of ['1.5', '1e3', '+1', '01', '0x10']) {
        const res = await h.call('GET', `${url}?${name}=${encodeURIComponent(value)}`, { admin })
        expect({ url, name, value, code: res.body.code }).toEqual({ url, name, value, code: 400 })
      }
    }
  })

  it('no integer carries the ±(2^53 − 1) bounds zod adds; counts start at 0', () => {
    const unsafe = schemasIn(doc).filter(
      ([, s]) => s.minimum === -Number.MAX_SAFE_INTEGER || s.maximum === Number.MAX_SAFE_INTEGER,
    )
    expect(unsafe.map(([at]) => at)).toEqual([])
    const s = doc.components.schemas
    expect(s.SupplierListItemVO.properties.activeAccountCount.minimum).toBe(0)
    expect(s.SupplierListItemVOPage.properties.total.minimum).toBe(0)
    expect(s.SupplierListItemVOPage.properties.page.minimum).toBe(1)
  })

  it('onboardingStage and account statuses are enums', () => {
    const s = doc.components.schemas
    const write = s.SupplierWriteResultVO.properties
    expect(write.onboardingStage.enum).toEqual([
      'PROFILE_DRAFT',
      'REGISTRATION_VETTING',
      'ONBOARDED',
    ])
    expect(write.initialAccounts.items.properties.status.enum).toContain('ACTIVE')
    expect(s.SupplierBankAccountVO.properties.status.enum).toContain('PENDING')
    expect(s.SupplierApprovalRecordVO.properties.targetType.enum).toContain('CONTACT')
  })
})
