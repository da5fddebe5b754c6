import {
  countExpiringQualifications,
  expiringQualificationPage,
  type ExpiringFilter,
} from '../../../sql/compliance'
import type { Sql } from '../../../sql/db'
import { page, type PageResult } from '../paging'
import { ExpiringQualificationVO } from '../../schemas/compliance'

/*
 * Qualification compliance: what the detail read shows per type and what the lifecycle guards
 * decide on come from the same query (sql/compliance.ts), so the two cannot disagree.
 */

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
