import type { Context } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { z } from 'zod'
import type { CatalogEntry } from '../errors'

/** `Result<T>` of the spec: business failures are HTTP 200 with success=false. */
export interface Result<T> {
  code: number
  message: string
  success: boolean
  data: T
}

export interface PageResult<T> {
  records: T[]
  total: number
  page: number
  pageSize: number
}

export const SUCCESS_MESSAGE = '成功'

/** Success envelope; records the code so the access log can report it. */
export const ok = <T>(c: Context, data: T) => {
  c.set('resultCode', 200)
  return c.json({ code: 200, message: SUCCESS_MESSAGE, success: true, data } satisfies Result<T>)
}

export const page = <T>(
  records: T[],
  total: number,
  page: number,
  pageSize: number,
): PageResult<T> => ({
  records,
  total,
  page,
  pageSize,
})

/** Error envelope; HTTP 200 for business failures unless a protocol status is asked for. */
export const failure = (
  c: Context,
  entry: CatalogEntry,
  message: string = entry.message,
  data: unknown = null,
  status: ContentfulStatusCode = 200,
) => {
  c.set('resultCode', entry.code)
  return c.json(
    { code: entry.code, message, success: false, data } satisfies Result<unknown>,
    status,
  )
}

/** zod schemas of the envelopes, for the OpenAPI document. */
export const resultSchema = <T extends z.ZodType>(data: T) =>
  z.object({ code: z.int(), message: z.string(), success: z.boolean(), data })

export const pageSchema = <T extends z.ZodType>(record: T) =>
  z.object({ records: z.array(record), total: z.int(), page: z.int(), pageSize: z.int() })
