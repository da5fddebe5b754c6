import type { MiddlewareHandler } from 'hono'
import { decode, verify, verifyWithJwks } from 'hono/jwt'
import type { AsymmetricAlgorithm } from 'hono/utils/jwt/jwa'
import type { HonoJsonWebKey } from 'hono/utils/jwt/jws'
import type { Logger } from 'pino'
import type { z } from 'zod'
import type { Config } from '../config'
import { AppError, ERRORS } from '../errors'
import { expiringMemory } from '../memory'
import { satisfies, type Access, type PermissionLookup } from '../ports/permission'
import type { Declared } from './envelope'
import { describe, type RouteDoc } from './openapi'
import { idString } from '../schemas/id'
import type { AppEnv } from './types'

const JWKS_TTL_MS = 5 * 60_000
const JWKS_TIMEOUT_MS = 3_000
/** No new fetch within this long after the last attempt ends (unknown kid or failure). */
const JWKS_RETRY_MS = 10_000
const JWKS_ALGORITHMS: readonly AsymmetricAlgorithm[] = ['RS256', 'ES256', 'EdDSA']

const decodeHeader = (token: string) => decode(token).header

const keysUnavailable = () =>
  new AppError(ERRORS.DEPENDENCY_UNAVAILABLE, 'identity provider keys unavailable')

/**
 * The identity provider's keys, fetched with a timeout and kept for a few minutes, so a slow
 * JWKS endpoint cannot stall every request. Concurrent callers share one fetch; an unknown kid
 * refetches (key rotation), a failed fetch keeps serving the old keys (stale-if-error), and no
 * new fetch starts within 10 s of the last one ending, whatever its outcome. Having never
 * obtained keys is DEPENDENCY_UNAVAILABLE, not a verdict on the token.
 */
function jwksCache(url: string) {
  let keys: HonoJsonWebKey[] | undefined
  let fetchedAt = -Infinity
  let attemptEndedAt = -Infinity
  let inFlight: Promise<void> | undefined
  const load = async () => {
    const res = await fetch(url, { signal: AbortSignal.timeout(JWKS_TIMEOUT_MS) })
    if (!res.ok) throw new Error(`JWKS answered HTTP ${res.status}`)
    const body = (await res.json()) as { keys?: HonoJsonWebKey[] }
    if (!Array.isArray(body.keys)) throw new Error('JWKS without keys')
    keys = body.keys
    fetchedAt = Date.now()
  }
  const refresh = () =>
    (inFlight ??= load().finally(() => {
      attemptEndedAt = Date.now()
      inFlight = undefined
    }))
  return {
    async keysFor(kid: string): Promise<HonoJsonWebKey[]> {
      // Date.now() is read on each call (not captured) so that tests can fake the clock.
      const now = Date.now()
      const wanted = now - fetchedAt > JWKS_TTL_MS || !keys?.some((k) => k.kid === kid)
      if (wanted && (inFlight || now - attemptEndedAt > JWKS_RETRY_MS)) {
        try {
          await refresh()
        } catch {
          // stale-if-error: the keys from the last successful fetch, if any, still answer
        }
      }
      if (!keys) throw keysUnavailable()
      return keys
    },
  }
}

/**
 * One cache per JWKS URL for the whole module: every app built by createApp or createEdgeApp
 * (one per request on the edge) shares the keys and the in-flight fetch.
 */
const jwksCaches = new Map<string, ReturnType<typeof jwksCache>>()

const jwksCacheFor = (url: string) => {
  let cache = jwksCaches.get(url)
  if (!cache) jwksCaches.set(url, (cache = jwksCache(url)))
  return cache
}

/** Forgets every cached key set (test hook: the next request fetches again). */
export function resetJwksCaches() {
  jwksCaches.clear()
}

type TokenPayload = Awaited<ReturnType<typeof verify>>

/** How long a token's verified signature and claims are remembered; never past its `exp`. */
const VERIFIED_TTL_MS = 60_000
const VERIFIED_MAX = 10_000

/**
 * Tokens verified recently. Verifying through WebCrypto was the costliest step of a read (about
 * a tenth of its CPU), and a client sends the same token with every request. An entry lives 60 s
 * at most and never past the token's `exp`, so the only difference a remembered token makes is
 * that a JWKS key withdrawn in the last minute still verifies what it signed: the key set itself
 * is cached for five minutes anyway. Oldest entries go first beyond 10,000 tokens.
 */
function verifiedTokens() {
  const memory = expiringMemory<TokenPayload>(VERIFIED_MAX)
  return {
    get: (token: string) => memory.get(token),
    remember(token: string, payload: TokenPayload) {
      if (typeof payload.exp !== 'number') return
      memory.set(token, payload, Math.min(Date.now() + VERIFIED_TTL_MS, payload.exp * 1000))
    },
  }
}

/** Methods that change nothing: no body is read, and a remembered grant is enough. */
export const READ_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS'])

const unauthorized = (why: string) => new AppError(ERRORS.UNAUTHORIZED, `not authenticated: ${why}`)

/**
 * Bearer JWT (HS256 secret or JWKS) plus `X-Admin-Id`, the only source of identity. The token
 * must carry `sub` naming the same administrator, `iat` and `exp`, and live (`exp − iat`) at most
 * AUTH_TOKEN_MAX_LIFETIME_SECONDS.
 */
