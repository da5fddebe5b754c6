import {
  clearDefault,
  findAccount,
  insertAccount,
  lockAccount,
  supplierAccount,
  updateAccount,
  type AccountWriteRow,
} from '../../../sql/account'
import { findApproval, type ApprovalRow } from '../../../sql/approval'
import { insertEvent } from '../../../sql/outbox'
import type { Sql } from '../../../sql/db'
import { fail } from '../../errors'
import type {
  BankAccountChangeRequest,
  BankAccountSubmitResultVO,
  SupplierBankAccountBatchCreateRequest,
  SupplierBankAccountVO,
} from '../../schemas/account'
import type { ApprovalCommandResult } from '../../schemas/supplier'
import { ACCOUNT_TERMS } from '../../schemas/account-terms'
import type { Deps } from '../deps'
import type { WriteContext } from '../context'
import { checkCandidate, checkNewAccounts, flagCodes, screenAgainstHolders } from './rules'
import type { FieldChange } from '../write/change-log'
import { logChanges } from '../audit/trail'
import { runWrite } from '../write/pipeline'
import { leftUndecided, openApproval, runApprovalCommand } from '../approval/command'
import { applyApprovalResult } from '../approval/applier'
import { supplierForWrite } from '../write/target'
import { toAccountVO } from './reads'
import {
  newAccount,
  sameTerm,
  sealCandidate,
  toCandidate,
  type AccountChangeSnapshot,
  type AccountCreateSnapshot,
  type Candidate,
} from './snapshot'
import { CHANGEABLE } from './statuses'
import { accountChangeApproval, accountCreateApproval } from './handlers'

/** Approval levels of account approvals (the contract: "others 1"). */
export const ACCOUNT_APPROVAL_LEVELS = 1

/** What an account write is called in a refusal of the supplier's status. */
const WRITING_ACCOUNTS = 'writing bank accounts'

/** A live ACTIVE account of the supplier at the version the client sent. */
async function changeableAccount(
  sql: Sql,
  {
    supplierId,
    accountId,
    expectedUpdateTime,
    what,
  }: { supplierId: string; accountId: string; expectedUpdateTime: string; what: string },
) {
  const account = await findAccount(sql, supplierId, accountId)
  if (!account) fail('ACCOUNT_NOT_FOUND')
  if (!CHANGEABLE.includes(account.status)) {
    fail(
      'OPERATION_NOT_ALLOWED_IN_STATUS',
      `only an ACTIVE account ${what}; this one is ${account.status}`,
    )
  }
  if (account.updateTime !== expectedUpdateTime) fail('VERSION_STALE')
  return account
}

/** Under the supplier's lock: the account must still be what the pre-checks saw. */
async function relockAccount(tx: Sql, seen: AccountWriteRow) {
  const locked = await lockAccount(tx, seen.supplierId, seen.accountId)
  if (
    !locked ||
    locked.status !== seen.status ||
    locked.updateTime !== seen.updateTime ||
    locked.isDefault !== seen.isDefault
  ) {
    fail('CONCURRENT_MODIFICATION')
  }
  return locked
}

/**
 * SUP-ADM-035: every item is checked before anything is written (C-03, C-19, settlement terms,
 * proof URLs); then, in one transaction, each item becomes a PENDING account with its own
 * ACCOUNT_CREATE approval. After commit each approval goes to the provider and the common
 * applier; the answer lists them in request order.
 */
