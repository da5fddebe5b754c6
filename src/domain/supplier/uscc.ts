/*
 * The unified social credit code (统一社会信用代码, GB 32100-2015): 18 characters of a 31-character
 * alphabet, the last a check character over the first 17. A tax number of that shape whose check
 * character is wrong cannot be a real code: it is a typo, and a typo would slip past C-02 (the
 * same company registered twice under two spellings of its code), so it is refused. So is a code
 * with one or two letters it never uses (`O` for `0`: usccTypos). Any other shape (a foreign tax
 * id, an old 15-digit registration number) is free text. Pure functions on the normalised form
 * (normalizeTaxNo: NFKC, letters and digits only, upper case, look-alike letters made Latin), so
 * lower case, full-width, hyphenated and Cyrillic-lettered input is the same code.
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

/*
 * GB 32100-2015, table 1 (with the later additions A and N): each registration authority
 * (position 1) and the organisation types it registers (position 2). 91 is a company.
 */
const AUTHORITY_TYPES: Record<string, string> = {
  '1': '1239', // institutional staffing: organs of state, public institutions, mass organisations
  '2': '19', // foreign affairs
  '3': '123459', // justice: law firms, notaries, legal services, forensics, arbitration
  '4': '19', // culture
  '5': '1239', // civil affairs: social organisations, private non-enterprise units, foundations
  '6': '129', // tourism
  '7': '129', // religion
  '8': '19', // trade unions
  '9': '123', // market regulation: enterprises, individual businesses, cooperatives
  A: '19', // the Central Military Commission's staffing office
  N: '1239', // agriculture: collective economic organisations
  Y: '1', // others
}

/** Whether the first two characters are an authority and a type that GB 32100 defines. */
export function isUsccAuthorityType(taxNo: string): boolean {
  return (AUTHORITY_TYPES[taxNo[0]] ?? '').includes(taxNo[1] ?? '-')
}

/** The letters a code never uses, each with the digit or letter it is mistaken for. */
const NEVER_USED: Record<string, string> = { I: '1', O: '0', S: '5', V: 'U', Z: '2' }

/** One character of a mistyped code: its position (1..18) and what it is. */
export interface UsccTypo {
  position: number
  character: string
  /** What was likely meant (`0` for `O`). */
  meant: string
}

/**
 * The characters of a code that no code can hold: a normalised tax number of 18 characters
 * that opens with a defined authority and type, whose other characters are of the alphabet but
 * one or two of `I`, `O`, `S`, `V`, `Z`, is a unified social credit code mistyped (`O` for `0`),
 * not another kind of tax number. Empty for any other string (a foreign tax id, a code of the
 * alphabet, an 18-character string with three letters outside it).
 */
export function usccTypos(taxNo: string): UsccTypo[] {
  if (taxNo.length !== 18 || !isUsccAuthorityType(taxNo)) return []
  const typos: UsccTypo[] = []
  for (let i = 2; i < 18; i++) {
    const c = taxNo[i]
    if (USCC_ALPHABET.includes(c)) continue
    if (!(c in NEVER_USED)) return []
    typos.push({ position: i + 1, character: c, meant: NEVER_USED[c] })
  }
  return typos.length <= 2 ? typos : []
}

/**
 * The code whose first 17 characters are given, completed with its check character: how tests,
 * fixtures and scripts make up tax numbers that the service accepts.
 */
export function withCheckCharacter(first17: string): string {
  return first17 + usccCheckCharacter(first17)
}
