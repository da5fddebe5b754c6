import type { Logger } from 'pino'
import type postgres from 'postgres'
import type { Config } from '../config'
import type { SensitiveCipher } from '../crypto/sensitive'
import type { ApprovalProvider } from '../ports/approval-provider'
import type { FinanceClearance } from '../ports/finance-clearance'
import type { FleetResources } from '../ports/fleet'
import type { PermissionLookup } from '../ports/permission'
import type { DocsAssets } from './docs-page'
import type { Observer } from '../ports/observer'
import type { RequestDeadline } from '../domain/deadline'

/** What the domain needs from the outside world; built once by the entry point. */
export interface Deps {
  config: Config
  /** The pool; domain verbs open their transactions on it. */
  sql: postgres.Sql
  logger: Logger
  cipher: SensitiveCipher
  permissions: PermissionLookup
  /** LOCAL_AUTO unless a test or a later phase supplies another adapter. */
  approvalProvider?: ApprovalProvider
  /** From the configuration (FINANCE_CLEARANCE_URL) unless a test supplies another adapter. */
  financeClearance?: FinanceClearance
  /** Vehicles of the resource-information page; chosen from the configuration when absent. */
  fleet?: FleetResources
  /** The reference page's renderer files; without them (edge) /docs is a static index. */
  docsAssets?: DocsAssets
  /** Metrics (Node); absent on the edge. */
  observer?: Observer
}

export interface AppEnv {
  Variables: {
    requestId: string
    resultCode?: number
    adminId: string
    /** Set by the frame for every request (REQUEST_TIMEOUT_MS). */
    deadline: RequestDeadline
  }
}
