/**
 * The shape a request body may have, checked on its text as it arrives, before anything is built
 * from it. Each cap is a multiple of the largest legal body of this API, so no legal body comes
 * near one, and a body made only to cost (millions of items, keys or brackets) is refused at the
 * first count too many, the rest unread: JSON.parse of a 48 MiB array of 16.7 million `{}` took
 * 42 s and 3.4 GB before the schema refused its length.
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

/** Why a body breaks a cap, as `(body): …`; undefined when it does not. */
export type ShapeProblem = string | undefined

/** The caps a scan checks, BODY_CAPS unless a test asks for others. */
export type BodyCaps = { readonly [K in keyof typeof BODY_CAPS]: number }

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d

const isWhitespace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09

/**
 * The shape of a JSON text counted as it arrives, piece by piece, so that a body is judged
 * while it is read and refused at its first count too many (a wide array at its 1,001st item)
 * without the rest being read or decoded. Each piece is scanned in time linear in its length,
 * whatever came before; nothing depends on where the text was cut: inside a string, between a
 * backslash and the character it escapes, between an opening bracket and what follows it.
 *
 * What is counted: depth at each opening bracket, the items of an array and the fields of an
 * object at each comma (one member as soon as a container holds anything), the values of the body
 * at each of those, and the characters of each string as written (escapes counted as written).
 * Brackets and commas inside strings are text. Malformed text is left to the parser, except a
 * closing bracket with nothing open, which no JSON text holds (`malformed`: the parser's answer
 * can be given at once).
 */
export class ShapeScan {
  /** Per open container (index = its depth): whether it is an array, its members so far. */
  private readonly isArray: boolean[] = []
  private readonly members: number[] = []
  private depth = 0
  private values = 1
  private inString = false
  /** Characters of the open string so far, as written. */
  private stringLength = 0
  /** The last piece ended inside a string, on the backslash of an escape. */
  private escaping = false
  /** A container just opened: whether it is empty depends on the next significant character. */
  private opened = false
  /** The first problem; once set (or once the text is known malformed), the rest is not read. */
  private verdict: ShapeProblem | 'malformed'

  constructor(private readonly caps: BodyCaps = BODY_CAPS) {}

  /** Scans the next piece of the text: the verdict so far, undefined to read on. */
  push(text: string): ShapeProblem | 'malformed' {
    if (this.verdict) return this.verdict
    const caps = this.caps
    const n = text.length
    // The next quote and backslash at or after a position, each searched again only once passed:
    // searches over disjoint stretches, so a piece costs its length (a search per string to the
    // next backslash of the piece cost the square of it).
    let quote = -1
    let backslash = -1
    const structural = /[[\]{}",]/g
    let i = 0
    while (i < n) {
      if (this.inString) {
        // The character after a backslash that ended the last piece is escaped: not the end.
        const from = this.escaping ? i + 1 : i
        this.escaping = false
        if (quote < from) quote = text.indexOf('"', from)
        if (quote < 0) quote = n
        if (backslash < from) backslash = text.indexOf('\\', from)
        if (backslash < 0) backslash = n
        let end = quote
        if (backslash < quote) {
          // Walked from the first backslash to the closing quote, which costs the same whatever
          // the escapes (a search per escape took 1.6 s on 48 MiB of escaped quotes).
          for (end = backslash; end < n; end++) {
            const c = text.charCodeAt(end)
            if (c === BACKSLASH) end++
            else if (c === QUOTE) break
          }
          // The piece ended on a backslash: the next one starts with what it escapes.
          if (end > n) this.escaping = true
          end = Math.min(end, n)
        }
        this.stringLength += end - i
        if (this.stringLength > caps.stringLength) return this.tooLong()
        i = end + 1
        if (end < n) this.inString = false
        continue
      }
      if (this.opened) {
        while (i < n && isWhitespace(text.charCodeAt(i))) i++
        if (i === n) break
        const problem = this.firstMember(text.charCodeAt(i))
        if (problem) return (this.verdict = problem)
      }
      structural.lastIndex = i
      const m = structural.exec(text)
      if (!m) break
      i = m.index + 1
      const c = text.charCodeAt(m.index)
      if (c === QUOTE) {
        this.inString = true
        this.stringLength = 0
      } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
        if (++this.depth > caps.depth) {
          return (this.verdict = `(body): nested deeper than ${caps.depth} levels`)
        }
        this.isArray[this.depth] = c === OPEN_ARRAY
        this.opened = true
      } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
        if (--this.depth < 0) return (this.verdict = 'malformed')
      } else if (c === COMMA && this.depth > 0) {
        const depth = this.depth
        const array = this.isArray[depth]
        const members = ++this.members[depth]
        if (array ? members > caps.arrayItems : members > caps.objectKeys) {
          return (this.verdict = array
            ? `(body): an array holds more than ${caps.arrayItems} items`
            : `(body): an object holds more than ${caps.objectKeys} fields`)
        }
        if (++this.values > caps.values) return (this.verdict = this.tooManyValues())
      }
    }
    return undefined
  }

  /** The verdict on the whole text, once it has all been pushed. */
  end(): ShapeProblem | 'malformed' {
    // A bracket that ends the text opens a container that is not empty, as far as counts go.
    if (!this.verdict && this.opened) this.verdict = this.firstMember(-1)
    return this.verdict
  }

  /**
   * The first significant character after an opening bracket: its own closing bracket leaves
   * the container empty; anything else is its first member, and one more value.
   */
  private firstMember(c: number): ShapeProblem {
    this.opened = false
    const empty = c === (this.isArray[this.depth] ? CLOSE_ARRAY : CLOSE_OBJECT)
    this.members[this.depth] = empty ? 0 : 1
    if (!empty && ++this.values > this.caps.values) return this.tooManyValues()
    return undefined
  }

  private tooManyValues() {
    return `(body): more than ${this.caps.values} values`
  }

  private tooLong() {
    return (this.verdict = `(body): a string longer than ${this.caps.stringLength} characters`)
  }
}

