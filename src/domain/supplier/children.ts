import type { z } from 'zod'
import {
  insertBareChild,
  insertContact,
  insertQualification,
  insertType,
  liveBareChildren,
  liveContacts,
  liveQualifications,
  liveTypes,
  setTypePrimary,
  softDeleteChildren,
  updateContact,
  updateQualification,
  type BareChildRow,
  type ChildTable,
  type ContactColumns,
  type ContactRow,
  type QualificationColumns,
  type QualificationRow,
  type TypeRow,
} from '../../../sql/supplier-children'
import { draftAccounts, insertAccount, softDeleteAccounts } from '../../../sql/account'
import type { Sql } from '../../../sql/db'
import { maskCertNo, maskPhone } from '../../crypto/sensitive'
import { normalizePhone } from '../../identity'
import { fail } from '../../errors'
import type { BankAccountInput } from '../../schemas/supplier'
import { ACCOUNT_TERMS } from '../../schemas/account-terms'
import type { Deps } from '../deps'
import { newAccount, sameTerm } from '../account/snapshot'
import { emptyToNull } from '../write/fields'
import { type FieldChange, maskForLog } from '../write/change-log'

/*
 * `created`: the supplier was inserted by this very transaction, so it has no children yet and
 * the merges skip reading them (four round trips of every draft create).
 */

/**
 * Types reconcile by typeCode: kept ones may change isPrimary, new ones are added, absent removed.
 * Returns the change log's rows and the live types as the merge leaves them (what a read in this
 * transaction would answer, by id), so that the checks after it need not read them again.
 */
export async function mergeTypes(
  tx: Sql,
  supplierId: string,
  types: { typeCode: string; isPrimary?: boolean }[],
  created = false,
): Promise<{ changes: FieldChange[]; live: TypeRow[] }> {
  const existing = created ? [] : await liveTypes(tx, supplierId)
  const changes: FieldChange[] = []
  const live: TypeRow[] = []
  const held = new Map(existing.map((r) => [r.typeCode, r.isPrimary]))
  // isPrimary is optional: left out, an existing type keeps its flag and a new one is not primary,
  // unless the request names another primary type, which then is the only one.
  const named = types.some((t) => t.isPrimary === true)
  const wanted = new Map(
    types.map((t) => [
      t.typeCode,
      t.isPrimary ?? (named ? false : (held.get(t.typeCode) ?? false)),
    ]),
  )
  // Only rows written before the rule can still hold two primaries; the request must choose.
  if ([...wanted.values()].filter(Boolean).length > 1) {
    fail('BAD_REQUEST', 'types: at most one type may have isPrimary true; send it on one type')
  }
  for (const row of existing) {
    if (!wanted.has(row.typeCode)) {
      await softDeleteChildren(tx, 'supplier_type', supplierId, [row.id])
      changes.push(typeChange(row.id, row.typeCode, null))
      continue
    }
    live.push({ ...row, isPrimary: wanted.get(row.typeCode)! })
    if (wanted.get(row.typeCode) !== row.isPrimary) {
      await setTypePrimary(tx, row.id, wanted.get(row.typeCode)!)
      changes.push({
        targetType: 'TYPE',
        targetId: row.id,
        fieldName: `type.${row.typeCode}.isPrimary`,
        oldValueMasked: String(row.isPrimary),
        newValueMasked: String(wanted.get(row.typeCode)),
      })
    }
  }
  for (const [typeCode, isPrimary] of wanted) {
    if (held.has(typeCode)) continue
    const inserted = await insertType(tx, supplierId, typeCode, isPrimary)
    live.push({ id: inserted.id, typeCode, isPrimary })
    changes.push(typeChange(inserted.id, null, typeCode))
  }
  live.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1))
  return { changes, live }
}

const typeChange = (id: string | null, old: string | null, next: string | null): FieldChange => ({
  targetType: 'TYPE',
  targetId: id,
  fieldName: 'type',
  oldValueMasked: old,
  newValueMasked: next,
})

/**
 * One field of a kept item as [fieldName, old, new] in plain values (decrypted where stored
 * encrypted): compared as they are, logged only through the masking policy of the field.
 */
