import type { DocsAssets } from './docs-page'
import type { RequestDeadline } from '../domain/deadline'
import type { Contention } from '../domain/write/transaction'

/** What an app is built with besides its Deps: the transport's own, no dependency of the domain. */
export interface AppOptions {
  /** The reference page's renderer files; without them (edge) /docs is a static index. */
  docsAssets?: DocsAssets
  /**
   * The entry started the OpenTelemetry SDK (src/tracing.ts): every request gets a server span.
   * Never on the edge, which has no SDK.
   */
  tracing?: boolean
}

export interface AppEnv {
  Variables: {
    requestId: string
    resultCode?: number
    adminId: string
    /** Set by the frame for every request (REQUEST_TIMEOUT_MS). */
    deadline: RequestDeadline
    /**
     * The codes of `Access.advise` the caller holds, set by `authorize` on every route it guards
     * (empty without advice): what a read may advise, or what a write's verb requires once it
     * knows its target (withdrawing an approval).
     */
    heldCodes: readonly string[]
    /**
     * The operationId of the route that authorized the request (`authorize`): a write's name for
     * its Idempotency-Key and duplicate-submit claims.
     */
    operationId?: string
    /** A write's lock-conflict retries (set by `writeContext`), for the access log. */
    contention?: Contention
  }
}
