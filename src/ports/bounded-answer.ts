/** An answer read to the end would be too long, or is not UTF-8: not an answer to act on. */
export class UnreadableAnswer extends Error {}

/**
 * A dependency's answer body as text, refusing more than `limit` bytes: a runaway answer is not
 * read to the end, so neither memory nor the JSON parser pays for it. A stream that fails (a
 * timeout, a dropped connection) rejects with its own error, not UnreadableAnswer.
 */
export async function readLimited(res: Response, limit: number): Promise<string> {
  if (!res.body) return ''
  const reader = res.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limit) {
      await reader.cancel()
      throw new UnreadableAnswer(`answer longer than ${limit} bytes`)
    }
    chunks.push(value)
  }
  const all = new Uint8Array(size)
  let at = 0
  for (const c of chunks) {
    all.set(c, at)
    at += c.byteLength
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(all)
  } catch {
    throw new UnreadableAnswer('answer is not UTF-8')
  }
}
