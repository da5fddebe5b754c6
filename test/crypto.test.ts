import { beforeAll, describe, expect, it } from 'vitest'
import {
  createCipher,
  maskAccountNo,
  maskCertNo,
  maskPhone,
  maskTaxNo,
  maskText,
  SensitiveCipher,
  SensitiveCryptoError,
  utf8Bytes,
  type CryptoConfig,
} from '../src/crypto/sensitive'
import { canonicalSeal, concatBytes } from '../src/crypto/audit'
import {
  normalizeAccountNo,
  normalizeName,
  normalizePhone,
  normalizeTaxNo,
  toHalfWidth,
} from '../src/identity'

const TAX_NO = '91330106MA2KXY712Q'
const PHONE = '13812345678'
const ACCOUNT_NO = '6222 0212 3456 7890 123'
const OPINION = '同意，资质齐全'

function randomKey(bytes = 32): string {
  let binary = ''
  for (const b of crypto.getRandomValues(new Uint8Array(bytes))) binary += String.fromCharCode(b)
  return btoa(binary)
}

function config(keys: Record<string, string>, activeKeyId: string, blindIndexKey: string) {
  return {
    keys: new Map(Object.entries(keys)),
    activeKeyId,
    blindIndexKey,
    auditKey: randomKey(),
  } satisfies CryptoConfig
}

