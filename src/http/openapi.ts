import type { Hono, MiddlewareHandler } from 'hono'
import { z } from 'zod'
import { ERRORS, type CatalogEntry, type ErrorName } from '../errors'
import { BODY_CAPS, declaredBodySize, MAX_BODY_DEPTH } from './body-shape'
import type { Declared } from './envelope'
import { WRITE_OPERATIONS } from '../schemas/lifecycle'

/** What a route declares about itself; read back from `app.routes` to build the document. */
export interface RouteDoc {
  /** Readable camelCase name (`listSuppliers`); generated clients use it as the method name. */
  operationId?: string
  /** One line; starts with the spec's number where there is one (`SUP-ADM-003: …`). */
  summary?: string
  /** What a reader of the reference needs beyond the summary (the codes table is added). */
  description?: string
  tags?: string[]
  permissions?: readonly string[]
  roles?: readonly string[]
  /** The success answer: `resultSchema(data)` for the envelope, or the body of a `mediaType`. */
  response?: z.ZodType
  /** Media type(s) of a success answer that is not the JSON envelope (the page, the metrics). */
  mediaType?: string | string[]
  /**
   * Example bodies of a success answer that is not the envelope, by media type. The envelope's
   * example is composed from the examples of the schemas it is made of.
   */
  examples?: Record<string, unknown>
  /** JSON Schemas of path parameters that no validator describes. */
  params?: Record<string, Json>
  validator?: { target: string; schema: z.ZodType }
  public?: boolean
  /** Overrides the security requirement derived from the path (e.g. an optional bearer). */
  security?: Record<string, string[]>[]
  /**
   * The business errors this operation can answer besides the ones every authorized route can
   * (401, 400, permission denied): the document lists them, derived from this declaration.
   */
  errors?: readonly ErrorName[]
  /** Answers with another HTTP status than 200 that this operation can give (e.g. 503). */
  statuses?: Record<string, { description: string; errors: readonly ErrorName[] }>
}

type Json = Record<string, unknown>

const docs = new WeakMap<object, RouteDoc>()

/** Attaches documentation to a middleware; returns the middleware unchanged. */
export function describe<M extends MiddlewareHandler>(middleware: M, doc: RouteDoc): M {
  docs.set(middleware, { ...docs.get(middleware), ...doc })
  return middleware
}

/**
 * A pass-through middleware that only documents a route (for routes without authorization); a
 * `response` types what the route may answer, as `authorize`'s does.
 */
export const doc = <R extends z.ZodType = never>(
  d: RouteDoc & { response?: R },
): MiddlewareHandler<Declared<R>> => describe(async (_c, next) => next(), d)

/**
 * Codes some routes answer whatever their own logic: the frame authenticates every /admin route
 * (401; 395039 when no identity-provider keys could be fetched), `authorize` checks permissions,
 * validators refuse bad input, and every write passes the Idempotency-Key and duplicate-submit
 * guards and may lose the answer to its COMMIT (outcome unknown).
 */
export const COMMON_ERRORS = {
  authenticated: ['UNAUTHORIZED', 'DEPENDENCY_UNAVAILABLE'],
  authorized: ['PERMISSION_DENIED'],
  validated: ['BAD_REQUEST'],
  write: [
    'BAD_REQUEST',
    'DUPLICATE_SUBMIT',
    'IDEMPOTENCY_KEY_REUSED',
    'IDEMPOTENCY_IN_PROGRESS',
    'WRITE_OUTCOME_UNKNOWN',
  ],
  internal: ['UNAUTHORIZED'],
} as const satisfies Record<string, readonly ErrorName[]>

/**
 * The service's own database being unavailable (retry later) can be answered by every route
 * that reads it, so the document lists it on each of them.
 */
const DATABASE_UNAVAILABLE: ErrorName[] = ['DATABASE_UNAVAILABLE']

/**
 * The writes (through `answerWrite`, http/write.ts) are the operations WRITE_OPERATIONS names; a
 * POST that only reads (the tax-number lookup) takes no Idempotency-Key.
 */
const isWrite = (doc: RouteDoc) =>
  doc.operationId !== undefined && doc.operationId in WRITE_OPERATIONS

/** `TAX_NO_DUPLICATE` → `TaxNoDuplicateFailure`: the component name of a failure envelope. */
export const failureSchemaName = (name: ErrorName) =>
  `${name
    .toLowerCase()
    .split('_')
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('')}Failure`

