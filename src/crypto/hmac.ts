/**
 * HMAC-SHA256 under one key, hex out: the blind indexes (`./sensitive`) and the audit trail's
 * seals (`./audit`). On Node, node:crypto's createHmac: synchronous, where WebCrypto's sign()
 * queues a job and resolves a promise for every hash (a registration makes about a dozen: about
 * 2 ms of CPU). Elsewhere (the edge build on Workers or Deno) WebCrypto, which gives the same
 * bytes. Node's module is reached through `process.getBuiltinModule`, not imported, so the
 * edge bundle holds no node:* import (test/edge.test.ts checks it).
 */
export interface Hmac {
  /** 64 lowercase hex characters. */
  hex(data: Uint8Array<ArrayBuffer>): Promise<string>
}

/** Which implementation: the runtime's fastest (`auto`), or WebCrypto whatever the runtime. */
export type HmacEngine = 'auto' | 'web'

type NodeCrypto = typeof import('node:crypto')

const nodeCrypto = (): NodeCrypto | undefined =>
  (
    globalThis as {
      process?: { getBuiltinModule?: (id: 'node:crypto') => NodeCrypto | undefined }
    }
  ).process?.getBuiltinModule?.('node:crypto')

/** Imports `raw` once as an HMAC-SHA256 key (non-extractable under WebCrypto). */
export async function hmacSha256(
  raw: Uint8Array<ArrayBuffer>,
  engine: HmacEngine = 'auto',
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
