/*
 * The unified social credit code (统一社会信用代码, GB 32100-2015): 18 characters of a 31-character
 * alphabet, the last a check character over the first 17. A tax number of that shape whose check
 * character is wrong cannot be a real code: it is a typo, and a typo would slip past C-02 (the
 * same company registered twice under two spellings of its code), so it is refused. Any other
 * shape (a foreign tax id, an old 15-digit registration number, a code with an I or an O) is free
 * text, as before. Pure functions on the normalised form (normalizeTaxNo: half-width, no
 * whitespace, upper case), so lower case and full-width input are the same code.
 */

/** The alphabet in value order (0..30): digits and capitals without I, O, S, V, Z. */
export const USCC_ALPHABET = '0123456789ABCDEFGHJKLMNPQRTUWXY'

/** The weight of positions 1..17: 3^(i-1) mod 31. */
const WEIGHTS = [1, 3, 9, 27, 19, 26, 16, 17, 20, 29, 25, 13, 8, 24, 10, 30, 28]

const SHAPE = new RegExp(`^[${USCC_ALPHABET}]{18}$`)

/** 18 characters, all of the alphabet: a code that must carry a right check character. */
export function isUsccShaped(taxNo: string): boolean {
  return SHAPE.test(taxNo)
}

/** The check character of 17 characters of the alphabet (31 − Σ value × weight mod 31; 31 → 0). */
export function usccCheckCharacter(first17: string): string {
  if (first17.length !== 17) throw new RangeError('a check character needs 17 characters')
  let sum = 0
  for (let i = 0; i < 17; i++) {
    const value = USCC_ALPHABET.indexOf(first17[i])
    if (value < 0) throw new RangeError('not a character of the unified social credit code')
    sum += value * WEIGHTS[i]
  }
  return USCC_ALPHABET[(31 - (sum % 31)) % 31]
}

/** Whether a normalised tax number is USCC-shaped with a wrong check character. */
export function hasWrongCheckCharacter(taxNo: string): boolean {
  return isUsccShaped(taxNo) && usccCheckCharacter(taxNo.slice(0, 17)) !== taxNo[17]
}

/**
 * The code whose first 17 characters are given, completed with its check character: how tests,
 * fixtures and scripts make up tax numbers that the service accepts.
 */
export function withCheckCharacter(first17: string): string {
  return first17 + usccCheckCharacter(first17)
}
