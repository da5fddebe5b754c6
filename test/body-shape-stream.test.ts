import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  BODY_CAPS,
  bodyShapeProblem,
  MALFORMED,
  NOT_UTF8,
  readBodyText,
  type BodyCaps,
} from '../src/http/body-shape'

/**
 * The body-shape scan as it runs now, on a body as it arrives (decoded in one piece, then
 * scanned, a 48 MiB body would block the event loop for a probe's 300 ms): its verdict
 * on any text cut anywhere (inside a multi-byte character, an escape, a number, a literal) is
 * the verdict of the scan of the whole text it replaced, kept below as the reference, and a body
 * that breaks a cap is refused without the rest being read.
 */

// ---- The whole-text scan this replaced (src/http/body-shape.ts before the streaming scan). ----

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
function wholeTextScan(text: string, caps: BodyCaps): string | undefined {
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

// ---- Reading a body in pieces. ----

const encoder = new TextEncoder()

/** Caps small enough that short texts meet each of them. */
const SMALL: BodyCaps = { depth: 4, arrayItems: 3, objectKeys: 3, values: 12, stringLength: 6 }

/** `bytes` cut at `cuts` (positions, in any order, repeats allowed). */
function piecesOf(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)
  const pieces: Uint8Array[] = []
  let from = 0
  for (const cut of [...at, bytes.length]) {
    pieces.push(bytes.slice(from, cut))
    from = cut
  }
  return pieces
}

const streamOf = (pieces: Uint8Array[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const piece of pieces) controller.enqueue(piece)
      controller.close()
    },
  })

/**
 * The answer to `bytes` sent in `pieces`, compared with the whole-text scan's on the text as
 * Node decoded it (one TextDecoder, invalid bytes as U+FFFD). The verdicts agree, except on two
 * kinds of malformed text the parser refused after the whole-text scan, answered at once now
 * (still HTTP 400): a closing bracket with nothing open, and a string that is never closed and
 * is longer than the cap.
 */
async function expectSameVerdict(bytes: Uint8Array, cuts: number[], caps: BodyCaps) {
  const text = new TextDecoder().decode(bytes)
  const expected = wholeTextScan(text, caps)
  const read = await readBodyText(streamOf(piecesOf(bytes, cuts)), { caps })
  const where = `${JSON.stringify(text)} cut at ${JSON.stringify(cuts)}`
  if (!isUtf8(bytes)) {
    // Refused: as not UTF-8, or for what the text before the bad bytes already broke.
    expect(read.refusal, where).toBeDefined()
    return
  }
  if (read.refusal === undefined) {
    expect(expected, where).toBeUndefined()
    expect(read.text, where).toBe(text)
    return
  }
  if (read.refusal === expected) return
  expect(expected, where).toBeUndefined()
  expect(() => JSON.parse(text), where).toThrow()
  expect([MALFORMED, `(body): a string longer than ${caps.stringLength} characters`]).toContain(
    read.refusal,
  )
}

/** Whether these bytes are UTF-8 (a decoder that refuses anything else decodes them). */
const isUtf8 = (bytes: Uint8Array) => {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes)
    return true
  } catch {
    return false
  }
}

/** Pieces of JSON text, and bytes no encoder writes (cut or stray UTF-8 sequences). */
const TOKENS: (string | number[])[] = [
  ...['[', ']', '{', '}', '"', '"', ',', ',', ':', ' ', '\n', '\t', 'a', '1', '-12.5e+3', '0'],
  ...['true', 'false', 'null', '{}', '[]', '""', '"ab"', '"k":', '\\', '\\\\', '\\"', '\\n'],
  ...['\\u00e9', '\\ud83d\\ude00', '\\u', 'é', '供', '😀', '\u2028', '\ufeff'],
  [0xff],
  [0x80],
  [0xe4, 0xbe],
  [0xf0, 0x9f],
  [0xc3],
]

const tokenBytes = (token: string | number[]) =>
  typeof token === 'string' ? encoder.encode(token) : Uint8Array.from(token)

const concat = (parts: Uint8Array[]) => {
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const part of parts) {
    all.set(part, at)
    at += part.length
  }
  return all
}