const ref = (section: string, name: string) => ({ $ref: `#/components/${section}/${name}` })

const documented = new WeakMap<z.ZodType, Json>()

/**
 * Documents `schema` as `json` instead of what zod derives from it. For a value that arrives as
 * text but means something else: a query string's `page=2` is validated as strict decimal text,
 * yet it is an integer, and clients generated from the document should send one.
 */
export function documentAs<T extends z.ZodType>(schema: T, json: Json): T {
  documented.set(schema, json)
  return schema
}

/**
 * zod writes `z.int()`'s implicit bounds, ±(2^53 − 1), into every integer; they say nothing a
 * reader needs (a count with `minimum: -9007199254740991` reads as "may be negative").
 */
const SAFE_BOUNDS = { minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER }

const override = ({ zodSchema, jsonSchema }: { zodSchema: unknown; jsonSchema: Json }) => {
  const json = documented.get(zodSchema as z.ZodType)
  if (json) {
    for (const key of Object.keys(jsonSchema)) delete jsonSchema[key]
    Object.assign(jsonSchema, json)
  }
  // zod leaves out the default of a value that is transformed before its default applies.
  if (zodSchema instanceof z.ZodDefault && documented.has(zodSchema.unwrap() as z.ZodType)) {
    jsonSchema.default ??= zodSchema._zod.def.defaultValue
  }
  for (const [key, bound] of Object.entries(SAFE_BOUNDS)) {
    if (jsonSchema[key] === bound) delete jsonSchema[key]
  }
}

/** Rewrites zod's `#/$defs/X` references to the document's `#/components/schemas/X`. */
const rewriteRefs = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(rewriteRefs)
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      k === '$ref' && typeof v === 'string'
        ? v.replace(/^#\/\$defs\//, '#/components/schemas/')
        : rewriteRefs(v),
    ]),
  )
}

/**
 * zod → JSON Schema (2020-12, the dialect of OpenAPI 3.1). Schemas registered with
 * `.meta({ id })` become named components, referenced with `$ref`; the same name must always
 * mean the same schema, or the build fails.
 */
function schemaConverter() {
  const schemas: Record<string, Json> = {}
  const convert = (schema: z.ZodType, io: 'input' | 'output'): Json => {
    const {
      $schema: _,
      $defs,
      ...root
    } = z.toJSONSchema(schema, {
      io,
      unrepresentable: 'any',
      reused: 'inline',
      override,
    }) as Json & {
      $defs?: Record<string, Json>
    }
    for (const [id, def] of Object.entries($defs ?? {})) {
      const json = rewriteRefs(def) as Json
      if (schemas[id] && JSON.stringify(schemas[id]) !== JSON.stringify(json)) {
        throw new Error(
          `schema id "${id}" names two different schemas (request and response?): give one another id`,
        )
      }
      schemas[id] = json
    }
    return rewriteRefs(root) as Json
  }
  return { schemas, convert }
}

/**
 * An example value of a converted schema: its own first example, else one composed from its
 * parts (an object from its properties, an array of one item, the first branch of a union that
 * has one, a constant). Undefined when a required part has none, so that a schema nobody gave an
 * example shows none rather than a made-up one.
 */
function exampleOf(schema: Json, schemas: Record<string, Json>, depth = 0): unknown {
  if (depth > 32) return undefined
  const of = (s: unknown) => exampleOf(s as Json, schemas, depth + 1)
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0]
  if (typeof schema.$ref === 'string') return of(schemas[schema.$ref.split('/').pop()!] ?? {})
  if ('const' in schema) return schema.const
  const branches = (schema.oneOf ?? schema.anyOf) as Json[] | undefined
  if (branches) {
    for (const branch of branches.filter((b) => b.type !== 'null')) {
      const value = of(branch)
      if (value !== undefined) return value
    }
    return branches.some((b) => b.type === 'null') ? null : undefined
  }
  const type = [schema.type].flat()
  if (type[0] === 'null') return null
  if (type.includes('array')) {
    const item = of(schema.items ?? {})
    return item === undefined ? undefined : [item]
  }
  if (type.includes('object') && schema.properties) {
    const required = new Set((schema.required as string[] | undefined) ?? [])
    const value: Record<string, unknown> = {}
    for (const [name, property] of Object.entries(schema.properties as Record<string, Json>)) {
      const v = of(property)
      if (v !== undefined) value[name] = v
      else if (required.has(name)) return undefined
    }
    return value
  }
  if (Array.isArray(schema.enum)) return schema.enum[0]
  return undefined
}

