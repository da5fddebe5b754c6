import { z } from 'zod'
import { insertEvent, type DomainEvent } from '../../../sql/outbox'
import { isLatestApproval, type ApprovalRow } from '../../../sql/approval'
import type { Sql } from '../../../sql/db'
import { lockSupplier, type SupplierRow } from '../../../sql/supplier'
import { liveAccounts } from '../../../sql/account'
import { liveTypes } from '../../../sql/supplier-children'
import { fail } from '../../errors'
import { approvalHandler, type ApplierCtx, type NotApplied } from '../approval/handler'
import type { Deps } from '../deps'
import { applyMove } from '../lifecycle/move'
import { moveBy } from '../lifecycle/transitions'
import type { SupplierChildren } from '../lifecycle/guards'
import { statusChange, type FieldChange } from '../write/change-log'
import { logChanges } from '../audit/trail'
import { allSettled } from '../write/transaction'
import { approvalOpenedBy } from '../../schemas/lifecycle'
import { accountsMove, nextAccountStatus } from '../account/statuses'
import type { ChangeOperationType } from '../../vocabulary'

/** What a registration approval approves: identity, types and initial accounts, as submitted. */
export const RegistrationSnapshot = z.object({
  schemaVersion: z.literal(1),
  supplierId: z.string(),
  fullName: z.string(),
  taxNoMask: z.string().nullable(),
  taxNoBidx: z.string(),
  types: z.array(z.string()),
  initialAccounts: z.array(z.object({ accountId: z.string(), accountNoMask: z.string() })),
})
export type RegistrationSnapshot = z.output<typeof RegistrationSnapshot>

/**
 * PROFILE_CREATE: a registration approved is applied (VETTING → ACTIVE with a supplierNo, the
 * initial accounts ACTIVE); rejected, it goes back to DRAFT. A failed application leaves the
 * supplier VETTING (the state table moves VETTING → DRAFT only on rejection) and the approval
 * retryable; one that can never pass is withdrawn by an administrator, which is the final "not
 * approved" of the registration and also goes back to DRAFT.
 */
export const registrationApproval = approvalHandler<RegistrationSnapshot>({
  ...approvalOpenedBy('submitSupplierRegistration'),
  snapshot: RegistrationSnapshot,

  async apply(tx, deps, ctx, { approval, snapshot }) {
    // The lock, the latest-submission check and the children the snapshot froze go out together
    // (one round trip, not three). They run in the order sent, so the reads see the locked row's
    // children; the answers are judged in the order below.
    const [supplier, latest, liveTypeRows, liveAccountRows] = await allSettled([
      lockSupplier(tx, approval.supplierId),
      isLatestApproval(tx, approval),
      liveTypes(tx, approval.supplierId),
      liveAccounts(tx, approval.supplierId),
    ])
    if (!supplier) fail('SUPPLIER_NOT_FOUND')
    if (!latest) fail('APPROVAL_APPLY_FAILED', 'superseded by a newer registration submission')
    if (supplier.status !== 'VETTING') {
      fail(
        'APPROVAL_APPLY_FAILED',
        `the supplier is ${supplier.status}, not VETTING: this registration cannot apply`,
      )
    }
    const children = { types: liveTypeRows, accounts: liveAccountRows }
    assertSnapshotUnchanged(snapshot, supplier, children)
    // The move's guard re-checks the registration rules on the locked row, on the types and
    // accounts just read (its statement writes only their status, which the rules allow either).
    const moved = await applyMove(tx, deps, {
      supplier: current(supplier),
      move: moveBy('VETTING', 'REGISTRATION_APPROVED'),
      adminId: ctx.adminId,
      drawSupplierNo: true,
      accounts: accountsMove('PENDING', 'APPROVAL_APPLIED'),
      known: children,
    })
    const supplierNo = moved.supplierNo!
    const accounts = children.accounts.filter((a) => a.status === 'PENDING')
    const changes: FieldChange[] = [
      statusChange('SUPPLIER', supplier.supplierId, moved.from, moved.to),
      {
        targetType: 'SUPPLIER',
        targetId: supplier.supplierId,
        fieldName: 'supplierNo',
        oldValueMasked: null,
        newValueMasked: supplierNo,
      },
      ...accounts.map((a) =>
        statusChange(
          'ACCOUNT',
          a.accountId,
          'PENDING',
          nextAccountStatus('PENDING', 'APPROVAL_APPLIED'),
        ),
      ),
    ]
    await logChanges(tx, deps, ctx, {
      supplierId: supplier.supplierId,
      operationType: 'REGISTRATION_APPLY',
      changes,
      approvalLogId: approval.approvalLogId,
      status: 'APPLIED',
      events: [
        {
          aggregateType: 'SUPPLIER',
          aggregateId: supplier.supplierId,
          eventType: 'SupplierActivated',
          payload: {
            supplierId: supplier.supplierId,
            supplierNo,
            approvalLogId: approval.approvalLogId,
          },
        },
        ...accounts.map((a): DomainEvent => ({
          aggregateType: 'ACCOUNT',
          aggregateId: a.accountId,
          eventType: 'BankAccountActivated',
          payload: {
            supplierId: supplier.supplierId,
            accountId: a.accountId,
            approvalLogId: approval.approvalLogId,
          },
        })),
      ],
    })
  },

  async notApplied(tx, deps, ctx, { approval, outcome: { status, reason } }) {
    if (status !== 'APPLY_FAILED') {
      return backToDraft(tx, deps, ctx, { approval, status, reason, ...BACK_TO_DRAFT[status] })
    }
    // The supplier stays VETTING; the evidence says why the approved change is not in effect.
    await logChanges(tx, deps, ctx, {
      supplierId: approval.supplierId,
      operationType: 'REGISTRATION_APPLY_FAILED',
      changes: [
        {
          targetType: 'SUPPLIER',
          targetId: approval.supplierId,
          fieldName: 'approvalStatus',
          oldValueMasked: 'APPROVED',
          newValueMasked: 'APPLY_FAILED',
        },
      ],
      approvalLogId: approval.approvalLogId,
      status,
      changeReason: reason,
    })
  },
})

