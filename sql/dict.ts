import { z } from 'zod'
import { many, type Sql } from './db'
import { DictItem } from '../src/schemas/dictionary'

/** An item as the response shows it, with its id (the order's tie-breaker). */
const DictItemRow = z.object({ dictDataId: z.string(), ...DictItem.shape })

/** Enabled items of one dictionary, in the spec's order: sortOrder, then dictDataId. */
export function enabledItems(sql: Sql, dictType: string) {
  return many(
    sql`
      SELECT d.dict_data_id::text AS "dictDataId", d.dict_type AS "dictType", d.dict_label AS "dictLabel",
             d.dict_value AS "dictValue", d.sort_order AS "sortOrder", d.status
      FROM dict_data d
      JOIN dict_type t ON t.dict_type = d.dict_type AND t.deleted_at IS NULL AND t.status = 'ACTIVE'
      WHERE d.dict_type = ${dictType} AND d.status = 'ACTIVE' AND d.deleted_at IS NULL
      ORDER BY d.sort_order, d.dict_data_id
    `,
    DictItemRow,
  )
}
