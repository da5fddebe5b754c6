import { enabledTypeCodes, type SupplierColumns, type SupplierRow } from '../../../sql/supplier'
import { columnOf, type Sql } from '../../../sql/db'
import { maskTaxNo, maskPhone, utf8Bytes } from '../../crypto/sensitive'
import { normalizeName, normalizePhone, normalizeTaxNo, taxNoFormBefore } from '../../identity'
import { fail, type ErrorName } from '../../errors'
import { LIMITS } from '../../vocabulary'
import type { z } from 'zod'
import type { BankAccountInput } from '../../schemas/supplier'
import { PLAIN_SUBJECT_FIELDS, type PlainSubjectField } from '../../schemas/supplier-subject'
import type { Deps } from '../deps'
import { today } from '../context'
import { nameKeysOf } from './name-keys'
import { searchFieldsOf } from './search'
import { maskForLog, type FieldChange } from '../write/change-log'
import { checkStorageUrls, emptyToNull } from '../write/fields'
import { checkAccounts } from '../account/rules'
import { hasWrongCheckCharacter, usccTypos, type UsccTypo } from './uscc'

/**
 * What checking and writing a supplier form can answer (identityOf, checkFieldRules,
 * checkAccounts, the collection merges): routes that take a form declare these.
 */
export const FORM_ERRORS = [
  'BAD_REQUEST',
  'SUPPLIER_TYPE_INVALID',
  'STORAGE_URL_UNAUTHORIZED',
  'ACCOUNT_NO_INVALID',
  'ACCOUNT_DUPLICATED',
  'SETTLEMENT_TERMS_INVALID',
  'CHILD_NOT_OWNED',
  'VERSION_STALE',
  'CONCURRENT_MODIFICATION',
] as const satisfies readonly ErrorName[]

/** The subject fields a request may carry: the plain ones (stored as sent) and four kept apart. */
export type SubjectInput = Partial<Record<PlainSubjectField, string | null>> & {
  fullName?: string
  taxNo?: string
  contactPhone?: string | null
  approveNote?: string | null
}

/** A request's identity: normalized, bounds checked (after normalization), tax number indexed. */
export interface Identity {
  fullName?: string
  taxNo?: string
  taxNoBidx?: string
}

/**
 * Computed once per request, before the lock, and reused inside it. `seen` (an edit) is the
 * stored row: its own tax number, sent back unchanged, is not checked again (it cannot change
 * after submission, and one stored before the check-character rule must not block every edit).
 */
export async function identityOf(
  deps: Deps,
  input: { fullName?: string; taxNo?: string },
  seen?: Pick<SupplierRow, 'taxNoBidx'>,
): Promise<Identity> {
  const fullName = input.fullName === undefined ? undefined : normalizeName(input.fullName)
  // Characters are code points, as zod and char_length count them (not UTF-16 units).
  const chars = fullName === undefined ? 0 : [...fullName].length
  if (fullName !== undefined && (chars < 1 || chars > LIMITS.fullName)) {
    fail('BAD_REQUEST', `fullName: must be 1..${LIMITS.fullName} characters after trimming`)
  }
  const taxNo = input.taxNo === undefined ? undefined : normalizeTaxNo(input.taxNo)
  if (taxNo !== undefined && (utf8Bytes(taxNo) < 1 || utf8Bytes(taxNo) > LIMITS.taxNoBytes)) {
    fail('BAD_REQUEST', `taxNo: must be 1..${LIMITS.taxNoBytes} UTF-8 bytes after normalization`)
  }
  let taxNoBidx = taxNo === undefined ? undefined : await deps.cipher.blindIndex(taxNo, 'taxNo')
  // The stored number sent back as it was stored before look-alike characters were folded (the
  // backfill has not rewritten it yet) is unchanged: not an identity edit, not checked again.
  if (taxNo !== undefined && seen && taxNoBidx !== seen.taxNoBidx) {
    const before = taxNoFormBefore(input.taxNo as string)
    if (before !== taxNo && (await deps.cipher.blindIndex(before, 'taxNo')) === seen.taxNoBidx) {
      taxNoBidx = seen.taxNoBidx
    }
  }
  // A typo in a unified social credit code would make another company's number, or the same
  // company's under a second spelling that C-02 cannot see. The number itself is never echoed.
  if (taxNo !== undefined && taxNoBidx !== seen?.taxNoBidx) {
    if (hasWrongCheckCharacter(taxNo)) {
      fail('BAD_REQUEST', 'taxNo: check character of the unified social credit code is wrong')
    }
    const typos = usccTypos(taxNo)
    if (typos.length) fail('BAD_REQUEST', typoMessage(typos))
  }
  return { fullName, taxNo, taxNoBidx }
}

/** Names each character a mistyped code cannot hold and its place; the number stays unsaid. */
function typoMessage(typos: UsccTypo[]): string {
  const each = typos.map((t) => `character ${t.position} is “${t.character}”`).join(' and ')
  const meant = typos.map((t) => t.meant).join(' and ')
  return typos.length === 1
    ? `taxNo: ${each}, a letter no unified social credit code uses (is it ${meant}?)`
    : `taxNo: ${each}, letters no unified social credit code uses (are they ${meant}?)`
}

