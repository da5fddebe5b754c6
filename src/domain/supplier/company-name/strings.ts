/*
 * String measures on code points (a Han character outside the BMP is one character), each paired
 * with the keys that find what it accepts: withinOneEdit ⇒ a shared deletion variant (short names)
 * or a shared half (long ones).
 */

/** Texts of keys are capped; a half keeps its outer end, so equal halves keep equal caps. */
const HALF_TEXT = 32

/** The variants of `s` with one character deleted, without repeats. */
export function deletions(s: string): string[] {
  const c = [...s]
  const out = new Set<string>()
  for (let i = 0; i < c.length; i++) out.add(c.slice(0, i).join('') + c.slice(i + 1).join(''))
  return [...out]
}

/**
 * Prefixes (`<`) and suffixes (`>`) of about half of `s`, for `s` of `min` characters or more. Two
 * strings one edit apart (a character changed, added, dropped, or two neighbours swapped) share
 * one of them: the edit leaves one half whole. Lengths ⌊n/2⌋ and ⌈n/2⌉ cover an added or dropped
 * character (the other string is one longer or shorter); ⌊n/2⌋−1 covers a swap across the middle
 * of an even length.
 */
export function halves(s: string, min = 6): string[] {
  const c = [...s]
  const n = c.length
  if (n < min) return []
  const f = Math.floor(n / 2)
  const lengths = new Set([f, n - f, ...(n % 2 === 0 ? [f - 1] : [])])
  const out = new Set<string>()
  for (const len of lengths) {
    out.add('<' + c.slice(0, Math.min(len, HALF_TEXT)).join(''))
    if (len !== f - 1) out.add('>' + c.slice(n - Math.min(len, HALF_TEXT)).join(''))
  }
  return [...out]
}

/** Are `a` and `b` equal, or one character changed, added, dropped, or two neighbours swapped? */
export function withinOneEdit(a: string, b: string): boolean {
  if (a === b) return true
  const x = [...a]
  const y = [...b]
  if (Math.abs(x.length - y.length) > 1) return false
  const [short, long] = x.length <= y.length ? [x, y] : [y, x]
  let i = 0
  while (i < short.length && short[i] === long[i]) i++
  const rest = (s: string[], from: number) => s.slice(from).join('')
  if (short.length < long.length) return rest(short, i) === rest(long, i + 1)
  if (rest(short, i + 1) === rest(long, i + 1)) return true
  return (
    short[i] === long[i + 1] && short[i + 1] === long[i] && rest(short, i + 2) === rest(long, i + 2)
  )
}

/** Sørensen–Dice similarity of character bigrams (single characters for one-character texts). */
export function dice(a: string, b: string): number {
  if (a === b) return a ? 1 : 0
  const grams = (s: string) => {
    const c = [...s]
    if (c.length < 2) return c
    const out: string[] = []
    for (let i = 0; i + 1 < c.length; i++) out.push(c[i] + c[i + 1])
    return out
  }
  const x = grams(a)
  const y = grams(b)
  if (!x.length || !y.length) return 0
  const counts = new Map<string, number>()
  for (const g of x) counts.set(g, (counts.get(g) ?? 0) + 1)
  let common = 0
  for (const g of y) {
    const n = counts.get(g) ?? 0
    if (n > 0) {
      common++
      counts.set(g, n - 1)
    }
  }
  return (2 * common) / (x.length + y.length)
}

/** Length in characters (code points). */
export const length = (s: string) => [...s].length
