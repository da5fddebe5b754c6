import { contains } from './company-name/dictionaries'
import { parseHan } from './company-name/han'
import { parseLatin } from './company-name/latin'
import type { NameParts, NameReading } from './company-name/model'
import { normalizeName, otherText } from './company-name/normalize'
import { deletions, dice, halves, length, withinOneEdit } from './company-name/strings'

/*
 * A company key, not a string distance. A Chinese name is region + trade name + industry
 * + organisational form, so most of its characters are boilerplate that other companies share;
 * what identifies the company is the trade name, with the region and the line of business as
 * support. This module reads names that way and says how likely two are the same company. It is
 * pure: no SQL, no HTTP; the dictionaries are built once when it loads (docs/duplicates.md).
 */

export type MatchReason =
  /** Trade name equal after normalisation, region equal (or one side has none). */
  | 'SAME_TRADE_NAME_AND_REGION'
  /** Trade name equal, regions differ or industry differs. */
  | 'SAME_TRADE_NAME'
  /** Homophone (same pinyin) or one character mistyped, rest agrees. */
  | 'TRADE_NAME_WRITTEN_DIFFERENTLY'
  /** Latin name equal without legal suffix and articles. */
  | 'SAME_LATIN_NAME'
  /** One letter mistyped, rest agrees. */
  | 'LATIN_NAME_WRITTEN_DIFFERENTLY'
  /** Fallback for names that do not parse. */
  | 'SIMILAR_WHOLE_NAME'

export interface ParsedName extends NameParts {
  script: 'han' | 'latin' | 'other'
}

interface Parsed {
  name: ParsedName
  readings: NameReading[]
}

/** The default threshold the service compares score against (DUPLICATE_NAME_THRESHOLD). */
export const DEFAULT_THRESHOLD = 0.8

/**
 * The lowest threshold the keys serve: every pair scored at or above it shares a key of
 * companyKeys. Below it are only names with different trade names, scored by their bigrams.
 */
export const MIN_KEYED_THRESHOLD = 0.5

/** Trade names this long compare for a mistyped character (and carry its keys): 3 to 9. */
const TYPO_HAN = { min: 3, max: 9 }
/** Latin trade names (without spaces) compare for a mistyped letter from this length. */
const TYPO_LATIN_MIN = 6
/** Keys are stored in a btree: their text is capped (equal texts keep equal caps). */
const KEY_TEXT = 48

const cache = new Map<string, Parsed>()

function parse(name: string): Parsed {
  const hit = cache.get(name)
  if (hit) return hit
  const { text, script } = normalizeName(name)
  let parsed: Parsed
  if (script === 'han') {
    const { readings, ...rest } = parseHan(text)
    parsed = { name: { ...rest, script }, readings }
  } else if (script === 'latin') {
    const { readings, ...rest } = parseLatin(text)
    parsed = { name: { ...rest, script }, readings }
  } else parsed = { name: { normalized: otherText(text), script }, readings: [] }
  // The service compares one new name with each of its candidates: keep the last few hundred.
  if (cache.size >= 512) cache.clear()
  cache.set(name, parsed)
  return parsed
}

/** Reads a name as region + trade name + industry + form (Chinese) or distinctive words (Latin). */
export function parseCompanyName(name: string): ParsedName {
  return { ...parse(name).name }
}

/**
 * The index keys of a name: a small bounded set (≤ 16) of strings under which it is stored and
 * probed. Every pair that compareCompanies scores at or above the lowest sensible threshold shares
 * at least one key. No key is made of region, industry or form alone: each contains the trade name
 * or a derivation of it, so that probing one key reads only suppliers with that trade name,
 * however many share a region, an industry or a legal form.
 *
 * - `t:云栖` the trade name; `p:yunqi` its pinyin (homophones, and a Latin name in pinyin), or a
 *   Latin name's distinctive words without spaces;
 * - `d:云栖湾`, `d:栖湾` … the trade name and its one-deletion variants: one
 *   character mistyped, added, dropped or swapped leaves a variant in common (3 to 9 characters);
 * - `l<…`, `l>…` halves of a Latin trade name (6 letters or more): one letter mistyped leaves one
 *   half whole;
 * - `w:…`, `w<…`, `w>…` the same for a name that does not parse.
 */
export function companyKeys(name: string): string[] {
  return [...new Set(companyKeyGroups(name).flatMap((group) => group.keys))]
}

/** The keys of one reading of a name, and the provinces that reading places the name in. */
export interface KeyGroup {
  keys: string[]
  /** First two digits of the GB/T 2260 codes of the reading's places; [''] when it names none. */
  provinces: string[]
}

/**
 * companyKeys reading by reading, each with its own provinces. A probe files each reading's keys
 * by that reading's places: the second reading of 绍兴夏竹旅游有限公司 (trade name 绍兴夏竹, no
 * place) is probed nationwide, but the first (绍兴, 夏竹) only in Zhejiang and among names that give
 * no place, as compareCompanies can only score such a pair high there.
 */