describe('SensitiveCipher', () => {
  const k1 = randomKey()
  const k2 = randomKey()
  const blindKey = randomKey()
  let cipher: SensitiveCipher

  beforeAll(async () => {
    cipher = await createCipher(config({ k1 }, 'k1', blindKey))
  })

  it('round-trips real-looking values', async () => {
    for (const value of [TAX_NO, PHONE, ACCOUNT_NO, OPINION, '😀 emoji', '', 'x'.repeat(100_000)]) {
      expect(await cipher.decrypt(await cipher.encrypt(value))).toBe(value)
    }
  })

  it('produces a self-describing v1 token that never contains the plaintext', async () => {
    for (const value of [TAX_NO, PHONE, ACCOUNT_NO]) {
      const token = await cipher.encrypt(value)
      expect(token).toMatch(/^v1\.k1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/)
      expect(token).not.toContain(value)
      expect(token).not.toContain(value.replace(/\s/g, ''))
    }
  })

  it('uses a fresh IV per encryption', async () => {
    const a = await cipher.encrypt(TAX_NO)
    const b = await cipher.encrypt(TAX_NO)
    expect(a).not.toBe(b)
    expect(a.split('.')[2]).not.toBe(b.split('.')[2])
  })

  it('reads old ciphertext after rotation and writes with the new key', async () => {
    const old = await cipher.encrypt(TAX_NO)
    const rotated = await createCipher(config({ k1, k2 }, 'k2', blindKey))
    expect(await rotated.decrypt(old)).toBe(TAX_NO)
    const fresh = await rotated.encrypt(TAX_NO)
    expect(fresh.startsWith('v1.k2.')).toBe(true)
    expect(await rotated.decrypt(fresh)).toBe(TAX_NO)
    await expect(cipher.decrypt(fresh)).rejects.toThrow(/unknown encryption key id "k2"/)
  })

  it('rejects tampered ciphertext without echoing anything secret', async () => {
    const token = await cipher.encrypt(TAX_NO)
    const [v, id, iv, data] = token.split('.') as [string, string, string, string]
    const flip = (s: string, i: number) =>
      s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1)
    const tampered = [
      [v, id, iv, flip(data, 0)].join('.'),
      [v, id, iv, flip(data, data.length - 2)].join('.'),
      [v, id, flip(iv, 0), data].join('.'),
    ]
    for (const t of tampered) {
      const err = await cipher.decrypt(t).then(
        () => null,
        (e: unknown) => e,
      )
      expect(err).toBeInstanceOf(SensitiveCryptoError)
      expect((err as Error).message).toMatch(/failed authentication/)
      expect((err as Error).message).not.toContain(TAX_NO)
      expect((err as Error).message).not.toContain(k1)
    }
  })

  it('rejects a key id swapped into the header even when that key exists', async () => {
    const both = await createCipher(config({ k1, k2 }, 'k1', blindKey))
    const token = await both.encrypt(TAX_NO)
    await expect(both.decrypt(token.replace('v1.k1.', 'v1.k2.'))).rejects.toThrow(
      /failed authentication/,
    )
  })

  it('rejects unknown key ids and malformed tokens', async () => {
    const token = await cipher.encrypt(TAX_NO)
    await expect(cipher.decrypt(token.replace('v1.k1.', 'v1.nope.'))).rejects.toThrow(
      /unknown encryption key id "nope"/,
    )
    for (const bad of ['', TAX_NO, 'v2.k1.a.b', 'v1.k1.a', 'v1.k1.!!!.AAAA', 'v1.k1.AAAA.AAAA']) {
      await expect(cipher.decrypt(bad)).rejects.toBeInstanceOf(SensitiveCryptoError)
    }
  })

  it('validates the configuration', async () => {
    await expect(createCipher(config({ k1 }, 'k9', blindKey))).rejects.toThrow(/active key id/)
    await expect(createCipher(config({ k1: randomKey(16) }, 'k1', blindKey))).rejects.toThrow(
      /32 bytes/,
    )
    await expect(createCipher(config({ k1 }, 'k1', randomKey(16)))).rejects.toThrow(/blind index/)
    await expect(createCipher(config({ 'a.b': k1 }, 'a.b', blindKey))).rejects.toThrow(/key ids/)
  })

  it('maps absent values to null in the nullable helpers', async () => {
    expect(await cipher.encryptNullable(null)).toBeNull()
    expect(await cipher.encryptNullable(undefined)).toBeNull()
    expect(await cipher.encryptNullable('')).toBeNull()
    const token = await cipher.encryptNullable(PHONE)
    expect(token).not.toBeNull()
    expect(await cipher.decryptNullable(token)).toBe(PHONE)
    expect(await cipher.decryptNullable(null)).toBeNull()
  })

  describe('blindIndex', () => {
    it('is deterministic hex', async () => {
      const a = await cipher.blindIndex(TAX_NO, 'taxNo')
      expect(a).toMatch(/^[0-9a-f]{64}$/)
      expect(await cipher.blindIndex(TAX_NO, 'taxNo')).toBe(a)
    })

    it('differs per purpose, per value and per key', async () => {
      const a = await cipher.blindIndex(TAX_NO, 'taxNo')
      expect(await cipher.blindIndex(TAX_NO, 'accountNo')).not.toBe(a)
      expect(await cipher.blindIndex(TAX_NO.toLowerCase(), 'taxNo')).not.toBe(a)
      const other = await createCipher(config({ k1 }, 'k1', randomKey()))
      expect(await other.blindIndex(TAX_NO, 'taxNo')).not.toBe(a)
    })

    it('does not let purpose/value boundaries collide', async () => {
      expect(await cipher.blindIndex('b', 'a')).not.toBe(await cipher.blindIndex('', 'ab'))
    })

    it('survives key rotation because it only depends on the blind index key', async () => {
      const rotated = await createCipher(config({ k1, k2 }, 'k2', blindKey))
      expect(await rotated.blindIndex(TAX_NO, 'taxNo')).toBe(
        await cipher.blindIndex(TAX_NO, 'taxNo'),
      )
    })

    it('rejects an empty purpose', async () => {
      await expect(cipher.blindIndex(TAX_NO, '')).rejects.toBeInstanceOf(SensitiveCryptoError)
    })
  })

  describe('crypto engines', () => {
    // On Node the HMACs are node:crypto's, on the edge Web Crypto's: a blind index or a seal
    // written by one must be found and verified by the other, byte for byte.
    it('node:crypto and Web Crypto give the same blind indexes and audit seals', async () => {
      const keys = { ...config({ k1 }, 'k1', blindKey), auditKey: randomKey(48) }
      const node = await createCipher(keys)
      const web = await createCipher(keys, 'web')
      for (const [value, purpose] of [
        [TAX_NO, 'taxNo'],
        [ACCOUNT_NO, 'accountNo'],
        ['', 'x'],
        ['😀 \ud800 云栖', 'name'],
        ['x'.repeat(100_000), 'long'],
      ]) {
        const a = await node.blindIndex(value, purpose)
        expect(a).toMatch(/^[0-9a-f]{64}$/)
        expect(await web.blindIndex(value, purpose)).toBe(a)
      }
      const seal = {
        table: 'change_log',
        chain: 'supplier:1',
        seq: '7',
        prev: 'ab'.repeat(32),
        fields: ['1', null, '云栖 \ud800', 'x'.repeat(10_000)],
      }
      const hash = await node.audit.seal(seal)
      expect(hash).toMatch(/^[0-9a-f]{64}$/)
      expect(await web.audit.seal(seal)).toBe(hash)
      expect(await web.audit.seal({ ...seal, seq: '8' })).not.toBe(hash)
    })

    // Likewise AES-GCM: a value sealed by either opens with the other, and tampering fails both.
    it("node:crypto and Web Crypto open each other's ciphertexts and refuse tampered ones", async () => {
      const keys = { ...config({ k1 }, 'k1', blindKey), auditKey: randomKey(48) }
      const node = await createCipher(keys)
      const web = await createCipher(keys, 'web')
      for (const value of [TAX_NO, ACCOUNT_NO, '😀 云栖', 'x'.repeat(100_000)]) {
        const [byNode, byWeb] = [await node.encrypt(value), await web.encrypt(value)]
        expect(byNode).not.toContain(value)
        expect(await web.decrypt(byNode)).toBe(value)
        expect(await node.decrypt(byWeb)).toBe(value)
        const [v, id, iv, data] = byNode.split('.')
        const flipped = `${v}.${id}.${iv}.${data.startsWith('A') ? 'B' : 'A'}${data.slice(1)}`
        for (const cipher of [node, web]) {
          await expect(cipher.decrypt(flipped)).rejects.toThrow(/failed authentication/)
        }
      }
    })
  })
})

