import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'

/**
 * Checks answers against the app's own /openapi.json: the operation is found by method and
 * route template, the status must be documented, and a JSON body must match that status's
 * schema. For the envelope's `oneOf`, the branch is chosen by `code`, so a mismatch names the
 * code (an undeclared one says so) rather than listing every branch's complaint. Validators are
 * compiled once per (document, operation, status, branch), so the check costs microseconds per
 * call after the first.
 */

type Json = Record<string, any>

interface Operation {
  key: string
  pointer: string
  op: Json
}

interface Contract {
  doc: Json
  ajv: Ajv2020
  routes: { method: string; pattern: RegExp; params: number; operation: Operation }[]
  validators: Map<string, ValidateFunction>
}

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1')

function contractOf(doc: Json): Contract {
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateSchema: false })
  addFormats.default(ajv)
  ajv.addSchema(doc, 'openapi.json')
  const routes: Contract['routes'] = []
  for (const [path, ops] of Object.entries(doc.paths as Json)) {
    for (const [method, op] of Object.entries(ops as Json)) {
      const source = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+')
      routes.push({
        method: method.toUpperCase(),
        pattern: new RegExp(`^${source}$`),
        params: (path.match(/\{/g) ?? []).length,
        operation: {
          key: `${method.toUpperCase()} ${path}`,
          pointer: `#/paths/${escapePointer(path)}/${method}`,
          op: op as Json,
        },
      })
    }
  }
  // A literal segment wins over a parameter (`/items/batch` before `/items/{supplierId}`).
  routes.sort((a, b) => a.params - b.params)
  return { doc, ajv, routes, validators: new Map() }
}

const contracts = new WeakMap<object, Contract>()

const resolve = (doc: Json, value: Json): Json => {
  if (typeof value?.$ref !== 'string') return value
  return value.$ref
    .slice(2)
    .split('/')
    .map((s: string) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((node: Json, key: string) => node[key], doc)
}

const codeOf = (schema: Json): number[] => {
  const code = schema.properties?.code
  if (!code) return []
  if (code.const !== undefined) return [code.const]
  return code.enum ?? []
}

/** Why this answer does not match the document, or undefined when it does. */
export function mismatch(
  doc: Json,
  answer: {
    method: string
    path: string
    status: number
    contentType: string | null
    headers: Headers
    body: unknown
  },
): string | undefined {
  let c = contracts.get(doc)
  if (!c) contracts.set(doc, (c = contractOf(doc)))
  const path = answer.path.split('?')[0]
  const route = c.routes.find((r) => r.method === answer.method && r.pattern.test(path))
  const where = route ? route.operation.key : `${answer.method} ${path} (no operation)`
  let responsePointer: string
  let response: Json | undefined
  if (route) {
    response = route.operation.op.responses?.[String(answer.status)]
    responsePointer = `${route.operation.pointer}/responses/${answer.status}`
    if (!response) return `${where}: HTTP ${answer.status} is not documented`
    if (response.$ref) {
      responsePointer = response.$ref
      response = resolve(c.doc, response)
    }
  } else {
    // Unknown routes: a 404 envelope, or the frame's answers before routing (auth of /admin/*).
    if (answer.status === 405) return methodNotAllowed(c, answer, where)
    const byStatus: Record<number, string> = { 404: 'NotFound', 400: 'BadRequest' }
    const name = byStatus[answer.status]
    if (!name && answer.status !== 200) return `${where}: HTTP ${answer.status} unexpected`
    if (!name) {
      const code = (answer.body as Json)?.code
      if (code !== 401 && code !== 395039) return `${where}: HTTP 200 with code ${code}`
      responsePointer = `#/components/schemas/${code === 401 ? 'UnauthorizedFailure' : 'DependencyUnavailableFailure'}`
      return validateAt(c, responsePointer, answer.body, where)
    }
    responsePointer = `#/components/responses/${name}`
    response = resolve(c.doc, { $ref: responsePointer })
  }
  if (response!.headers?.['X-Request-Id'] && !answer.headers.get('x-request-id')) {
    return `${where}: X-Request-Id header missing`
  }
  const content = response!.content as Json | undefined
  if (!content) return undefined
  const mediaType = (answer.contentType ?? '').split(';')[0].trim()
  if (!content[mediaType]) {
    return `${where}: HTTP ${answer.status} answered ${mediaType || 'no content type'}, documented ${Object.keys(content).join(', ')}`
  }
  if (mediaType !== 'application/json') return undefined
  const schemaPointer = `${responsePointer!}/content/${escapePointer(mediaType)}/schema`
  const schema = resolve(c.doc, content[mediaType].schema)
  const branches = schema.oneOf as Json[] | undefined
  if (!branches) return validateAt(c, schemaPointer, answer.body, where)
  const code = (answer.body as Json)?.code
  const index = branches.findIndex((b) => codeOf(resolve(c.doc, b)).includes(code))
  if (index < 0) {
    const declared = branches.flatMap((b) => codeOf(resolve(c.doc, b)))
    return `${where}: code ${code} is not declared (declared: ${declared.join(', ')}); add it to the route's errors`
  }
  return validateAt(c, `${schemaPointer}/oneOf/${index}`, answer.body, where)
}

function validateAt(c: Contract, pointer: string, body: unknown, where: string) {
  const id = pointer.startsWith('#') ? `openapi.json${pointer}` : pointer
  let validate = c.validators.get(id)
  if (!validate) {
    validate = c.ajv.getSchema(id)
    if (!validate) return `${where}: no schema at ${pointer}`
    c.validators.set(id, validate)
  }
  if (validate(body)) return undefined
  const errors = (validate.errors ?? [])
    .slice(0, 3)
    .map((e) => `${e.instancePath || '(body)'} ${e.message} ${JSON.stringify(e.params)}`)
    .join('; ')
  return `${where}: body does not match ${pointer}: ${errors}; body: ${JSON.stringify(body).slice(0, 500)}`
}

/**
 * A method the path does not serve: no operation describes it (the document lists operations),
 * so the answer must be the failure envelope with code 405, naming the served methods in Allow,
 * each of which the document describes for this path.
 */
function methodNotAllowed(
  c: Contract,
  answer: { path: string; headers: Headers; body: unknown },
  where: string,
): string | undefined {
  const body = answer.body as Json
  const keys = Object.keys(body ?? {}).sort()
  if (keys.join() !== 'code,data,message,success' || body.code !== 405 || body.success !== false)
    return `${where}: HTTP 405 is not the 405 failure envelope: ${JSON.stringify(body)}`
  if (body.data !== null || typeof body.message !== 'string')
    return `${where}: malformed 405 envelope`
  const allow = answer.headers.get('allow')?.split(', ') ?? []
  const path = answer.path.split('?')[0]
  const served = c.routes.filter((r) => r.pattern.test(path)).map((r) => r.method)
  const expected = [...new Set([...served, ...(served.includes('GET') ? ['HEAD'] : [])])].sort()
  if (!served.length || allow.join() !== expected.join())
    return `${where}: HTTP 405 with Allow "${allow.join(', ')}", the document serves ${expected.join(', ') || 'nothing'} here`
  return undefined
}
