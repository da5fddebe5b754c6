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
  draftAccountTerms,
  insertAccount,
} from '../../sql/supplier-children'
import type { Sql } from '../../sql/db'
import { maskCertNo, maskPhone, normalizePhone } from '../crypto/sensitive'
import { fail } from '../errors'
import type { BankAccountInput } from '../schemas/supplier'
import type { DomainDeps } from './context'
import { maskForLog } from './masking'
import { planMerge } from './merge'
import { accountColumns, emptyToNull, type FieldChange } from './supplier-form'

type Cipher = Pick<DomainDeps, 'cipher'>

/** Types reconcile by typeCode: kept ones may change isPrimary, new ones are added, absent removed. */
export async function mergeTypes(
  tx: Sql,
  supplierId: string,
  types: { typeCode: string; isPrimary?: boolean }[],
): Promise<FieldChange[]> {
  const existing = await liveTypes(tx, supplierId)
  const changes: FieldChange[] = []
  const held = new Map(existing.map((r) => [r.typeCode, r.isPrimary]))
  // isPrimary is optional: left out, an existing type keeps its flag and a new one is not primary.
  const wanted = new Map(
    types.map((t) => [t.typeCode, t.isPrimary ?? held.get(t.typeCode) ?? false]),
  )
  for (const row of existing) {
    if (!wanted.has(row.typeCode)) {
      await softDeleteChildren(tx, 'supplier_type', supplierId, [row.id])
      changes.push(typeChange(row.id, row.typeCode, null))
    } else if (wanted.get(row.typeCode) !== row.isPrimary) {
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
    await insertType(tx, supplierId, typeCode, isPrimary)
    changes.push(typeChange(null, null, typeCode))
  }
  return changes
}

const typeChange = (id: string | null, old: string | null, next: string | null): FieldChange => ({
  targetType: 'TYPE',
  targetId: id,
  fieldName: 'type',
  oldValueMasked: old,
  newValueMasked: next,
})

interface ContactItem {
  contactId?: string
  expectedUpdateTime?: string
  contactName: string
  contactPhone: string
  contactRole?: string | null
  remark?: string | null
}

/** Contacts as a complete snapshot: same id updates, no id adds, absent ones are soft-deleted. */
export async function mergeContacts(
  tx: Sql,
  deps: Cipher,
  supplierId: string,
  items: ContactItem[],
) {
  const existing = await liveContacts(tx, supplierId)
  const plan = planMerge(
    'contact',
    existing,
    items,
    (i) => i.contactId,
    (i) => i.expectedUpdateTime,
  )
  const changes: FieldChange[] = []
  const summary = (name: string, phoneMask: string | null) => `${name} ${phoneMask ?? ''}`.trim()
  for (const item of plan.added) {
    const columns = await contactColumns(deps, item)
    await insertContact(tx, supplierId, columns)
    changes.push({
      targetType: 'CONTACT',
      targetId: null,
      fieldName: 'contact',
      oldValueMasked: null,
      newValueMasked: summary(columns.contact_name, columns.contact_phone_mask),
    })
  }
  for (const { item, current } of plan.kept) {
    const phone = normalizePhone(item.contactPhone)
    const oldPhone = await deps.cipher.decrypt(current.contactPhoneEnc)
    const fields: FieldChange[] = []
    const diff = (fieldName: string, old: string | null, next: string | null) => {
      if (old !== next) {
        fields.push({
          targetType: 'CONTACT',
          targetId: current.id,
          fieldName,
          oldValueMasked: old,
          newValueMasked: next,
        })
      }
    }
    diff('contactName', current.contactName, item.contactName)
    if (phone !== oldPhone) diff('contactPhone', current.contactPhoneMask, maskPhone(phone))
    diff('contactRole', current.contactRole, emptyToNull(item.contactRole))
    diff(
      'remark',
      maskForLog('remark', current.remark),
      maskForLog('remark', emptyToNull(item.remark)),
    )
    if (fields.length === 0) continue
    const updated = await updateContact(
      tx,
      current.id,
      current.updateTime,
      await contactColumns(deps, item),
    )
    if (!updated) fail('CONCURRENT_MODIFICATION')
    changes.push(...fields)
  }
  if (plan.removed.length) {
    await softDeleteChildren(
      tx,
      'supplier_contact',
      supplierId,
      plan.removed.map((r) => r.id),
    )
    for (const r of plan.removed) {
      changes.push({
        targetType: 'CONTACT',
        targetId: r.id,
        fieldName: 'contact',
        oldValueMasked: summary(r.contactName, r.contactPhoneMask),
        newValueMasked: null,
      })
    }
  }
  return changes
}

async function contactColumns(deps: Cipher, item: ContactItem) {
  const phone = normalizePhone(item.contactPhone)
  return {
    contact_name: item.contactName,
    contact_phone_enc: await deps.cipher.encrypt(phone),
    contact_phone_mask: maskPhone(phone) as string,
    contact_role: emptyToNull(item.contactRole),
    remark: emptyToNull(item.remark),
  }
}

interface QualificationItem {
  qualificationId?: string
  expectedUpdateTime?: string
  qualType: string
  certNo?: string | null
  imageUrl?: string | null
  expiryDate?: string | null
}

/** Qualifications as a complete snapshot, like contacts. isRequired is derived on read. */
export async function mergeQualifications(
  tx: Sql,
  deps: Cipher,
  supplierId: string,
  items: QualificationItem[],
) {
  const existing = await liveQualifications(tx, supplierId)
  const plan = planMerge(
    'qualification',
    existing,
    items,
    (i) => i.qualificationId,
    (i) => i.expectedUpdateTime,
  )
  const changes: FieldChange[] = []
  const summary = (qualType: string, certMask: string | null) =>
    `${qualType} ${certMask ?? ''}`.trim()
  for (const item of plan.added) {
    const columns = await qualificationColumns(deps, item)
    await insertQualification(tx, supplierId, columns)
    changes.push({
      targetType: 'QUALIFICATION',
      targetId: null,
      fieldName: 'qualification',
      oldValueMasked: null,
      newValueMasked: summary(columns.qual_type, columns.cert_no_mask),
    })
  }
  for (const { item, current } of plan.kept) {
    const certNo = emptyToNull(item.certNo?.trim())
    const oldCert = current.certNoEnc ? await deps.cipher.decrypt(current.certNoEnc) : null
    const fields: FieldChange[] = []
    const diff = (fieldName: string, old: string | null, next: string | null) => {
      if (old !== next) {
        fields.push({
          targetType: 'QUALIFICATION',
          targetId: current.id,
          fieldName,
          oldValueMasked: old,
          newValueMasked: next,
        })
      }
    }
    diff('qualType', current.qualType, item.qualType)
    if (certNo !== oldCert) diff('certNo', current.certNoMask, maskCertNo(certNo))
    diff(
      'imageUrl',
      maskForLog('imageUrl', current.imageUrl),
      maskForLog('imageUrl', emptyToNull(item.imageUrl)),
    )
    diff('expiryDate', current.expiryDate, emptyToNull(item.expiryDate))
    if (fields.length === 0) continue
    const updated = await updateQualification(
      tx,
      current.id,
      current.updateTime,
      await qualificationColumns(deps, item),
    )
    if (!updated) fail('CONCURRENT_MODIFICATION')
    changes.push(...fields)
  }
  if (plan.removed.length) {
    await softDeleteChildren(
      tx,
      'supplier_qualification',
      supplierId,
      plan.removed.map((r) => r.id),
    )
    for (const r of plan.removed) {
      changes.push({
        targetType: 'QUALIFICATION',
        targetId: r.id,
        fieldName: 'qualification',
        oldValueMasked: summary(r.qualType, r.certNoMask),
        newValueMasked: null,
      })
    }
  }
  return changes
}

async function qualificationColumns(deps: Cipher, item: QualificationItem) {
  const certNo = emptyToNull(item.certNo?.trim())
  return {
    qual_type: item.qualType,
    cert_no_enc: await deps.cipher.encryptNullable(certNo),
    cert_no_mask: maskCertNo(certNo),
    image_url: emptyToNull(item.imageUrl),
    expiry_date: emptyToNull(item.expiryDate),
  }
}

/** Contracts and evaluations: only the merge shape exists, so only add and remove change. */
export async function mergeBare(
  tx: Sql,
  kind: 'contract' | 'evaluation',
  supplierId: string,
  items: { contractId?: string; evaluationId?: string; expectedUpdateTime?: string }[],
) {
  const table = kind === 'contract' ? 'supplier_contract' : 'supplier_evaluation'
  const targetType = kind === 'contract' ? 'CONTRACT' : 'EVALUATION'
  const existing = await liveBareChildren(tx, table, supplierId)
  const plan = planMerge(
    kind,
    existing,
    items,
    (i) => (kind === 'contract' ? i.contractId : i.evaluationId),
    (i) => i.expectedUpdateTime,
  )
  const changes: FieldChange[] = []
  for (let i = 0; i < plan.added.length; i++) {
    await insertBareChild(tx, table, supplierId)
    changes.push({
      targetType,
      targetId: null,
      fieldName: kind,
      oldValueMasked: null,
      newValueMasked: 'added',
    })
  }
  await softDeleteChildren(
    tx,
    table,
    supplierId,
    plan.removed.map((r) => r.id),
  )
  for (const r of plan.removed) {
    changes.push({
      targetType,
      targetId: r.id,
      fieldName: kind,
      oldValueMasked: r.id,
      newValueMasked: null,
    })
  }
  return changes
}

/**
 * Initial accounts of a draft are replaced as a whole (they have no ids in the request): the
 * draft's DRAFT accounts are soft-deleted and the new list inserted as DRAFT.
 */
export async function replaceDraftAccounts(
  tx: Sql,
  deps: Cipher,
  supplierId: string,
  accounts: z.output<typeof BankAccountInput>[],
  accountName: string,
  adminId: string,
) {
  const existing = await draftAccountTerms(tx, supplierId)
  const incoming = await Promise.all(accounts.map((a) => accountColumns(deps, a, accountName)))
  // A form that repeats the same accounts changes nothing (ids and change log stay as they are).
  const same =
    existing.length === incoming.length &&
    existing.every((e, i) => {
      const a = incoming[i]
      return (
        e.accountNoBidx === a.account_no_bidx &&
        e.accountType === a.account_type &&
        e.bankName === a.bank_name &&
        e.bankBranch === a.bank_branch &&
        e.settleMode === a.settle_mode &&
        e.accountPeriod === a.account_period &&
        e.invoiceType === a.invoice_type &&
        e.taxRate === a.tax_rate &&
        e.proofFileUrls.join('\n') === a.proof_file_urls.join('\n')
      )
    })
  const changes: FieldChange[] = []
  if (same) return changes
  await softDeleteChildren(
    tx,
    'supplier_bank_account',
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
  for (const columns of incoming) {
    const row = await insertAccount(tx, supplierId, columns, 'DRAFT', adminId)
    changes.push({
      targetType: 'ACCOUNT',
      targetId: row.accountId,
      fieldName: 'account',
      oldValueMasked: null,
      newValueMasked: `${columns.bank_name} ${row.accountNoMask}`,
    })
  }
  return changes
}
