import type postgres from 'postgres'
import { approvalAsItStands } from '../sql/audit-trail'
import { sealApproval, sealUnsealedRows } from '../src/domain/audit/trail'
import { maskAccountNo, maskCertNo, maskPhone, maskTaxNo } from '../src/crypto/sensitive'
import { normalizeAccountNo, normalizeTaxNo } from '../src/identity'
import { USCC_ALPHABET, withCheckCharacter } from '../src/domain/supplier/uscc'
import type { Harness } from './harness'
import { setSearchRows } from '../sql/supplier-search'
import { searchFieldsOf } from '../src/domain/supplier/search'

/*
 * Test data written directly with SQL, for the rows a test needs as its starting point rather
 * than as what it tests: any status, soft-deleted rows, chosen dates (data made through the API
 * is in test/client.ts). Sensitive values are stored the way the service stores them:
 * ciphertext, blind index where the model has one, and the service's mask. Every helper returns
 * the generated ids as strings.
 */

/** Realistic sample values (use each literal only once per database where it must be unique). */
export const SAMPLE = {
  taxNo: '91330106MA2KXY712Q',
  phone: '13812345678',
  accountNo: '6222021234567890123',
  certNo: '330106199001011234',
} as const

/** The administrator recorded as creator of fixture rows. */
export const FIXTURE_ADMIN = '9007199254740993'

const pick = (alphabet: string, n: number) =>
  Array.from({ length: n }, () => alphabet[Math.floor(Math.random() * alphabet.length)]).join('')

/** A fresh unified social credit code, its check character right (unique enough for one test database). */
export const randomTaxNo = () =>
  withCheckCharacter(`913301${pick('0123456789', 2)}MA${pick(USCC_ALPHABET, 7)}`)
/** A fresh 19-digit bank card number. */
export const randomAccountNo = () => `6222${pick('0123456789', 15)}`
/** A fresh mobile number. */
export const randomPhone = () => `139${pick('0123456789', 8)}`
/** A short random tag for names that must not collide across tests. */
export const tag = () => pick('abcdefghjkmnpqrstuvwxyz', 10)

export interface ContactFixture {
  contactName?: string
  contactPhone?: string
  contactRole?: string | null
  remark?: string | null
  deletedAt?: string | null
}

export interface QualificationFixture {
  qualType: string
  certNo?: string | null
  imageUrl?: string | null
  expiryDate?: string | null
  deletedAt?: string | null
}

export interface AccountFixture {
  accountName?: string
  accountType?: 'CORPORATE' | 'PERSONAL'
  bankName?: string
  bankBranch?: string | null
  accountNo?: string
  proofFileUrls?: string[]
  settleMode?: string | null
  accountPeriod?: number | null
  invoiceType?: string | null
  taxRate?: number | null
  status?: 'DRAFT' | 'PENDING' | 'ACTIVE' | 'APPLY_FAILED'
  isDefault?: 'YES' | 'NO'
  deletedAt?: string | null
}

export interface TypeFixture {
  typeCode: string
  isPrimary?: boolean
  deletedAt?: string | null
}

export interface SupplierFixture {
  fullName?: string
  shortName?: string | null
  taxNo?: string
  contactPhone?: string | null
  legalRepresentative?: string | null
  establishDate?: string | null
  registeredCapital?: string | null
  businessScope?: string | null
  address?: string | null
  staffScale?: string | null
  mainCooperation?: string
  licenseImageUrl?: string | null
  approveNote?: string | null
  remark?: string | null
  status?: 'DRAFT' | 'VETTING' | 'ACTIVE' | 'SUSPENDED' | 'FROZEN' | 'BLACKLIST' | 'ARCHIVED'
  /** Allowed only outside DRAFT/VETTING (the model's check). */
  supplierNo?: string | null
  creditLevel?: string | null
  totalScore?: number | null
  isRelatedParty?: boolean
  /** `yyyy-MM-dd HH:mm:ss` in the session time zone; default now(). */
  createTime?: string
  /** `yyyy-MM-dd HH:mm:ss`; default: the second of createTime. */
  updateTime?: string
  /** Soft-deleted (only a DRAFT may be, by the model's check): `now` or a date-time. */
  deletedAt?: string | null
  types?: TypeFixture[]
  contacts?: ContactFixture[]
  qualifications?: QualificationFixture[]
  accounts?: AccountFixture[]
}

export interface InsertedSupplier {
  supplierId: string
  taxNo: string
  typeIds: string[]
  contactIds: string[]
  qualificationIds: string[]
  accountIds: string[]
}

const ts = (v: string | null | undefined) => (v === 'now' ? new Date().toISOString() : v)

