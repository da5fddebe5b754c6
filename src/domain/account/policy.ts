import { fail } from '../../errors'
import type { SupplierStatus } from '../lifecycle/transitions'

/**
 * Which supplier statuses allow post-registration account writes (batch create, change, default
 * switch), from the spec's in-state rules 4 and 5. One table, ready to fold into the lifecycle's
 * shared in-state policy:
 * - DRAFT: never; its initial accounts belong to the registration (rule 5: no post-registration
 *   account approvals).
 * - VETTING: never; the registration under approval includes its accounts (rule 4).
 * - ACTIVE: yes (rule 4: maintains post-registration accounts).
 * - SUSPENDED, FROZEN: yes, as remediation (rule 4); every create and change still goes through
 *   an approval, and no payment can be made in these statuses anyway (rule 5).
 * - BLACKLIST: no; the spec grants it no in-state operation.
 * - ARCHIVED: never; read-only.
 */
export const ACCOUNT_WRITES: Record<SupplierStatus, boolean> = {
  DRAFT: false,
  VETTING: false,
  ACTIVE: true,
  SUSPENDED: true,
  FROZEN: true,
  BLACKLIST: false,
  ARCHIVED: false,
}

/** 395021 unless the supplier's status allows account writes. */
export function assertAccountsWritable(status: SupplierStatus) {
  if (!ACCOUNT_WRITES[status]) {
    fail(
      'OPERATION_NOT_ALLOWED_IN_STATUS',
      status === 'DRAFT'
        ? 'a DRAFT supplier keeps its accounts in the registration form (initialAccounts)'
        : `bank accounts of a ${status} supplier cannot be created, changed or switched`,
    )
  }
}
