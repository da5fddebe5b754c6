import type { MiddlewareHandler } from 'hono'
import { verify, verifyWithJwks } from 'hono/jwt'
import type { Logger } from 'pino'
import type { Config } from '../config'
import { AppError, ERRORS } from '../errors'
import type { PermissionLookup } from '../ports/permission'
import { describe, type RouteDoc } from './openapi'
import type { AppEnv } from './types'

const ADMIN_ID = /^[1-9][0-9]{0,18}$/

const unauthorized = (why: string) => new AppError(ERRORS.UNAUTHORIZED, `not authenticated: ${why}`)

/**
 * Bearer JWT (HS256 secret or JWKS) plus `X-Admin-Id`, the only source of identity. A `sub`
 * claim, when present, must name the same administrator.
 */
export function authenticate(auth: Config['auth']): MiddlewareHandler<AppEnv> {
  const verification = { iss: auth.issuer, aud: auth.audience }
  const verifyToken = (token: string) =>
    auth.jwksUrl
      ? verifyWithJwks(token, {
          jwks_uri: auth.jwksUrl,
          verification,
          allowedAlgorithms: ['RS256', 'ES256', 'EdDSA'],
        })
      : verify(token, auth.jwtSecret as string, { alg: 'HS256', ...verification })

  return async (c, next) => {
    const header = c.req.header('authorization')
    const match = header?.match(/^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/)
    if (!match) throw unauthorized(header ? 'malformed bearer token' : 'missing bearer token')
    const adminId = c.req.header('x-admin-id')
    if (!adminId || !ADMIN_ID.test(adminId))
      throw unauthorized('X-Admin-Id must be a positive integer')
    let payload: Awaited<ReturnType<typeof verify>>
    try {
      payload = await verifyToken(match[1])
    } catch {
      throw unauthorized('invalid or expired token')
    }
    if (payload.exp === undefined) throw unauthorized('token has no expiry')
    if (payload.sub !== undefined && String(payload.sub) !== adminId) {
      throw unauthorized('token subject does not match X-Admin-Id')
    }
    c.set('adminId', adminId)
    await next()
  }
}

export interface Access {
  permissions: readonly string[]
  /** When set, the caller must also hold one of these roles. */
  roles?: readonly string[]
}

/**
 * Per-route authorization, declared next to the route and shown in /openapi.json. Every code
 * must answer a clear `true`; false, errors and timeouts deny.
 */
export function authorize(
  lookup: PermissionLookup,
  logger: Logger,
  access: Access & RouteDoc,
): MiddlewareHandler<AppEnv> {
  const middleware: MiddlewareHandler<AppEnv> = async (c, next) => {
    const adminId = c.get('adminId')
    let granted = false
    try {
      const checks = access.permissions.map((code) => lookup.has(adminId, code))
      const roleCheck = access.roles
        ? lookup.roles(adminId).then((held) => access.roles!.some((r) => held.includes(r)))
        : Promise.resolve(true)
      const answers = await Promise.all([...checks, roleCheck])
      granted = answers.every((a) => a === true)
    } catch (err) {
      logger.warn(
        { requestId: c.get('requestId'), err: (err as Error).message },
        'permission lookup failed: denied',
      )
    }
    if (!granted) {
      throw new AppError(
        ERRORS.PERMISSION_DENIED,
        `permission denied: requires ${access.permissions.join(' and ')}`,
      )
    }
    await next()
  }
  return describe(middleware, access)
}