describe('masks', () => {
  const masks = { maskTaxNo, maskCertNo, maskPhone, maskAccountNo, maskText }
  const edgeInputs = ['a', '12', '1234', '12345', '1234567', '12345678', '1234567890', TAX_NO]

  it.each(Object.entries(masks))('%s never returns the whole input', (_name, mask) => {
    for (const input of [...edgeInputs, PHONE, ACCOUNT_NO, '汉字汉字汉', '😀😀😀😀😀😀']) {
      const out = mask(input)
      expect(out).not.toBeNull()
      expect(out).not.toContain(input)
      expect(out).toContain('*')
    }
  })

  it.each(Object.entries(masks))('%s maps null, undefined and blank to null', (_name, mask) => {
    expect(mask(null)).toBeNull()
    expect(mask(undefined)).toBeNull()
    expect(mask('')).toBeNull()
    expect(mask('   ')).toBeNull()
  })

  it('maskTaxNo keeps first 2 and last 4 of long values', () => {
    expect(maskTaxNo(TAX_NO)).toBe('91************712Q')
    expect(maskTaxNo('1234567890')).toBe('12****7890')
    expect(maskTaxNo('123456789')).toBe('****89')
    expect(maskTaxNo('1234567')).toBe('****67')
    expect(maskTaxNo('12345')).toBe('****45')
    expect(maskTaxNo('1234')).toBe('****')
    expect(maskTaxNo('a')).toBe('****')
    expect(maskTaxNo(` ${TAX_NO} `)).toBe('91************712Q')
  })

  it('maskCertNo follows the tax number rule', () => {
    expect(maskCertNo('330106199001011234')).toBe('33************1234')
    expect(maskCertNo('1234567')).toBe('****67')
    expect(maskCertNo('1234')).toBe('****')
  })

  it('maskPhone keeps first 3 and last 4 of long values', () => {
    expect(maskPhone(PHONE)).toBe('138****5678')
    expect(maskPhone('057188886666')).toBe('057*****6666')
    expect(maskPhone('88886666')).toBe('****66')
    expect(maskPhone('1234567')).toBe('****67')
    expect(maskPhone('1234')).toBe('****')
    expect(maskPhone('1')).toBe('****')
  })

  it('maskAccountNo shows only the last 4 digits', () => {
    expect(maskAccountNo(ACCOUNT_NO)).toBe('**** **** 0123')
    expect(maskAccountNo('6222-0212-3456-7890')).toBe('**** **** 7890')
    expect(maskAccountNo('12345678')).toBe('**** **** 5678')
    expect(maskAccountNo('1234567')).toBe('****67')
    expect(maskAccountNo('1234')).toBe('****')
    expect(maskAccountNo('1')).toBe('****')
    expect(maskAccountNo(' - ')).toBeNull()
  })

  it('maskText reveals nothing', () => {
    expect(maskText(OPINION)).toBe('******')
    expect(maskText('a')).toBe('******')
  })

  it('counts code points, never splitting surrogate pairs', () => {
    expect(maskTaxNo('😀😀😀😀😀😀😀😀😀😀')).toBe('😀😀****😀😀😀😀')
  })
})

