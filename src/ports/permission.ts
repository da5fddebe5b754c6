import { isDatabaseUnavailable, RowShapeError, type Sql } from '../../sql/db'
import { accessOf, hasPermission, rolesOf } from '../../sql/admin'
import { AppError, ERRORS } from '../errors'
import { expiringMemory } from '../memory'
import { outboundCall } from './outbound'

/**
 * Who may do what. Any adapter may throw or time out: callers deny on anything but a clear
 * `true` (fail closed). The one failure that is not a denial is the service's own database being
 * unreachable: an AppError DATABASE_UNAVAILABLE, which refuses the request too, with "retry".
 */
/** What a route requires: every permission, and when `roles` is set, one of those roles. */
export interface Access {
  permissions: readonly string[]
  roles?: readonly string[]
  /**
   * Codes asked alongside, never required by the route itself: which of them the caller holds
   * is handed to the route, in the same lookup as the route's own, so it costs no round trip of
   * its own. A read draws advice from them (the supplier detail's `allowedActions`); a write
   * whose permission depends on its target requires some of them once it knows the target (the
   * withdrawal of an approval, by the approval's type). Fail closed: a code that fails to
   * answer is not held.
   */
  advise?: readonly string[]
}

/** Which of the codes asked an administrator holds and, when asked, all their roles. */
export interface Grants {
  permissions: string[]
  roles: string[]
}

export interface PermissionLookup {
  has(adminId: string, code: string): Promise<boolean>
  roles(adminId: string): Promise<string[]>
  /**
   * Optional: the whole of a route's access in one answer (one statement for the SQL adapter).
   * Without it the route asks `has` per code and `roles`, in parallel.
   */
  allows?(adminId: string, access: Access): Promise<boolean>
  /**
   * Optional: which of `codes` the administrator holds (and their roles when `withRoles`), in one
   * answer. Without it the codes are asked one by one with `has`.
   */
  grantsOf?(adminId: string, codes: readonly string[], withRoles: boolean): Promise<Grants>
  /**
   * The answers come from the service's own database: a lookup that does not answer in time
   * means that database is unavailable, not that the permission is denied.
   */
  readonly fromServiceDatabase?: boolean
  /**
   * Grants remembered for a few seconds, which `authorize` consults for reads (GET, HEAD, OPTIONS) only;
   * set by the app from PERMISSION_READ_CACHE_SECONDS, absent when that is 0.
   */
  readonly readGrants?: GrantMemory
}

/** Route accesses granted to administrators recently, each until its own deadline. */
export interface GrantMemory {
  holds(adminId: string, access: Access): boolean
  remember(adminId: string, access: Access): void
  /** The advice codes the administrator held when last asked, if that was recent. */
  advice(adminId: string, codes: readonly string[]): string[] | undefined
  rememberAdvice(adminId: string, codes: readonly string[], held: readonly string[]): void
}

const GRANTS_MAX = 10_000

/**
 * Grants (never denials) remembered for `seconds`. A read re-asked within that time skips its
 * permission statement, a round trip that cost the supplier detail read about a sixth of its
 * throughput (docs/benchmarks.md). The trade-off: a permission revoked from an administrator
 * still lets them read for up to `seconds`; writes always ask, and a new grant (a denial is not
 * remembered) takes effect at once. Oldest entries go first beyond 10,000.
 *
 * Advice (`Access.advise`) of a read is remembered apart, as the whole answer, codes not held
 * included: it authorizes nothing (every command asks for itself), so a grant or a revocation
 * may show in it up to `seconds` late, and a reader who holds few codes does not pay a statement
 * per read. A write's codes are never remembered.
 */
export function grantMemory(seconds: number, now = () => Date.now()): GrantMemory {
  const granted = expiringMemory<true>(GRANTS_MAX, now)
  const advised = expiringMemory<string[]>(GRANTS_MAX, now)
  const keyOf = (adminId: string, access: Access) =>
    `${adminId}\n${access.permissions.join(',')}\n${access.roles?.join(',') ?? ''}`
  const adviceKey = (adminId: string, codes: readonly string[]) => `${adminId}\n${codes.join(',')}`
  const until = () => now() + seconds * 1000
  return {
    holds: (adminId, access) => granted.get(keyOf(adminId, access)) === true,
    remember: (adminId, access) => granted.set(keyOf(adminId, access), true, until()),
    advice: (adminId, codes) => advised.get(adviceKey(adminId, codes)),
    rememberAdvice: (adminId, codes, held) =>
      advised.set(adviceKey(adminId, codes), [...held], until()),
  }
}

const databaseUnavailable = (what: string) =>
  new AppError(ERRORS.DATABASE_UNAVAILABLE, `permission lookup: ${what}; retry later`)

/**
 * A connection failure of the database, one of its bounds, or an answer that does not parse
 * (damaged or meant for another statement) is "unavailable": nobody's permission was judged.
 * Every other error (a statement the server refuses) stays an error, which denies.
 */
