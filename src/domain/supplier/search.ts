import { companyKeyGroups, parseCompanyName } from './company-name'
import { romanize } from './company-name/dictionaries'
import {
  countUnsearchableSuppliers,
  setSearchRows,
  unsearchableSuppliers,
  type SearchFields,
} from '../../../sql/supplier-search'
import { inBackground, inBatches } from '../backfill'
import type { Deps } from '../deps'

/*
 * The spellings a supplier is found by in the list's keyword (SUP-ADM-001), derived with the
 * company-name machinery the near-duplicate check uses (company-name.ts), and the keyword read the
 * same way:
 *
 * - the full and short names folded: simplified, half-width, lower case, accents, spaces, marks,
 *   brackets and invisible characters dropped (雲棲 finds 云栖, ＡＢＣ finds abc, 湖\u200b畔 湖畔);
 * - the trade names' toneless pinyin (湖畔 → hupan) and initials (hp), each reading's trade name;
 * - a Latin name's distinctive words run together (Blue Ocean Travel Co., Ltd. → blueocean);
 * - the supplier number, folded to its letters and digits (mirrored from supplier, where SQL
 *   draws it: migration 20261202000300).
 *
 * A supplier matches when one of these contains the folded keyword. Matches rank: 0 a name equal
 * to the keyword, 1 a name containing it, 2 another spelling (pinyin, initials, number); within a
 * rank, the order asked for (createTime DESC, supplierId DESC by default). The texts and their
 * index terms are in sql/supplier-search.ts and the migration.
 *
 * A keyword's total is kept where it can be, so that a common one is not counted match by match:
 * a term (one or two characters) in supplier_term_count, a longer keyword whose answer counted
 * many matches, once kept (kept-keywords.ts), in supplier_keyword_count; both by triggers in the
 * transaction that writes supplier_search, so a rename, a status change, a drawn number, a soft
 * delete and the backfill of a newer derivation move them. Any other keyword is counted from its
 * matches (sql/supplier-read.ts): found by the terms index; for one holding a digit (a supplier
 * number, whole or a part), whose pairs most rows' numbers hold, by the numbers holding it and the
 * rows whose names hold a digit or whose number has another shape (migration 20261203000700); for
 * one of three or more letters a-z alone (pinyin, a Latin word), whose pairs most rows' pinyin
 * holds, by its sequences of four letters (migration 20261203000800).
 */

/**
 * The derivation's version: a row of an older one is rewritten by the backfill. From 2 on a row
 * is counted in supplier_term_count (migration 20261202000500) and supplier_keyword_count
 * (20261202000700): version 1 rows are rewritten unchanged so that the triggers count them, and a
 * later version's rewrite moves each row's counts from its old texts to its new ones.
 */
export const SEARCH_VERSION = 2

/** Separates the texts of one supplier: never in a folded text (only letters and digits are). */
const SEP = '\u001f'

/** A name or keyword as the search compares it: normalized, then letters and digits only. */
export function searchFold(text: string): string {
  return parseCompanyName(text).normalized.replace(/[^\p{L}\p{N}]/gu, '')
}

/** The other spellings of a name: its trade names' pinyin and initials, a Latin name's words. */
function spellingsOf(name: string): string[] {
  const out: string[] = []
  for (const group of companyKeyGroups(name)) {
    for (const key of group.keys) {
      if (key.startsWith('p:')) out.push(key.slice(2))
      else if (key.startsWith('t:')) {
        const initials = [...key.slice(2)].map((c) => romanize(c).slice(0, 1)).join('')
        if (initials) out.push(initials)
      }
    }
  }
  return out
}

/** What supplier_search stores for a supplier of these names. */
export function searchFieldsOf(
  fullName: string,
  shortName: string | null | undefined,
): SearchFields {
  const spellings = new Set<string>()
  for (const name of [fullName, shortName]) {
    if (name?.trim()) for (const s of spellingsOf(name)) spellings.add(searchFold(s))
  }
  spellings.delete('')
  return {
    fullFold: searchFold(fullName),
    shortFold: shortName?.trim() ? searchFold(shortName) : '',
    spellings: [...spellings].join(SEP),
    version: SEARCH_VERSION,
  }
}

export interface KeywordTerms {
  /** The keyword folded like the names; empty when it has no letter, digit or Han character. */
  fold: string
  /** The index terms every match holds: the keyword itself (one character) or its pairs. */
  terms: string[]
}

/** The folded keyword and the terms its matches must all hold (see search_grams). */
export function keywordTerms(keyword: string): KeywordTerms {
  const fold = searchFold(keyword)
  return { fold, terms: foldTerms(fold) }
}

/** The index terms of a folded keyword: itself (one character) or its pairs. */
export function foldTerms(fold: string): string[] {
  const chars = [...fold]
  if (chars.length <= 1) return chars
  const terms = new Set<string>()
  for (let i = 0; i + 1 < chars.length; i++) terms.add(chars[i] + chars[i + 1])
  return [...terms].sort()
}

/** The lease (sql/lease.ts) that lets one replica at a time fill supplier_search. */
const BACKFILL_JOB = 'supplier-search-backfill'

export interface SearchBackfillOutcome {
  /** False when another replica held the lease. */
  ran: boolean
  written: number
  batches: number
}

/**
 * Writes the search rows of the live suppliers that have none, or one of an older version, in
 * batches of `batch` rows in id order, each one INSERT guarded by the names it read (supplier
 * itself is not written), with `pauseMs` between batches (`inBatches`).
 */
export async function backfillSupplierSearch(
  deps: Pick<Deps, 'sql' | 'logger'>,
  opts: { batch?: number; pauseMs?: number; signal?: AbortSignal } = {},
): Promise<SearchBackfillOutcome> {
  const { sql, logger } = deps
  const outcome: SearchBackfillOutcome = { ran: false, written: 0, batches: 0 }
  outcome.ran = await inBatches(sql, BACKFILL_JOB, opts, async (after) => {
    const rows = await unsearchableSuppliers(sql, after, opts.batch ?? 1000, SEARCH_VERSION)
    if (!rows.length) return null
    outcome.written += await setSearchRows(
      sql,
      rows.map((r) => ({ ...r, ...searchFieldsOf(r.fullName, r.shortName) })),
    )
    if (++outcome.batches % 100 === 0) {
      logger.info({ written: outcome.written }, 'supplier search: backfill in progress')
    }
    return rows[rows.length - 1].supplierId
  })
  return outcome
}

/**
 * Runs the backfill in the background once the service serves, and again every `retrySeconds`
 * while suppliers are left without a current row. Until it ends the keyword finds the suppliers
 * that have one only: a log line says how many do not.
 */
export function startSupplierSearchBackfill(
  deps: Deps,
  { retrySeconds = 60 }: { retrySeconds?: number } = {},
) {
  const pending = () => countUnsearchableSuppliers(deps.sql, SEARCH_VERSION)
  return inBackground(deps.logger, 'supplier search', retrySeconds, async (signal) => {
    const left = await pending()
    if (!left || signal.aborted) return 'done'
    deps.logger.warn(
      { pending: left },
      'list keyword finds searchable suppliers only until the search backfill ends',
    )
    const started = Date.now()
    const outcome = await backfillSupplierSearch(deps, { pauseMs: 20, signal })
    if (outcome.ran && !signal.aborted) {
      deps.logger.info({ ...outcome, ms: Date.now() - started }, 'supplier search: backfill ended')
    }
    return !signal.aborted && (await pending()) ? 'again' : 'done'
  })
}