describe('normalizers', () => {
  it('toHalfWidth maps full-width ASCII and the ideographic space', () => {
    expect(toHalfWidth('９１３３０１０６ＭＡ２ＫＸＹ７１２Ｑ')).toBe(TAX_NO)
    expect(toHalfWidth('！～ａ\u3000Ｚ')).toBe('!~a Z')
    expect(toHalfWidth('汉字')).toBe('汉字')
  })

  it('normalizeTaxNo strips all whitespace and upper-cases', () => {
    expect(normalizeTaxNo('９１３３０１０６ＭＡ２ＫＸＹ７１２Ｑ')).toBe(TAX_NO)
    expect(normalizeTaxNo(' 91330106ma2k xy712q\u3000')).toBe(TAX_NO)
    expect(normalizeTaxNo('9133\u30000106\tMA2KXY712Q')).toBe(TAX_NO)
  })

  it('normalizeName trims and collapses whitespace runs', () => {
    expect(normalizeName('\u3000杭州  某某\u3000\u3000科技\t有限公司 ')).toBe(
      '杭州 某某 科技 有限公司',
    )
    expect(normalizeName('ＡＢＣ　Ｃｏ．，Ｌｔｄ．')).toBe('ABC Co.,Ltd.')
  })

  it('normalizeAccountNo removes spaces and hyphens', () => {
    expect(normalizeAccountNo(ACCOUNT_NO)).toBe('6222021234567890123')
    expect(normalizeAccountNo('６２２２－０２１２\u3000３４５６')).toBe('622202123456')
  })

  it('normalizePhone converts and trims only', () => {
    expect(normalizePhone(' １３８１２３４５６７８\u3000')).toBe(PHONE)
    expect(normalizePhone('0571-8888 6666')).toBe('0571-8888 6666')
  })

  it('utf8Bytes counts UTF-8 bytes', () => {
    expect(utf8Bytes('')).toBe(0)
    expect(utf8Bytes('a')).toBe(1)
    expect(utf8Bytes('é')).toBe(2)
    expect(utf8Bytes('汉')).toBe(3)
    expect(utf8Bytes('😀')).toBe(4)
    // As TextEncoder writes them: a lone surrogate is U+FFFD, three bytes.
    for (const s of ['\ud83d', '\ude00', 'a\ud83d', '\ud83da', '\ude00\ud83d', '😀\ud83d汉'])
      expect(utf8Bytes(s), JSON.stringify(s)).toBe(new TextEncoder().encode(s).length)
  })
})

describe('canonicalSeal', () => {
  /** The format as defined: each item encoded on its own, length-prefixed; NULL is `~`. */
  const itemByItem = (items: (string | null)[]) => {
    const encode = (s: string) => new TextEncoder().encode(s)
    return concatBytes(
      items.map((item) => {
        if (item === null) return encode('~')
        const bytes = encode(item)
        return concatBytes([encode(`${bytes.length}:`), bytes])
      }),
    )
  }

  it('encodes every row as its items one by one, whatever their text', () => {
    // Rows sealed before the one-pass encoding must still verify: the same bytes for ASCII,
    // Chinese, pairs and lone surrogates at either end of an item, empty strings and NULLs.
    const fields = [
      '9007199254740993',
      '苏州云栖旅游服务有限公司',
      '',
      null,
      '😀',
      '\ud83d',
      'x\ude00',
      '\ud83d\ude00\ud83d',
      '{"a": 1}',
      '~',
      '12:ab',
    ]
    const input = { table: 'change_log', chain: 'c1', seq: '42', prev: 'ab'.repeat(32), fields }
    const expected = itemByItem([
      'audit-v1',
      input.table,
      input.chain,
      input.seq,
      input.prev,
      String(fields.length),
      ...fields,
    ])
    expect(Buffer.from(canonicalSeal(input)).toString('hex')).toBe(
      Buffer.from(expected).toString('hex'),
    )
  })
})