export function authenticate(auth: Config['auth']): MiddlewareHandler<AppEnv> {
  const verification = { iss: auth.issuer, aud: auth.audience }
  const { jwksUrl } = auth
  const verifyToken = async (token: string) => {
    if (!jwksUrl) return verify(token, auth.jwtSecret as string, { alg: 'HS256', ...verification })
    const { kid, alg } = decodeHeader(token)
    // A token no key could ever verify is refused without asking the identity provider.
    if (typeof kid !== 'string' || !(JWKS_ALGORITHMS as readonly string[]).includes(alg))
      throw new Error('no usable kid')
    return verifyWithJwks(token, {
      keys: await jwksCacheFor(jwksUrl).keysFor(kid),
      verification,
      allowedAlgorithms: JWKS_ALGORITHMS,
    })
  }

  const verified = verifiedTokens()

  return async (c, next) => {
    const header = c.req.header('authorization')
    const match = header?.match(/^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/)
    if (!match) throw unauthorized(header ? 'malformed bearer token' : 'missing bearer token')
    const adminId = c.req.header('x-admin-id')
    if (!adminId || !idString.safeParse(adminId).success)
      throw unauthorized('X-Admin-Id must be a positive integer')
    let payload = verified.get(match[1])
    if (!payload) {
      try {
        payload = await verifyToken(match[1])
      } catch (err) {
        if (err instanceof AppError) throw err // identity provider keys unavailable
        throw unauthorized('invalid or expired token')
      }
      verified.remember(match[1], payload)
    }
    const { sub, iat, exp } = payload
    if (typeof exp !== 'number' || !Number.isFinite(exp)) throw unauthorized('token has no expiry')
    // The token must name its administrator: one without a subject would do for any X-Admin-Id.
    if (typeof sub !== 'string' || sub === '') throw unauthorized('token has no subject (sub)')
    if (sub !== adminId) throw unauthorized('token subject does not match X-Admin-Id')
    // Without an issue time the lifetime cannot be bounded (verify() refuses an iat in the future).
    if (typeof iat !== 'number' || !Number.isFinite(iat)) {
      throw unauthorized('token has no issue time (iat)')
    }
    if (exp - iat > auth.maxTokenLifetimeSeconds) {
      throw unauthorized(`token lifetime exceeds ${auth.maxTokenLifetimeSeconds} s`)
    }
    c.set('adminId', adminId)
    await next()
  }
}

/**
 * The route's verdict and, for `access.advise`, the advice codes held. One statement when the
 * adapter answers grants (the SQL tables); otherwise each code by `has`, where an advice code
 * that fails to answer counts as not held (fail closed) and a required one denies.
 */
async function judge(
  lookup: PermissionLookup,
  adminId: string,
  access: Access,
): Promise<{ granted: boolean; held: string[] }> {
  const advise = access.advise ?? []
  if (lookup.allows && !advise.length) {
    return { granted: (await lookup.allows(adminId, access)) === true, held: [] }
  }
  if (lookup.grantsOf) {
    const codes = [...new Set([...access.permissions, ...advise])]
    const grants = await lookup.grantsOf(adminId, codes, access.roles !== undefined)
    return {
      granted: satisfies(access, grants),
      held: advise.filter((code) => grants.permissions.includes(code)),
    }
  }
  const checks = access.permissions.map((code) => lookup.has(adminId, code))
  const roleCheck = access.roles
    ? lookup.roles(adminId).then((held) => access.roles!.some((r) => held.includes(r)))
    : Promise.resolve(true)
  const advice = advise.map((code) =>
    lookup.has(adminId, code).then(
      (answer) => answer === true,
      () => false,
    ),
  )
  const [answers, flags] = await Promise.all([
    Promise.all([...checks, roleCheck]),
    Promise.all(advice),
  ])
  return {
    granted: answers.every((a) => a === true),
    held: advise.filter((_, i) => flags[i]),
  }
}

/**
 * Per-route authorization, declared next to the route and shown in /openapi.json. Every code
 * must answer a clear `true`; false, errors and timeouts deny. With `access.advise`, the advice
 * codes the caller holds are handed to the route as `heldCodes`.
 */
export function authorize<R extends z.ZodType>(
  lookup: PermissionLookup,
  logger: Logger,
  access: Access & RouteDoc & { response: R },
): MiddlewareHandler<AppEnv & Declared<R>> {
  const middleware: MiddlewareHandler<AppEnv & Declared<R>> = async (c, next) => {
    if (access.operationId) c.set('operationId', access.operationId)
    const adminId = c.get('adminId')
    const memory = READ_METHODS.has(c.req.method) ? lookup.readGrants : undefined
    const { advise } = access
    if (memory?.holds(adminId, access)) {
      const held = advise ? memory.advice(adminId, advise) : []
      if (held) {
        c.set('heldCodes', held)
        return next()
      }
    }
    let granted = false
    let held: string[] = []
    try {
      ;({ granted, held } = await judge(lookup, adminId, access))
    } catch (err) {
      if (err instanceof AppError && err.entry === ERRORS.DATABASE_UNAVAILABLE) {
        // Refused all the same, but as "retry later": nobody's permission was judged.
        logger.warn({ requestId: c.get('requestId'), err: err.message }, 'permission lookup failed')
        throw err
      }
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
    memory?.remember(adminId, access)
    if (advise) memory?.rememberAdvice(adminId, advise, held)
    c.set('heldCodes', held)
    // A grant that arrives after the caller was answered at the deadline runs nothing.
    if (c.get('deadline')?.passed) throw new AppError(ERRORS.DATABASE_UNAVAILABLE)
    await next()
  }
  return describe(middleware, access)
}
