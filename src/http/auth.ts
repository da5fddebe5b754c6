import type { MiddlewareHandler } from 'hono'
import { decode, verify, verifyWithJwks } from 'hono/jwt'
import type { HonoJsonWebKey } from 'hono/utils/jwt/jws'
import type { Logger } from 'pino'
import type { Config } from '../config'
import { AppError, ERRORS } from '../errors'
import type { PermissionLookup } from '../ports/permission'
import { describe, type RouteDoc } from './openapi'
import { idString } from './validate'
import type { AppEnv } from './types'

const JWKS_TTL_MS = 5 * 60_000
const JWKS_TIMEOUT_MS = 3_000

const decodeHeader = (token: string) => decode(token).header

/**
 * The identity provider's keys, fetched with a timeout and kept for a few minutes, so a slow
 * JWKS endpoint cannot stall every request; an unknown kid refetches at once (key rotation).
 */
function jwksCache(url: string) {
  let keys: HonoJsonWebKey[] = []
  let fetchedAt = 0
  const refresh = async () => {
    const res = await fetch(url, { signal: AbortSignal.timeout(JWKS_TIMEOUT_MS) })
    if (!res.ok) throw new Error(`JWKS answered HTTP ${res.status}`)
    const body = (await res.json()) as { keys?: HonoJsonWebKey[] }
    if (!Array.isArray(body.keys)) throw new Error('JWKS without keys')
    keys = body.keys
    fetchedAt = Date.now()
  }
  return {
    async keysFor(kid: string | undefined) {
      const age = Date.now() - fetchedAt
      // An unknown kid refetches, but at most every 10 s: random kids must not hammer the IdP.
      const unknownKid = kid !== undefined && !keys.some((k) => k.kid === kid) && age > 10_000
      if (age > JWKS_TTL_MS || unknownKid) await refresh()
      return keys
    },
  }
}

const unauthorized = (why: string) => new AppError(ERRORS.UNAUTHORIZED, `not authenticated: ${why}`)

/**
 * Bearer JWT (HS256 secret or JWKS) plus `X-Admin-Id`, the only source of identity. A `sub`
 * claim, when present, must name the same administrator.
 */
export function authenticate(auth: Config['auth']): MiddlewareHandler<AppEnv> {
  const verification = { iss: auth.issuer, aud: auth.audience }
  const jwks = auth.jwksUrl ? jwksCache(auth.jwksUrl) : undefined
  const verifyToken = async (token: string) => {
    if (!jwks) return verify(token, auth.jwtSecret as string, { alg: 'HS256', ...verification })
    const { kid } = decodeHeader(token)
    return verifyWithJwks(token, {
      keys: await jwks.keysFor(kid),
      verification,
      allowedAlgorithms: ['RS256', 'ES256', 'EdDSA'],
    })
  }

  return async (c, next) => {
    const header = c.req.header('authorization')
    const match = header?.match(/^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/)
    if (!match) throw unauthorized(header ? 'malformed bearer token' : 'missing bearer token')
    const adminId = c.req.header('x-admin-id')
    if (!adminId || !idString.safeParse(adminId).success)
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
