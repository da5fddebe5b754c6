import { insertEvent } from '../../../sql/outbox'
import type { Sql } from '../../../sql/db'
import {
  findSupplier,
  insertSupplier,
  lockSupplier,
  softDeleteDraft,
  updateSupplier,
  type SupplierColumns,
  type SupplierRow,
} from '../../../sql/supplier'
import { liveAccounts, renameUnapprovedAccounts } from '../../../sql/account'
import { liveContacts, type TypeRow } from '../../../sql/supplier-children'
import { fail } from '../../errors'
import type {
  OnboardingStage,
  SupplierDraftRequest,
  SupplierUpdateRequest,
  SupplierWriteResult,
} from '../../schemas/supplier'
import type { Deps } from '../deps'
import type { WriteContext } from '../context'
import {
  bareSpec,
  contactSpec,
  mergeSnapshot,
  mergeTypes,
  qualificationSpec,
  replaceDraftAccounts,
  type BareItem,
  type ContactItem,
  type QualificationItem,
  type ReplaceDraftAccountsOptions,
} from './children'
import type { ChangeOperationType, SupplierStatus } from '../../vocabulary'
import { assertAllowed } from '../lifecycle/policy'
import { checkIdentity } from './near-duplicate'
import { diffSubject, type Identity, type SubjectInput } from './form'
import { eventChanges, type FieldChange } from '../write/change-log'
import { logChanges } from '../audit/trail'
import { forSubscribers } from '../../schemas/events'
import { runWrite } from '../write/pipeline'
import { relockSupplier, supplierForWrite } from '../write/target'
import { settledValues } from '../write/transaction'

const ONBOARDING_STAGE: Record<SupplierStatus, OnboardingStage> = {
  DRAFT: 'PROFILE_DRAFT',
  VETTING: 'REGISTRATION_VETTING',
  ACTIVE: 'ONBOARDED',
  SUSPENDED: 'ONBOARDED',
  FROZEN: 'ONBOARDED',
  BLACKLIST: 'ONBOARDED',
  ARCHIVED: 'ONBOARDED',
}

/** The SupplierWriteResultVO, read in the transaction that wrote it. */
export async function writeResult(sql: Sql, supplierId: string): Promise<SupplierWriteResult> {
  const supplier = await findSupplier(sql, supplierId)
  if (!supplier) fail('SUPPLIER_NOT_FOUND')
  const accounts = await liveAccounts(sql, supplierId)
  return {
    supplierId,
    supplierNo: supplier.supplierNo,
    status: supplier.status,
    onboardingStage: ONBOARDING_STAGE[supplier.status],
    initialAccounts: accounts.map(({ accountId, accountNoMask, status }) => ({
      accountId,
      accountNoMask,
      status,
    })),
    updateTime: supplier.updateTime,
  }
}

/** SUP-ADM-003: a new DRAFT with its types, contacts, qualifications and initial accounts. */
export function createDraft(deps: Deps, ctx: WriteContext, req: SupplierDraftRequest) {
  return runWrite(deps, ctx, {
    async precheck(sql) {
      const identity = await checkIdentity(sql, deps, ctx, { req, target: { supplierId: null } })
      return identity
    },
    async run(tx, identity) {
      const written = await writeForm(tx, deps, ctx, { seen: null, form: req, identity })
      const { changes, inserted } = written
      const id = inserted!.supplierId
      await logChanges(tx, deps, ctx, {
        supplierId: id,
        operationType: 'DRAFT_CREATE',
        changes,
        events: [
          {
            aggregateType: 'SUPPLIER',
            aggregateId: id,
            eventType: 'SupplierDraftCreated',
            payload: { supplierId: id, operatorId: ctx.adminId },
          },
        ],
      })
      // The answer is what the inserts returned: a new DRAFT, its version as inserted (adding
      // children does not move it), its accounts in insertion (id) order, as a read would list them.
      return {
        supplierId: id,
        supplierNo: null,
        status: 'DRAFT',
        onboardingStage: ONBOARDING_STAGE.DRAFT,
        initialAccounts: written.accounts.map(({ accountId, accountNoMask, status }) => ({
          accountId,
          accountNoMask,
          status,
        })),
        updateTime: inserted!.updateTime,
      } satisfies SupplierWriteResult
    },
  })
}

/** Pre-checks of every profile write: existence, status, version (steps 2 and 3). */
export const loadForWrite = (sql: Sql, supplierId: string, expectedUpdateTime: string) =>
  supplierForWrite(sql, supplierId, {
    operation: 'PROFILE_EDIT',
    what: 'editing the profile',
    expectedUpdateTime,
  })

/** A form's fields and collections; each collection present is a complete snapshot. */
type Form = SubjectInput & {
  types?: { typeCode: string; isPrimary?: boolean }[]
  contacts?: ContactItem[]
  qualifications?: QualificationItem[]
  contracts?: BareItem[]
  evaluations?: BareItem[]
  initialAccounts?: ReplaceDraftAccountsOptions['initialAccounts']
}