/**
 * The first cap of `caps` that JSON `text` breaks (`malformed` for a closing bracket with
 * nothing open), in one pass that stops there: ShapeScan on the whole text at once.
 */
export function bodyShapeProblem(text: string, caps: BodyCaps = BODY_CAPS) {
  const scan = new ShapeScan(caps)
  return scan.push(text) ?? scan.end()
}

// ---- Reading a body. ----

/** The answer to a body whose bytes are not UTF-8 (RFC 8259 §8.1: JSON text is UTF-8). */
export const NOT_UTF8 = '(body): not valid UTF-8'

/** The parser's answer to a body that is not JSON (Hono's validator's, kept). */
export const MALFORMED = 'Malformed JSON in request body'

/**
 * Bytes decoded and scanned at a time. A socket delivers about this much per read; a body that
 * arrives in one piece (a test's Request, a runtime that buffers) is cut to it, so that a
 * refusal still stops after the slice that earns it.
 */
const SLICE = 64 * 1024

/**
 * Text from which on a body's remaining steps (joining its pieces, JSON.parse, the walk for
 * unstorable text, the schema) each run as a task of their own, not one after another in one
 * block: for a legal body of tens of MiB, each is tens of ms.
 */
export const LARGE_TEXT = 1024 * 1024

/** Lets the event loop serve what waits (a liveness probe) before the next step. */
export const breathe = () => new Promise<void>((resolve) => setTimeout(resolve, 0))

/**
 * Decoded pieces are kept joined in strings of about this length: a string this long is
 * allocated outside the young generation, which a small one kept for the whole body would
 * survive, copied at each scavenge (pauses of 10 to 20 ms with two 48 MiB bodies in flight).
 */
const KEPT = 1024 * 1024

/**
 * A body's text, whole, or why it was refused (as HTTP 400) before all of it was read;
 * `overLimit` when that is its route's limit.
 */
export type BodyText =
  | { text: string; refusal?: undefined; overLimit?: undefined }
  | { refusal: string; overLimit?: boolean }

/**
 * The text of a JSON body, read as it arrives: each piece is decoded on its own (a multi-byte
 * character cut between two pieces is joined by the decoder) and counted by ShapeScan before the
 * next is read, so that no step blocks the event loop for more than a slice's work (decoding a
 * 48 MiB body in one piece took 50 to 70 ms), and a body that breaks a cap is refused at the
 * piece that breaks it, the rest neither decoded nor kept. `limit` bounds a body whose size no
 * header announced (chunked), counted as it arrives.
 */
