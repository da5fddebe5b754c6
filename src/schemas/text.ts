import { z } from 'zod'
import { utf8Bytes } from '../crypto/sensitive'
import { trimName } from '../identity'

/*
 * The string bounds of the request fields, each worded as a client reads it: the subject's
 * fields (./supplier-subject.ts) and the nested inputs (./supplier.ts) take them from here.
 */

/** At most `max` characters. */
export const text = (max: number) => z.string().max(max, `at most ${max} characters`)

/** Trimmed, then 1 to `max` characters: a reason or note the spec marks required. */
export const requiredText = (max: number, params?: Parameters<typeof z.string>[0]) =>
  z.string(params).trim().min(1, 'is required').max(max, `at most ${max} characters`)

/**
 * A name, trimmed of whitespace and of invisible characters alike (zero-width, format), so that
 * a name made only of them counts as empty: `is required` where one is, else no name (null).
 */
export const nameText = (max: number, message?: string) =>
  z.string().overwrite(trimName).max(max, message)
export const requiredName = (max: number) => nameText(max).min(1, 'is required')

/** Between `min` and `max` UTF-8 bytes (the spec bounds some fields by bytes, not characters). */
export const bytes = (min: number, max: number) =>
  z.string().refine(
    (v) => {
      const n = utf8Bytes(v)
      return n >= min && n <= max
    },
    min > 0 ? `must be ${min}..${max} UTF-8 bytes` : `at most ${max} UTF-8 bytes`,
  )

/** A phone number; a required one must hold more than spaces (blank, it has no mask to store). */
export const phone = (min: number, max: number) =>
  z
    .string()
    .min(min, min ? 'is required' : undefined)
    .max(max, `at most ${max} characters`)
    .regex(/^[0-9+\-() ]*$/, 'digits, spaces and + - ( ) only')
    .refine((v) => !min || v.trim().length >= min, 'is required')
    .meta({ examples: ['0571-8888 6666'] })
