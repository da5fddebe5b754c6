import { insertEvent } from '../../../sql/audit'
import { findApproval, insertApproval } from '../../../sql/approval'
import { setSubmittedSnapshot, taxNoHolder } from '../../../sql/supplier'
import { liveAccounts, setAccountsStatus } from '../../../sql/supplier-children'
import { fail } from '../../errors'
import type { ApprovalCommandResult, SupplierSubmitRequest } from '../../schemas/supplier'
import { applyApprovalResult } from '../approval/applier'
import type { DomainDeps, WriteContext } from '../context'
import { approvalOf, moveBy, moveStatus } from '../lifecycle/transitions'
import { confirmNoNearDuplicates } from './near-duplicate'
import { checkFieldRules, identityOf } from './form'
import {
  applyForm,
  findSupplierForSubmit,
  logChanges,
  mapUniqueViolations,
  relock,
} from './profile'
import { guardDuplicateSubmit } from '../write/guard'

export { checkRegistration } from './registration-rules'

/** The registration's approval (PROFILE_CREATE, 4 levels), as the transition table declares it. */
const REGISTRATION_APPROVAL = approvalOf(moveBy('DRAFT', 'SUBMIT_REGISTRATION'))

/**
 * SUP-ADM-007: applies the final form to the DRAFT, checks it, records the PROFILE_CREATE
 * approval and moves the supplier to VETTING in one transaction; then (after commit) asks the
 * provider and hands its standardized answer to the common applier.
 */
export async function submitRegistration(
  deps: DomainDeps,
  ctx: WriteContext,
  supplierId: string,
  req: SupplierSubmitRequest,
): Promise<ApprovalCommandResult> {
  const { sql, cipher } = deps
  const seen = await findSupplierForSubmit(sql, supplierId, req.expectedUpdateTime)
  const identity = await identityOf(deps, req)
  const fullName = identity.fullName!
  await checkFieldRules(sql, deps, req)
  if (await taxNoHolder(sql, identity.taxNoBidx!, supplierId)) fail('TAX_NO_DUPLICATE')
  await confirmNoNearDuplicates(sql, deps, {
    adminId: ctx.adminId,
    fullName,
    shortName: req.shortName,
    supplierId,
    token: req.duplicateConfirmToken,
  })

  const approval = await mapUniqueViolations(() =>
    sql.begin(async (tx) => {
      await guardDuplicateSubmit(tx, deps, ctx)
      const locked = await relock(tx, seen)
      const { columns, changes } = await applyForm(tx, deps, ctx, locked, req, identity)
      // The form is written by the same guarded UPDATE (with the client's version) that moves the
      // status; the move's guard (the registration rules) then checks exactly what is approved.
      const moved = await moveStatus(
        tx,
        deps,
        { supplierId, status: locked.status, expectedUpdateTime: req.expectedUpdateTime },
        'SUBMIT_REGISTRATION',
        { adminId: ctx.adminId, columns },
      )
      const accounts = await liveAccounts(tx, supplierId, 'DRAFT')
      await setAccountsStatus(tx, supplierId, 'DRAFT', 'PENDING')
      const submitted = {
        schemaVersion: 1,
        supplierId,
        fullName,
        taxNoMask: columns.tax_no_mask ?? locked.taxNoMask,
        taxNoBidx: columns.tax_no_bidx ?? locked.taxNoBidx,
        types: req.types.map((t) => t.typeCode).sort(),
        initialAccounts: accounts.map((a) => ({
          accountId: a.accountId,
          accountNoMask: a.accountNoMask,
        })),
      }
      await setSubmittedSnapshot(tx, supplierId, submitted)
      const approval = await insertApproval(tx, {
        requestNo: `REG-${supplierId}-${crypto.randomUUID()}`,
        bizType: REGISTRATION_APPROVAL.bizType,
        supplierId,
        targetType: 'SUPPLIER',
        targetId: supplierId,
        applicantAdminId: ctx.adminId,
        candidateSnapshot: submitted,
        levels: REGISTRATION_APPROVAL.levels,
        opinionEnc: await cipher.encryptNullable(req.submitNote?.trim()),
      })
      changes.push({
        targetType: 'SUPPLIER',
        targetId: supplierId,
        fieldName: 'status',
        oldValueMasked: moved.from,
        newValueMasked: moved.to,
      })
      await logChanges(tx, ctx, supplierId, 'REGISTRATION_SUBMIT', changes, {
        approvalLogId: approval.approvalLogId,
        status: approval.status,
      })
      await insertEvent(tx, {
        aggregateType: 'SUPPLIER',
        aggregateId: supplierId,
        eventType: 'SupplierRegistrationSubmitted',
        payload: { supplierId, approvalLogId: approval.approvalLogId, operatorId: ctx.adminId },
      })
      return approval
    }),
  )

  // Outbound only after commit. An uncertain answer leaves the approval SUBMITTED for
  // reconciliation; the call is never repeated here.
  try {
    const result = await deps.approvalProvider.submit(approval)
    return commandResult(await applyApprovalResult(deps, ctx, result))
  } catch (err) {
    // The submission is committed whatever happens here, so the answer is a success that says
    // how far the approval got; what is left goes to reconciliation (the retry route).
    deps.logger.error(
      { approvalLogId: approval.approvalLogId, err: (err as Error).message },
      'approval provider failed or its result was not applied',
    )
    return commandResult((await findApproval(sql, approval.approvalLogId)) ?? approval)
  }
}

export function commandResult(a: {
  approvalLogId: string
  requestNo: string
  status: ApprovalCommandResult['approvalStatus']
  syncStatus: string
  submittedAt: string | null
  finishedAt: string | null
}): ApprovalCommandResult {
  return {
    approvalLogId: a.approvalLogId,
    requestNo: a.requestNo,
    provider: 'LOCAL_AUTO',
    approvalStatus: a.status,
    spNo: '',
    spStatus: '',
    syncStatus: a.syncStatus,
    submittedAt: a.submittedAt,
    finishedAt: a.finishedAt,
  }
}