/** Inserts one supplier and its children; by default a DRAFT of primary type SCENIC, no children. */
export async function insertSupplier(
  h: Harness,
  o: SupplierFixture = {},
): Promise<InsertedSupplier> {
  const { sql, cipher } = h
  const taxNo = o.taxNo ?? randomTaxNo()
  const phone = o.contactPhone === undefined ? randomPhone() : o.contactPhone
  const fullName = o.fullName ?? `Supplier ${tag()}`
  const shortName = o.shortName ?? null
  const [row] = await sql`
    INSERT INTO supplier (
      supplier_no, full_name, short_name, tax_no_enc, tax_no_bidx, tax_no_mask,
      legal_representative, contact_phone_enc, contact_phone_mask, establish_date,
      registered_capital, business_scope, address, staff_scale, main_cooperation,
      license_image_url, approve_note_enc, remark, status, credit_level, total_score,
      is_related_party, create_time, update_time, created_by, updated_by, deleted_at
    ) VALUES (
      ${o.supplierNo ?? null}, ${fullName}, ${shortName},
      ${await cipher.encrypt(taxNo)}, ${await cipher.blindIndex(normalizeTaxNo(taxNo), 'taxNo')},
      ${maskTaxNo(taxNo) as string},
      ${o.legalRepresentative ?? null}, ${await cipher.encryptNullable(phone)}, ${maskPhone(phone)},
      ${o.establishDate ?? null}, ${o.registeredCapital ?? null}, ${o.businessScope ?? null},
      ${o.address ?? null}, ${o.staffScale ?? null}, ${o.mainCooperation ?? '景区门票与游览服务'},
      ${o.licenseImageUrl ?? null}, ${await cipher.encryptNullable(o.approveNote)}, ${o.remark ?? null},
      ${o.status ?? 'DRAFT'}, ${o.creditLevel ?? null}, ${o.totalScore ?? null},
      ${o.isRelatedParty ?? false},
      COALESCE(${o.createTime ?? null}::text::timestamptz, now()),
      COALESCE(${o.updateTime ?? null}::text::timestamptz,
               date_trunc('second', COALESCE(${o.createTime ?? null}::text::timestamptz, now()))),
      ${FIXTURE_ADMIN}, ${FIXTURE_ADMIN}, ${ts(o.deletedAt) ?? null}
    )
    RETURNING supplier_id::text AS id
  `
  const supplierId = row.id as string
  // What the service's write stores with the names: the list keyword's spellings.
  await setSearchRows(sql, [
    { supplierId, fullName, shortName, ...searchFieldsOf(fullName, shortName) },
  ])
  const typeIds: string[] = []
  for (const t of o.types ?? [{ typeCode: 'SCENIC', isPrimary: true }]) {
    const [r] = await sql`
      INSERT INTO supplier_type (supplier_id, type_code, is_primary, deleted_at)
      VALUES (${supplierId}, ${t.typeCode}, ${t.isPrimary ?? false}, ${ts(t.deletedAt) ?? null})
      RETURNING id::text AS id
    `
    typeIds.push(r.id)
  }
  const contactIds: string[] = []
  for (const c of o.contacts ?? []) contactIds.push(await insertContact(h, supplierId, c))
  const qualificationIds: string[] = []
  for (const q of o.qualifications ?? []) {
    qualificationIds.push(await insertQualification(h, supplierId, q))
  }
  const accountIds: string[] = []
  for (const a of o.accounts ?? []) {
    accountIds.push(await insertAccount(h, supplierId, { accountName: o.fullName, ...a }))
  }
  return { supplierId, taxNo, typeIds, contactIds, qualificationIds, accountIds }
}

export async function insertContact(
  h: Harness,
  supplierId: string,
  c: ContactFixture = {},
): Promise<string> {
  const phone = c.contactPhone ?? randomPhone()
  const [r] = await h.sql`
    INSERT INTO supplier_contact (supplier_id, contact_name, contact_phone_enc, contact_phone_mask,
                                  contact_role, remark, deleted_at)
    VALUES (${supplierId}, ${c.contactName ?? '张三'}, ${await h.cipher.encrypt(phone)},
            ${maskPhone(phone) as string}, ${c.contactRole ?? null}, ${c.remark ?? null},
            ${ts(c.deletedAt) ?? null})
    RETURNING contact_id::text AS id
  `
  return r.id
}

export async function insertQualification(
  h: Harness,
  supplierId: string,
  q: QualificationFixture,
): Promise<string> {
  const certNo = q.certNo ?? null
  const [r] = await h.sql`
    INSERT INTO supplier_qualification (supplier_id, qual_type, cert_no_enc, cert_no_mask, image_url,
                                        expiry_date, deleted_at)
    VALUES (${supplierId}, ${q.qualType}, ${await h.cipher.encryptNullable(certNo)},
            ${maskCertNo(certNo)}, ${q.imageUrl ?? null}, ${q.expiryDate ?? null},
            ${ts(q.deletedAt) ?? null})
    RETURNING qualification_id::text AS id
  `
  return r.id
}

