import type { Logger } from 'pino'
import type postgres from 'postgres'
import type { Config } from '../config'
import type { SensitiveCipher } from '../crypto/sensitive'
import type { ApprovalProvider } from '../ports/approval-provider'
import type { FinanceClearance } from '../ports/finance-clearance'
import type { FleetResources } from '../ports/fleet'
import type { PermissionLookup } from '../ports/permission'
import type { Observer } from '../ports/observer'

/**
 * What the domain needs from the outside world; built once by the entry point. It sits beside the
 * domain (not in http/) so that verbs depend on their inputs, not on the transport.
 */
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
  /** Metrics (Node); absent on the edge. */
  observer?: Observer
}
