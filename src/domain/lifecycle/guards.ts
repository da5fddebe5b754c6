import { liveAccounts, type AccountRow } from '../../../sql/account'
import type { Sql } from '../../../sql/db'
import { supplierCompliance } from '../../../sql/compliance'
import { registrationClashes, registrationFacts } from '../../../sql/supplier'
import { liveTypes, type TypeRow } from '../../../sql/supplier-children'
import { fail } from '../../errors'
import { COMPLIANT_STATES } from '../../vocabulary'
import type { Deps } from '../deps'
import { today } from '../context'
import type { Guard } from './transitions'

/*
 * The guards the transition table names, kept apart from the table so that the table is data
 * and the lifecycle reaches into no command folder: a guard is a check on the supplier as it is
 * inside the caller's transaction.
 */

/** What a guard may need beyond the database: the finance clearance port's answer. */
export interface GuardEvidence {
  clearance?: { cleared: true }
}

/**
 * A supplier's live types and accounts as the caller's transaction has read them, with nothing
 * written to them since: a guard that needs them takes them from here rather than reading them
 * again, and says what it checked the same way.
 */
export interface SupplierChildren {
  types: TypeRow[]
  accounts: AccountRow[]
}

/**
 * What the caller's transaction already knows of the supplier: its children (read, unchanged
 * since) and the row as the move's UPDATE returned it.
 */
export type KnownFacts = Partial<SupplierChildren> & {
  written?: { licenseImageUrl: string | null }
}

/** What a guard checks a supplier on: the evidence the caller holds, what its transaction knows. */
export interface GuardFacts {
  supplierId: string
  evidence?: GuardEvidence
  known?: KnownFacts
}

/**
 * The check of each guard the transition table names, on the supplier as it is inside the
 * caller's transaction (`GUARDS[move.guard](tx, deps, facts)`); the registration rules return the
 * types and accounts they were checked on.
 */
export const GUARDS: Record<
  Guard,
  (tx: Sql, deps: Deps, facts: GuardFacts) => Promise<SupplierChildren | undefined>
> = {
  NONE: async () => undefined,
  REGISTRATION_RULES: checkRegistration,
  QUALIFICATIONS_VALID: async (tx, _deps, { supplierId }) => {
    await assertQualificationsValid(tx, supplierId)
    return undefined
  },
  FINANCE_CLEARED: async (_tx, _deps, { evidence }) => {
    if (evidence?.clearance?.cleared !== true) {
      fail('ARCHIVE_CLEARANCE_UNAVAILABLE', 'finance clearance has not confirmed the archive')
    }
    return undefined
  },
}

/**
 * Guard of resume and unfreeze: every live type's required qualifications are held and not
 * expired (EXPIRING is still valid). Otherwise 395008 with the offending ones in `data.missing`.
 */
export async function assertQualificationsValid(sql: Sql, supplierId: string) {
  const compliance = await supplierCompliance(sql, supplierId)
  const missing = compliance.flatMap((t) =>
    t.requiredQualifications
      .filter((q) => !COMPLIANT_STATES.includes(q.state))
      .map((q) => ({ typeCode: t.typeCode, qualType: q.qualType, state: q.state })),
  )
  if (missing.length) {
    fail(
      'QUALIFICATIONS_MISSING',
      `required qualifications missing or expired: ${missing.map((m) => `${m.typeCode}/${m.qualType} ${m.state}`).join(', ')}`,
      { missing },
    )
  }
}

/**
 * The registration checks on the state as it will be approved, under the aggregate lock:
 * C-06 licence image, C-09 required qualifications of all chosen types, and for each initial
 * account C-19 (C-03 is checked with the other field rules). C-02 needs no read here: the unique
 * index supplier_tax_no_live lets no other live supplier hold the tax number of this live, locked
 * row. The licence image, types and accounts are read here unless the caller knows them in this
 * transaction (`known`); returns the types and accounts it checked.
 */
export async function checkRegistration(
  tx: Sql,
  deps: Deps,
  { supplierId, known }: GuardFacts,
): Promise<SupplierChildren> {
  // What is not known is read in one round (postgres.js pipelines the queries a transaction has
  // in flight), the other rows in one statement after it; judged in the rules' order afterwards.
  const [facts, liveTypeRows, liveAccountRows] = await Promise.all([
    known?.written ?? registrationFacts(tx, supplierId),
    known?.types ?? liveTypes(tx, supplierId),
    known?.accounts ?? liveAccounts(tx, supplierId),
  ])
  if (!facts) fail('SUPPLIER_NOT_FOUND')
  const { licenseImageUrl } = facts
  const accounts = liveAccountRows.filter((a) => a.status !== 'ACTIVE')
  const { missing, heldElsewhere } = await registrationClashes(tx, supplierId, {
    typeCodes: liveTypeRows.map((t) => t.typeCode),
    today: today(deps.config.timezone),
    accountNoBidxs: accounts.map((a) => a.accountNoBidx),
  })
  if (!licenseImageUrl) fail('LICENSE_IMAGE_REQUIRED')
  if (missing.length) {
    fail(
      'QUALIFICATIONS_MISSING',
      `required qualifications missing or expired: ${missing.map((m) => m.qualType).join(', ')} (C-09)`,
      { missing },
    )
  }
  const clash = accounts.find((a) => heldElsewhere.includes(a.accountNoBidx))
  if (clash) {
    fail(
      'ACCOUNT_DUPLICATED',
      `account ${clash.accountNoMask} is a valid account of another supplier (C-19)`,
    )
  }
  return { types: liveTypeRows, accounts: liveAccountRows }
}
