/**
 * Identity normalization: the canonical forms of names, tax numbers, account numbers and phones
 * that blind indexes, uniqueness and duplicate checks compare. Pure functions, no crypto.
 */

/** Maps full-width ASCII variants (U+FF01..U+FF5E) to ASCII and the ideographic space to ' '. */
export function toHalfWidth(s: string): string {
  return s.replace(/[\uFF01-\uFF5E\u3000]/g, (ch) =>
    ch === '\u3000' ? ' ' : String.fromCharCode(ch.charCodeAt(0) - 0xfee0),
  )
}

/** Half-width, trimmed, internal whitespace runs collapsed to a single space. */
export function normalizeName(s: string): string {
  return toHalfWidth(s).trim().replace(/\s+/g, ' ')
}

/** Half-width, all whitespace removed, upper-cased (`９１ａｂ 12` -> `91AB12`). */
export function normalizeTaxNo(s: string): string {
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
