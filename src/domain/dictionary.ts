import { enabledItems } from '../../sql/dict'
import type { Deps } from './deps'

/** Enabled items of one dictionary, by sortOrder then dictDataId (labels are display only). */
export function dictionaryItems({ sql }: Pick<Deps, 'sql'>, dictType: string) {
  return enabledItems(sql, dictType)
}