/**
 * The columns to write and the change-log entries for the subject fields the request carries,
 * compared with the current row (null for a new draft). Sensitive values are encrypted here.
 */
export async function diffSubject(
  deps: Deps,
  current: SupplierRow | null,
  input: SubjectInput,
  { fullName, taxNo, taxNoBidx }: Identity,
) {
  const columns: SupplierColumns = {}
  const changes: FieldChange[] = []
  const change = (
    fieldName: string,
    oldValueMasked: string | null,
    newValueMasked: string | null,
  ) =>
    changes.push({
      targetType: 'SUPPLIER',
      targetId: current?.supplierId ?? null,
      fieldName,
      oldValueMasked,
      newValueMasked,
    })

  if (fullName !== undefined && fullName !== current?.fullName) {
    columns.full_name = fullName
    change('fullName', current?.fullName ?? null, fullName)
  }
  if (taxNo !== undefined && taxNoBidx !== current?.taxNoBidx) {
    columns.tax_no_enc = await deps.cipher.encrypt(taxNo)
    columns.tax_no_bidx = taxNoBidx
    columns.tax_no_mask = maskTaxNo(taxNo) as string
    change('taxNo', current?.taxNoMask ?? null, columns.tax_no_mask)
  }
  if (input.contactPhone !== undefined) {
    const phone = emptyToNull(input.contactPhone && normalizePhone(input.contactPhone))
    const old = current?.contactPhoneEnc ? await deps.cipher.decrypt(current.contactPhoneEnc) : null
    if (phone !== old) {
      columns.contact_phone_enc = await deps.cipher.encryptNullable(phone)
      columns.contact_phone_mask = maskPhone(phone)
      change('contactPhone', current?.contactPhoneMask ?? null, columns.contact_phone_mask)
    }
  }
  if (input.approveNote !== undefined) {
    // Sensitive free text: stored encrypted, compared in plain, logged only as a mask.
    const note = emptyToNull(input.approveNote)
    const old = current?.approveNoteEnc
      ? await deps.cipher.decrypt(current.approveNoteEnc)
      : (current?.approveNoteLegacy ?? null)
    if (note !== old) {
      columns.approve_note_enc = await deps.cipher.encryptNullable(note)
      if (current?.approveNoteLegacy != null) columns.approve_note = null
      change('approveNote', maskForLog('approveNote', old), maskForLog('approveNote', note))
    }
  }
  // The plain fields, each stored as sent (after the empty → null rule) in its column.
  for (const field of PLAIN_SUBJECT_FIELDS) {
    if (input[field] === undefined) continue
    const value = emptyToNull(input[field])
    const old = current ? emptyToNull(current[field]) : null
    if (value !== old) {
      ;(columns as Record<string, unknown>)[columnOf(field)] = value
      change(field, maskForLog(field, old), maskForLog(field, value))
    }
  }
  // The near-duplicate probe's keys are written with the names they come from, in the same
  // statement: a renamed supplier is never found (or missed) under its old name.
  if (columns.full_name !== undefined || columns.short_name !== undefined) {
    const shortName =
      columns.short_name !== undefined ? columns.short_name : (current?.shortName ?? null)
    columns.name_keys = nameKeysOf(columns.full_name ?? current!.fullName, shortName)
    // The list keyword's spellings likewise (search.ts).
    columns.name_search = searchFieldsOf(columns.full_name ?? current!.fullName, shortName)
  }
  return { columns, changes }
}

/** Field rules that need configuration or the dictionary (step 3 of the write order). */
export async function checkFieldRules(
  sql: Sql,
  deps: Deps,
  input: {
    types?: { typeCode: string }[]
    establishDate?: string | null
    licenseImageUrl?: string | null
    qualifications?: { imageUrl?: string | null }[]
    initialAccounts?: z.output<typeof BankAccountInput>[]
  },
) {
  if (input.establishDate && input.establishDate > today(deps.config.timezone)) {
    fail('BAD_REQUEST', 'establishDate: must not be after today')
  }
  if (input.types) {
    const codes = input.types.map((t) => t.typeCode)
    const enabled = await enabledTypeCodes(sql, codes)
    const unknown = codes.filter((c) => !enabled.has(c))
    if (unknown.length)
      fail('SUPPLIER_TYPE_INVALID', `types: ${unknown.join(', ')} not an enabled supplier_type`)
  }
  const urls: [string, string | null | undefined][] = [
    ['licenseImageUrl', input.licenseImageUrl],
    ...(input.qualifications ?? []).map((q, i): [string, string | null | undefined] => [
      `qualifications.${i}.imageUrl`,
      q.imageUrl,
    ]),
    ...(input.initialAccounts ?? []).flatMap((a, i) =>
      (a.proofFileUrls ?? []).map((u, j): [string, string] => [
        `initialAccounts.${i}.proofFileUrls.${j}`,
        u,
      ]),
    ),
  ]
  checkStorageUrls(deps.config, urls)
  if (input.initialAccounts) checkAccounts(input.initialAccounts, 'initialAccounts')
}