type FieldDiff = [fieldName: string, old: string | null, next: string | null]

/** How one child kind plugs into mergeSnapshot. */
export interface SnapshotSpec<I, E, C> {
  /** Names the kind in planMerge errors and is the fieldName of add/remove rows. */
  what: string
  table: ChildTable
  targetType: FieldChange['targetType']
  load: (tx: Sql, supplierId: string) => Promise<E[]>
  idOf: (item: I) => string | undefined
  /** Row columns of an item, the sensitive field encrypted. */
  columns: (item: I) => Promise<C>
  addedSummary: (columns: C) => string
  removedSummary: (row: E) => string
  /** Returns the new row's id, which its change-log row names. */
  insert: (tx: Sql, supplierId: string, columns: C) => Promise<{ id: string }>
  /** How a kept item changes; absent for a kind without fields, which only add and remove change. */
  edit?: {
    diff: (item: I, current: E) => Promise<FieldDiff[]>
    /** Guarded by the row's version; null when someone else changed it meanwhile. */
    update: (tx: Sql, id: string, expectedUpdateTime: string, columns: C) => Promise<unknown>
  }
}

/** What mergeSnapshot merges: whose children, the snapshot the request sends, how the kind plugs in. */
export interface MergeSnapshotOptions<I, E, C> {
  supplierId: string
  snapshot: I[]
  spec: SnapshotSpec<I, E, C>
  /** The supplier was inserted by this transaction (see `created` above). */
  created?: boolean
}

interface MergePlan<I, E> {
  added: I[]
  kept: { item: I; current: E }[]
  removed: E[]
}

/**
 * Reconciles a complete snapshot with the live rows: an item with an id updates that row (its
 * version must match when given), an item without one is new, a live row absent from the
 * snapshot is removed. Ids must belong to this supplier.
 */
function planMerge<I, E extends { id: string; updateTime?: string }>({
  what,
  existing,
  incoming,
  idOf,
  versionOf = () => undefined,
}: {
  what: string
  existing: E[]
  incoming: I[]
  idOf: (item: I) => string | undefined
  versionOf?: (item: I) => string | undefined
}): MergePlan<I, E> {
  const byId = new Map(existing.map((e) => [e.id, e]))
  const seen = new Set<string>()
  const plan: MergePlan<I, E> = { added: [], kept: [], removed: [] }
  for (const item of incoming) {
    const id = idOf(item)
    if (id === undefined) {
      plan.added.push(item)
      continue
    }
    if (seen.has(id)) fail('BAD_REQUEST', `${what}: id ${id} appears twice`)
    seen.add(id)
    const current = byId.get(id)
    if (!current) fail('CHILD_NOT_OWNED', `${what} ${id} does not belong to this supplier`)
    const expected = versionOf(item)
    if (expected !== undefined && expected !== current.updateTime) {
      fail(
        'VERSION_STALE',
        `${what} ${id} was changed since you loaded it (expectedUpdateTime is stale)`,
      )
    }
    plan.kept.push({ item, current: current })
  }
  plan.removed = existing.filter((e) => !seen.has(e.id))
  return plan
}

/** A child kind as a complete snapshot: same id updates, no id adds, absent ones are soft-deleted. */
export async function mergeSnapshot<
  I extends { expectedUpdateTime?: string },
  E extends { id: string; updateTime: string },
  C,
