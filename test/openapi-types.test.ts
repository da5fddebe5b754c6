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
  // The error branch: 395006 carries the candidates and the token to send back.
  if (answer.code === 395006) {
    const names: string[] = answer.data.candidates.map((c) => c.fullName)
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

export const draft: DraftRequest = {
  fullName: 'Hangzhou Lake Travel',
  taxNo: '91330106MA2KXYZ12Q',
  mainCooperation: 'guides',
  types: [{ typeCode: 'OTHER' }],
  staffScale: 'LT50',
}
`

/** Misuses the generated types must refuse, one per file. */
const MISUSES: Record<string, [code: string, error: RegExp]> = {
  'data before checking success': [
    `export const f = (a: Json<'getSupplierDetail'>) => a.data.fullName`,
    /Property 'fullName' does not exist/,
  ],
  'candidates without narrowing the code': [
    `export const f = (a: Json<'createSupplierDraft'>) => (a.success ? [] : a.data.candidates)`,
    /Property 'candidates' does not exist/,
  ],
  'a code the operation cannot answer': [
    `export const f = (a: Json<'getSupplierDetail'>) => !a.success && a.code === 395008`,
    /no overlap/,
  ],
  'an unknown request field': [
    `export const d: components['schemas']['SupplierDraftUpsertRequest'] = { fullName: 'a', taxNo: 'b', mainCooperation: 'c', types: [], adminId: '1' }`,
    /may only specify known properties/,
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

  it.each(Object.keys(MISUSES).map((name, i) => [name, i] as const))('refuse %s', (_name, i) => {
    expect(diagnostics.get(join(dir, `misuse${i}.ts`))?.length ?? 0).toBeGreaterThan(0)
  })
})
