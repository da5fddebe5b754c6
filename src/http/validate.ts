import { zValidator } from '@hono/zod-validator'
import type { ValidationTargets } from 'hono'
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

/**
 * zod validation of one request part. Failures become the 400 envelope naming the field; the
 * schema is recorded for /openapi.json, so the document is generated from what validates.
 */
export const validate = <T extends z.ZodType, Target extends keyof ValidationTargets>(
  target: Target,
  schema: T,
) =>
  describe(
    zValidator(target, schema, (result) => {
      if (!result.success)
        throw new AppError(
          ERRORS.BAD_REQUEST,
          describeIssues(result.error as unknown as z.ZodError),
        )
    }),
    { validator: { target, schema } },
  )

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
