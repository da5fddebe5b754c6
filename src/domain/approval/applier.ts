import { z } from 'zod'
import { insertEvent } from '../../../sql/audit'
import {
  findApproval,
  isLatestApproval,
  lockApproval,
  markApplied,
  markApplyFailed,
  recordDecision,
  type ApprovalRow,
} from '../../../sql/approval'
import type { Sql } from '../../../sql/db'
import { lockSupplier, nextSupplierNo, type SupplierRow } from '../../../sql/supplier'
import { liveAccounts, liveTypes, setAccountsStatus } from '../../../sql/supplier-children'
import { AppError, fail } from '../../errors'
import type { ApprovalResult } from '../../ports/approval-provider'
import type { DomainDeps, WriteContext } from '../context'
import { moveStatus } from '../lifecycle/transitions'
import type { FieldChange } from '../supplier/form'
import { logChanges, mapUniqueViolations } from '../supplier/profile'

type ApplierDeps = Pick<DomainDeps, 'sql' | 'config' | 'logger'>
type Ctx = Pick<WriteContext, 'adminId' | 'requestId'>

/**
 * The common result applier: the only code that applies an approved change. It takes a
 * standardized result (whatever provider produced it), locks, re-checks and applies in one
 * transaction. Applying an APPLIED approval again changes nothing. When the re-check fails,
 * the approval becomes APPLY_FAILED (retryable) and the business change is undone as the spec
 * says (a registration goes back to DRAFT), in a transaction of its own.
 */
export async function applyApprovalResult(
  deps: ApplierDeps,
  ctx: Ctx,
  result: ApprovalResult,
): Promise<ApprovalRow> {
  if (result.schemaVersion !== 1) {
    fail(
      'APPROVAL_SCHEMA_UNSUPPORTED',
      `approval snapshot schemaVersion ${result.schemaVersion} is not supported`,
    )
  }
  // The decision is evidence of its own: recorded first, in its own transaction, so a failure
  // while applying never loses it (the approval then stays APPROVED, and retryable).
  await deps.sql.begin(async (tx) => {
    const approval = await lockApproval(tx, result.approvalLogId)
    if (!approval) fail('APPROVAL_NOT_FOUND')
    if (approval!.status === 'SUBMITTED') {
      await recordDecision(tx, approval!.approvalLogId, result.decision)
    }
  })
  try {
    return await mapUniqueViolations(() =>
      deps.sql.begin(async (tx) => {
        const approval = (await lockApproval(tx, result.approvalLogId))!
        if (approval.status === 'REJECTED') {
          await undoRegistration(
            tx,
            deps,
            ctx,
            approval,
            'REJECTED',
            'rejected by the approval provider',
          )
        } else if (approval.status !== 'APPLIED') {
          await APPLY[approval.bizType](tx, deps, ctx, approval)
          await markApplied(tx, approval.approvalLogId)
        }
        return (await findApproval(tx, approval.approvalLogId))!
      }),
    )
  } catch (err) {
    // Only a business re-check failure is a failed application; anything else (a lost
    // connection, a deadlock) leaves the approval APPROVED for the retry route.
    if (!(err instanceof AppError)) throw err
    deps.logger.warn(
      { approvalLogId: result.approvalLogId, code: err.code, reason: err.message },
      'approval not applied',
    )
    return deps.sql.begin(async (tx) => {
      const approval = (await lockApproval(tx, result.approvalLogId))!
      await markApplyFailed(tx, approval.approvalLogId, err.code, err.message)
      await undoRegistration(tx, deps, ctx, approval, 'APPLY_FAILED', err.message)
      return (await findApproval(tx, approval.approvalLogId))!
    })
  }
}

type Apply = (tx: Sql, deps: ApplierDeps, ctx: Ctx, approval: ApprovalRow) => Promise<void>

const notYet: Apply = async (_tx, _deps, _ctx, approval) =>
  fail('APPROVAL_APPLY_FAILED', `${approval.bizType} approvals are applied by a later phase`)

/** One applier per business type; a later provider adds none. */
const APPLY: Record<ApprovalRow['bizType'], Apply> = {
  PROFILE_CREATE: applyRegistration,
  ACCOUNT_CREATE: notYet,
  ACCOUNT_CHANGE: notYet,
  STATUS_CHANGE: notYet,
}