/** A media type object with its example, when there is one. */
const withExample = (media: Json, example: unknown): Json =>
  example === undefined ? media : { ...media, example }

/** The failure envelope of one catalog entry, as a named component. */
function failureSchema(name: ErrorName, convert: (s: z.ZodType, io: 'output') => Json): Json {
  const entry: CatalogEntry = ERRORS[name]
  return {
    type: 'object',
    title: `${entry.code} ${name}`,
    description: entry.message,
    required: ['code', 'message', 'success', 'data'],
    additionalProperties: false,
    properties: {
      code: { type: 'integer', const: entry.code },
      message: {
        type: 'string',
        description: 'the catalog message or a more precise one naming the field',
        examples: [entry.message],
      },
      success: { type: 'boolean', const: false },
      data: entry.data ? convert(entry.data, 'output') : { type: 'null' },
    },
  }
}

const byCode = (a: ErrorName, b: ErrorName) => ERRORS[a].code - ERRORS[b].code

const codeTable = (names: readonly ErrorName[]) =>
  [
    '| code | name | meaning |',
    '|---|---|---|',
    '| 200 | | success: `data` holds the result |',
    ...names.map((n) => {
      const e: CatalogEntry = ERRORS[n]
      const data = e.data ? ` (\`data\`: ${e.data.meta()?.id ?? 'object'})` : ''
      return `| ${e.code} | \`${n}\` | ${e.message}${data} |`
    }),
  ].join('\n')

const API_DESCRIPTION = `Administration of suppliers: registration under approval, profile, contacts, qualifications, lifecycle.

**Every answer is the envelope** \`Result<T>\`: \`{ code, message, success, data }\`. Business failures are **HTTP 200** with \`success: false\` and their own \`code\` (see each operation's table); only malformed JSON, an oversized body or one nested deeper than ${MAX_BODY_DEPTH} levels (HTTP 400), a body not sent as \`application/json\` (HTTP 415), an unknown path (HTTP 404), a method the path does not serve (HTTP 405, with \`Allow\`) and unexpected faults (HTTP 500, \`data.requestId\` only) use other statuses.

**Authentication** for \`/admin/**\`: \`Authorization: Bearer <JWT>\` and \`X-Admin-Id: <administrator id>\` (the token's \`sub\` must equal it). Locally, \`npm run -s token\` mints a token for the demo administrator 10001: paste it under **Authorize**, with 10001 as X-Admin-Id.

Ids are strings; dates \`yyyy-MM-dd\`, date-times \`yyyy-MM-dd HH:mm:ss\` in the service time zone. Writes accept an optional \`Idempotency-Key\`; every answer carries \`X-Request-Id\`.`

