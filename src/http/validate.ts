import { zValidator } from '@hono/zod-validator'
import type { Context, ValidationTargets } from 'hono'
import { HTTPException } from 'hono/http-exception'
import { z } from 'zod'
import { AppError, ERRORS } from '../errors'
import {
  bodyTextOf,
  breathe,
  declareBody,
  LARGE_TEXT,
  MALFORMED,
  type BodySize,
} from './body-shape'
import { describe, documentAs } from './openapi'
import { listProblems, shownPath } from './refusal'

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

/** One problem per unknown key, per forbidden key, per other issue, in zod's order. */
function* problemsOf(error: z.ZodError): Generator<string> {
  for (const issue of error.issues) {
    if (issue.code !== 'unrecognized_keys') {
      yield `${shownPath(issue.path)}: ${issue.message}`
      continue
    }
    for (const key of issue.keys) {
      const why = forbidden.has(key) ? 'client-forbidden field' : 'unknown field'
      yield `${shownPath([...issue.path, key])}: ${why}`
    }
  }
}

/** One line that names the offending fields (five at most), for the 400 envelope. */
export function describeIssues(error: z.ZodError): string {
  return listProblems(problemsOf(error))
}

/** A lone UTF-16 surrogate: a high one not followed by a low one, or a low one without its high. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/** Why PostgreSQL cannot store this text (`text`/`jsonb` refuse NUL; UTF-8 has no surrogates). */
function unstorable(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain NUL characters'
  if (LONE_SURROGATE.test(text)) return 'must not contain unpaired UTF-16 surrogates'
  return undefined
}

/** A step of the scan: a value, and how it was reached (its path is built only when reported). */
interface Visit {
  value: unknown
  key?: PropertyKey
  parent?: Visit
  /** Set when `key` is a field name that must itself be checked before its value. */
  fieldName?: string
}

const pathOf = (visit: Visit) => {
  const path: PropertyKey[] = []
  for (let v: Visit | undefined = visit; v?.key !== undefined; v = v.parent) path.push(v.key)
  return path.reverse()
}

/**
 * The first string (value or field name) anywhere in `value` that PostgreSQL cannot store, as
 * `<field>: <why>`. Before any schema runs, so that no schema, present or future, can forget it:
 * such text would otherwise reach SQL and fail there (HTTP 500) or be replaced by U+FFFD.
 * Iterative, with parent links instead of a copied path, so that any depth costs linear time
 * and no stack (a recursive walk overflowed at 8,000 levels and copied its path at each one).
 */
export function findUnstorableText(value: unknown): string | undefined {
  const stack: Visit[] = [{ value }]
  for (let visit = stack.pop(); visit; visit = stack.pop()) {
    if (visit.fieldName !== undefined) {
      const why = unstorable(visit.fieldName)
      // Such a name is no field name: shownPath does not echo it.
      if (why) return `${shownPath([...pathOf(visit.parent!), visit.fieldName])}: ${why}`
    }
    const item = visit.value
    if (typeof item === 'string') {
      const why = unstorable(item)
      if (why) return `${shownPath(pathOf(visit))}: ${why}`
    } else if (Array.isArray(item)) {
      // Pushed last to first, so that the first offending element is the one reported.
      for (let i = item.length - 1; i >= 0; i--) {
        stack.push({ value: item[i], key: i, parent: visit })
      }
    } else if (item !== null && typeof item === 'object') {
      const entries = Object.entries(item)
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i]
        stack.push({ value: child, key, parent: visit, fieldName: key })
      }
    }
  }
  return undefined
}

/**
 * One large body at a time in its CPU steps (parse, the walk, the schema): each step of a legal
 * body of tens of MiB is one block of up to a few hundred ms, and the steps of several such bodies
 * taken in turn left a probe waiting behind all of them (four 47.9 MiB bodies stalled /healthz
 * for 2.3 s). In turn, what waits (a probe, a small request) is served between any two steps.
 * Reading a body is not held here: it waits on the network, a piece at a time.
 */
let largeBodyTurn: Promise<void> = Promise.resolve()

async function inTurn<T>(work: () => Promise<T>): Promise<T> {
  const before = largeBodyTurn
  let done!: () => void
  largeBodyTurn = new Promise<void>((resolve) => (done = resolve))
  try {
    await before
    return await work()
  } finally {
    done()
  }
}

/** The JSON media types Hono's validator parses (its own test, repeated). */
const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i

const mediaTypeOf = (c: Context) => (c.req.header('content-type') ?? '').split(';')[0].trim()

