/**
 * The audit trail's keyed hashes (docs/audit-trail.md): HMAC-SHA256 under AUDIT_HMAC_KEY over
 * one canonical encoding of a sealed row, computed here and only here, for the writer and the
 * verifier alike. The HMAC (`hmacSha256`, also the blind indexes' of `./sensitive`) is
 * node:crypto's on Node, Web Crypto's elsewhere.
 */
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
 * `:`) and NULL is `~`, so no two different rows encode alike whatever their values contain. A
 * lone surrogate becomes U+FFFD, exactly as it does on its way into the database, so the writer's
 * value and the stored one encode alike. The items are joined first and encoded once: an item
 * is always followed by a length's digit or `~` and preceded by `:`, so no surrogate of one item
 * pairs with another's, and the bytes are those of encoding each item on its own (one encoding
 * where there were three per item: a registration's dozen seals were some 8 % of the service's
 * CPU under load).
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
  let text = ''
  for (const item of items) text += item === null ? '~' : `${utf8Length(item)}:${item}`
  return encoder.encode(text)
}

/** The bytes TextEncoder writes for `s`: a lone surrogate as U+FFFD, three bytes. */
export function utf8Length(s: string): number {
  let n = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x80) n += 1
    else if (c < 0x800) n += 2
    else if (c >= 0xd800 && c <= 0xdbff && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4
      i++
    } else n += 3
  }
  return n
}

/** The bytes of `parts`, one after another. */
export function concatBytes(parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
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
  static async create(base64: string, engine: CryptoEngine = 'auto'): Promise<AuditKey> {
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

// ---------------------------------------------------------------------------------------------

/**
 * HMAC-SHA256 under one key, hex out: the blind indexes (`./sensitive`) and the audit trail's
 * seals (above). On Node, node:crypto's createHmac: synchronous, where WebCrypto's sign()
 * queues a job and resolves a promise for every hash (a registration makes about a dozen: about
 * 2 ms of CPU). Elsewhere (the edge build on Workers or Deno) WebCrypto, which gives the same
 * bytes. Node's module is reached through `process.getBuiltinModule`, not imported, so the
 * edge bundle holds no node:* import (test/edge.test.ts checks it).
 */
export interface Hmac {
  /** 64 lowercase hex characters. */
  hex(data: Uint8Array<ArrayBuffer>): Promise<string>
}

/**
 * Which implementation of the HMACs and of AES-GCM (`./sensitive`): the runtime's fastest
 * (`auto`), or WebCrypto whatever the runtime.
 */
export type CryptoEngine = 'auto' | 'web'

type NodeCrypto = typeof import('node:crypto')

/** node:crypto where the runtime has it (Node), reached without an import (see above). */
export const nodeCrypto = (): NodeCrypto | undefined =>
  (
    globalThis as {
      process?: { getBuiltinModule?: (id: 'node:crypto') => NodeCrypto | undefined }
    }
  ).process?.getBuiltinModule?.('node:crypto')

/** Imports `raw` once as an HMAC-SHA256 key (non-extractable under WebCrypto). */
export async function hmacSha256(
  raw: Uint8Array<ArrayBuffer>,
  engine: CryptoEngine = 'auto',
): Promise<Hmac> {
  const node = engine === 'auto' ? nodeCrypto() : undefined
  if (node) {
    const key = node.createSecretKey(raw)
    return {
      hex: (data) => Promise.resolve(node.createHmac('sha256', key).update(data).digest('hex')),
    }
  }
  const subtle = globalThis.crypto.subtle
  const key = await subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
  return {
    async hex(data) {
      const mac = await subtle.sign('HMAC', key, data)
      let hex = ''
      for (const b of new Uint8Array(mac)) hex += b.toString(16).padStart(2, '0')
      return hex
    },
  }
}