export function createAccounts(
  deps: Deps,
  ctx: WriteContext,
  supplierId: string,
  req: SupplierBankAccountBatchCreateRequest,
): Promise<BankAccountSubmitResultVO[]> {
  return runWrite(deps, ctx, {
    async precheck(sql) {
      const supplier = await supplierForWrite(sql, supplierId, {
        operation: 'ACCOUNT_CREATE',
        what: WRITING_ACCOUNTS,
      })
      checkNewAccounts(deps.config, req.accounts)
      const items = await Promise.all(
        req.accounts.map(async (input) => {
          const candidate = toCandidate(input)
          return {
            accountType: input.accountType,
            account: await newAccount(deps, input, supplier.fullName),
            sealed: await sealCandidate(deps, candidate, []),
          }
        }),
      )
      await screenAgainstHolders(sql, supplier, screening(items))
      return items
    },
    async run(tx, items) {
      const supplier = await supplierForWrite(tx, supplierId, {
        operation: 'ACCOUNT_CREATE',
        what: WRITING_ACCOUNTS,
        lock: true,
      })
      const flags = await screenAgainstHolders(tx, supplier, screening(items))
      const results: BankAccountSubmitResultVO[] = []
      for (const [i, item] of items.entries()) {
        const account = await insertAccount(tx, {
          supplierId,
          account: item.account,
          status: 'PENDING',
          adminId: ctx.adminId,
          riskFlags: flagCodes(flags[i]),
        })
        const snapshot: AccountCreateSnapshot = {
          schemaVersion: 1,
          supplierId,
          accountId: account.accountId,
          accountType: item.accountType,
          ...item.sealed,
          riskFlags: flags[i],
        }
        const approval = await openApproval(tx, deps, ctx, {
          handler: accountCreateApproval,
          approval: {
            supplierId,
            targetType: 'ACCOUNT',
            targetId: account.accountId,
            candidateSnapshot: snapshot,
            levels: ACCOUNT_APPROVAL_LEVELS,
          },
          log: {
            operationType: 'ACCOUNT_CREATE',
            changes: [
              {
                targetType: 'ACCOUNT',
                targetId: account.accountId,
                fieldName: 'account',
                oldValueMasked: null,
                newValueMasked: `${item.account.bankName} ${account.accountNoMask}`,
              },
            ],
          },
          event: {
            aggregateType: 'ACCOUNT',
            aggregateId: account.accountId,
            eventType: 'BankAccountCreateSubmitted',
            payload: {
              supplierId,
              accountId: account.accountId,
              accountNoMask: account.accountNoMask,
              riskFlags: flagCodes(flags[i]),
            },
          },
        })
        results.push(submitResult(approval, account.accountId, 'PENDING'))
      }
      return results
    },
    async afterCommit(results) {
      const settled: BankAccountSubmitResultVO[] = []
      for (const r of results) {
        const approval = await findApproval(deps.sql, r.approvalLogId)
        if (!approval) {
          settled.push(r)
          continue
        }
        // As an approval command's step 6 (`runApprovalCommand`): never throws.
        let decided: ApprovalRow
        try {
          const result = await deps.approvalProvider.submit(approval)
          decided = await applyApprovalResult(deps, ctx, result)
        } catch (err) {
          decided = await leftUndecided(deps, approval, err)
        }
        settled.push(await submitOutcome(deps, r, decided))
      }
      return settled
    },
    async replay(kept) {
      const now: BankAccountSubmitResultVO[] = []
      for (const r of kept) {
        const approval = await findApproval(deps.sql, r.approvalLogId)
        now.push(approval ? await submitOutcome(deps, r, approval) : r)
      }
      return now
    },
  })
}

/** A submitted account's result as its approval and the account now stand. */
async function submitOutcome(
  deps: Deps,
  submitted: BankAccountSubmitResultVO,
  approval: ApprovalRow,
) {
  const account = await findAccount(deps.sql, approval.supplierId, submitted.accountId)
  return submitResult(approval, submitted.accountId, account?.status ?? submitted.accountStatus)
}

const screening = (items: { accountType: string; account: { accountNoBidx: string } }[]) =>
  items.map((item, i) => ({
    accountNoBidx: item.account.accountNoBidx,
    accountType: item.accountType,
    at: `accounts.${i}`,
  }))

function submitResult(
  approval: ApprovalRow,
  accountId: string,
  accountStatus: BankAccountSubmitResultVO['accountStatus'],
): BankAccountSubmitResultVO {
  return {
    accountId,
    approvalLogId: approval.approvalLogId,
    requestNo: approval.requestNo,
    provider: 'LOCAL_AUTO',
    approvalStatus: approval.status,
    syncStatus: approval.syncStatus,
    accountStatus,
    isDefault: 'NO',
    submittedAt: approval.submittedAt,
    finishedAt: approval.finishedAt,
  }
}

/** The candidate fields whose value differs from the account's (the number by blind index). */
async function changedFields(
  deps: Deps,
  account: AccountWriteRow,
  candidate: Candidate,
): Promise<Candidate> {
  const changed: Candidate = {}
  for (const term of ACCOUNT_TERMS) {
    const next = candidate[term]
    if (next === undefined) continue
    const same =
      term === 'accountNo'
        ? (await deps.cipher.blindIndex(next as string, 'accountNo')) === account.accountNoBidx
        : sameTerm(next, account[term])
    if (!same) (changed as Record<string, unknown>)[term] = next
  }
  return changed
}

/**
 * SUP-ADM-036: the candidate is checked on the account as it would become (C-03, C-19, merged
 * settlement terms, proof URLs), then, in one transaction, the account's version is claimed and
 * an ACCOUNT_CHANGE approval records the candidate encrypted. The account keeps its values until
 * the common applier applies the approved candidate (after commit). Nothing in the answer, the
 * change log or the events holds a candidate value.
 */
