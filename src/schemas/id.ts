import { z } from 'zod'

/** Positive 64-bit integer carried as a string (ids are never JSON numbers). */
export const idString = z
  .string()
  .regex(/^[1-9][0-9]{0,18}$/, { message: 'must be a positive integer string', abort: true })
  .refine((v) => BigInt(v) <= 9223372036854775807n, 'out of range')
