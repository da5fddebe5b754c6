import {
  COMPLIANT_STATES,
  countExpiringQualifications,
  expiringQualificationPage,
  supplierCompliance,
  ExpiringQualificationRow,
  type ExpiringFilter,
} from '../../../sql/compliance'
import type { Sql } from '../../../sql/db'
import { fail } from '../../errors'
import { page, type PageResult } from '../../http/envelope'

/*
 * Qualification compliance: what the detail read shows per type and what the lifecycle guards
 * decide on come from the same query (sql/compliance.ts), so the two cannot disagree.
 */

/**
 * Guard of resume and unfreeze: every live type's required qualifications are held and not
 * expired (EXPIRING is still valid). Otherwise 395008 with the offending ones in `data.missing`.
 */
export async function assertQualificationsValid(sql: Sql, supplierId: string) {
  const compliance = await supplierCompliance(sql, supplierId)
  const missing = compliance.flatMap((t) =>
    t.requiredQualifications
      .filter((q) => !COMPLIANT_STATES.includes(q.state))
      .map((q) => ({ typeCode: t.typeCode, qualType: q.qualType, state: q.state })),
  )
  if (missing.length) {
    fail(
      'QUALIFICATIONS_MISSING',
      `required qualifications missing or expired: ${missing.map((m) => `${m.typeCode}/${m.qualType} ${m.state}`).join(', ')}`,
      { missing },
    )
  }
}

export const ExpiringQualificationVO = ExpiringQualificationRow
export type ExpiringQualificationVO = ExpiringQualificationRow

export type ExpiringQuery = Omit<ExpiringFilter, 'limit' | 'offset'> & {
  page: number
  pageSize: number
}

/** Valid qualifications of live suppliers that lapse within the window, soonest first. */
export async function listExpiringQualifications(
  { sql }: { sql: Sql },
  query: ExpiringQuery,
): Promise<PageResult<ExpiringQualificationVO>> {
  const { page: pageNo, pageSize, ...filter } = query
  const f = { ...filter, limit: pageSize, offset: (pageNo - 1) * pageSize }
  const [rows, total] = await Promise.all([
    expiringQualificationPage(sql, f),
    countExpiringQualifications(sql, f),
  ])
  return page(rows, total, pageNo, pageSize)
}
