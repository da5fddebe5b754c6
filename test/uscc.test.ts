import { describe, expect, it } from 'vitest'
import {
  USCC_ALPHABET,
  hasWrongCheckCharacter,
  isUsccShaped,
  usccCheckCharacter,
  withCheckCharacter,
} from '../src/domain/supplier/uscc'
import { normalizeTaxNo } from '../src/identity'
import { fullWidth } from './supplier-data'

/*
 * The check character of the unified social credit code (GB 32100-2015), as a pure function:
 * real published codes pass, every one-character typo of them fails, other shapes are not its
 * business. Through the API: supplier-tax-number.test.ts.
 */

/**
 * Published codes of real organisations (python-stdnum's cn.uscc test vectors, hutool's
 * CreditCodeUtilTest): enterprises (91), individual businesses (92), a public institution (12);
 * old organisation codes (digits, X) and MA… codes issued since 2015.
 */
export const REAL_CODES = [
  '91110000600037341L',
  '91110000710926094P',
  '91120224064012553U',
  '911522010783710635',
  '9115220107837757XE',
  '913101127033980359',
  '91310115MA1K3BTP2B',
  '9131012056010553X5',
  '91340600MA2PBM9HXD',
  '91340603MA2UJXXCXF',
  '9144030071526726XG',
  '91620105L015101280',
  '92340602MA2PBMEM24',
  '92340621MA2UK3PJXE',
  '121200004013590816',
  '91310110666007217T',
]

const OUTSIDE_ALPHABET = ['I', 'O', 'S', 'V', 'Z']

describe('unified social credit code: check character (GB 32100-2015)', () => {
  it('the alphabet is the 31 characters of the standard: digits and capitals but I, O, S, V, Z', () => {
    expect(USCC_ALPHABET).toHaveLength(31)
    expect(new Set(USCC_ALPHABET).size).toBe(31)
    const capitals = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'.split('')
    expect(USCC_ALPHABET).toBe(
      `0123456789${capitals.filter((c) => !OUTSIDE_ALPHABET.includes(c)).join('')}`,
    )
  })

  it.each(REAL_CODES)('%s, a published code, has the right check character', (code) => {
    expect(isUsccShaped(code)).toBe(true)
    expect(hasWrongCheckCharacter(code)).toBe(false)
    expect(usccCheckCharacter(code.slice(0, 17))).toBe(code[17])
    expect(withCheckCharacter(code.slice(0, 17))).toBe(code)
  })

  it('every one-character typo of every published code, at each of the 18 positions, is wrong', () => {
    let typos = 0
    for (const code of REAL_CODES) {
      for (let i = 0; i < 18; i++) {
        for (const c of USCC_ALPHABET) {
          if (c === code[i]) continue
          const typo = code.slice(0, i) + c + code.slice(i + 1)
          expect(hasWrongCheckCharacter(typo), `${code} with ${c} at ${i + 1}`).toBe(true)
          typos++
        }
      }
    }
    expect(typos).toBe(REAL_CODES.length * 18 * 30)
  })

  it('two different neighbours swapped among the first 17 characters are wrong too', () => {
    for (const code of REAL_CODES) {
      for (let i = 0; i < 16; i++) {
        if (code[i] === code[i + 1]) continue
        const swapped = code.slice(0, i) + code[i + 1] + code[i] + code.slice(i + 2)
        expect(hasWrongCheckCharacter(swapped), `${code} swapped at ${i + 1}`).toBe(true)
      }
    }
  })

  it('codes of the early pilot regions that miss the standard are wrong (published, yet refused)', () => {
    // Fujian and Xiamen issued some codes before GB 32100-2015 fixed the check character; the
    // standard's character differs from theirs (the right one in the comment).
    expect(hasWrongCheckCharacter('91350211M00013FA1N')).toBe(true) // 3
    expect(usccCheckCharacter('91350100M0001TGQX')).toBe('1') // published …QXM
    expect(usccCheckCharacter('91350211M0000XUF4')).toBe('R') // published …F46
  })

  it('lower case and full-width forms are the same code once normalised', () => {
    for (const code of REAL_CODES) {
      for (const sent of [
        code.toLowerCase(),
        fullWidth(code),
        ` ${fullWidth(code.toLowerCase())} `,
      ]) {
        expect(normalizeTaxNo(sent)).toBe(code)
        expect(hasWrongCheckCharacter(normalizeTaxNo(sent))).toBe(false)
      }
    }
    // Before normalisation a lower-case code is not of the shape: the check runs on the normal form.
    expect(isUsccShaped(REAL_CODES[6].toLowerCase())).toBe(false)
  })

  it('other shapes are not checked: an I, O, S, V or Z anywhere, 17 or 19 characters, other text', () => {
    for (const code of REAL_CODES.slice(0, 4)) {
      for (let i = 0; i < 18; i++) {
        for (const c of OUTSIDE_ALPHABET) {
          const other = code.slice(0, i) + c + code.slice(i + 1)
          expect(isUsccShaped(other), other).toBe(false)
          expect(hasWrongCheckCharacter(other), other).toBe(false)
        }
      }
      for (const other of [code.slice(0, 17), `${code}0`, `${code.slice(0, 17)}-`]) {
        expect(isUsccShaped(other), other).toBe(false)
        expect(hasWrongCheckCharacter(other), other).toBe(false)
      }
    }
    for (const other of [
      '',
      '9133AB',
      '123456789012345',
      'DE123456789',
      '９１１１００００６０００３７３４１Ｌ',
    ]) {
      expect(hasWrongCheckCharacter(other), other).toBe(false)
    }
  })

  it('withCheckCharacter takes exactly 17 characters of the alphabet', () => {
    expect(() => withCheckCharacter('9111000060003734')).toThrow(RangeError)
    expect(() => withCheckCharacter('911100006000373411')).toThrow(RangeError)
    expect(() => withCheckCharacter('9111000060003734I')).toThrow(RangeError)
    expect(() => withCheckCharacter('9111000060003734l')).toThrow(RangeError)
  })
})