/** OpenAPI 3.1 document of every route the app serves, from the schemas that validate them. */
export function buildOpenApi(app: Hono<never>, info: { title: string; version: string }) {
  const { schemas, convert } = schemaConverter()
  const failures = new Set<ErrorName>()
  const tags = new Set<string>()
  const paths: Record<string, Record<string, Json>> = {}

  for (const route of app.routes) {
    if (route.method === 'ALL') continue
    const doc = docs.get(route.handler)
    if (!doc) continue
    const path = route.path.replace(/:(\w+)/g, '{$1}')
    const method = route.method.toLowerCase()
    const op = ((paths[path] ??= {})[method] ??= {
      parameters: [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
        name,
        in: 'path',
        required: true,
        schema: { type: 'string', pattern: '^[1-9][0-9]*$' },
      })),
    }) as Json & { parameters: Json[]; doc?: RouteDoc }
    // Middlewares of one route (authorize, validate, doc) each contribute their part.
    op.doc = { ...op.doc, ...doc }
    for (const [name, schema] of Object.entries(doc.params ?? {})) {
      const p = op.parameters.find((x) => x.name === name)
      if (p) p.schema = schema
    }
    const v = doc.validator
    if (v?.target === 'json') {
      const schema = convert(v.schema, 'input')
      const size = declaredBodySize(route.handler)
      op.requestBody = {
        required: true,
        // The route's own body limit (docs/limits.md): larger is HTTP 400 before it is read.
        description:
          size === 'large' || size === undefined
            ? 'At most BODY_LIMIT_BYTES (48 MiB by default): approveNote and remark take 16 MiB each.'
            : `At most ${size} bytes.`,
        ...(typeof size === 'number' ? { 'x-max-body-bytes': size } : {}),
        content: { 'application/json': withExample({ schema }, exampleOf(schema, schemas)) },
      }
    } else if (v?.target === 'query') {
      const schema = convert(v.schema, 'input') as {
        properties?: Record<string, Json>
        required?: string[]
      }
      for (const [name, s] of Object.entries(schema.properties ?? {})) {
        const { description, ...rest } = s
        op.parameters.push({
          name,
          in: 'query',
          required: schema.required?.includes(name) ?? false,
          ...(description ? { description } : {}),
          schema: rest,
        })
      }
    } else if (v?.target === 'param') {
      const schema = convert(v.schema, 'input') as { properties?: Record<string, Json> }
      for (const [name, s] of Object.entries(schema.properties ?? {})) {
        const p = op.parameters.find((x) => x.name === name)
        if (p) p.schema = s
      }
    }
  }

  for (const [path, ops] of Object.entries(paths)) {
    for (const op of Object.values(ops)) {
      const doc = op.doc as RouteDoc
      delete op.doc
      const admin = path.startsWith('/admin/')
      const internal = path.startsWith('/internal/')
      const write = isWrite(doc)
      const names = new Set<ErrorName>(doc.errors ?? [])
      if (admin) COMMON_ERRORS.authenticated.forEach((n) => names.add(n))
      if (doc.permissions) COMMON_ERRORS.authorized.forEach((n) => names.add(n))
      if (doc.validator) names.add('BAD_REQUEST')
      if (write) COMMON_ERRORS.write.forEach((n) => names.add(n))
      if (internal) COMMON_ERRORS.internal.forEach((n) => names.add(n))
      if (admin || internal) DATABASE_UNAVAILABLE.forEach((n) => names.add(n))
      const codes = [...names].sort(byCode)
      codes.forEach((n) => failures.add(n))

      if (doc.operationId) op.operationId = doc.operationId
      if (doc.summary) {
        op.summary = doc.summary
        const number = /^(SUP-ADM-\d{3})\b/.exec(doc.summary)?.[1]
        if (number) op['x-operation-number'] = number
      }
      for (const tag of doc.tags ?? []) tags.add(tag)
      if (doc.tags) op.tags = doc.tags
      if (doc.permissions) op['x-permissions'] = doc.permissions
      if (doc.roles) op['x-roles'] = doc.roles
      op.description = [
        doc.description ?? '',
        doc.permissions?.length
          ? `Requires permission ${doc.permissions.map((p) => `\`${p}\``).join(' and ')}.`
          : '',
        doc.roles
          ? `Requires one of the roles ${doc.roles.map((r) => `\`${r}\``).join(', ')}.`
          : '',
        write
          ? 'A write: send an `Idempotency-Key` to make retries safe; the same body sent again within a few seconds is refused with 395013.'
          : '',
        doc.mediaType ? '' : `**Codes** (all HTTP 200):\n\n${codeTable(codes)}`,
      ]
        .filter(Boolean)
        .join('\n\n')
      op['x-business-codes'] = codes.map((n) => ({
        code: ERRORS[n].code,
        name: n,
        message: ERRORS[n].message,
      }))

      op.security =
        doc.security ??
        (admin ? [{ bearer: [], adminId: [] }] : internal ? [{ internalToken: [] }] : [])
      if (write) (op.parameters as Json[]).push(ref('parameters', 'IdempotencyKey'))
      if (!(op.parameters as Json[]).length) delete op.parameters

      const headers = { 'X-Request-Id': ref('headers', 'XRequestId') }
      const success = doc.response ? convert(doc.response, 'output') : { type: 'string' }
      const responses: Json = {}
      if (doc.mediaType) {
        responses['200'] = {
          description: doc.summary ?? 'success',
          headers,
          content: Object.fromEntries(
            [doc.mediaType]
              .flat()
              .map((t) => [
                t,
                withExample({ schema: success }, doc.examples?.[t] ?? exampleOf(success, schemas)),
              ]),
          ),
        }
      } else {
        responses['200'] = {
          description:
            'The envelope: `success: true` with `data`, or a business failure with its `code` (HTTP 200 too)',
          headers,
          content: {
            'application/json': withExample(
              {
                schema: codes.length
                  ? {
                      oneOf: [
                        { title: 'success', ...success },
                        ...codes.map((n) => ref('schemas', failureSchemaName(n))),
                      ],
                    }
                  : success,
              },
              // What a client sees when all goes well (each failure's shape is in the schema).
              exampleOf(success, schemas),
            ),
          },
        }
      }
      for (const [status, extra] of Object.entries(doc.statuses ?? {})) {
        extra.errors.forEach((n) => failures.add(n))
        const refs = extra.errors.map((n) => ref('schemas', failureSchemaName(n)))
        responses[status] = {
          description: extra.description,
          headers,
          content: {
            'application/json': { schema: refs.length === 1 ? refs[0] : { oneOf: refs } },
          },
        }
      }
      responses['400'] = ref('responses', 'BadRequest')
      responses['404'] = ref('responses', 'NotFound')
      if (op.requestBody) responses['415'] = ref('responses', 'UnsupportedMediaType')
      responses['500'] = ref('responses', 'InternalError')
      op.responses = responses
    }
  }

  for (const name of ['BAD_REQUEST', 'NOT_FOUND', 'UNSUPPORTED_MEDIA_TYPE', 'INTERNAL'] as const) {
    failures.add(name)
  }
  for (const name of [...failures].sort(byCode)) {
    schemas[failureSchemaName(name)] = failureSchema(name, convert)
  }
  const protocolResponse = (description: string, name: ErrorName) => ({
    description,
    headers: { 'X-Request-Id': ref('headers', 'XRequestId') },
    content: { 'application/json': { schema: ref('schemas', failureSchemaName(name)) } },
  })

  return {
    openapi: '3.1.0',
    info: {
      ...info,
      description: API_DESCRIPTION,
      contact: { name: 'Supplier administration service team' },
      // Internal to the travel platform: no public licence is granted.
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: '/', description: 'this service' }],
    security: [{ bearer: [], adminId: [] }],
    // The supplier operations first: the order of TAG_DESCRIPTIONS, then any other tag.
    tags: [...new Set([...Object.keys(TAG_DESCRIPTIONS), ...tags])]
      .filter((name) => tags.has(name))
      .map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? name })),
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))),
      responses: {
        BadRequest: protocolResponse(
          `HTTP 400: the body is not JSON, exceeds its route's size limit, nests deeper than ${MAX_BODY_DEPTH} levels, or holds more than ${BODY_CAPS.arrayItems} items in an array, ${BODY_CAPS.objectKeys} fields in an object or ${BODY_CAPS.values} values (code 400)`,
          'BAD_REQUEST',
        ),
        NotFound: protocolResponse('HTTP 404: no route for this path (code 404)', 'NOT_FOUND'),
        UnsupportedMediaType: protocolResponse(
          'HTTP 415: the body is not sent as JSON (`Content-Type: application/json`; code 415)',
          'UNSUPPORTED_MEDIA_TYPE',
        ),
        InternalError: protocolResponse(
          'HTTP 500: unexpected fault; `data.requestId` identifies it in the logs (code 500)',
          'INTERNAL',
        ),
      },
      parameters: {
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            'Optional, per administrator: a repeat with the same body within the retention period replays the first successful result without writing; the same key with another body is 395027, while the first still runs 395028.',
          schema: { type: 'string', pattern: '^[A-Za-z0-9_.:-]{1,255}$' },
        },
      },
      headers: {
        XRequestId: {
          description: 'The id the service gave this request (also in its logs and change log)',
          schema: { type: 'string', format: 'uuid' },
        },
      },
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        adminId: { type: 'apiKey', in: 'header', name: 'X-Admin-Id' },
        internalToken: { type: 'apiKey', in: 'header', name: 'X-Internal-Token' },
        metricsToken: { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN' },
      },
    },
  }
}

const TAG_DESCRIPTIONS: Record<string, string> = {
  supplier: 'Supplier records: list, detail, draft, update, contacts, registration',
  'qualification rule': 'Which qualifications each supplier type requires (C-09)',
  dictionary: 'Platform dictionaries the supplier pages read',
  internal: 'Service-to-service routes (`X-Internal-Token`)',
  system: 'Health, readiness, this document and the reference page',
}