export async function insertAccount(
  h: Harness,
  supplierId: string,
  a: AccountFixture = {},
): Promise<string> {
  const accountNo = a.accountNo ?? randomAccountNo()
  const [r] = await h.sql`
    INSERT INTO supplier_bank_account (
      supplier_id, account_name, account_type, bank_name, bank_branch, account_no_enc,
      account_no_bidx, account_no_mask, proof_file_urls, settle_mode, account_period, invoice_type,
      tax_rate, status, is_default, created_by, deleted_at
    ) VALUES (
      ${supplierId}, ${a.accountName ?? '杭州测试供应商有限公司'}, ${a.accountType ?? 'CORPORATE'},
      ${a.bankName ?? '中国工商银行'}, ${a.bankBranch ?? null}, ${await h.cipher.encrypt(accountNo)},
      ${await h.cipher.blindIndex(normalizeAccountNo(accountNo), 'accountNo')},
      ${maskAccountNo(accountNo) as string}, ${h.sql.json(a.proofFileUrls ?? [])},
      ${a.settleMode ?? null}, ${a.accountPeriod ?? null}, ${a.invoiceType ?? null},
      ${a.taxRate ?? null}, ${a.status ?? 'ACTIVE'}, ${a.isDefault ?? 'NO'}, ${FIXTURE_ADMIN},
      ${ts(a.deletedAt) ?? null}
    )
    RETURNING account_id::text AS id
  `
  return r.id
}

export interface ApprovalLogFixture {
  bizType?: 'PROFILE_CREATE' | 'ACCOUNT_CREATE' | 'ACCOUNT_CHANGE' | 'STATUS_CHANGE'
  subType?: string | null
  targetType?: 'SUPPLIER' | 'ACCOUNT'
  targetId?: string
  status?: 'SUBMITTED' | 'APPROVED' | 'REJECTED' | 'APPLIED' | 'APPLY_FAILED'
  /** Plaintext; stored encrypted. */
  opinion?: string | null
  requestNo?: string
}

/** One LOCAL_AUTO approval of the supplier (applied, one level, no external fields). */
export async function insertApprovalLog(
  h: Harness,
  supplierId: string,
  a: ApprovalLogFixture = {},
): Promise<string> {
  const [r] = await h.sql`
    INSERT INTO approval_log (
      request_no, provider, biz_type, sub_type, supplier_id, target_type, target_id,
      applicant_admin_id, candidate_snapshot, levels, status, sync_status, opinion_enc, finished_at
    ) VALUES (
      ${a.requestNo ?? `REQ-${tag()}-${Date.now()}`}, 'LOCAL_AUTO', ${a.bizType ?? 'PROFILE_CREATE'},
      ${a.subType ?? null}, ${supplierId}, ${a.targetType ?? 'SUPPLIER'}, ${a.targetId ?? supplierId},
      ${FIXTURE_ADMIN}, '{}'::jsonb, 1, ${a.status ?? 'APPLIED'}, 'NOT_REQUIRED',
      ${await h.cipher.encryptNullable(a.opinion ?? null)}, now()
    )
    RETURNING approval_log_id::text AS id
  `
  // Written around the service, so sealed the way rows from before the audit trail are.
  await sealUnsealedRows(h.sql, h.cipher.audit)
  return r.id
}

/**
 * Sets an approval's state by hand (`edit`, a statement on the transaction), as the service
 * would have written it: the row is sealed again, so the audit trail stays whole.
 */
export async function editApproval(
  h: Harness,
  approvalLogId: string,
  edit: (tx: postgres.TransactionSql) => Promise<unknown>,
) {
  await h.sql.begin(async (tx) => {
    await edit(tx)
    await sealApproval(tx, h.deps, await approvalAsItStands(tx, approvalLogId))
  })
}

export interface ChangeLogFixture {
  approvalLogId?: string | null
  operationType?: string
  targetType?: string
  targetId?: string | null
  fieldName?: string
  oldValueMasked?: string | null
  newValueMasked?: string | null
  changeReason?: string | null
  status?: string | null
  operatorId?: string | null
  /** `yyyy-MM-dd HH:mm:ss` in the session time zone; default now(). */
  createTime?: string
}

/** One change-log row of the supplier. */
export async function insertChangeLog(
  h: Harness,
  supplierId: string,
  c: ChangeLogFixture = {},
): Promise<string> {
  const [r] = await h.sql`
    INSERT INTO change_log (
      supplier_id, approval_log_id, operation_type, target_type, target_id, field_name,
      old_value_masked, new_value_masked, change_reason, status, operator_id, create_time
    ) VALUES (
      ${supplierId}, ${c.approvalLogId ?? null}, ${c.operationType ?? 'PROFILE_UPDATE'},
      ${c.targetType ?? 'SUPPLIER'},
      ${c.targetId === undefined ? supplierId : c.targetId}, ${c.fieldName ?? 'shortName'},
      ${c.oldValueMasked ?? null}, ${c.newValueMasked ?? null}, ${c.changeReason ?? null},
      ${c.status ?? null}, ${c.operatorId === undefined ? FIXTURE_ADMIN : c.operatorId},
      COALESCE(${c.createTime ?? null}::text::timestamptz, now())
    )
    RETURNING change_log_id::text AS id
  `
  await sealUnsealedRows(h.sql, h.cipher.audit)
  return r.id
}
