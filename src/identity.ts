/**
 * Identity normalization: the canonical forms of names, tax numbers, account numbers and phones
 * that blind indexes, uniqueness and duplicate checks compare. Pure functions, no crypto.
 */

import unhomoglyph from 'unhomoglyph'

/** Maps full-width ASCII variants (U+FF01..U+FF5E) to ASCII and the ideographic space to ' '. */
export function toHalfWidth(s: string): string {
  return s.replace(/[\uFF01-\uFF5E\u3000]/g, (ch) =>
    ch === '\u3000' ? ' ' : String.fromCharCode(ch.charCodeAt(0) - 0xfee0),
  )
}

/**
 * One character a reader cannot see: whitespace, a default-ignorable code point (zero-width
 * space and joiners, word joiner, variation selectors, Hangul fillers, tag characters) or a
 * format character (soft hyphen, byte order mark, bidirectional controls).
 */
const INVISIBLE = /^[\p{White_Space}\p{Default_Ignorable_Code_Point}\p{Cf}]$/u
const LEADING_INVISIBLES = /^[\p{White_Space}\p{Default_Ignorable_Code_Point}\p{Cf}]+/u

/**
 * A name without the invisible characters around it, so that one made only of them is empty,
 * as a whitespace-only one is: U+200B alone is no name. Inside a name they stay (a joiner can
 * belong to a word or an emoji). Linear in the length, also on a long run of them.
 */
export function trimName(s: string): string {
  const start = s.replace(LEADING_INVISIBLES, '')
  let end = start.length
  while (end > 0) {
    // The last code point: a surrogate pair counts as one (tag characters are astral).
    const low = start.charCodeAt(end - 1)
    const pair = low >= 0xdc00 && low <= 0xdfff && end > 1 ? start.charCodeAt(end - 2) : 0
    const size = pair >= 0xd800 && pair <= 0xdbff ? 2 : 1
    if (!INVISIBLE.test(start.slice(end - size, end))) break
    end -= size
  }
  return start.slice(0, end)
}

/** Half-width, trimmed of invisible characters, internal whitespace runs collapsed to a space. */
export function normalizeName(s: string): string {
  return trimName(toHalfWidth(s)).replace(/\s+/g, ' ')
}

/**
 * The Latin letter(s) a non-ASCII letter is drawn like, by Unicode's confusables (UTS #39,
 * confusables.txt, through the `unhomoglyph` package): Cyrillic `А` and Greek `Α` -> `A`, Cyrillic
 * `м` -> `m`; undefined when it looks like no Latin letter (a Han character, Cyrillic `Ж`). An
 * upper-case letter whose prototype is `l` (Greek `Ι`, Cyrillic `І`) is the capital `I`.
 */
function latinLookalike(c: string): string | undefined {
  for (const form of c === c.toUpperCase() ? [c] : [c, c.toUpperCase()]) {
    const prototype = unhomoglyph(form)
    if (prototype === 'l' && form !== form.toLowerCase()) return c === form ? 'I' : 'i'
    if (/^[A-Za-z0-9]+$/.test(prototype)) return c === form ? prototype : prototype.toLowerCase()
  }
  return undefined
}

/**
 * Characters of the Latin (not ASCII), Greek and Cyrillic scripts that look like a Latin letter,
 * written as that letter; everything else, ASCII included, as it is. ASCII is left alone on
 * purpose: TR39's skeleton maps `0` to `O` and `1` to `l`, distinctions a tax number keeps.
 */
export function latinLookalikes(s: string): string {
  return s.replace(LOOKALIKE_SCRIPTS, (c) => (c < '\u0080' ? c : (latinLookalike(c) ?? c)))
}
const LOOKALIKE_SCRIPTS = /[\p{Script=Cyrillic}\p{Script=Greek}\p{Script=Latin}]/gu
const NOT_LETTER_OR_DIGIT = /[^\p{L}\p{N}]+/gu

/**
 * The one form of a tax number that identity compares (C-02's blind index, the stored value, the
 * check-character rules): NFKC (full-width `９１` -> `91`), every character that is not a letter
 * or digit removed (white space, zero-width and format characters, soft hyphens, hyphens, dots,
 * slashes), upper case, and letters drawn like Latin ones written as those (Cyrillic `А`, Greek
 * `Μ`). `９１３３-０１０６ ma\u200Btm` and `91330106MATM` are one number.
 */
export function normalizeTaxNo(s: string): string {
  const letters = s.normalize('NFKC').replace(NOT_LETTER_OR_DIGIT, '').toUpperCase()
  return latinLookalikes(letters).toUpperCase().normalize('NFKC').replace(NOT_LETTER_OR_DIGIT, '')
}

/**
 * The form numbers were stored in before look-alike characters were folded (half-width, white
 * space removed, upper case): a row the backfill has not rewritten yet holds its blind index.
 */
export function taxNoFormBefore(s: string): string {
  return toHalfWidth(s).replace(/\s+/g, '').toUpperCase()
}

/** Half-width with whitespace and hyphens removed (`6222-0212 3456` -> `622202123456`). */
export function normalizeAccountNo(s: string): string {
  return toHalfWidth(s).replace(/[\s-]+/g, '')
}

/** Half-width and trimmed; formatting inside the number is kept for validation to judge. */
export function normalizePhone(s: string): string {
  return toHalfWidth(s).trim()
}