/**
 * A form written onto a supplier (update, submit and create alike): onto the one the pre-checks
 * saw, relocked (it must still be what they saw, or someone else won), or onto a new DRAFT
 * inserted from the form's subject columns. The subject columns are diffed with the row, then the
 * collections the form carries are merged, each present one as a complete snapshot, side by
 * side: each kind's reads go out with the others' (one round trip, not one per kind), statements
 * run in the order they are sent (the rename first), and a refusal is answered in the kinds'
 * order once every kind has settled. Returns the row as locked (null: inserted), the new
 * supplier's id and version, the columns written, the field changes (subject first, then the
 * kinds' in their order, whatever order they are answered in), the live types as the form leaves
 * them (when it carries them: nothing after it writes types) and the accounts inserted. A vetting
 * supplier's types are part of its pending approval.
 */
export async function writeForm(
  tx: Sql,
  deps: Deps,
  ctx: WriteContext,
  { seen, form, identity }: { seen: SupplierRow | null; form: Form; identity: Identity },
) {
  const locked = seen
    ? await relockSupplier(tx, seen, 'version', { gone: 'CONCURRENT_MODIFICATION' })
    : null
  const subject = await diffSubject(deps, locked, form, identity)
  const { columns } = subject
  const inserted = locked
    ? null
    : await insertSupplier(tx, columns as Required<typeof columns>, ctx.adminId)
  const supplierId = (locked ?? inserted)!.supplierId
  const status = locked?.status ?? null
  const created = locked === null
  // A new full name renames the accounts not yet approved, and is every draft account's name.
  const rename = locked ? columns.full_name : undefined
  const skip = Promise.resolve(undefined)
  const [, types, contacts, qualifications, contracts, evaluations, accounts] = settledValues(
    await Promise.allSettled([
      rename ? renameUnapprovedAccounts(tx, supplierId, rename) : skip,
      form.types
        ? mergeTypes(tx, supplierId, form.types, created).then((m) => {
            if (status && m.changes.length) {
              assertAllowed(status, 'TYPES_EDIT', 'changing the types')
            }
            return m
          })
        : skip,
      form.contacts
        ? mergeSnapshot(tx, {
            supplierId,
            snapshot: form.contacts,
            spec: contactSpec(deps),
            created,
          })
        : skip,
      form.qualifications
        ? mergeSnapshot(tx, {
            supplierId,
            snapshot: form.qualifications,
            spec: qualificationSpec(deps),
            created,
          })
        : skip,
      form.contracts
        ? mergeSnapshot(tx, { supplierId, snapshot: form.contracts, spec: bareSpec('contract') })
        : skip,
      form.evaluations
        ? mergeSnapshot(tx, {
            supplierId,
            snapshot: form.evaluations,
            spec: bareSpec('evaluation'),
          })
        : skip,
      form.initialAccounts
        ? replaceDraftAccounts(tx, deps, {
            supplierId,
            initialAccounts: form.initialAccounts,
            accountName: (columns.full_name ?? locked?.fullName)!,
            adminId: ctx.adminId,
            created,
          })
        : skip,
    ]),
  )
  const changes: FieldChange[] = [
    ...subject.changes,
    ...(types?.changes ?? []),
    ...(contacts ?? []),
    ...(qualifications ?? []),
    ...(contracts ?? []),
    ...(evaluations ?? []),
    ...(accounts?.changes ?? []),
  ]
  const live: TypeRow[] | undefined = types?.live
  return { locked, inserted, columns, changes, types: live, accounts: accounts?.inserted ?? [] }
}

/**
 * The common end of a profile write inside the lock: refuse a write that changes nothing, move
 * the version with the guarded UPDATE, and record the change log and one pending event.
 */
async function commitProfileChange(
  tx: Sql,
  deps: Deps,
  ctx: WriteContext,
  {
    locked,
    columns,
    changes,
    what,
  }: {
    locked: SupplierRow
    columns: SupplierColumns
    changes: FieldChange[]
    what: {
      operationType: ChangeOperationType
      eventType: 'SupplierProfileUpdated' | 'SupplierContactsReplaced'
      changeReason?: string
      noChange: string
    }
  },
) {
  if (changes.length === 0) fail('NO_ACTUAL_CHANGE', what.noChange)
  const { supplierId, status, updateTime } = locked
  const updated = await updateSupplier(
    tx,
    { supplierId, status, expectedUpdateTime: updateTime, adminId: ctx.adminId },
    columns,
  )
  if (!updated) fail('CONCURRENT_MODIFICATION')
  await logChanges(tx, deps, ctx, {
    supplierId,
    operationType: what.operationType,
    changes,
    changeReason: what.changeReason ?? null,
  })
  await insertEvent(tx, {
    aggregateType: 'SUPPLIER',
    aggregateId: supplierId,
    eventType: what.eventType,
    payload: {
      supplierId,
      changes: forSubscribers(eventChanges(supplierId, changes)),
      operatorId: ctx.adminId,
    },
  })
}

