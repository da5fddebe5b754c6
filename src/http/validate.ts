import { zValidator } from '@hono/zod-validator'
import type { Context, ValidationTargets } from 'hono'
import { z } from 'zod'
import { AppError, ERRORS } from '../errors'
import { describe } from './openapi'

/** Fields a client may never send: identity, permissions and approval routing are the server's. */
export const CLIENT_FORBIDDEN_FIELDS = [
  'adminId',
  'applicantAdminId',
  'permissionCodes',
  'createdBy',
  'templateId',
  'approverUserIds',
  'spStatus',
  'provider',
] as const

const forbidden = new Set<string>(CLIENT_FORBIDDEN_FIELDS)

const where = (path: PropertyKey[]) => path.map(String).join('.') || '(body)'

/** One line that names the offending field, for the 400 envelope. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => {
      if (issue.code === 'unrecognized_keys') {
        const at = issue.path.length ? `${where(issue.path)}.` : ''
        return issue.keys
          .map((k) =>
            forbidden.has(k) ? `${at}${k}: client-forbidden field` : `${at}${k}: unknown field`,
          )
          .join('; ')
      }
      return `${where(issue.path)}: ${issue.message}`
    })
    .join('; ')
}

/** A lone UTF-16 surrogate: a high one not followed by a low one, or a low one without its high. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/** Why PostgreSQL cannot store this text (`text`/`jsonb` refuse NUL; UTF-8 has no surrogates). */
function unstorable(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain NUL characters'
  if (LONE_SURROGATE.test(text)) return 'must not contain unpaired UTF-16 surrogates'
  return undefined
}

/**
 * The first string (value or field name) anywhere in `value` that PostgreSQL cannot store, as
 * `<field>: <why>`. Before any schema runs, so that no schema, present or future, can forget it:
 * such text would otherwise reach SQL and fail there (HTTP 500) or be replaced by U+FFFD.
 */
export function findUnstorableText(value: unknown, path: PropertyKey[] = []): string | undefined {
  if (typeof value === 'string') {
    const why = unstorable(value)
    return why && `${where(path)}: ${why}`
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnstorableText(value[i], [...path, i])
      if (found) return found
    }
    return undefined
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const why = unstorable(key)
      // The field name itself is echoed with its unstorable characters shown as '?'.
      // eslint-disable-next-line no-control-regex
      if (why) return `${where([...path, key.replace(/[\u0000\ud800-\udfff]/g, '?')])}: ${why}`
      const found = findUnstorableText(item, [...path, key])
      if (found) return found
    }
  }
  return undefined
}

/** The JSON media types Hono's validator parses (its own test, repeated). */
const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i

/** The raw request part a validator is about to read (the JSON body is parsed once, cached). */
async function rawTarget(c: Context, target: keyof ValidationTargets): Promise<unknown> {
  switch (target) {
    case 'json':
      if (!JSON_MEDIA_TYPE.test((c.req.header('content-type') ?? '').split(';')[0].trim()))
        return undefined
      // Malformed JSON is the validator's to answer (400), with its own message.
      return c.req.json().catch(() => undefined)
    case 'query':
      // As the validator sees it: a repeated parameter is an array, a single one a string.
      return Object.fromEntries(
        Object.entries(c.req.queries()).map(([k, v]) => [k, v.length === 1 ? v[0] : v]),
      )
    case 'param':
      return c.req.param()
    case 'header':
      return c.req.header()
    default:
      return undefined
  }
}

/**
 * zod validation of one request part. Text PostgreSQL cannot store is refused first, in every
 * part of every route; then failures become the 400 envelope naming the field. The schema is
 * recorded for /openapi.json, so the document is generated from what validates.
 */
export const validate = <T extends z.ZodType, Target extends keyof ValidationTargets>(
  target: Target,
  schema: T,
) => {
  const validator = zValidator(target, schema, (result) => {
    if (!result.success)
      throw new AppError(ERRORS.BAD_REQUEST, describeIssues(result.error as unknown as z.ZodError))
  })
  const middleware = (async (c, next) => {
    const problem = findUnstorableText(await rawTarget(c, target))
    if (problem) throw new AppError(ERRORS.BAD_REQUEST, problem)
    return validator(c, next)
  }) as typeof validator
  return describe(middleware, { validator: { target, schema } })
}

/** Positive 64-bit integer carried as a string (ids are never JSON numbers). */
export const idString = z
  .string()
  .regex(/^[1-9][0-9]{0,18}$/, { message: 'must be a positive integer string', abort: true })
  .refine((v) => BigInt(v) <= 9223372036854775807n, 'out of range')

/**
 * A paging number as a query string: decimal digits only, no sign, no leading zero, no spaces,
 * no exponent, hex or fraction (`0x2`, `1e2`, ` 2`, `+2`, `2.0` and `02` are refused; JavaScript's
 * Number() would take most of them), then the range of the spec.
 */
export const pagingNumber = (max = Number.MAX_SAFE_INTEGER) =>
  z
    .string()
    .regex(/^(0|[1-9][0-9]*)$/, { message: 'must be a decimal integer', abort: true })
    .transform(Number)
    .pipe(z.int().min(1, 'must be at least 1').max(max, `at most ${max}`))

/** Page parameters of the spec: page >= 1 (default 1), pageSize 1..100 (default 20). */
export const pageQuery = {
  page: pagingNumber().default(1),
  pageSize: pagingNumber(100).default(20),
}