>(tx: Sql, { supplierId, snapshot, spec, created = false }: MergeSnapshotOptions<I, E, C>) {
  const { what, targetType, edit } = spec
  const existing = created ? [] : await spec.load(tx, supplierId)
  const plan = planMerge({
    what,
    existing,
    incoming: snapshot,
    idOf: spec.idOf,
    versionOf: (i) => i.expectedUpdateTime,
  })
  const changes: FieldChange[] = []
  for (const item of plan.added) {
    const columns = await spec.columns(item)
    const inserted = await spec.insert(tx, supplierId, columns)
    changes.push({
      targetType,
      targetId: inserted.id,
      fieldName: what,
      oldValueMasked: null,
      newValueMasked: spec.addedSummary(columns),
    })
  }
  if (edit) {
    for (const { item, current } of plan.kept) {
      const fields = (await edit.diff(item, current)).filter(([, old, next]) => old !== next)
      if (fields.length === 0) continue
      const updated = await edit.update(
        tx,
        current.id,
        current.updateTime,
        await spec.columns(item),
      )
      if (!updated) fail('CONCURRENT_MODIFICATION')
      for (const [fieldName, old, next] of fields) {
        changes.push({
          targetType,
          targetId: current.id,
          fieldName,
          oldValueMasked: maskForLog(fieldName, old),
          newValueMasked: maskForLog(fieldName, next),
        })
      }
    }
  }
  await softDeleteChildren(
    tx,
    spec.table,
    supplierId,
    plan.removed.map((r) => r.id),
  )
  for (const r of plan.removed) {
    changes.push({
      targetType,
      targetId: r.id,
      fieldName: what,
      oldValueMasked: spec.removedSummary(r),
      newValueMasked: null,
    })
  }
  return changes
}

const summary = (name: string, mask: string | null) => `${name} ${mask ?? ''}`.trim()

export interface ContactItem {
  contactId?: string
  expectedUpdateTime?: string
  contactName: string
  contactPhone: string
  contactRole?: string | null
  remark?: string | null
}

/** Contacts as a complete snapshot; the phone is the sensitive field. */
export const contactSpec = (deps: Deps): SnapshotSpec<ContactItem, ContactRow, ContactColumns> => ({
  what: 'contact',
  table: 'supplier_contact',
  targetType: 'CONTACT',
  load: liveContacts,
  idOf: (i) => i.contactId,
  columns: (item) => contactColumns(deps, item),
  addedSummary: (c) => summary(c.contact_name, c.contact_phone_mask),
  removedSummary: (r) => summary(r.contactName, r.contactPhoneMask),
  insert: insertContact,
  edit: {
    diff: async (item, current) => [
      ['contactName', current.contactName, item.contactName],
      [
        'contactPhone',
        await deps.cipher.decrypt(current.contactPhoneEnc),
        normalizePhone(item.contactPhone),
      ],
      ['contactRole', current.contactRole, emptyToNull(item.contactRole)],
      ['remark', current.remark, emptyToNull(item.remark)],
    ],
    update: updateContact,
  },
})

async function contactColumns(deps: Deps, item: ContactItem) {
  const phone = normalizePhone(item.contactPhone)
  return {
    contact_name: item.contactName,
    contact_phone_enc: await deps.cipher.encrypt(phone),
    contact_phone_mask: maskPhone(phone) as string,
    contact_role: emptyToNull(item.contactRole),
    remark: emptyToNull(item.remark),
  }
}

export interface QualificationItem {
  qualificationId?: string
  expectedUpdateTime?: string
  qualType: string
  certNo?: string | null
  imageUrl?: string | null
  expiryDate?: string | null
}

/** Qualifications reconcile like contacts. isRequired is derived on read. */
export const qualificationSpec = (
  deps: Deps,
): SnapshotSpec<QualificationItem, QualificationRow, QualificationColumns> => ({
  what: 'qualification',
  table: 'supplier_qualification',
  targetType: 'QUALIFICATION',
  load: liveQualifications,
  idOf: (i) => i.qualificationId,
  columns: (item) => qualificationColumns(deps, item),
  addedSummary: (c) => summary(c.qual_type, c.cert_no_mask),
  removedSummary: (r) => summary(r.qualType, r.certNoMask),
  insert: insertQualification,
  edit: {
    diff: async (item, current) => [
      ['qualType', current.qualType, item.qualType],
      [
        'certNo',
        await deps.cipher.decryptNullable(current.certNoEnc),
        emptyToNull(item.certNo?.trim()),
      ],
      ['imageUrl', current.imageUrl, emptyToNull(item.imageUrl)],
      ['expiryDate', current.expiryDate, emptyToNull(item.expiryDate)],
    ],
    update: updateQualification,
  },
})

