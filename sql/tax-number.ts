import { z } from 'zod'
import { many, maybeOne, none, type Sql } from './db'

/*
 * The tax-number backfill's queries (src/domain/supplier/tax-number.ts): its progress, the live
 * suppliers' stored numbers in id order, and the guarded rewrite of one number in its new form.
 */

const Progress = z.object({ afterId: z.string(), finished: z.boolean() })

/** Where `job` got to; null when the job was never set up (no migration row). */
export function backfillProgress(sql: Sql, job: string) {
  return maybeOne(
    sql`
      SELECT after_id::text AS "afterId", finished_at IS NOT NULL AS finished
      FROM backfill_progress WHERE job = ${job}
    `,
    Progress,
  )
}

/** Records how far `job` got, and whether it is finished. */
export function saveBackfillProgress(sql: Sql, job: string, afterId: string, finished: boolean) {
  return none(sql`
    UPDATE backfill_progress
    SET after_id = ${afterId}::bigint, finished_at = CASE WHEN ${finished} THEN now() END
    WHERE job = ${job}
  `)
}

export const StoredTaxNo = z.object({
  supplierId: z.string(),
  supplierNo: z.string().nullable(),
  status: z.string(),
  fullName: z.string(),
  taxNoEnc: z.string(),
  taxNoBidx: z.string(),
})
export type StoredTaxNo = z.output<typeof StoredTaxNo>

/** Live suppliers after `afterId`, in id order, with their stored (encrypted) tax numbers. */
export function storedTaxNumbers(sql: Sql, afterId: string, limit: number) {
  return many(
    sql`
      SELECT s.supplier_id::text AS "supplierId", s.supplier_no AS "supplierNo", s.status,
             s.full_name AS "fullName", s.tax_no_enc AS "taxNoEnc", s.tax_no_bidx AS "taxNoBidx"
      FROM supplier s
      WHERE s.deleted_at IS NULL AND s.supplier_id > ${afterId}::bigint
      ORDER BY s.supplier_id
      LIMIT ${limit}
    `,
    StoredTaxNo,
  )
}

/**
 * Writes a supplier's number in its new form, with its blind index and mask, only if the row is
 * still live, out of registration approval (its frozen snapshot holds the index), holds the
 * number that was read, and no other live supplier holds the new index. Nothing else of the row
 * changes (update_time included: a client's version stays valid). 1 when written, 0 when not.
 */
export function rewriteTaxNo(
  sql: Sql,
  row: { supplierId: string; readEnc: string; taxNoEnc: string; taxNoBidx: string; mask: string },
) {
  return none(sql`
    UPDATE supplier s
    SET tax_no_enc = ${row.taxNoEnc}, tax_no_bidx = ${row.taxNoBidx}, tax_no_mask = ${row.mask}
    WHERE s.supplier_id = ${row.supplierId} AND s.deleted_at IS NULL AND s.status <> 'VETTING'
      AND s.tax_no_enc = ${row.readEnc}
      AND NOT EXISTS (
        SELECT 1 FROM supplier o
        WHERE o.tax_no_bidx = ${row.taxNoBidx} AND o.deleted_at IS NULL
          AND o.supplier_id <> s.supplier_id
      )
  `)
}
