import { liveAccounts } from '../../../sql/account'
import type { ApprovalCommandResult, SupplierSubmitRequest } from '../../schemas/supplier'
import type { Deps } from '../deps'
import type { WriteContext } from '../context'
import { approvalOf, moveBy } from '../lifecycle/transitions'
import { applyMove } from '../lifecycle/move'
import { writeForm } from './profile'
import { checkIdentity } from './near-duplicate'
import { openApproval, runApprovalCommand } from '../approval/command'
import { supplierForWrite } from '../write/target'
import { accountsMove } from '../account/statuses'
import { statusChange } from '../write/change-log'
import { allSettled } from '../write/transaction'
import { registrationApproval, type RegistrationSnapshot } from './registration-approval'

/** The registration's approval (PROFILE_CREATE, 4 levels), as the transition table declares it. */
const REGISTRATION_APPROVAL = approvalOf(moveBy('DRAFT', 'SUBMIT_REGISTRATION'))

/**
 * SUP-ADM-007: applies the final form to the DRAFT, checks it, records the PROFILE_CREATE
 * approval and moves the supplier to VETTING in one transaction; then (after commit) asks the
 * provider and hands its standardized answer to the common applier. Once the first transaction
 * has committed the answer is a success that reports the approval as recorded.
 */
export function submitRegistration(
  deps: Deps,
  ctx: WriteContext,
  supplierId: string,
  req: SupplierSubmitRequest,
): Promise<ApprovalCommandResult> {
  return runApprovalCommand(deps, ctx, {
    async precheck(sql) {
      // Unlike an edit, every identity check runs again: the registration is what is approved.
      // It needs nothing of the row, so its reads go out with the supplier's; a refusal of the
      // supplier (not found, status, version) is still the answer before any of the form's.
      const [seen, identity] = await allSettled([
        supplierForWrite(sql, supplierId, {
          operation: 'SUBMIT',
          what: 'submitting the registration',
          expectedUpdateTime: req.expectedUpdateTime,
        }),
        checkIdentity(sql, deps, ctx, { req, target: { supplierId } }),
      ])
      return { seen, identity }
    },
    async run(tx, { seen, identity }) {
      // The form is written first so that the checks below see exactly what will be approved.
      const written = await writeForm(tx, deps, ctx, { seen, form: req, identity })
      const { columns, changes, types } = written
      const locked = written.locked!
      const moved = await applyMove(tx, deps, {
        supplier: { supplierId, status: locked.status, expectedUpdateTime: req.expectedUpdateTime },
        move: moveBy(locked.status, 'SUBMIT_REGISTRATION'),
        adminId: ctx.adminId,
        columns,
        accounts: accountsMove('DRAFT', 'REGISTRATION_SUBMITTED'),
        known: { types },
      })
      // The initial accounts the move took along, as the registration rules were just checked on.
      const accounts = (moved.checked?.accounts ?? (await liveAccounts(tx, supplierId))).filter(
        (a) => moved.accountsMoved.includes(a.accountId),
      )
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
      return openApproval(tx, deps, ctx, {
        handler: registrationApproval,
        approval: {
          supplierId,
          targetType: 'SUPPLIER',
          targetId: supplierId,
          candidateSnapshot: submitted,
          freezesSubmission: true,
          levels: REGISTRATION_APPROVAL.levels,
          submitNoteEnc: await deps.cipher.encryptNullable(req.submitNote?.trim()),
        },
        log: {
          operationType: 'REGISTRATION_SUBMIT',
          changes: [...changes, statusChange('SUPPLIER', supplierId, moved.from, moved.to)],
        },
        event: {
          aggregateType: 'SUPPLIER',
          aggregateId: supplierId,
          eventType: 'SupplierRegistrationSubmitted',
          payload: { supplierId },
        },
      })
    },
  })
}