export function changeAccount(
  deps: Deps,
  ctx: WriteContext,
  {
    supplierId,
    accountId,
    req,
  }: { supplierId: string; accountId: string; req: BankAccountChangeRequest },
): Promise<ApprovalCommandResult> {
  return runApprovalCommand(deps, ctx, {
    async precheck(sql) {
      const supplier = await supplierForWrite(sql, supplierId, {
        operation: 'ACCOUNT_CHANGE',
        what: WRITING_ACCOUNTS,
      })
      const account = await changeableAccount(sql, {
        supplierId,
        accountId,
        expectedUpdateTime: req.expectedUpdateTime,
        what: 'can be changed',
      })
      // The terms are checked as sent, the number screened is the one the account would hold;
      // a change of nothing is refused after them.
      const requested = toCandidate(req)
      const candidate = await changedFields(deps, account, requested)
      const sealed = await sealCandidate(deps, candidate, [])
      const screened = checkCandidate(deps.config, {
        account,
        candidate: requested,
        accountNoBidx: sealed.accountNoBidx,
      })
      await screenAgainstHolders(sql, supplier, [screened])
      if (sealed.fields.length === 0) fail('NO_ACTUAL_CHANGE')
      return { account, candidate, sealed }
    },
    async run(tx, { account: seen, candidate, sealed }) {
      const supplier = await supplierForWrite(tx, supplierId, {
        operation: 'ACCOUNT_CHANGE',
        what: WRITING_ACCOUNTS,
        lock: true,
      })
      const account = await relockAccount(tx, seen)
      const screened = checkCandidate(deps.config, {
        account,
        candidate,
        accountNoBidx: sealed.accountNoBidx,
      })
      const [flags] = await screenAgainstHolders(tx, supplier, [screened])
      // The submission claims the account's version: a second change sent with the same
      // expectedUpdateTime is a compare-and-set miss, and an approval can only apply on top of
      // the version it was submitted against.
      const claimed = await updateAccount(tx, account)
      if (!claimed) fail('CONCURRENT_MODIFICATION')
      const snapshot: AccountChangeSnapshot = {
        schemaVersion: 1,
        supplierId,
        accountId,
        accountType: account.accountType,
        ...sealed,
        riskFlags: flags,
        baseUpdateTime: claimed.updateTime,
        changeReason: req.changeReason,
      }
      return openApproval(tx, deps, ctx, {
        handler: accountChangeApproval,
        approval: {
          supplierId,
          targetType: 'ACCOUNT',
          targetId: accountId,
          candidateSnapshot: snapshot,
          levels: ACCOUNT_APPROVAL_LEVELS,
        },
        log: {
          operationType: 'ACCOUNT_CHANGE',
          changes: [
            {
              targetType: 'ACCOUNT',
              targetId: accountId,
              // Which fields are proposed, never their values: those are the candidate's.
              fieldName: 'candidate',
              oldValueMasked: null,
              newValueMasked: sealed.fields.join(', '),
            },
          ],
          changeReason: req.changeReason,
        },
        event: {
          aggregateType: 'ACCOUNT',
          aggregateId: accountId,
          eventType: 'BankAccountChangeSubmitted',
          payload: { supplierId, accountId, fields: sealed.fields, riskFlags: flagCodes(flags) },
        },
      })
    },
  })
}

/**
 * SUP-ADM-041: only an ACTIVE account becomes the default; in one transaction, under the
 * supplier's lock, the previous default becomes NO. The partial unique index
 * supplier_bank_account_one_default guarantees at most one YES among live accounts whatever
 * happens around this code.
 */
export function setDefaultAccount(
  deps: Deps,
  ctx: WriteContext,
  {
    supplierId,
    accountId,
    req,
  }: { supplierId: string; accountId: string; req: { expectedUpdateTime: string } },
): Promise<SupplierBankAccountVO> {
  return runWrite(deps, ctx, {
    async precheck(sql) {
      await supplierForWrite(sql, supplierId, {
        operation: 'ACCOUNT_DEFAULT',
        what: WRITING_ACCOUNTS,
      })
      const account = await changeableAccount(sql, {
        supplierId,
        accountId,
        expectedUpdateTime: req.expectedUpdateTime,
        what: 'can be the default',
      })
      if (account.isDefault === 'YES')
        fail('NO_ACTUAL_CHANGE', 'this account is the default already')
      return account
    },
    async run(tx, seen) {
      await supplierForWrite(tx, supplierId, {
        operation: 'ACCOUNT_DEFAULT',
        what: WRITING_ACCOUNTS,
        lock: true,
      })
      const account = await relockAccount(tx, seen)
      const previous = await clearDefault(tx, supplierId, accountId)
      const updated = await updateAccount(tx, account, { isDefault: 'YES' })
      if (!updated) fail('CONCURRENT_MODIFICATION')
      const changes: FieldChange[] = []
      if (previous) changes.push(defaultChange(previous.accountId, 'YES', 'NO'))
      changes.push(defaultChange(accountId, 'NO', 'YES'))
      await logChanges(tx, deps, ctx, { supplierId, operationType: 'ACCOUNT_DEFAULT', changes })
      await insertEvent(tx, {
        aggregateType: 'ACCOUNT',
        aggregateId: accountId,
        eventType: 'BankAccountDefaultChanged',
        payload: {
          supplierId,
          accountId,
          previousAccountId: previous?.accountId ?? null,
          operatorId: ctx.adminId,
        },
      })
      const row = await supplierAccount(tx, supplierId, accountId)
      return toAccountVO(row!)
    },
  })
}

const defaultChange = (accountId: string, from: string, to: string): FieldChange => ({
  targetType: 'ACCOUNT',
  targetId: accountId,
  fieldName: 'isDefault',
  oldValueMasked: from,
  newValueMasked: to,
})