/**
 * The body's text, its shape counted as it is read (bodyTextOf, http/body-shape.ts): a body
 * breaking a cap of BODY_CAPS, or its route's limit, is refused with HTTP 400 at the piece that
 * breaks it, before anything is built from it. It is then parsed once (Hono's validator would
 * parse the text again); above LARGE_TEXT each next step runs as a task of its own, in turn.
 */
async function bodyText(c: Context): Promise<string> {
  const read = await bodyTextOf(c)
  if (read.refusal !== undefined) throw new HTTPException(400, { message: read.refusal })
  return read.text
}

const parse = (text: string) => {
  try {
    return JSON.parse(text) as unknown
  } catch {
    throw new HTTPException(400, { message: MALFORMED })
  }
}

/** The raw request part a validator is about to read (any but the body). */
async function rawTarget(c: Context, target: keyof ValidationTargets): Promise<unknown> {
  switch (target) {
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
 *
 * `status: 400` answers a refusal with HTTP 400 instead of a business answer (HTTP 200), for
 * routes whose HTTP 200 is a document rather than the envelope (/openapi.json, /docs, /metrics).
 *
 * `body` (required with the `json` target) is how large the route's body may be, declared here
 * beside the schema it is derived from (http/body-limit.ts); a route without a `json` validator
 * takes no body at all.
 */
export const validate = <T extends z.ZodType, Target extends keyof ValidationTargets>(
  target: Target,
  schema: T,
  { status = 200, body }: { status?: 200 | 400; body?: BodySize } = {},
) => {
  if ((target === 'json') !== (body !== undefined)) {
    throw new Error('validate: a json validator declares its body size, and only a json one')
  }
  const refuse = (message: string) =>
    status === 400 ? new HTTPException(400, { message }) : new AppError(ERRORS.BAD_REQUEST, message)
  const validator = zValidator(target, schema, (result) => {
    if (!result.success) throw refuse(describeIssues(result.error as unknown as z.ZodError))
  })
  const middleware = (async (c, next) => {
    // Without this, Hono reads a body of another type as `{}` and every field is "required".
    if (target === 'json' && !JSON_MEDIA_TYPE.test(mediaTypeOf(c))) {
      throw new HTTPException(415, { message: ERRORS.UNSUPPORTED_MEDIA_TYPE.message })
    }
    if (target === 'json') {
      const text = await bodyText(c)
      const steps = async (large: boolean) => {
        if (large) await breathe()
        const parsed = parse(text)
        if (large) await breathe()
        const problem = findUnstorableText(parsed)
        if (problem) throw refuse(problem)
        if (large) await breathe()
        const result = await schema.safeParseAsync(parsed)
        if (!result.success) throw refuse(describeIssues(result.error))
        if (large) await breathe()
        return result.data as object
      }
      const data = text.length > LARGE_TEXT ? await inTurn(() => steps(true)) : await steps(false)
      c.req.addValidatedData('json', data)
      return next()
    }
    const problem = findUnstorableText(await rawTarget(c, target))
    if (problem) throw refuse(problem)
    return validator(c, next)
  }) as typeof validator
  if (body !== undefined) declareBody(middleware, body)
  return describe(middleware, { validator: { target, schema } })
}

/**
 * The query of a route that takes none: any parameter is refused (400 naming it), never
 * ignored, so that no value (a tax number, say) rides in a URL unnoticed. Every route declares
 * its query, this one or its own strict object (test/strict-queries.test.ts enumerates them).
 */
export const NoQuery = z.strictObject({})

/**
 * An integer as a query string: decimal digits only, no sign, no leading zero, no spaces, no
 * exponent, hex or fraction (`0x2`, `1e2`, ` 2`, `+2`, `2.0` and `02` are refused; JavaScript's
 * Number() would take most of them), then the range. The document calls it the integer it is,
 * so that generated clients send `page: 2`, not `page: '2'`.
 */
export const queryInteger = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  documentAs(
    z
      .string()
      .regex(/^(0|[1-9][0-9]*)$/, { message: 'must be a decimal integer', abort: true })
      .transform(Number)
      .pipe(z.int().min(min, `must be at least ${min}`).max(max, `at most ${max}`)),
    { type: 'integer', minimum: min, ...(max < Number.MAX_SAFE_INTEGER ? { maximum: max } : {}) },
  )

/** A paging number (page, pageSize) as a query string: a strict decimal integer from 1. */
export const pagingNumber = (max = Number.MAX_SAFE_INTEGER) => queryInteger(1, max)

/** Page parameters of the spec: page >= 1 (default 1), pageSize 1..100 (default 20). */
export const pageQuery = {
  page: pagingNumber().default(1),
  pageSize: pagingNumber(100).default(20),
}