async function qualificationColumns(deps: Deps, item: QualificationItem) {
  const certNo = emptyToNull(item.certNo?.trim())
  return {
    qual_type: item.qualType,
    cert_no_enc: await deps.cipher.encryptNullable(certNo),
    cert_no_mask: maskCertNo(certNo),
    image_url: emptyToNull(item.imageUrl),
    expiry_date: emptyToNull(item.expiryDate),
  }
}

export interface BareItem {
  contractId?: string
  evaluationId?: string
  expectedUpdateTime?: string
}

/** Contracts and evaluations: only the merge shape exists, so only add and remove change. */
const BARE_KINDS = {
  contract: {
    table: 'supplier_contract',
    targetType: 'CONTRACT',
    idOf: (i: BareItem) => i.contractId,
  },
  evaluation: {
    table: 'supplier_evaluation',
    targetType: 'EVALUATION',
    idOf: (i: BareItem) => i.evaluationId,
  },
} as const

/** Contracts or evaluations as a complete snapshot: a kind without fields (no `edit`). */
export function bareSpec(
  kind: keyof typeof BARE_KINDS,
): SnapshotSpec<BareItem, BareChildRow, null> {
  const { table, targetType, idOf } = BARE_KINDS[kind]
  return {
    what: kind,
    table,
    targetType,
    load: (sql, id) => liveBareChildren(sql, table, id),
    idOf,
    columns: async () => null,
    addedSummary: () => 'added',
    removedSummary: (r) => r.id,
    insert: (sql, id) => insertBareChild(sql, table, id),
  }
}

/** A draft's initial accounts as the form sends them, and what each new account is written with. */
export interface ReplaceDraftAccountsOptions {
  supplierId: string
  initialAccounts: z.output<typeof BankAccountInput>[]
  /** Every account's accountName: the supplier's full name as the write leaves it. */
  accountName: string
  adminId: string
  /** The supplier was inserted by this transaction (see `created` above). */
  created?: boolean
}

/**
 * Initial accounts of a draft are replaced as a whole (they have no ids in the request): the
 * draft's DRAFT accounts are soft-deleted and the new list inserted as DRAFT. Returns the change
 * log's rows and the accounts inserted, as their inserts returned them (none when the form
 * repeats the draft's accounts).
 */
export async function replaceDraftAccounts(
  tx: Sql,
  deps: Deps,
  {
    supplierId,
    initialAccounts,
    accountName,
    adminId,
    created = false,
  }: ReplaceDraftAccountsOptions,
) {
  const existing = created ? [] : await draftAccounts(tx, supplierId)
  const incoming = await Promise.all(initialAccounts.map((a) => newAccount(deps, a, accountName)))
  // A form that repeats the same accounts changes nothing (ids and change log stay as they are):
  // the same type, number (by blind index) and terms, in the same order.
  const same =
    existing.length === incoming.length &&
    existing.every((e, i) => {
      const a = incoming[i]
      return (
        e.accountType === a.accountType &&
        e.accountNoBidx === a.accountNoBidx &&
        ACCOUNT_TERMS.every((term) => term === 'accountNo' || sameTerm(e[term], a[term]))
      )
    })
  const changes: FieldChange[] = []
  const inserted: InsertedAccount[] = []
  if (same) return { changes, inserted }
  await softDeleteAccounts(
    tx,
    supplierId,
    existing.map((e) => e.accountId),
  )
  for (const e of existing) {
    changes.push({
      targetType: 'ACCOUNT',
      targetId: e.accountId,
      fieldName: 'account',
      oldValueMasked: e.accountNoMask,
      newValueMasked: null,
    })
  }
  for (const account of incoming) {
    const row = await insertAccount(tx, {
      supplierId,
      account,
      status: 'DRAFT',
      adminId,
    })
    inserted.push(row)
    changes.push({
      targetType: 'ACCOUNT',
      targetId: row.accountId,
      fieldName: 'account',
      oldValueMasked: null,
      newValueMasked: `${account.bankName} ${row.accountNoMask}`,
    })
  }
  return { changes, inserted }
}

type InsertedAccount = Awaited<ReturnType<typeof insertAccount>>
