/**
 * How deep a request body may nest: arrays and objects inside one another, the body itself being
 * level 1. The deepest body of this API is 4 levels (an account's `proofFileUrls` inside a
 * batch); this leaves room for growth and refuses, before anything walks it, a body whose depth
 * only serves to exhaust a stack or a CPU (8,000 levels fit in 16 KB).
 */
export const MAX_BODY_DEPTH = 32

/**
 * Whether JSON `text` nests arrays and objects deeper than `max`, read from the text itself in
 * one pass that stops at the first level too many, before JSON.parse (which takes seconds on a
 * body made of millions of brackets) or any walk of the parsed value. Brackets inside strings do
 * not count; malformed text is left for the parser to refuse.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  const structural = /[[\]{}"]/g
  let depth = 0
  for (let m = structural.exec(text); m; m = structural.exec(text)) {
    const ch = m[0]
    if (ch === '"') {
      // Skip the string: to the next quote that an even run of backslashes precedes.
      let end = m.index
      for (;;) {
        end = text.indexOf('"', end + 1)
        if (end < 0) return false
        let backslashes = 0
        while (text.charCodeAt(end - 1 - backslashes) === 0x5c) backslashes++
        if (backslashes % 2 === 0) break
      }
      structural.lastIndex = end + 1
    } else if (ch === '[' || ch === '{') {
      if (++depth > max) return true
    } else {
      depth--
    }
  }
  return false
}
