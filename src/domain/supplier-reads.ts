import { z } from 'zod'
import {
  approvalOpinionCiphertexts,
  changeLogPage,
  countChangeLogs,
  recordSensitiveReads,
  type ChangeLogFilter,
} from '../../sql/change-log-read'
import {
  countSuppliers,
  supplierAccountInfo,
  supplierDetail,
  supplierListPage,
  type SupplierListFilter,
} from '../../sql/supplier-read'
import { fail } from '../errors'
import { page, type PageResult } from '../http/envelope'
import type { Deps } from '../http/types'

/*
 * Read verbs of the supplier module: list (SUP-ADM-001), basic and account information
 * (SUP-ADM-002) and approval records (SUP-ADM-012). The VO schemas below are the response
 * contract: every row is parsed through them, so a column added to a query never reaches a
 * client unless it is listed here (zod objects strip unknown keys).
 */

/** Codes the read filters accept; their single source is the SQL module (the table's checks). */
export { CHANGE_OPERATION_TYPES, CHANGE_TARGET_TYPES } from '../../sql/change-log-read'
export { SUPPLIER_SORT_KEYS, SUPPLIER_STATUSES } from '../../sql/supplier-read'

/** The permission that reveals approval opinions (decrypted and audited per read). */
export const OPINION_PERMISSION = 'supplier:approval:opinion'

const SupplierTypeVO = z.object({
  typeCode: z.string(),
  typeName: z.string().nullable().describe('dictionary label snapshot; null if not enabled'),
  isPrimary: z.boolean(),
})

export const SupplierListItemVO = z.object({
  supplierId: z.string(),
  supplierNo: z.string().nullable().describe('null until registration is approved'),
  fullName: z.string(),
  shortName: z.string().nullable(),
  types: z.array(SupplierTypeVO),
  status: z.string(),
  creditLevel: z.string().nullable(),
  totalScore: z.number().nullable(),
  activeAccountCount: z.int().describe('live bank accounts with status ACTIVE'),
  createTime: z.string(),
  updateTime: z.string(),
})
export type SupplierListItemVO = z.output<typeof SupplierListItemVO>

const SupplierContactVO = z.object({
  contactId: z.string(),
  contactName: z.string(),
  contactPhoneMask: z.string(),
  contactRole: z.string().nullable(),
  remark: z.string().nullable(),
  status: z.string(),
  updateTime: z.string(),
})

const SupplierQualificationVO = z.object({
  qualificationId: z.string(),
  qualType: z.string(),
  certNoMask: z.string().nullable(),
  imageUrl: z.string().nullable(),
  expiryDate: z.string().nullable(),
  isRequired: z
    .boolean()
    .describe('derived: a live required rule of one of the supplier types names this qualType'),
  status: z.string(),
  updateTime: z.string(),
})

export const SupplierBasicInfoVO = z.object({
  supplierId: z.string(),
  supplierNo: z.string().nullable(),
  fullName: z.string(),
  shortName: z.string().nullable(),
  taxNoMask: z.string(),
  legalRepresentative: z.string().nullable(),
  contactPhoneMask: z.string().nullable(),
  establishDate: z.string().nullable(),
  registeredCapital: z.string().nullable(),
  businessScope: z.string().nullable(),
  address: z.string().nullable(),
  staffScale: z.string().nullable(),
  mainCooperation: z.string(),
  licenseImageUrl: z.string().nullable(),
  remark: z.string().nullable(),
  types: z.array(SupplierTypeVO),
  contacts: z.array(SupplierContactVO),
  qualifications: z.array(SupplierQualificationVO),
  creditLevel: z.string().nullable(),
  totalScore: z.number().nullable(),
  status: z.string(),
  createTime: z.string(),
  updateTime: z.string(),
})
export type SupplierBasicInfoVO = z.output<typeof SupplierBasicInfoVO>

export const SupplierBankAccountVO = z.object({
  accountId: z.string(),
  accountName: z.string(),
  accountType: z.string(),
  bankName: z.string(),
  bankBranch: z.string().nullable(),
  accountNoMask: z.string().describe('`**** **** 1234`: last four characters only'),
  settleMode: z.string().nullable(),
  accountPeriod: z.int().nullable(),
  invoiceType: z.string().nullable(),
  taxRate: z.number().nullable(),
  status: z.string(),
  isDefault: z.enum(['YES', 'NO']),
  updateTime: z.string(),
})

export const SupplierAccountInfoVO = z.object({
  supplierId: z.string(),
  bankAccounts: z.array(SupplierBankAccountVO).describe('default account first, then by id'),
  updateTime: z.string().describe('version of the supplier'),
})
export type SupplierAccountInfoVO = z.output<typeof SupplierAccountInfoVO>