const orUnavailable = async <T>(work: Promise<T>): Promise<T> => {
  try {
    return await work
  } catch (err) {
    if (isDatabaseUnavailable(err)) throw databaseUnavailable('the database is unreachable')
    if (err instanceof RowShapeError) {
      throw databaseUnavailable('the database answered a row that does not parse')
    }
    throw err
  }
}

/** Whether `grants` satisfy `access`: every permission, and one of its roles when it has some. */
export const satisfies = (access: Access, grants: Grants): boolean =>
  access.permissions.every((code) => grants.permissions.includes(code)) &&
  (!access.roles || access.roles.some((role) => grants.roles.includes(role)))

/** Default adapter: the service's own admin_permission / admin_role tables. */
export const sqlPermissionLookup = (sql: Sql): PermissionLookup => ({
  has: (adminId, code) => orUnavailable(hasPermission(sql, adminId, code)),
  roles: (adminId) => orUnavailable(rolesOf(sql, adminId)),
  async allows(adminId, access) {
    const grants = await orUnavailable(
      accessOf(sql, adminId, access.permissions, access.roles !== undefined),
    )
    return satisfies(access, grants)
  },
  grantsOf: (adminId, codes, withRoles) => orUnavailable(accessOf(sql, adminId, codes, withRoles)),
  fromServiceDatabase: true,
})

/**
 * Adapter for the platform permission service. Its answers are `Result<T>` envelopes:
 * `GET {base}/admins/{adminId}/permissions/{code}` → `Result<boolean>`,
 * `GET {base}/admins/{adminId}/roles` → `Result<string[]>`. Anything else is an error.
 */
export function httpPermissionLookup(options: {
  baseUrl: string
  token?: string
  timeoutMs: number
  fetch?: typeof fetch
}): PermissionLookup {
  const doFetch = options.fetch ?? fetch
  const base = options.baseUrl.replace(/\/+$/, '')
  /** `template` names the path without its ids, for the call's span. */
  const call = (path: string, template: string): Promise<unknown> => {
    const url = `${base}${path}`
    return outboundCall({ peer: 'permission', method: 'GET', url, template }, async (trace) => {
      const res = await doFetch(url, {
        headers: {
          ...trace.headers,
          accept: 'application/json',
          ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        },
        signal: AbortSignal.timeout(options.timeoutMs),
      })
      trace.answered(res.status)
      if (!res.ok) throw new Error(`permission service answered HTTP ${res.status}`)
      const body = (await res.json()) as { code?: unknown; success?: unknown; data?: unknown }
      if (body?.success !== true || body.code !== 200) {
        trace.failed('non_success_answer')
        throw new Error('permission service answered non-success')
      }
      return body.data
    })
  }
  return {
    async has(adminId, code) {
      const data = await call(
        `/admins/${encodeURIComponent(adminId)}/permissions/${encodeURIComponent(code)}`,
        '/admins/{adminId}/permissions/{code}',
      )
      if (typeof data !== 'boolean') throw new Error('permission service answered a non-boolean')
      return data
    },
    async roles(adminId) {
      const data = await call(
        `/admins/${encodeURIComponent(adminId)}/roles`,
        '/admins/{adminId}/roles',
      )
      if (!Array.isArray(data) || !data.every((r) => typeof r === 'string')) {
        throw new Error('permission service answered malformed roles')
      }
      return data
    },
  }
}

/**
 * Bounds every lookup of any adapter by `ms`: a lookup still running then is an error, which
 * the caller treats as denied; for a lookup in the service's own database, it is
 * DATABASE_UNAVAILABLE (the database did not answer).
 */
export function withDeadline(lookup: PermissionLookup, ms: number): PermissionLookup {
  const bounded = <T>(work: () => Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            lookup.fromServiceDatabase
              ? databaseUnavailable(`no answer from the database in ${ms} ms`)
              : new Error(`permission lookup exceeded ${ms} ms`),
          ),
        ms,
      )
      // A lookup that throws synchronously is a failed lookup like any other.
      Promise.resolve()
        .then(work)
        .then(resolve, reject)
        .finally(() => clearTimeout(timer))
    })
  const { allows, grantsOf } = lookup
  return {
    has: (adminId, code) => bounded(() => lookup.has(adminId, code)),
    roles: (adminId) => bounded(() => lookup.roles(adminId)),
    ...(allows && {
      allows: (adminId, access) => bounded(() => allows.call(lookup, adminId, access)),
    }),
    ...(grantsOf && {
      grantsOf: (adminId, codes, withRoles) =>
        bounded(() => grantsOf.call(lookup, adminId, codes, withRoles)),
    }),
    fromServiceDatabase: lookup.fromServiceDatabase,
  }
}

/**
 * The adapter the configuration selects, for the Node service and the edge alike: the platform
 * permission service when PERMISSION_SERVICE_URL is set, else the local tables.
 */
export function permissionLookupFor(
  config: { permissions: { serviceUrl?: string; serviceToken?: string; timeoutMs: number } },
  sql: Sql,
): PermissionLookup {
  const { serviceUrl, serviceToken, timeoutMs } = config.permissions
  return serviceUrl
    ? httpPermissionLookup({ baseUrl: serviceUrl, token: serviceToken, timeoutMs })
    : sqlPermissionLookup(sql)
}
