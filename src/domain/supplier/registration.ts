import { insertEvent } from '../../../sql/audit'
import { z } from 'zod'
import { findApproval, insertApproval } from '../../../sql/approval'
import { setSubmittedSnapshot, taxNoHolder } from '../../../sql/supplier'
import { liveAccounts, setAccountsStatus } from '../../../sql/supplier-children'
import { fail } from '../../errors'
import type { ApprovalCommandResult, SupplierSubmitRequest } from '../../schemas/supplier'
import { commandResult, currentCommandResult, decideApproval } from '../approval/submit'
import type { DomainDeps, WriteContext } from '../context'
import { approvalOf, moveBy } from '../lifecycle/transitions'
import { moveStatus } from '../lifecycle/move'
import { confirmNoNearDuplicates } from './near-duplicate'
import { checkFieldRules, identityOf } from './form'
import { runWrite } from '../write/pipeline'
import { applyForm, findSupplierForSubmit, relock } from './profile'
import { logChanges } from '../write/change-log'

/** The registration's approval (PROFILE_CREATE, 4 levels), as the transition table declares it. */
const REGISTRATION_APPROVAL = approvalOf(moveBy('DRAFT', 'SUBMIT_REGISTRATION'))

/**
 * SUP-ADM-007: applies the final form to the DRAFT, checks it, records the PROFILE_CREATE
 * approval and moves the supplier to VETTING in one transaction; then (after commit) asks the
 * provider and hands its standardized answer to the common applier. Once the first transaction
 * has committed the answer is a success that reports the approval as recorded.
 */
export function submitRegistration(
  deps: DomainDeps,
  ctx: WriteContext,
  supplierId: string,
  req: SupplierSubmitRequest,
): Promise<ApprovalCommandResult> {
  const { cipher } = deps
  return runWrite(deps, ctx, {
    async precheck(sql) {
      const seen = await findSupplierForSubmit(sql, supplierId, req.expectedUpdateTime)
      const identity = await identityOf(deps, req)
      await checkFieldRules(sql, deps, req)
      if (await taxNoHolder(sql, identity.taxNoBidx!, supplierId)) fail('TAX_NO_DUPLICATE')
      await confirmNoNearDuplicates(sql, deps, {
        adminId: ctx.adminId,
        fullName: identity.fullName!,
        shortName: req.shortName,
        supplierId,
        token: req.duplicateConfirmToken,
      })
      return { seen, identity }
    },
    async run(tx, { seen, identity }) {
      const locked = await relock(tx, seen)
      const { columns, changes } = await applyForm(tx, deps, ctx, locked, req, identity)
      // The form is written first so that the checks below see exactly what will be approved.
      const moved = await moveStatus(
        tx,
        deps,
        { supplierId, status: locked.status, expectedUpdateTime: req.expectedUpdateTime },
        'SUBMIT_REGISTRATION',
        { adminId: ctx.adminId, columns },
      )
      const accounts = await liveAccounts(tx, supplierId, 'DRAFT')
      await setAccountsStatus(tx, supplierId, 'DRAFT', 'PENDING')
      const submitted: RegistrationSnapshot = {
        schemaVersion: 1,
        supplierId,
        fullName: identity.fullName!,
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
        submitNoteEnc: await cipher.encryptNullable(req.submitNote?.trim()),
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
      return commandResult(approval)
    },
    afterCommit: async (submittedResult) => {
      const approval = await findApproval(deps.sql, submittedResult.approvalLogId)
      return approval ? commandResult(await decideApproval(deps, ctx, approval)) : submittedResult
    },
    replay: (kept) => currentCommandResult(deps, kept),
  })
}

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
