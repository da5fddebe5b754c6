import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { beforeAll, describe, expect, it } from 'vitest'
import { ALL_PERMISSIONS, useHarness } from './harness'

/**
 * The examples of /openapi.json: every request body and every success answer has one, each is
 * valid against the schema it illustrates (the document's own, checked by ajv), the service
 * accepts every request example, and they look like what the service really answers.
 */

type Json = Record<string, any>

const h = useHarness()
let doc: Json
let ajv: Ajv2020

beforeAll(async () => {
  doc = (await h.call('GET', '/openapi.json', { admin: null })).body
  ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false })
  addFormats.default(ajv)
  ajv.addSchema(doc, 'openapi.json')
})

const pointer = (...parts: string[]) =>
  `openapi.json#/${parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`

/** ajv's complaints about `value` against the schema at `at` (empty when valid). */
const problems = (at: string, value: unknown) => {
  const validate = ajv.getSchema(at)
  if (!validate) return [`no schema at ${at}`]
  return validate(value)
    ? []
    : (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message}`)
}

const operations = () =>
  Object.entries(doc.paths as Record<string, Record<string, Json>>).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ path, method, op, where: `${method} ${path}` })),
  )

/** Every example in the document: media types' `example`s and schemas' `examples`. */
const allExamples = (node: unknown, at = '#'): { at: string; value: unknown }[] => {
  if (node === null || typeof node !== 'object') return []
  const own: { at: string; value: unknown }[] = []
  const n = node as Json
  if ('example' in n && !('type' in n)) own.push({ at, value: n.example })
  if (Array.isArray(n.examples))
    n.examples.forEach((value, i) => own.push({ at: `${at}/${i}`, value }))
  return own.concat(
    Object.entries(n)
      .filter(([key]) => key !== 'example' && key !== 'examples')
      .flatMap(([key, child]) => allExamples(child, `${at}/${key}`)),
  )
}

/** Every (key, value) pair inside an example value. */
const fields = (value: unknown): [string, unknown][] => {
  if (value === null || typeof value !== 'object') return []
  return Object.entries(value).flatMap(([key, child]) => [
    [key, child] as [string, unknown],
    ...fields(child),
  ])
}

describe('examples in /openapi.json', () => {
  it('every request body has an example, valid against its schema', () => {
    const bodies = operations().filter(({ op }) => op.requestBody)
    expect(bodies.length).toBeGreaterThanOrEqual(11)
    for (const { path, method, op, where } of bodies) {
      const media = op.requestBody.content['application/json']
      expect(media.example, where).toBeDefined()
      const at = pointer(
        'paths',
        path,
        method,
        'requestBody',
        'content',
        'application/json',
        'schema',
      )
      expect(problems(at, media.example), where).toEqual([])
    }
  })

  it('every success answer has an example for each media type, valid against its schema', () => {
    for (const { path, method, op, where } of operations()) {
      const content = op.responses['200'].content as Record<string, Json>
      for (const [type, media] of Object.entries(content)) {
        expect(media.example, `${where} ${type}`).toBeDefined()
        if (type !== 'application/json') {
          expect(typeof media.example, `${where} ${type}`).toBe('string')
          continue
        }
        const at = pointer('paths', path, method, 'responses', '200', 'content', type, 'schema')
        expect(problems(at, media.example), where).toEqual([])
        // The envelope's success branch, not one of its failures.
        if (path.startsWith('/admin/') || path.startsWith('/internal/')) {
          expect(media.example, where).toMatchObject({ code: 200, success: true })
        }
      }
    }
  })

  it('every component schema but the failure envelopes carries examples valid against it', () => {
    const schemas = doc.components.schemas as Record<string, Json>
    const missing = Object.keys(schemas).filter(
      (name) => !name.endsWith('Failure') && !schemas[name].examples?.length,
    )
    expect(missing).toEqual([])
    for (const [name, schema] of Object.entries(schemas)) {
      for (const value of schema.examples ?? []) {
        expect(problems(pointer('components', 'schemas', name), value), name).toEqual([])
      }
    }
  })

  it('look like real answers: ids above 2^53 as strings, date-times, masks, Chinese names', () => {
    const values = allExamples(doc)
    expect(values.length).toBeGreaterThan(50)
    const pairs = values.flatMap(({ at, value }) => fields(value).map(([k, v]) => ({ at, k, v })))
    // Ids are strings; every identity starts above 2^53 (an administrator id is the platform's).
    for (const { at, k, v } of pairs.filter(({ k }) => /[a-z]Id$/.test(k) && k !== 'requestId')) {
      expect(typeof v, `${at} ${k}`).toBe('string')
      // Our own ids are decimal; another service's (finance's clearanceRequestId) may not be.
      if (k !== 'operatorId' && /^\d+$/.test(v as string)) {
        expect(BigInt(v as string) > 2n ** 53n, `${at} ${k}`).toBe(true)
      }
    }
    for (const { at, k, v } of pairs.filter(({ k }) => /(Time|At)$/.test(k) && k !== 'expiresAt')) {
      if (v !== null) expect(v, `${at} ${k}`).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
    }
    for (const { at, k, v } of pairs.filter(({ k }) => /Mask$/.test(k))) {
      if (v !== null) expect(v, `${at} ${k}`).toMatch(/\*{3,}/)
    }
    const masks = pairs.filter(({ k }) => /Mask$/.test(k)).map(({ v }) => v)
    expect(masks).toEqual(
      expect.arrayContaining(['91************712Q', '138****8000', '**** **** 0123']),
    )
    const names = pairs.filter(({ k }) => /^(fullName|supplierName|accountName)$/.test(k))
    expect(names.length).toBeGreaterThan(5)
    for (const { at, k, v } of names) expect(v, `${at} ${k}`).toMatch(/^[\u4e00-\u9fff]+$/)
    // No plaintext sensitive value in an answer: plaintext appears only where a client sends it.
    const answers = allExamples(doc.paths).filter(({ at }) => at.includes('/responses/'))
    const text = JSON.stringify(answers)
    expect(text).not.toContain('91330106MA2KXY712Q')
    expect(text).not.toContain('13800138000')
  })
})

describe('the service takes the request examples as they are', () => {
  it('every request example passes validation (no 400) on its own route', async () => {
    const admin = await h.admin(ALL_PERMISSIONS, ['ADMIN', 'FINANCE', 'SUPER_ADMIN'])
    const sample = (name: string) =>
      /id$/i.test(name) ? '9007199254741007' : name === 'typeCode' ? 'OTHER' : 'SCENIC'
    for (const { path, method, op, where } of operations().filter(({ op }) => op.requestBody)) {
      const url = path.replace(/\{(\w+)\}/g, (_, name: string) => sample(name))
      const res = await h.call(method.toUpperCase(), url, {
        admin,
        body: op.requestBody.content['application/json'].example,
        headers: { 'x-internal-token': h.config.internalToken },
      })
      // Past validation, a made-up supplier id meets its business answer (395001 and the like).
      expect({ where, code: res.body.code, message: res.body.message }).not.toMatchObject({
        code: 400,
      })
    }
  })
})
