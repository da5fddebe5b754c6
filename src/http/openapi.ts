import type { Hono, MiddlewareHandler } from 'hono'
import { z } from 'zod'
import type { ErrorName } from '../errors'

/** What a route declares about itself; read back from `app.routes` to build the document. */
export interface RouteDoc {
  operationId?: string
  summary?: string
  tags?: string[]
  permissions?: readonly string[]
  roles?: readonly string[]
  response?: z.ZodType
  validator?: { target: string; schema: z.ZodType }
  public?: boolean
  /**
   * The business errors this operation can answer besides the ones every authorized route can
   * (401, 400, permission denied): the document lists them, derived from this declaration.
   */
  errors?: readonly ErrorName[]
}

const docs = new WeakMap<object, RouteDoc>()

/** Attaches documentation to a middleware; returns the middleware unchanged. */
export function describe<M extends MiddlewareHandler>(middleware: M, doc: RouteDoc): M {
  docs.set(middleware, { ...docs.get(middleware), ...doc })
  return middleware
}

const toJsonSchema = (schema: z.ZodType, io: 'input' | 'output') =>
  z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'openapi-3.0' }) as Record<
    string,
    unknown
  >

/** OpenAPI 3 document of every route the app serves, from the schemas that validate them. */
export function buildOpenApi(app: Hono<never>, info: { title: string; version: string }) {
  const paths: Record<string, Record<string, Record<string, unknown>>> = {}
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
      responses: {},
    })
    if (doc.operationId) op.operationId = doc.operationId
    if (doc.summary) op.summary = doc.summary
    if (doc.tags) op.tags = doc.tags
    if (doc.permissions || doc.roles) {
      op['x-permissions'] = doc.permissions ?? []
      if (doc.roles) op['x-roles'] = doc.roles
      op.description = [
        doc.permissions?.length
          ? `Requires permission ${doc.permissions.map((p) => `\`${p}\``).join(' and ')}.`
          : '',
        doc.roles ? `Requires one of the roles ${doc.roles.join(', ')}.` : '',
      ]
        .filter(Boolean)
        .join(' ')
    }
    if (!doc.public && path.startsWith('/admin')) op.security = [{ bearer: [], adminId: [] }]
    if (path.startsWith('/internal')) op.security = [{ internalToken: [] }]
    if (doc.response) {
      op.responses = {
        '200': {
          description:
            'Result envelope: check code and success (business failures are HTTP 200 too)',
          content: { 'application/json': { schema: toJsonSchema(doc.response, 'output') } },
        },
      }
    }
    const v = doc.validator
    if (v?.target === 'json') {
      op.requestBody = {
        required: true,
        content: { 'application/json': { schema: toJsonSchema(v.schema, 'input') } },
      }
    } else if (v?.target === 'query') {
      const schema = toJsonSchema(v.schema, 'input') as {
        properties?: Record<string, unknown>
        required?: string[]
      }
      const params = op.parameters as Record<string, unknown>[]
      for (const [name, s] of Object.entries(schema.properties ?? {})) {
        params.push({
          name,
          in: 'query',
          required: schema.required?.includes(name) ?? false,
          schema: s,
        })
      }
    } else if (v?.target === 'param') {
      const schema = toJsonSchema(v.schema, 'input') as { properties?: Record<string, unknown> }
      const params = op.parameters as { name: string; schema: unknown }[]
      for (const [name, s] of Object.entries(schema.properties ?? {})) {
        const p = params.find((x) => x.name === name)
        if (p) p.schema = s
      }
    }
  }
  return {
    openapi: '3.0.3',
    info,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        adminId: { type: 'apiKey', in: 'header', name: 'X-Admin-Id' },
        internalToken: { type: 'apiKey', in: 'header', name: 'X-Internal-Token' },
      },
    },
    paths,
  }
}

/** A pass-through middleware that only documents a route (for routes without authorization). */
export const doc = (d: RouteDoc): MiddlewareHandler => describe(async (_c, next) => next(), d)
