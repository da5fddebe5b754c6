import {
  lockAccount,
  numberHolders,
  updateAccount,
  type AccountWriteRow,
} from '../../../sql/account'
import { insertEvent } from '../../../sql/outbox'
import type { Sql } from '../../../sql/db'
import { lockSupplier } from '../../../sql/supplier'
import { fail } from '../../errors'
import {
  approvalHandler,
  type ApplierCtx,
  type NotApplied,
  type NotAppliedOf,
} from '../approval/handler'
import type { Deps } from '../deps'
import { checkCandidate, flagCodes, screenNumbers } from './rules'
import { eventChanges, maskForLog, statusChange, type FieldChange } from '../write/change-log'
import { logChanges } from '../audit/trail'
import { assertAllowed } from '../lifecycle/policy'
import { approvalOpenedBy } from '../../schemas/lifecycle'
import { forSubscribers } from '../../schemas/events'
import {
  AccountChangeSnapshot,
  AccountCreateSnapshot,
  storedTerms,
  openCandidate,
} from './snapshot'
import {
  accountMove,
  CHANGEABLE,
  HOLDS_NUMBER,
  nextAccountStatus,
  type AccountTrigger,
} from './statuses'
import type { AccountStatus } from '../../vocabulary'

/*
 * The approval handlers of bank accounts. Each applies from its snapshot only, by one
 * `applyCandidate` (lock, re-check, write the candidate's terms), then writes its own masked
 * change log and event, in the applier's transaction.
 */

/**
 * What both account approvals apply by: lock the supplier, then the account (the aggregate's
 * order), re-check the supplier's status for `operation` and what the command itself requires of
 * the account (`check`), decrypt the candidate, re-check C-03, C-19 and the settlement terms
 * against it, and write its terms (with the account's next status, for a create) guarded by the
 * account's version. Returns what the caller logs and announces.
 */
async function applyCandidate(
  tx: Sql,
  deps: Deps,
  snapshot: AccountCreateSnapshot,
  rules: {
    operation: 'ACCOUNT_CREATE' | 'ACCOUNT_CHANGE'
    check?(account: AccountWriteRow): void
    status?(account: AccountWriteRow): AccountStatus
  },
) {
  const supplier = await lockSupplier(tx, snapshot.supplierId)
  if (!supplier) fail('SUPPLIER_NOT_FOUND')
  const account = await lockAccount(tx, snapshot.supplierId, snapshot.accountId)
  if (!account) fail('ACCOUNT_NOT_FOUND')
  assertAllowed(supplier.status, rules.operation, 'writing bank accounts')
  rules.check?.(account)
  const status = rules.status?.(account)
  const candidate = await openCandidate(deps, snapshot)
  const screened = checkCandidate(deps.config, {
    account,
    candidate,
    accountNoBidx: snapshot.accountNoBidx,
  })
  const holders = await numberHolders(tx, [screened.accountNoBidx], HOLDS_NUMBER)
  const [flags] = screenNumbers(holders, supplier, [screened])
  const applied = await updateAccount(tx, account, {
    ...(await storedTerms(deps, candidate)),
    ...(status && { status }),
    riskFlags: flagCodes(flags),
  })
  if (!applied) fail('CONCURRENT_MODIFICATION')
  return {
    supplier,
    account,
    candidate,
    riskFlags: flagCodes(flags),
    status: status ?? account.status,
  }
}

/** The account move and the event of a create that ends unapplied. */
const OUTCOME = {
  REJECTED: { trigger: 'APPROVAL_REJECTED', event: 'BankAccountRejected' },
  APPLY_FAILED: { trigger: 'APPLY_FAILED', event: 'BankAccountApplyFailed' },
  WITHDRAWN: { trigger: 'APPROVAL_WITHDRAWN', event: 'BankAccountWithdrawn' },
} as const satisfies Record<NotApplied['status'], { trigger: AccountTrigger; event: string }>

/**
 * A create that did not go through (rejected, not applied, or withdrawn) moves its account as the
 * status table says; an account already moved (a retry) or moved elsewhere is left alone.
 */
async function settleCreate(
  tx: Sql,
  deps: Deps,
  ctx: ApplierCtx,
  { approval, snapshot, outcome: { status, reason } }: NotAppliedOf<AccountCreateSnapshot>,
) {
  const account = await lockAccount(tx, snapshot.supplierId, snapshot.accountId)
  const to = account && accountMove(account.status, OUTCOME[status].trigger)
  if (!account || !to) return
  const moved = await updateAccount(tx, account, { status: to })
  if (!moved) fail('CONCURRENT_MODIFICATION')
  await logChanges(tx, deps, ctx, {
    supplierId: snapshot.supplierId,
    operationType: 'ACCOUNT_CREATE',
    changes: [statusChange('ACCOUNT', account.accountId, account.status, to)],
    approvalLogId: approval.approvalLogId,
    status,
    changeReason: reason,
  })
  await insertEvent(tx, {
    aggregateType: 'ACCOUNT',
    aggregateId: account.accountId,
    eventType: OUTCOME[status].event,
    payload: {
      supplierId: snapshot.supplierId,
      accountId: account.accountId,
      approvalLogId: approval.approvalLogId,
    },
  })
}