export const SupplierApprovalRecordVO = z.object({
  changeLogId: z.string(),
  supplierId: z.string(),
  approvalLogId: z.string().nullable(),
  operationType: z.string(),
  targetType: z.string(),
  targetId: z.string().nullable(),
  fieldName: z.string(),
  oldValueMasked: z.string().nullable(),
  newValueMasked: z.string().nullable(),
  changeReason: z.string().nullable(),
  status: z.string().nullable(),
  operatorId: z.string().nullable(),
  createTime: z.string(),
  hasOpinion: z.boolean(),
  opinion: z
    .string()
    .optional()
    .describe(
      `only for callers holding ${OPINION_PERMISSION}, on rows whose approval has an opinion; each read is audited`,
    ),
})
export type SupplierApprovalRecordVO = z.output<typeof SupplierApprovalRecordVO>

export type SupplierListQuery = Omit<SupplierListFilter, 'limit' | 'offset'> & {
  page: number
  pageSize: number
}

/** SUP-ADM-001: a page of live suppliers, masked, in the whitelisted order. */
export async function listSuppliers(
  { sql }: Pick<Deps, 'sql'>,
  query: SupplierListQuery,
): Promise<PageResult<SupplierListItemVO>> {
  const { page: pageNo, pageSize, ...filter } = query
  const f = { ...filter, limit: pageSize, offset: (pageNo - 1) * pageSize }
  const [rows, total] = await Promise.all([supplierListPage(sql, f), countSuppliers(sql, f)])
  return page(
    rows.map((r) => SupplierListItemVO.parse(r)),
    total,
    pageNo,
    pageSize,
  )
}

/** SUP-ADM-002 basic information; 395001 when the supplier is missing or soft-deleted. */
export async function getSupplierBasicInfo(
  { sql }: Pick<Deps, 'sql'>,
  supplierId: string,
): Promise<SupplierBasicInfoVO> {
  const row = await supplierDetail(sql, supplierId)
  if (!row) return fail('SUPPLIER_NOT_FOUND')
  return SupplierBasicInfoVO.parse(row)
}

/** SUP-ADM-002 account information; 395001 when the supplier is missing or soft-deleted. */
export async function getSupplierAccountInfo(
  { sql }: Pick<Deps, 'sql'>,
  supplierId: string,
): Promise<SupplierAccountInfoVO> {
  const row = await supplierAccountInfo(sql, supplierId)
  if (!row) return fail('SUPPLIER_NOT_FOUND')
  return SupplierAccountInfoVO.parse(row)
}

export type ApprovalRecordQuery = Omit<ChangeLogFilter, 'limit' | 'offset'> & {
  page: number
  pageSize: number
}

/** Who is reading, for the optional opinion permission and the sensitive-read audit. */
export interface Reader {
  adminId: string
  requestId: string | null
}

/** Fail closed: only a clear `true` grants; false, errors and timeouts deny. */
async function holds(deps: Pick<Deps, 'permissions'>, adminId: string, code: string) {
  try {
    return (await deps.permissions.has(adminId, code)) === true
  } catch {
    return false
  }
}

/**
 * SUP-ADM-012: a page of change-log rows (evidence; deleted drafts included). Without
 * `supplier:approval:opinion` a record only says `hasOpinion`. With it, each distinct approval
 * opinion on the page is decrypted once and one sensitive_read_audit row is written for it
 * before the answer is returned; if the audit cannot be written the request fails.
 */
export async function listApprovalRecords(
  deps: Pick<Deps, 'sql' | 'cipher' | 'permissions'>,
  query: ApprovalRecordQuery,
  reader: Reader,
): Promise<PageResult<SupplierApprovalRecordVO>> {
  const { page: pageNo, pageSize, ...filter } = query
  const f = { ...filter, limit: pageSize, offset: (pageNo - 1) * pageSize }
  const [rows, total, mayReadOpinion] = await Promise.all([
    changeLogPage(deps.sql, f),
    countChangeLogs(deps.sql, f),
    holds(deps, reader.adminId, OPINION_PERMISSION),
  ])
  const records = rows.map((r) => SupplierApprovalRecordVO.parse(r))
  if (!mayReadOpinion) return page(records, total, pageNo, pageSize)

  const withOpinion = [
    ...new Set(records.flatMap((r) => (r.hasOpinion && r.approvalLogId ? [r.approvalLogId] : []))),
  ]
  const ciphertexts = await approvalOpinionCiphertexts(deps.sql, withOpinion)
  const opinions = new Map<string, string>()
  for (const { approvalLogId, opinionEnc } of ciphertexts) {
    opinions.set(approvalLogId, await deps.cipher.decrypt(opinionEnc))
  }
  await recordSensitiveReads(
    deps.sql,
    [...opinions.keys()].map((subjectId) => ({
      adminId: reader.adminId,
      subject: 'approval_log',
      subjectId,
      fieldName: 'opinion',
      requestId: reader.requestId,
    })),
  )
  return page(
    records.map((r) => {
      const opinion = r.approvalLogId ? opinions.get(r.approvalLogId) : undefined
      return opinion === undefined ? r : { ...r, opinion }
    }),
    total,
    pageNo,
    pageSize,
  )
}