export function companyKeyGroups(name: string): KeyGroup[] {
  const { name: parsed, readings } = parse(name)
  if (!readings.length) {
    const whole = parsed.normalized
    const keys = new Set<string>()
    if (whole) keys.add('w:' + whole.slice(0, KEY_TEXT))
    for (const k of halves(whole)) keys.add('w' + k)
    return [{ keys: [...keys], provinces: [''] }]
  }
  return readings.map((r, i) => {
    const keys = new Set<string>()
    if (r.script === 'han') keys.add('t:' + r.trade.slice(0, KEY_TEXT))
    if (r.roman) keys.add('p:' + r.roman.slice(0, KEY_TEXT))
    // Typos are keyed on the first reading only (both sides: see compareCompanies).
    if (i === 0 && r.script === 'han' && !r.whole && typoHan(r.trade)) {
      keys.add('d:' + r.trade)
      for (const d of deletions(r.trade)) keys.add('d:' + d)
    } else if (i === 0 && r.script === 'latin' && length(r.trade) >= TYPO_LATIN_MIN) {
      for (const k of halves(r.trade)) keys.add('l' + k)
    }
    const provinces = r.places.length ? [...new Set(r.places.map((p) => p.slice(0, 2)))] : ['']
    return { keys: [...keys], provinces }
  })
}

const typoHan = (trade: string) => {
  const n = length(trade)
  return n >= TYPO_HAN.min && n <= TYPO_HAN.max
}

/** How likely two names are the same company, 0..1, and why. */
export function compareCompanies(a: string, b: string): { score: number; reason: MatchReason } {
  const pa = parse(a)
  const pb = parse(b)
  if (!pa.readings.length || !pb.readings.length) return compareWhole(pa, pb)
  let best: { score: number; reason: MatchReason } = { score: -1, reason: 'SIMILAR_WHOLE_NAME' }
  for (const ra of pa.readings)
    for (const rb of pb.readings) {
      const r = compareReadings(ra, rb)
      if (r.score > best.score) best = r
    }
  return best
}

type Relation = 'same' | 'within' | 'none' | 'different'

/** Places agree when equal or one is within the other (苏州 and 吴中), or when a side names none. */
function placeRelation(a: readonly string[], b: readonly string[]): Relation {
  if (!a.length || !b.length) return 'none'
  if (a.some((x) => b.includes(x))) return 'same'
  if (a.some((x) => b.some((y) => contains(x, y) || contains(y, x)))) return 'within'
  return 'different'
}

/** Lines of business agree when they share one (旅行社 and 旅游服务 are both travel). */
function lineRelation(a: ReadonlySet<string>, b: ReadonlySet<string>): Relation {
  if (!a.size || !b.size) return 'none'
  for (const x of a) if (b.has(x)) return 'same'
  return 'different'
}

function compareReadings(a: NameReading, b: NameReading): { score: number; reason: MatchReason } {
  const place = placeRelation(a.places, b.places)
  const line = lineRelation(a.lines, b.lines)
  const agree = place !== 'different' && line !== 'different'
  const latin = a.script === 'latin' && b.script === 'latin'
  if (a.trade === b.trade) {
    if (agree)
      return {
        score: place === 'same' ? 1 : 0.95,
        reason: latin ? 'SAME_LATIN_NAME' : 'SAME_TRADE_NAME_AND_REGION',
      }
    return {
      score: place === 'different' && line === 'different' ? 0.55 : 0.7,
      reason: latin ? 'SAME_LATIN_NAME' : 'SAME_TRADE_NAME',
    }
  }
  // A second reading (东方明珠 for 东方 + 明珠) carries a place: only its exact form, or its pinyin
  // against a Latin name, says anything; typos and homophones are the first reading's.
  // A reading without a trade name agrees only when equal (上海金山酒店管理 is not 上海宝山酒店管理).
  if (a.whole || b.whole)
    return { score: 0.49 * dice(a.trade, b.trade), reason: 'SIMILAR_WHOLE_NAME' }
  const homophone =
    a.roman !== '' && a.roman === b.roman && ((a.primary && b.primary) || a.script !== b.script)
  const written =
    homophone ||
    (a.primary &&
      b.primary &&
      a.script === b.script &&
      (latin
        ? Math.min(length(a.trade), length(b.trade)) >= TYPO_LATIN_MIN
        : typoHan(a.trade) && typoHan(b.trade)) &&
      withinOneEdit(a.trade, b.trade))
  // Two Chinese characters written with another of the same sound are one character of two
  // apart, like 云溪 and 云栖: 宏达 and 鸿达 are two common trade names. Shown below the default
  // threshold; a Latin name in pinyin cannot tell them apart and keeps the full score.
  const short =
    homophone &&
    a.script === 'han' &&
    b.script === 'han' &&
    Math.max(length(a.trade), length(b.trade)) < 3
  if (written)
    return {
      score: !agree ? 0.5 : short ? 0.7 : place === 'same' ? 0.9 : 0.85,
      reason: latin ? 'LATIN_NAME_WRITTEN_DIFFERENTLY' : 'TRADE_NAME_WRITTEN_DIFFERENTLY',
    }
  return { score: 0.49 * dice(a.trade, b.trade), reason: 'SIMILAR_WHOLE_NAME' }
}

/** Names that do not parse compare whole: equal, or one character apart. */
function compareWhole(a: Parsed, b: Parsed): { score: number; reason: MatchReason } {
  const x = a.name.normalized
  const y = b.name.normalized
  if (!a.readings.length && !b.readings.length && x && y) {
    if (x === y) return { score: 1, reason: 'SIMILAR_WHOLE_NAME' }
    if (Math.min(length(x), length(y)) >= TYPO_LATIN_MIN && withinOneEdit(x, y))
      return { score: 0.85, reason: 'SIMILAR_WHOLE_NAME' }
  }
  return { score: 0.49 * dice(x, y), reason: 'SIMILAR_WHOLE_NAME' }
}
