import { latinLookalikes } from '../../../identity'
import { toSimplified } from './dictionaries'

/** CJK unified ideographs and their extensions (compatibility ones are folded by NFKC). */
const isHan = (cp: number) =>
  (cp >= 0x4e00 && cp <= 0x9fff) ||
  (cp >= 0x3400 && cp <= 0x4dbf) ||
  (cp >= 0x20000 && cp <= 0x3134f)

/** Characters a reader cannot see: default-ignorable (zero-width, joiners) and format ones. */
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}]/gu

/**
 * What every name goes through first: compatibility forms folded (full-width letters, digits and
 * brackets, ㈱, compatibility ideographs: NFKC), invisible characters dropped (U+200B, U+2060,
 * the soft hyphen), Cyrillic, Greek and other letters drawn like Latin ones written as those
 * (`latinLookalikes`: Unicode's confusables), traditional and variant characters made
 * simplified, accents dropped (Société → societe), lower case, and every kind of bracket written
 * as ( ). The script decides how the rest is read: two Han characters make a Chinese name.
 */
export function normalizeName(name: string): { text: string; script: 'han' | 'latin' | 'other' } {
  let s = toSimplified(latinLookalikes(name.normalize('NFKC').replace(INVISIBLE, '')))
  s = s
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .normalize('NFC')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/[[{【〔〖「『《〈]/g, '(')
    .replace(/[\]}】〕〗」』》〉]/g, ')')
  let han = 0
  let latin = 0
  for (const c of s) {
    const cp = c.codePointAt(0) ?? 0
    if (isHan(cp)) han++
    else if (cp >= 0x61 && cp <= 0x7a) latin++
  }
  return { text: s, script: han >= 2 ? 'han' : latin > 0 ? 'latin' : 'other' }
}

/** A Chinese name keeps Han characters, letters, digits and brackets; spaces and marks go. */
export const hanText = (s: string) => s.replace(/[^\p{Script=Han}a-z0-9()]/gu, '')

/**
 * A Latin name as words: a web address one word (Trip.com → tripcom), dotted abbreviations joined
 * (L.L.C. → llc, Co.,Ltd. → co ltd), & read
 * as and, apostrophes dropped (O'Brien → obrien), anything else not a letter or digit a space.
 */
export function latinWords(s: string): string[] {
  return s
    .replace(/\.(com|net|org|cn|hk|io)\b/g, '$1')
    .replace(/\b(?:[a-z]\.){2,}/g, (m) => m.replace(/\./g, '') + ' ')
    .replace(/&/g, ' and ')
    .replace(/['’`]/g, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
}

/** Any other script: letters and digits only. */
export const otherText = (s: string) => s.replace(/[^\p{L}\p{N}]/gu, '')
