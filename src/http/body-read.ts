import { BODY_CAPS, ShapeScan, type BodyCaps } from './body-shape'

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

/** A body's text, whole, or why it was refused (as HTTP 400) before all of it was read. */
export type BodyText = { text: string; refusal?: undefined } | { refusal: string }

/**
 * The text of a JSON body, read as it arrives: each piece is decoded on its own (a multi-byte
 * character cut between two pieces is joined by the decoder) and counted by ShapeScan before the
 * next is read, so that no step blocks the event loop for more than a slice's work (decoding a
 * 48 MiB body in one piece took 50 to 70 ms), and a body that breaks a cap is refused at the
 * piece that breaks it, the rest neither decoded nor kept. `limit` bounds a body whose size no
 * header announced (chunked), counted as it arrives.
 */
export async function readBodyText(
  body: ReadableStream<Uint8Array> | null,
  { limit = Infinity, caps = BODY_CAPS }: { limit?: number; caps?: BodyCaps } = {},
): Promise<BodyText> {
  const scan = new ShapeScan(caps)
  // The byte order mark is dropped here, not by the decoder: Node 26's decoder, fed a stream
  // whose first piece ends inside the first character, drops the next U+FEFF as well, and the
  // text would no longer be the one a single decode gives.
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true })
  let first = true
  const decode = (bytes?: Uint8Array) => {
    let piece = decoder.decode(bytes, { stream: bytes !== undefined })
    if (first && piece.length > 0) {
      first = false
      if (piece.charCodeAt(0) === 0xfeff) piece = piece.slice(1)
    }
    return piece
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
  if (body) {
    const reader = body.getReader()
    for (;;) {
      let read: ReadableStreamReadResult<Uint8Array>
      try {
        read = await reader.read()
      } catch {
        // The client went away mid-body: as Hono's validator answered a body it could not read.
        return { refusal: MALFORMED }
      }
      if (read.done) break
      const bytes = read.value
      size += bytes.length
      // Not read further: a client sending more than its route takes may send without end.
      if (size > limit) return { refusal: `request body exceeds ${limit} bytes` }
      for (let at = 0; at < bytes.length; at += SLICE) {
        const piece = decode(bytes.subarray(at, at + SLICE))
        keep(piece)
        const problem = scan.push(piece)
        if (problem) {
          discardRest(reader, limit - size)
          return { refusal: problem === 'malformed' ? MALFORMED : problem }
        }
      }
    }
  }
  const last = decode()
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
