import type { Logger } from 'pino'
import type postgres from 'postgres'
import type { Config } from '../config'
import type { SensitiveCipher } from '../crypto/sensitive'
import type { ApprovalProvider } from '../ports/approval-provider'
import type { FinanceClearance } from '../ports/finance-clearance'
import type { FleetResources } from '../ports/fleet'
import type { PermissionLookup } from '../ports/permission'
import type { Observer } from '../ports/observer'
import type { ApprovalHandlers } from './approval/handler'

/**
 * What the domain needs from the outside world, the one dependency type of the verbs, the write
 * pipeline, the applier and the routes; built once by the entry point. It sits beside the domain
 * (not in http/) so that verbs depend on their inputs, not on the transport.
 */
export interface Deps {
  config: Config
  /** The pool; domain verbs open their transactions on it. */
  sql: postgres.Sql
  logger: Logger
  cipher: SensitiveCipher
  permissions: PermissionLookup
  /** LOCAL_AUTO unless a test or a later phase supplies another adapter. */
  approvalProvider: ApprovalProvider
  /** The approval business types the applier knows (`src/domain/approval/registry.ts`). */
  approvalHandlers: ApprovalHandlers
  /** From the configuration (FINANCE_CLEARANCE_URL) unless a test supplies another adapter. */
  financeClearance: FinanceClearance
  /** Vehicles of the resource-information page; chosen from the configuration when absent. */
  fleet?: FleetResources
  /** Metrics (Node); absent on the edge. */
  observer?: Observer
  /** Standbys for the read-only routes (DATABASE_READ_URL); absent, the primary serves them. */
  reads?: ReadRouting
  /** Keeps the totals of common list keywords (Node); absent, the terms index counts them. */
  keywordKeeper?: KeywordKeeper
}

/**
 * Takes note of a folded list keyword after its answer (kept-keywords.ts): one that counted many
 * matches (`common`) is to be kept, any other is marked as used if it is kept.
 */
export interface KeywordKeeper {
  note(fold: string, common: boolean): void
}

/** Why a read went where it went (the reads metric's `reason`). */
export type ReadReason = 'caught-up' | 'lagging' | 'down' | 'read-your-writes' | 'standby-failed'

/** A standby to read from, or why the primary serves the read. */
export type ReadTarget =
  { name: string; sql: postgres.Sql } | { name?: undefined; reason: ReadReason }

/**
 * Where the read-only routes read. On Node (`startReadRouting`, src/db/replicas.ts) a standby
 * serves a read only while its replay lag is within DATABASE_READ_MAX_LAG_MS and, for an
 * administrator who has just written, once it has replayed that write. On the edge
 * (`requestReadRouting`, src/domain/read-routing.ts) only once it has replayed every commit
 * acknowledged before the read. Otherwise the primary does.
 */
export interface ReadRouting {
  /**
   * The standby a read of `adminId` may use now, or why the primary must serve it. The Node
   * router knows at once (it polls); the edge's asks the servers on the request's first read.
   */
  pick(adminId: string | undefined): ReadTarget | Promise<ReadTarget>
  /** A read on standby `name` failed for want of the server: out of rotation until it answers. */
  failed(name: string): void
  /** A write of `adminId` has committed: its reads wait for a standby to replay this far. */
  wrote(adminId: string): Promise<void>
}
