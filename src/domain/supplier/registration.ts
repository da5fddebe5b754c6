import { insertEvent } from '../../../sql/audit'
import { z } from 'zod'
import { findApproval, insertApproval } from '../../../sql/approval'
import type { Sql } from '../../../sql/db'
import {
  accountNumbersHeldElsewhere,
  registrationFacts,
  requiredQualifications,
  setSubmittedSnapshot,
  taxNoHolder,
} from '../../../sql/supplier'
import {
  liveAccounts,
  liveTypes,
  setAccountsStatus,
  validQualificationTypes,
} from '../../../sql/supplier-children'
import { fail } from '../../errors'
import type { ApprovalCommandResult, SupplierSubmitRequest } from '../../schemas/supplier'
import { commandResult, currentCommandResult, decideApproval } from '../approval/submit'
import { today, type DomainDeps, type WriteContext } from '../context'
import { moveStatus } from '../lifecycle/transitions'
import { confirmNoNearDuplicates } from './near-duplicate'
import { checkFieldRules, identityOf } from './form'
import { runWrite } from '../write/pipeline'
import { applyForm, findSupplierForSubmit, logChanges, relock } from './profile'

/** Approval levels of the spec, by business type. */
export const REGISTRATION_LEVELS = 4

/**
 * The registration checks on the state as it will be approved, under the aggregate lock:
 * C-02 tax number unique, C-06 licence image, C-09 required qualifications of all chosen types,
 * and for each initial account C-19 (C-03 is checked with the other field rules).
 */
export async function checkRegistration(
  tx: Sql,
  deps: Pick<DomainDeps, 'config'>,
  supplierId: string,
) {
  const facts = await registrationFacts(tx, supplierId)
  if (!facts) fail('SUPPLIER_NOT_FOUND')
  const { taxNoBidx, licenseImageUrl } = facts
  if (await taxNoHolder(tx, taxNoBidx, supplierId)) fail('TAX_NO_DUPLICATE')
  if (!licenseImageUrl) fail('LICENSE_IMAGE_REQUIRED')
  const types = (await liveTypes(tx, supplierId)).map((t) => t.typeCode)
  const required = await requiredQualifications(tx, types)
  const held = await validQualificationTypes(tx, supplierId, today(deps.config.timezone))
  const missing = required.filter((r) => !held.has(r.qualType))
  if (missing.length) {
    fail(
      'QUALIFICATIONS_MISSING',
      `required qualifications missing or expired: ${missing.map((m) => m.qualType).join(', ')} (C-09)`,
      { missing },
    )
  }
  const accounts = (await liveAccounts(tx, supplierId)).filter((a) => a.status !== 'ACTIVE')
  const elsewhere = await accountNumbersHeldElsewhere(
    tx,
    accounts.map((a) => a.accountNoBidx),
    supplierId,
  )
  const clash = accounts.find((a) => elsewhere.has(a.accountNoBidx))
  if (clash) {
    fail(
      'ACCOUNT_DUPLICATED',
      `account ${clash.accountNoMask} is a valid account of another supplier (C-19)`,
    )
  }
}

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
      const moved = await moveStatus(tx, locked, 'SUBMIT_REGISTRATION', ctx.adminId, columns)
      await checkRegistration(tx, deps, supplierId)
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
        bizType: 'PROFILE_CREATE',
        supplierId,
        targetType: 'SUPPLIER',
        targetId: supplierId,
        applicantAdminId: ctx.adminId,
        candidateSnapshot: submitted,
        levels: REGISTRATION_LEVELS,
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
