/**
 * The shape a request body may have, checked on its text before anything is built from it. Each
 * cap is a multiple of the largest legal body of this API, so no legal body comes near one, and
 * a body made only to cost (millions of items, keys or brackets) is refused in one pass that
 * stops at the first count too many: JSON.parse of a 48 MiB array of 16.7 million `{}` took
 * 42 s and 3.4 GB before the schema refused its length (issue 25 §1).
 */
export const BODY_CAPS = {
  /**
   * Arrays and objects inside one another, the body itself being level 1. The deepest legal body
   * is 4 levels (an account's `proofFileUrls` inside a batch); 8,000 levels fit in 16 KB.
   */
  depth: 32,
  /**
   * Items of one array. The largest lists are ours at 100 (contacts, qualifications,
   * contracts, evaluations and qualification rules, `LIMITS.collectionItems` and `MAX_RULES`);
   * the spec's are 50 accounts, 20 proof URLs and 15 types. Ten times the largest.
   */
  arrayItems: 1_000,
  /**
   * Fields of one object (a repeated name counts each time). The widest object, a supplier's
   * update or submit request, has fewer than 30 fields.
   */
  objectKeys: 128,
  /**
   * Values in the whole body, the body itself, every item and every field's value. The largest
   * legal body is an update carrying four collections of 100 items of under ten fields each, and
   * twenty initial accounts of some thirty values each: fewer than 5,000 values.
   */
  values: 20_000,
  /**
   * Characters of one string as written (escapes counted as written). The longest legal strings
   * are approveNote and remark, 16,777,215 UTF-8 bytes: at most 16,777,215 characters written
   * plainly, 33,554,430 when each 3-byte character is escaped as `\uXXXX` (Python's default).
   * A longer one in a 48 MiB body is refused before it is parsed (a second's work otherwise).
   */
  stringLength: 33_554_432,
} as const

/** Why `text` breaks a cap, as `(body): …`; undefined when it does not. */
export type ShapeProblem = string | undefined

const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d

/**
 * Where the string that starts at `from` (after its opening quote) ends: its closing quote. A
 * string without a backslash is found by one search; one with escapes is walked character by
 * character from its first, which costs the same whatever the escapes (a search per escaped
 * quote took 1.6 s on 48 MiB of them), and no further than `longest` characters.
 */
function stringEnd(text: string, from: number, longest: number): number {
  const quote = text.indexOf('"', from)
  if (quote < 0) return -1
  // Searched within the string only: a search to the next backslash of the body, per string,
  // cost the square of the body.
  const backslash = text.slice(from, quote).indexOf('\\')
  if (backslash < 0) return quote
  const last = Math.min(text.length, from + longest + 1)
  for (let i = from + backslash; i < last; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x5c) i++
    else if (c === 0x22) return i
  }
  // Past the longest string allowed: where it ends no longer matters.
  return last < text.length ? last : -1
}

/** The next character that is not JSON whitespace, from `from`. */
function nextSignificant(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return c
  }
  return -1
}

/**
 * The first cap of `caps` that JSON `text` breaks, read from the text itself in one pass that
 * stops there, before JSON.parse or any walk of a parsed value: depth at each opening bracket,
 * the items of an array and the fields of an object at each comma, the values of the body at
 * each comma too. Brackets and commas inside strings do not count. Malformed text is left for
 * the parser to refuse (the counts of malformed text mean nothing, and stop at nothing worse).
 */
export function bodyShapeProblem(
  text: string,
  caps: {
    depth: number
    arrayItems: number
    objectKeys: number
    values: number
    stringLength: number
  } = BODY_CAPS,
): ShapeProblem {
  const structural = /[[\]{}",]/g
  // Per open container: whether it is an array, and how many members it has so far.
  const isArray: boolean[] = []
  const members: number[] = []
  let depth = 0
  let values = 1
  for (let m = structural.exec(text); m; m = structural.exec(text)) {
    const c = text.charCodeAt(m.index)
    if (c === 0x22) {
      const end = stringEnd(text, m.index + 1, caps.stringLength)
      if (end < 0) return undefined
      if (end - m.index - 1 > caps.stringLength) {
        return `(body): a string longer than ${caps.stringLength} characters`
      }
      structural.lastIndex = end + 1
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > caps.depth) return `(body): nested deeper than ${caps.depth} levels`
      const array = c === OPEN_ARRAY
      const next = nextSignificant(text, m.index + 1)
      const empty = next === (array ? CLOSE_ARRAY : CLOSE_OBJECT)
      isArray[depth] = array
      members[depth] = empty ? 0 : 1
      if (!empty && ++values > caps.values) return `(body): more than ${caps.values} values`
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      if (--depth < 0) return undefined
    } else if (depth > 0) {
      // A comma: one more member of the innermost open container.
      const n = ++members[depth]
      if (isArray[depth] ? n > caps.arrayItems : n > caps.objectKeys) {
        return isArray[depth]
          ? `(body): an array holds more than ${caps.arrayItems} items`
          : `(body): an object holds more than ${caps.objectKeys} fields`
      }
      if (++values > caps.values) return `(body): more than ${caps.values} values`
    }
  }
  return undefined
}

/** The depth cap alone, as the OpenAPI document names it. */
export const MAX_BODY_DEPTH = BODY_CAPS.depth

export const KiB = 1024
export const MiB = 1024 * KiB

/**
 * The size a route's body may have: a number of bytes, or `large` for the routes whose schema
 * holds a 16 MiB `approveNote` or `remark` (the spec's bound), which take the configured
 * BODY_LIMIT_BYTES (48 MiB: both notes and the rest of the form). A number is derived, beside
 * the route, from its schema's largest legal body written as a client's JSON encoder may write
 * it: every character of a bounded text escaped as `\uXXXX` (6 bytes, Python's default), every
 * list at its bound; the configured limit caps it too.
 */
export type BodySize = number | 'large'

const declared = new WeakMap<object, BodySize>()

/** Records on a route's body validator how large its body may be; returns the validator. */
export function declareBody<M extends object>(validator: M, size: BodySize): M {
  declared.set(validator, size)
  return validator
}

/** The size a handler (a route's body validator) declares, if it is one. */
export const declaredBodySize = (handler: object): BodySize | undefined => declared.get(handler)
