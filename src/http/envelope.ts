import type { Context, Env } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { z } from 'zod'
import type { CatalogEntry } from '../errors'
import type { AppEnv } from './types'

/** `Result<T>` of the spec: business failures are HTTP 200 with success=false. */
export interface Result<T> {
  code: number
  message: string
  success: boolean
  data: T
}

export const SUCCESS_MESSAGE = '成功'

/**
 * What a route's declaration (`authorize` or `doc` with a `response`) adds to the context's type:
 * the schema of its success answer. `ok` reads it, so a handler that answers another shape than
 * the one its route declares (and the document publishes) fails to compile.
 */
export interface Declared<R extends z.ZodType> extends Env {
  Variables: { response: R }
}

/**
 * The `data` a route may answer: what its declared `resultSchema(data)` accepts. `never` for a
 * route that declares no envelope, so it cannot call `ok` at all.
 */
export type DeclaredData<E extends Env> = E extends { Variables: { response: infer R } }
  ? R extends z.ZodType
    ? z.input<R> extends { success: true; data: infer D }
      ? D
      : never
    : never
  : never

/** Success envelope, of the shape the route declares; records the code for the access log. */
export const ok = <E extends AppEnv>(c: Context<E>, data: DeclaredData<E>) => {
  c.set('resultCode', 200)
  return c.json({
    code: 200,
    message: SUCCESS_MESSAGE,
    success: true,
    data,
  } satisfies Result<DeclaredData<E>>)
}

/** Error envelope; HTTP 200 for business failures unless a protocol status is asked for. */
export const failure = (
  c: Context,
  entry: CatalogEntry,
  {
    message = entry.message,
    data = null,
    status = 200,
  }: { message?: string; data?: unknown; status?: ContentfulStatusCode } = {},
) => {
  c.set('resultCode', entry.code)
  return c.json(
    { code: entry.code, message, success: false, data } satisfies Result<unknown>,
    status,
  )
}

/**
 * The success envelope around `data`, as a route declares its response. The document adds the
 * failure envelopes of the codes the route can answer (http/openapi.ts).
 */
export const resultSchema = <T extends z.ZodType>(data: T) =>
  z.object({
    code: z.literal(200),
    message: z.string().meta({ examples: [SUCCESS_MESSAGE] }),
    success: z.literal(true),
    data,
  })

const pages = new WeakMap<z.ZodType, z.ZodType>()

/** `PageResult<T>`; named `<T's id>Page` in the document when T has an id. */
export const pageSchema = <T extends z.ZodType>(record: T) => {
  let schema = pages.get(record) as ReturnType<typeof pageOf<T>> | undefined
  if (!schema) {
    schema = pageOf(record)
    const id = record.meta()?.id
    if (typeof id === 'string') schema = schema.meta({ id: `${id}Page` })
    pages.set(record, schema)
  }
  return schema
}

const pageOf = <T extends z.ZodType>(record: T) =>
  z.object({
    records: z.array(record),
    total: z.int().min(0).describe('records matching the query, over all pages'),
    page: z.int().min(1),
    pageSize: z.int().min(1).max(100),
  })