export async function readBodyText(
  body: ReadableStream<Uint8Array> | Uint8Array | null,
  { limit = Infinity, caps = BODY_CAPS }: { limit?: number; caps?: BodyCaps } = {},
): Promise<BodyText> {
  const scan = new ShapeScan(caps)
  // The byte order mark is dropped here, not by the decoder: Node 26's decoder, fed a stream
  // whose first piece ends inside the first character, drops the next U+FEFF as well, and the
  // text would no longer be the one a single decode gives.
  // Bytes that are not UTF-8 are refused, not replaced by U+FFFD and stored as if sent.
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true, fatal: true })
  let first = true
  const decode = (bytes?: Uint8Array) => {
    let piece = decoder.decode(bytes, { stream: bytes !== undefined })
    if (first && piece.length > 0) {
      first = false
      if (piece.charCodeAt(0) === 0xfeff) piece = piece.slice(1)
    }
    return piece
  }
  const decodeOrRefuse = (bytes?: Uint8Array) => {
    try {
      return decode(bytes)
    } catch {
      return undefined
    }
  }
  /** The text so far: joined strings of about KEPT characters, and the pieces since. */
  const kept: string[] = []
  const recent: string[] = []
  let recentLength = 0
  const keep = (piece: string) => {
    recent.push(piece)
    recentLength += piece.length
    if (recentLength < KEPT) return
    kept.push(recent.join(''))
    recent.length = 0
    recentLength = 0
  }
  let size = 0
  // Bytes already read (bodyTextOf's small body) are one piece of a stream that ends after it.
  const reader = body instanceof Uint8Array ? undefined : body?.getReader()
  let whole = body instanceof Uint8Array ? body : undefined
  while (reader || whole) {
    let bytes: Uint8Array
    if (reader) {
      let read: ReadableStreamReadResult<Uint8Array>
      try {
        read = await reader.read()
      } catch {
        // The client went away mid-body: as Hono's validator answered a body it could not read.
        return { refusal: MALFORMED }
      }
      if (read.done) break
      bytes = read.value
    } else {
      bytes = whole as Uint8Array
      whole = undefined
    }
    size += bytes.length
    // Not read further: a client sending more than its route takes may send without end.
    if (size > limit) return { refusal: `request body exceeds ${limit} bytes`, overLimit: true }
    for (let at = 0; at < bytes.length; at += SLICE) {
      // A piece far larger than a socket's (a body built in-process, a runtime that buffers)
      // lets what waits be served every MiB, as the pieces of a socket would.
      if (at > 0 && at % KEPT === 0) await breathe()
      const piece = decodeOrRefuse(bytes.subarray(at, at + SLICE))
      if (piece === undefined) {
        if (reader) discardRest(reader, limit - size)
        return { refusal: NOT_UTF8 }
      }
      keep(piece)
      const problem = scan.push(piece)
      if (problem) {
        if (reader) discardRest(reader, limit - size)
        return { refusal: problem === 'malformed' ? MALFORMED : problem }
      }
    }
  }
  const last = decodeOrRefuse()
  if (last === undefined) return { refusal: NOT_UTF8 }
  keep(last)
  const problem = scan.push(last) ?? scan.end()
  if (problem) return { refusal: problem === 'malformed' ? MALFORMED : problem }
  if (size > LARGE_TEXT) await breathe()
  return { text: kept.join('') + recent.join('') }
}

/**
 * Reads the rest of a refused body and drops it, up to `most` bytes more (what its route takes,
 * the announced length having been checked), so that the answer is not followed by a reset: a
 * client still sending would otherwise meet a socket closed with its bytes unread (and lose the
 * answer with it), and a keep-alive connection could not carry the next request. Cancelling the
 * stream instead destroys the socket (Node) before the answer is written.
 */
function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>, most: number) {
  void (async () => {
    let left = most
    for (;;) {
      const read = await reader.read()
      if (read.done) return
      left -= read.value.length
      if (left < 0) {
        reader.releaseLock()
        return
      }
    }
  })().catch(() => {
    // The client closed the connection: nothing left to drop.
  })
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

/**
 * The limit of each request's body (limitBodies) and the size it announced, if it did. The body
 * itself is read only by its route's validator, after authentication (bodyTextOf).
 */
const limits = new WeakMap<object, { limit: number; announced?: number }>()

/**
 * Records how many bytes this request's body may have, and the size its headers announced
 * (a length without a transfer coding, as limitBodies in http/body-limit.ts reads them); none
 * for a body that announces no size, which is counted against `limit` as it arrives.
 */
export function limitBody(c: { req: { raw: Request } }, limit: number, announced?: number) {
  limits.set(c, { limit, announced })
}

/** Requests whose body is being read: what they wait for is their client's bytes. */
const arriving = new WeakSet<object>()

/**
 * Whether this request waits for its own client to send the rest of its body: at the request
 * deadline, that is the client's delay (HTTP 408), not the service's (http/deadline.ts).
 */
export const bodyArriving = (c: object) => arriving.has(c)

/**
 * The body of this request, read once, now. A body that announces
 * at most a slice is read whole by the runtime (`arrayBuffer()`: Hono's Node adapter then reads
 * the socket's stream itself, with its own handling of a client that goes away, where `body`
 * builds a whole web Request and a web stream over it: 3.9 % of the service's one thread at 16
 * registering clients) and scanned as one piece before anything is built from it; what
 * it may hold is bounded by the length it announced, which Node's parser enforces. Anything
 * larger is read as it arrives.
 */
export const bodyTextOf = (c: { req: { raw: Request } }): Promise<BodyText> => {
  const { raw } = c.req
  const { limit, announced } = limits.get(c) ?? {}
  arriving.add(c)
  const read =
    announced !== undefined && announced <= SLICE
      ? raw.arrayBuffer().then(
          (bytes) => readBodyText(new Uint8Array(bytes), { limit }),
          // The client went away mid-body, as a stream's read answers it.
          (): BodyText => ({ refusal: MALFORMED }),
        )
      : readBodyText(raw.body, { limit })
  return read.finally(() => arriving.delete(c))
}