/** Any mix of the tokens: mostly malformed, meeting every cap and every state of the scan. */
const tokenSoup = fc
  .array(fc.constantFrom(...TOKENS), { maxLength: 60 })
  .map((tokens) => concat(tokens.map(tokenBytes)))

const cutsOf = fc.array(fc.nat(), { maxLength: 12 })

describe('the streaming scan agrees with the whole-text scan', () => {
  it('on texts cut at every position and every pair of positions', async () => {
    const texts = [
      '{"a":"é供😀\\"\\u00e9x","b":[1,-2.5e3,true,null,false],"c":{}}',
      '[[[[[]]]]]',
      '[{"k":"\\\\\\"","l":[ ],"m":{ }},"\\ud83d\\ude00",12345678]',
      '{"s":"abcdef","t":"abcdefg"}',
      '[1,2,3,4]',
      '{"a":1,"b":2,"c":3,"d":4}',
      '[[1,2],[3,4],[5,6],[7,8],[9,0],[1]]',
      ']]',
      '"😀😀😀😀"',
      '"供供供供供供供',
      // A byte order mark, dropped, and any other U+FEFF, kept (Node 26's decoder, cut inside
      // the first character, dropped the next U+FEFF too).
      '\ufeff{"a":"\ufeff","b":"é\ufeff"}',
      '\ufeff\ufeff{"a":1}',
      '😀\ufeff\ufeff"}',
    ]
    for (const text of texts) {
      const bytes = encoder.encode(text)
      for (let i = 0; i <= bytes.length; i++) {
        for (const caps of [SMALL, BODY_CAPS]) await expectSameVerdict(bytes, [i], caps)
        for (let j = i; j <= bytes.length; j++) await expectSameVerdict(bytes, [i, j], SMALL)
      }
    }
  })

  it('on generated texts, valid and malformed, cut anywhere', async () => {
    await fc.assert(
      fc.asyncProperty(tokenSoup, cutsOf, async (bytes, cuts) => {
        await expectSameVerdict(bytes, cuts, SMALL)
      }),
      { numRuns: 3_000 },
    )
  })

  it('on generated JSON values (any Unicode text), cut anywhere', async () => {
    const value = fc.jsonValue({ maxDepth: 5 }).map((v) => encoder.encode(JSON.stringify(v)))
    // Escaped as some encoders write them: every non-ASCII character as \uXXXX.
    const escaped = fc
      .jsonValue({ maxDepth: 3 })
      .map((v) =>
        encoder.encode(
          JSON.stringify(v).replace(
            /[^\x20-\x7f]/g,
            (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
          ),
        ),
      )
    for (const caps of [SMALL, { ...SMALL, depth: 3, stringLength: 20, values: 40 }, BODY_CAPS]) {
      await fc.assert(
        fc.asyncProperty(fc.oneof(value, escaped), cutsOf, async (bytes, cuts) => {
          await expectSameVerdict(bytes, cuts, caps)
        }),
        { numRuns: 400 },
      )
    }
  })

  it('a body of several MiB in pieces cut inside characters is read as one decode reads it', async () => {
    const text = JSON.stringify({ approveNote: '供a😀\\"'.repeat(300_000), remark: 'é'.repeat(10) })
    const bytes = encoder.encode(text)
    const cuts = Array.from({ length: Math.ceil(bytes.length / 65_537) }, (_, i) => i * 65_537)
    const read = await readBodyText(streamOf(piecesOf(bytes, cuts)))
    // Compared as a boolean: a failure would print 4 MB of text twice.
    expect(read.refusal === undefined && read.text === text).toBe(true)
  })

  it('counts a character beyond the Basic Multilingual Plane as two, as the whole text did', () => {
    const caps = { ...BODY_CAPS, stringLength: 4 }
    expect(bodyShapeProblem('"😀😀"', caps)).toBeUndefined()
    expect(bodyShapeProblem('"😀😀a"', caps)).toBe('(body): a string longer than 4 characters')
    expect(bodyShapeProblem('"\\u00e9"', caps)).toBe('(body): a string longer than 4 characters')
  })
})

describe('a body is refused as soon as it breaks a cap', () => {
  /** A stream that gives `first`, then nothing more (a client that waits): how often it was read. */
  const stalled = (first: string) => {
    const reads = { count: 0 }
    const stream = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          reads.count++
          if (reads.count === 1) controller.enqueue(encoder.encode(first))
          else return new Promise<void>(() => {})
        },
      },
      { highWaterMark: 0 },
    )
    return { stream, reads }
  }

  it('a wide array at its 1,001st item, the rest never sent', async () => {
    const { stream } = stalled(`{"types":[${'{},'.repeat(BODY_CAPS.arrayItems + 1)}`)
    const read = await readBodyText(stream)
    expect(read.refusal).toBe(`(body): an array holds more than ${BODY_CAPS.arrayItems} items`)
  })

  it('an object at its 129th field, nesting at level 33, a closing bracket with nothing open', async () => {
    const fields = Array.from({ length: BODY_CAPS.objectKeys + 1 }, (_, i) => `"k${i}":0`)
    const keys = stalled(`{${fields.join(',')},`)
    expect((await readBodyText(keys.stream)).refusal).toBe(
      `(body): an object holds more than ${BODY_CAPS.objectKeys} fields`,
    )
    const deep = stalled('['.repeat(BODY_CAPS.depth + 1))
    expect((await readBodyText(deep.stream)).refusal).toBe(
      `(body): nested deeper than ${BODY_CAPS.depth} levels`,
    )
    const closed = stalled('{}}')
    expect((await readBodyText(closed.stream)).refusal).toBe(MALFORMED)
  })

  it('a body that arrives in one piece is scanned a slice at a time: refused all the same', async () => {
    const wide = encoder.encode(`[${'{},'.repeat(2_000_000)}{}]`)
    const read = await readBodyText(streamOf([wide]))
    expect(read.refusal).toBe(`(body): an array holds more than ${BODY_CAPS.arrayItems} items`)
  })

  it('a body whose size no header announced is refused at the first byte over its limit', async () => {
    const pieces = Array.from({ length: 5 }, () => encoder.encode(`"${'a'.repeat(998)}"`))
    expect((await readBodyText(streamOf(pieces), { limit: 5_000 })).refusal).toBeUndefined()
    expect((await readBodyText(streamOf(pieces), { limit: 4_999 })).refusal).toBe(
      'request body exceeds 4999 bytes',
    )
  })

  it('a client that goes away mid-body is answered as a malformed body', async () => {
    const broken = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode('{"a":'))
        controller.error(new Error('aborted'))
      },
    })
    expect((await readBodyText(broken)).refusal).toBe(MALFORMED)
  })

  it('bytes already read whole (a small body) get the verdict and text the same bytes streamed get', async () => {
    const texts = [
      '\ufeff{"fullName":"苏州云栖旅游服务有限公司","a":[1,2,{"b":"😀\\""}]}',
      `{"types":[${'{},'.repeat(BODY_CAPS.arrayItems + 1)}{}]}`,
      '{}}',
      '',
    ]
    for (const text of texts) {
      const bytes = encoder.encode(text)
      expect(await readBodyText(bytes)).toEqual(await readBodyText(streamOf([bytes])))
    }
    expect((await readBodyText(encoder.encode('"abc"'), { limit: 4 })).refusal).toBe(
      'request body exceeds 4 bytes',
    )
  })

  it('bytes that are not UTF-8, wherever the body is cut: refused as such, not read as U+FFFD', async () => {
    const json = encoder.encode('{"remark":"供应商"}')
    for (const bad of [[0xff], [0x80], [0xe4, 0xbe, 0x22], [0xc0, 0xaf], [0xed, 0xa0, 0x80]]) {
      const bytes = new Uint8Array([...json.subarray(0, 12), ...bad, ...json.subarray(12)])
      for (let cut = 0; cut <= bytes.length; cut++) {
        const read = await readBodyText(streamOf(piecesOf(bytes, [cut])))
        expect(read.refusal, `${JSON.stringify(bad)} cut at ${cut}`).toBe(NOT_UTF8)
      }
    }
    // A sequence cut by the end of the body.
    const cutShort = new Uint8Array([...json, 0xe4, 0xbe])
    expect((await readBodyText(cutShort)).refusal).toBe(NOT_UTF8)
  })

  it('no body is the empty text, left to the parser', async () => {
    expect(await readBodyText(null)).toEqual({ text: '' })
  })
})