/** VETTING → ACTIVE with a new supplierNo; the initial accounts become ACTIVE with it. */
async function applyRegistration(tx: Sql, deps: ApplierDeps, ctx: Ctx, approval: ApprovalRow) {
  let supplier = await lockSupplier(tx, approval.supplierId)
  if (!supplier) fail('SUPPLIER_NOT_FOUND')
  if (!(await isLatestApproval(tx, approval))) {
    fail('APPROVAL_APPLY_FAILED', 'superseded by a newer registration submission')
  }
  const changes: FieldChange[] = []
  if (supplier!.status === 'DRAFT' && approval.status === 'APPLY_FAILED') {
    // A retry of a failed application: the draft is submitted again under the same approval.
    const moved = await moveStatus(tx, deps, current(supplier!), 'SUBMIT_REGISTRATION', {
      adminId: ctx.adminId,
    })
    await setAccountsStatus(tx, supplier!.supplierId, 'DRAFT', 'PENDING')
    changes.push(statusChange(supplier!.supplierId, moved.from, moved.to))
    supplier = { ...supplier!, status: moved.to, updateTime: moved.updateTime }
  }
  await assertSnapshotUnchanged(tx, approval, supplier!)
  const { supplierNo } = await nextSupplierNo(tx)
  // The move's guard re-checks the registration rules on the locked row.
  const moved = await moveStatus(tx, deps, current(supplier!), 'REGISTRATION_APPROVED', {
    adminId: ctx.adminId,
    columns: { supplier_no: supplierNo },
  })
  const accounts = await liveAccounts(tx, supplier!.supplierId, 'PENDING')
  await setAccountsStatus(tx, supplier!.supplierId, 'PENDING', 'ACTIVE')
  changes.push(statusChange(supplier!.supplierId, moved.from, moved.to), {
    targetType: 'SUPPLIER',
    targetId: supplier!.supplierId,
    fieldName: 'supplierNo',
    oldValueMasked: null,
    newValueMasked: supplierNo,
  })
  for (const a of accounts) {
    changes.push({
      targetType: 'ACCOUNT',
      targetId: a.accountId,
      fieldName: 'status',
      oldValueMasked: 'PENDING',
      newValueMasked: 'ACTIVE',
    })
  }
  await logChanges(tx, ctx, supplier!.supplierId, 'REGISTRATION_APPLY', changes, {
    approvalLogId: approval.approvalLogId,
    status: 'APPLIED',
  })
  await insertEvent(tx, {
    aggregateType: 'SUPPLIER',
    aggregateId: supplier!.supplierId,
    eventType: 'SupplierActivated',
    payload: {
      supplierId: supplier!.supplierId,
      supplierNo,
      approvalLogId: approval.approvalLogId,
    },
  })
  for (const a of accounts) {
    await insertEvent(tx, {
      aggregateType: 'ACCOUNT',
      aggregateId: a.accountId,
      eventType: 'BankAccountActivated',
      payload: {
        supplierId: supplier!.supplierId,
        accountId: a.accountId,
        approvalLogId: approval.approvalLogId,
      },
    })
  }
}

const RegistrationSnapshot = z.object({
  fullName: z.string(),
  taxNoBidx: z.string(),
  types: z.array(z.string()),
  initialAccounts: z.array(z.object({ accountId: z.string() })),
})

/**
 * An approval covers exactly what was submitted: identity, types and initial accounts must be
 * what its candidate snapshot froze (a draft edited after a failed application needs a new
 * submission, not a retry of the old approval).
 */
async function assertSnapshotUnchanged(tx: Sql, approval: ApprovalRow, supplier: SupplierRow) {
  const snapshot = RegistrationSnapshot.safeParse(approval.candidateSnapshot)
  if (!snapshot.success) fail('APPROVAL_SCHEMA_UNSUPPORTED', 'the approval snapshot cannot be read')
  const frozen = snapshot.data!
  const types = (await liveTypes(tx, supplier.supplierId)).map((t) => t.typeCode).sort()
  const accounts = (await liveAccounts(tx, supplier.supplierId))
    .filter((a) => a.status !== 'ACTIVE')
    .map((a) => a.accountId)
  const same =
    frozen.fullName === supplier.fullName &&
    frozen.taxNoBidx === supplier.taxNoBidx &&
    frozen.types.join() === types.join() &&
    frozen.initialAccounts.map((a) => a.accountId).join() === accounts.join()
  if (!same) fail('APPROVAL_APPLY_FAILED', 'the draft changed since this approval: submit it again')
}

/** A registration that was rejected or could not be applied goes back to DRAFT, no supplierNo. */
async function undoRegistration(
  tx: Sql,
  deps: ApplierDeps,
  ctx: Ctx,
  approval: ApprovalRow,
  outcome: string,
  reason: string,
) {
  if (approval.bizType !== 'PROFILE_CREATE') return
  const supplier = await lockSupplier(tx, approval.supplierId)
  // Only the supplier's current submission may send it back; an older approval never does.
  if (!supplier || supplier.status !== 'VETTING' || !(await isLatestApproval(tx, approval))) return
  const moved = await moveStatus(tx, deps, current(supplier), 'REGISTRATION_REJECTED', {
    adminId: ctx.adminId,
  })
  await setAccountsStatus(tx, supplier.supplierId, 'PENDING', 'DRAFT')
  await logChanges(
    tx,
    ctx,
    supplier.supplierId,
    'REGISTRATION_REJECT',
    [statusChange(supplier.supplierId, moved.from, moved.to)],
    { approvalLogId: approval.approvalLogId, status: outcome, changeReason: reason },
  )
  await insertEvent(tx, {
    aggregateType: 'SUPPLIER',
    aggregateId: supplier.supplierId,
    eventType: 'SupplierRegistrationRejected',
    payload: { supplierId: supplier.supplierId, approvalLogId: approval.approvalLogId, outcome },
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

const statusChange = (supplierId: string, from: string, to: string): FieldChange => ({
  targetType: 'SUPPLIER',
  targetId: supplierId,
  fieldName: 'status',
  oldValueMasked: from,
  newValueMasked: to,
})
