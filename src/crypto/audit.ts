/**
 * The audit trail's keyed hashes (docs/audit-trail.md): HMAC-SHA256 under AUDIT_HMAC_KEY over
 * one canonical encoding of a sealed row, computed here and only here, for the writer and the
 * verifier alike. HMAC by `./hmac` (node:crypto on Node, Web Crypto elsewhere).
 */
import { hmacSha256, type Hmac, type HmacEngine } from './hmac'

/** What one hash covers: the row's stored values and its place in its chain. */
export interface SealInput {
  /** `change_log` or `approval_log`: a row cannot pass for a row of the other table. */
  table: string
  chain: string
  /** The row's place in its chain, from 1 (a decimal string: a bigint column). */
  seq: string
  /** The hash of the row at seq − 1, or '' for the first. */
  prev: string
  /**
   * The row's columns, each as the database renders it as text (ids and numbers in decimal,
   * times in UTC to the microsecond, jsonb as PostgreSQL prints it, ciphertexts as stored), in
   * the order its table's column list in `sql/audit-trail.ts` gives; NULL stays null.
   */
  fields: readonly (string | null)[]
}

/** Changes only with a new encoding, which a verifier would then have to tell apart. */
const FORMAT = 'audit-v1'

const encoder = new TextEncoder()

/**
 * The bytes an audit hash covers. Every item is length-prefixed (its UTF-8 byte length, then
 * `:`) and NULL is `~`, so no two different rows encode alike whatever their values contain.
 * Strings are encoded one by one, so a lone surrogate becomes U+FFFD exactly as it does on
 * its way into the database, and the writer's value and the stored one encode alike.
 */
export function canonicalSeal(input: SealInput): Uint8Array<ArrayBuffer> {
  const items: (string | null)[] = [
    FORMAT,
    input.table,
    input.chain,
    input.seq,
    input.prev,
    String(input.fields.length),
    ...input.fields,
  ]
  const parts = items.map((item) => {
    if (item === null) return encoder.encode('~')
    const bytes = encoder.encode(item)
    const head = encoder.encode(`${bytes.length}:`)
    const out = new Uint8Array(head.length + bytes.length)
    out.set(head)
    out.set(bytes, head.length)
    return out
  })
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

export class AuditKeyError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'AuditKeyError'
  }
}

const MIN_KEY_BYTES = 32

/** The audit trail's HMAC key, imported once (non-extractable under WebCrypto). */
export class AuditKey {
  private constructor(private readonly key: Hmac) {}

  /** @throws AuditKeyError when the key is not base64 of at least 32 bytes. */
  static async create(base64: string, engine: HmacEngine = 'auto'): Promise<AuditKey> {
    let binary: string
    try {
      binary = atob(base64)
    } catch {
      throw new AuditKeyError('audit key is not valid base64')
    }
    if (binary.length < MIN_KEY_BYTES) {
      throw new AuditKeyError(`audit key must be at least ${MIN_KEY_BYTES} bytes`)
    }
    const raw = new Uint8Array(binary.length)
    for (let i = 0; i < binary.length; i++) raw[i] = binary.charCodeAt(i)
    return new AuditKey(await hmacSha256(raw, engine))
  }

  /** The row's hash: 64 lowercase hex characters. */
  seal(input: SealInput): Promise<string> {
    return this.key.hex(canonicalSeal(input))
  }
}