/** ACCOUNT_CREATE: the PENDING (or APPLY_FAILED, on retry) account becomes ACTIVE. */
export const accountCreateApproval = approvalHandler<AccountCreateSnapshot>({
  ...approvalOpenedBy('createSupplierAccounts'),
  snapshot: AccountCreateSnapshot,
  async apply(tx, deps, ctx, { approval, snapshot }) {
    const {
      supplier,
      account,
      riskFlags,
      status: to,
    } = await applyCandidate(tx, deps, snapshot, {
      operation: 'ACCOUNT_CREATE',
      status: (account) => nextAccountStatus(account.status, 'APPROVAL_APPLIED'),
    })
    await logChanges(tx, deps, ctx, {
      supplierId: supplier.supplierId,
      operationType: 'ACCOUNT_CREATE',
      changes: [statusChange('ACCOUNT', account.accountId, account.status, to)],
      approvalLogId: approval.approvalLogId,
      status: 'APPLIED',
    })
    await insertEvent(tx, {
      aggregateType: 'ACCOUNT',
      aggregateId: account.accountId,
      eventType: 'BankAccountActivated',
      payload: {
        supplierId: supplier.supplierId,
        accountId: account.accountId,
        approvalLogId: approval.approvalLogId,
        accountNoMask: snapshot.accountNoMask,
        riskFlags,
      },
    })
  },
  notApplied: settleCreate,
})

/** ACCOUNT_CHANGE: the approved candidate replaces the fields it names, on an ACTIVE account. */
export const accountChangeApproval = approvalHandler<AccountChangeSnapshot>({
  ...approvalOpenedBy('changeSupplierAccount'),
  snapshot: AccountChangeSnapshot,
  async apply(tx, deps, ctx, { approval, snapshot }) {
    const { supplier, account, candidate, riskFlags } = await applyCandidate(tx, deps, snapshot, {
      operation: 'ACCOUNT_CHANGE',
      check(account) {
        if (!CHANGEABLE.includes(account.status)) {
          fail('OPERATION_NOT_ALLOWED_IN_STATUS', `the account is ${account.status}, not ACTIVE`)
        }
        if (account.updateTime !== snapshot.baseUpdateTime) {
          fail(
            'APPROVAL_APPLY_FAILED',
            'the account changed after this change was submitted: submit it again',
          )
        }
      },
    })
    const changes: FieldChange[] = snapshot.fields.map((field) => ({
      targetType: 'ACCOUNT',
      targetId: account.accountId,
      fieldName: field,
      ...(field === 'accountNo'
        ? { oldValueMasked: account.accountNoMask, newValueMasked: snapshot.accountNoMask }
        : {
            oldValueMasked: maskForLog(field, account[field]),
            newValueMasked: maskForLog(field, candidate[field]),
          }),
    }))
    await logChanges(tx, deps, ctx, {
      supplierId: supplier.supplierId,
      operationType: 'ACCOUNT_CHANGE',
      changes,
      approvalLogId: approval.approvalLogId,
      status: 'APPLIED',
      changeReason: snapshot.changeReason,
    })
    await insertEvent(tx, {
      aggregateType: 'ACCOUNT',
      aggregateId: account.accountId,
      eventType: 'BankAccountChanged',
      payload: {
        supplierId: supplier.supplierId,
        accountId: account.accountId,
        approvalLogId: approval.approvalLogId,
        changes: forSubscribers(eventChanges(supplier.supplierId, changes)),
        accountNoMask: snapshot.accountNoMask ?? account.accountNoMask,
        riskFlags,
      },
    })
  },
  notApplied: logOutcome,
})

/** A change that did not go through leaves the account as it is; the log says what happened. */
async function logOutcome(
  tx: Sql,
  deps: Deps,
  ctx: ApplierCtx,
  { approval, snapshot, outcome: { status, reason } }: NotAppliedOf<AccountChangeSnapshot>,
) {
  await logChanges(tx, deps, ctx, {
    supplierId: snapshot.supplierId,
    operationType: 'ACCOUNT_CHANGE',
    changes: [
      {
        targetType: 'ACCOUNT',
        targetId: snapshot.accountId,
        fieldName: 'candidate',
        oldValueMasked: snapshot.fields.join(', '),
        newValueMasked: null,
      },
    ],
    approvalLogId: approval.approvalLogId,
    status,
    changeReason: reason,
  })
  await insertEvent(tx, {
    aggregateType: 'ACCOUNT',
    aggregateId: snapshot.accountId,
    eventType: (
      {
        REJECTED: 'BankAccountChangeRejected',
        APPLY_FAILED: 'BankAccountChangeApplyFailed',
        WITHDRAWN: 'BankAccountChangeWithdrawn',
      } as const
    )[status],
    payload: {
      supplierId: snapshot.supplierId,
      accountId: snapshot.accountId,
      approvalLogId: approval.approvalLogId,
    },
  })
}
