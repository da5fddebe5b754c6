import type { SupplierAccountInfoVO } from '../../schemas/account'
import { OPINION_PERMISSION, type SupplierApprovalRecordVO } from '../../schemas/change-log'
import type {
  SupplierBasicInfoVO,
  SupplierListItemVO,
  SupplierTaxNoLookupVO,
} from '../../schemas/supplier'
import {
  approvalOpinionCiphertexts,
  changeLogPage,
  countChangeLogs,
  recordSensitiveReads,
  type ChangeLogFilter,
} from '../../../sql/change-log-read'
import {
  countSuppliers,
  supplierDetail,
  supplierListPage,
  searchSuppliers,
  taxNoHolder,
  type SupplierListFilter,
} from '../../../sql/supplier-read'
import { normalizeTaxNo } from '../../identity'
import { LIMITS } from '../../vocabulary'
import { supplierAccountInfo } from '../../../sql/account'
import { isStatementTimeout } from '../../../sql/db'
import { fail } from '../../errors'
import { allowedActions } from '../lifecycle/actions'
import { page, type PageResult } from '../paging'
import { readOnly } from '../read-routing'
import { keywordTerms } from './search'
import { KEEP_FROM } from './kept-keywords'
import type { Deps } from '../deps'

/*
 * Read verbs of the supplier module: list (SUP-ADM-001), basic and account information
 * (SUP-ADM-002) and approval records (SUP-ADM-012). The response VOs are declared in
 * src/schemas; the SQL modules parse their rows with them (or with them less what the domain
 * adds), so a column added to a query never reaches a client unless the VO lists it (zod
 * objects strip unknown keys).
 */

export type SupplierListQuery = Omit<SupplierListFilter, 'limit' | 'offset' | 'timezone'> & {
  keyword?: string
  page: number
  pageSize: number
}

/** SUP-ADM-001: a page of live suppliers, masked, in the whitelisted order. */
export async function listSuppliers(
  { sql, config, keywordKeeper }: Deps,
  query: SupplierListQuery,
): Promise<PageResult<SupplierListItemVO>> {
  const { page: pageNo, pageSize, keyword, ...filter } = query
  const f = {
    ...filter,
    limit: pageSize,
    offset: (pageNo - 1) * pageSize,
    timezone: config.timezone,
  }
  if (!keyword) {
    const [rows, total] = await Promise.all([supplierListPage(sql, f), countSuppliers(sql, f)])
    return page(rows, total, pageNo, pageSize)
  }
  const terms = keywordTerms(keyword)
  const { rows, total, similar, kept } = await searchSuppliers(sql, {
    ...f,
    keyword,
    ...terms,
    similarity: config.keywordSimilarityThreshold,
  }).catch((err: unknown) => {
    // One too common to count within the statement timeout (有限公司 in nearly every name) is
    // kept too: the keeper counts it outside any request, and the next ask is answered from it.
    if (isStatementTimeout(err)) keywordKeeper?.note(terms.fold, true)
    throw err
  })
  // A common keyword's total is then kept, or marked as used if it is (kept-keywords.ts), as is a
  // kept one that answered fewer (asked with a status). The names similar to a typo are not its
  // matches.
  if (!similar && (kept || total >= KEEP_FROM)) keywordKeeper?.note(terms.fold, total >= KEEP_FROM)
  return page(rows, total, pageNo, pageSize)
}

/**
 * SUP-ADM-002 basic information; 395001 when the supplier is missing or soft-deleted. `held` are
 * the caller's codes among COMMAND_PERMISSIONS, looked up with the route's own authorization:
 * what the caller may do with the supplier now is derived from them and the status just read.
 */
export async function getSupplierBasicInfo(
  { sql, config }: Deps,
  supplierId: string,
  held: readonly string[],
): Promise<SupplierBasicInfoVO> {
  const row = await supplierDetail(sql, supplierId, config.timezone)
  if (!row) return fail('SUPPLIER_NOT_FOUND')
  return { ...row, allowedActions: allowedActions(row.status, held) }
}

/** SUP-ADM-002 account information; 395001 when the supplier is missing or soft-deleted. */
export async function getSupplierAccountInfo(
  { sql, config }: Deps,
  supplierId: string,
): Promise<SupplierAccountInfoVO> {
  const row = await supplierAccountInfo(sql, supplierId, config.timezone)
  if (!row) return fail('SUPPLIER_NOT_FOUND')
  return row
}

export type ApprovalRecordQuery = Omit<ChangeLogFilter, 'limit' | 'offset' | 'timezone'> & {
  page: number
  pageSize: number
}

/** Who is reading, for the optional opinion permission and the sensitive-read audit. */
export interface Reader {
  adminId: string
  requestId: string | null
}

/** Fail closed: only a clear `true` grants; false, errors and timeouts deny. */
export async function holds(deps: Deps, adminId: string, code: string) {
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
  deps: Deps,
  query: ApprovalRecordQuery,
  reader: Reader,
): Promise<PageResult<SupplierApprovalRecordVO>> {
  const { page: pageNo, pageSize, ...filter } = query
  const f = {
    ...filter,
    limit: pageSize,
    offset: (pageNo - 1) * pageSize,
    timezone: deps.config.timezone,
  }
  // The page may come from a standby; the opinions, read for an audit row written with them,
  // from the primary.
  const [[rows, total], mayReadOpinion] = await Promise.all([
    readOnly(deps, reader.adminId, (sql) =>
      Promise.all([changeLogPage(sql, f), countChangeLogs(sql, f)]),
    ),
    holds(deps, reader.adminId, OPINION_PERMISSION),
  ])
  const records: SupplierApprovalRecordVO[] = rows
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

/**
 * Which live supplier holds a tax number (an addition to the spec: docs/api.md). The number is
 * normalized as C-02 normalizes it and compared through its blind index only: never stored,
 * logged or echoed. A supplier found is answered masked, and its read is audited like an opinion
 * read (one sensitive_read_audit row, field `taxNo`) in the transaction that reads it: if the
 * audit cannot be written, nothing is answered. A miss names no supplier and writes no row.
 */
export async function lookupSupplierByTaxNo(
  deps: Deps,
  taxNo: string,
  reader: Reader,
): Promise<SupplierTaxNoLookupVO> {
  const canonical = normalizeTaxNo(taxNo)
  const bytes = new TextEncoder().encode(canonical).length
  if (bytes < 1 || bytes > LIMITS.taxNoBytes) {
    fail('BAD_REQUEST', `taxNo: must be 1..${LIMITS.taxNoBytes} UTF-8 bytes after normalization`)
  }
  const taxNoBidx = await deps.cipher.blindIndex(canonical, 'taxNo')
  const supplier = await deps.sql.begin(async (tx) => {
    const found = await taxNoHolder(tx, taxNoBidx, deps.config.timezone)
    if (found) {
      await recordSensitiveReads(tx, [
        {
          adminId: reader.adminId,
          subject: 'supplier',
          subjectId: found.supplierId,
          fieldName: 'taxNo',
          requestId: reader.requestId,
        },
      ])
    }
    return found
  })
  return { supplier }
}
