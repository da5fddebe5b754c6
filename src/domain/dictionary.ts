import { enabledItems } from '../../sql/dict'
import type { Sql } from '../../sql/db'

/** Enabled items of one dictionary, by sortOrder then dictDataId (labels are display only). */
export function dictionaryItems(sql: Sql, dictType: string) {
  return enabledItems(sql, dictType)
}
