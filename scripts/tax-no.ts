import { randomInt } from 'node:crypto'
import { USCC_ALPHABET, withCheckCharacter } from '../src/domain/supplier/uscc'

/**
 * Prints a fresh unified social credit code with its check character right (GB 32100-2015): a
 * tax number the service accepts, for trying the API by hand (the README's walk-through).
 */
const serial = Array.from({ length: 7 }, () => USCC_ALPHABET[randomInt(USCC_ALPHABET.length)])
console.log(withCheckCharacter(`91330106MA${serial.join('')}`))