/**
 * An approval covers exactly what was submitted: identity, types and initial accounts must be
 * what its candidate snapshot froze.
 */
function assertSnapshotUnchanged(
  frozen: RegistrationSnapshot,
  supplier: SupplierRow,
  children: SupplierChildren,
) {
  const types = children.types.map((t) => t.typeCode).sort()
  const accounts = children.accounts.filter((a) => a.status !== 'ACTIVE').map((a) => a.accountId)
  const same =
    frozen.fullName === supplier.fullName &&
    frozen.taxNoBidx === supplier.taxNoBidx &&
    frozen.types.join() === types.join() &&
    frozen.initialAccounts.map((a) => a.accountId).join() === accounts.join()
  if (!same) fail('APPROVAL_APPLY_FAILED', 'the supplier changed since this approval was submitted')
}

/** The change log's operation and the event of a registration sent back to DRAFT. */
const BACK_TO_DRAFT = {
  REJECTED: { operationType: 'REGISTRATION_REJECT', eventType: 'SupplierRegistrationRejected' },
  WITHDRAWN: { operationType: 'REGISTRATION_WITHDRAW', eventType: 'SupplierRegistrationWithdrawn' },
} as const

/**
 * The registration is finally not approved: back to DRAFT, no supplierNo, the initial accounts
 * editable again. Only the supplier's current submission may send it back, and only from VETTING,
 * so calling it again changes nothing.
 */
async function backToDraft(
  tx: Sql,
  deps: Deps,
  ctx: ApplierCtx,
  {
    approval,
    ...what
  }: (typeof BACK_TO_DRAFT)[keyof typeof BACK_TO_DRAFT] & {
    approval: ApprovalRow
    operationType: ChangeOperationType
    status: NotApplied['status']
    reason: string
  },
) {
  const supplier = await lockSupplier(tx, approval.supplierId)
  if (!supplier || supplier.status !== 'VETTING' || !(await isLatestApproval(tx, approval))) return
  const moved = await applyMove(tx, deps, {
    supplier: current(supplier),
    move: moveBy('VETTING', 'REGISTRATION_REJECTED'),
    adminId: ctx.adminId,
    accounts: accountsMove('PENDING', 'REGISTRATION_RETURNED'),
  })
  await logChanges(tx, deps, ctx, {
    supplierId: supplier.supplierId,
    operationType: what.operationType,
    changes: [statusChange('SUPPLIER', supplier.supplierId, moved.from, moved.to)],
    approvalLogId: approval.approvalLogId,
    status: what.status,
    changeReason: what.reason,
  })
  await insertEvent(tx, {
    aggregateType: 'SUPPLIER',
    aggregateId: supplier.supplierId,
    eventType: what.eventType,
    payload: {
      supplierId: supplier.supplierId,
      approvalLogId: approval.approvalLogId,
      outcome: what.status,
    },
  })
}

/**
 * The applier moves what it has just locked and re-read: no client is behind these moves, so the
 * locked version is the one to guard by.
 */
const current = (s: SupplierRow) => ({
  supplierId: s.supplierId,
  status: s.status,
  expectedUpdateTime: s.updateTime,
})