/**
 * SUP-ADM-004: patch of subject fields, snapshots of collections. Identity (fullName, taxNo)
 * changes only while DRAFT; after that only the original values may be sent.
 */
export function updateSupplierProfile(
  deps: Deps,
  ctx: WriteContext,
  supplierId: string,
  req: SupplierUpdateRequest,
) {
  return runWrite(deps, ctx, {
    async precheck(sql) {
      const seen = await loadForWrite(sql, supplierId, req.expectedUpdateTime)
      const identity = await checkIdentity(sql, deps, ctx, {
        req,
        target: { supplierId, seen },
        beforeRules: (id) => {
          const identityChanges =
            (id.fullName !== undefined && id.fullName !== seen.fullName) ||
            (id.taxNoBidx !== undefined && id.taxNoBidx !== seen.taxNoBidx)
          if (identityChanges) {
            assertAllowed(seen.status, 'IDENTITY_EDIT', 'changing fullName or taxNo')
          }
          if (req.initialAccounts !== undefined) {
            assertAllowed(
              seen.status,
              'INITIAL_ACCOUNTS_EDIT',
              'initialAccounts (use the account endpoints)',
            )
          }
        },
      })
      return { seen, identity }
    },
    async run(tx, { seen, identity }) {
      const written = await writeForm(tx, deps, ctx, { seen, form: req, identity })
      const { columns, changes } = written
      const locked = written.locked!
      await commitProfileChange(tx, deps, ctx, {
        locked,
        columns,
        changes,
        what: {
          operationType: locked.status === 'DRAFT' ? 'DRAFT_UPDATE' : 'PROFILE_UPDATE',
          eventType: 'SupplierProfileUpdated',
          changeReason: req.changeReason,
          noChange: 'nothing changed: send at least one different field',
        },
      })
      return writeResult(tx, supplierId)
    },
  })
}

/** ContactReplaceRequest: the contacts snapshot alone, with the same merge rules. */
export function replaceContacts(
  deps: Deps,
  ctx: WriteContext,
  supplierId: string,
  req: {
    contacts: ContactItem[]
    changeReason?: string
    expectedUpdateTime: string
  },
) {
  return runWrite(deps, ctx, {
    precheck: (sql) => loadForWrite(sql, supplierId, req.expectedUpdateTime),
    async run(tx, seen) {
      const locked = await relockSupplier(tx, seen, 'version', { gone: 'CONCURRENT_MODIFICATION' })
      const changes = await mergeSnapshot(tx, {
        supplierId,
        snapshot: req.contacts,
        spec: contactSpec(deps),
      })
      await commitProfileChange(tx, deps, ctx, {
        locked,
        columns: {},
        changes,
        what: {
          operationType: 'CONTACT_REPLACE',
          eventType: 'SupplierContactsReplaced',
          changeReason: req.changeReason,
          noChange: 'the contacts are already exactly these',
        },
      })
      const contacts = await liveContacts(tx, supplierId)
      return contacts.map(
        ({ id, contactName, contactPhoneMask, contactRole, remark, status, updateTime }) => ({
          contactId: id,
          contactName,
          contactPhoneMask,
          contactRole,
          remark,
          status,
          updateTime,
        }),
      )
    },
  })
}

/** SUP-ADM-011: only a DRAFT may be deleted (softly, with its children). */
export function deleteDraft(deps: Deps, ctx: WriteContext, supplierId: string) {
  return runWrite(deps, ctx, {
    async precheck(sql) {
      const seen = await findSupplier(sql, supplierId)
      if (!seen) fail('SUPPLIER_NOT_FOUND')
      assertAllowed(seen.status, 'DELETE', 'deleting')
    },
    async run(tx) {
      const locked = await lockSupplier(tx, supplierId)
      if (!locked) fail('SUPPLIER_NOT_FOUND')
      // The status may have moved since the pre-check: the rule is asked again on what is locked.
      assertAllowed(locked.status, 'DELETE', 'deleting')
      if (!(await softDeleteDraft(tx, supplierId, ctx.adminId))) fail('CONCURRENT_MODIFICATION')
      await logChanges(tx, deps, ctx, {
        supplierId,
        operationType: 'DRAFT_DELETE',
        changes: [
          {
            targetType: 'SUPPLIER',
            targetId: supplierId,
            fieldName: 'deleted',
            oldValueMasked: 'false',
            newValueMasked: 'true',
          },
        ],
      })
      await insertEvent(tx, {
        aggregateType: 'SUPPLIER',
        aggregateId: supplierId,
        eventType: 'SupplierDraftDeleted',
        payload: { supplierId, operatorId: ctx.adminId },
      })
      return null
    },
  })
}
