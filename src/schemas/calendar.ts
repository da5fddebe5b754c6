import { z } from 'zod'

/*
 * Dates and date-times of the API, checked as real calendar values. Used for what clients send
 * and for what dependencies answer (the fleet, finance clearance), so this module imports
 * nothing but zod.
 */

/**
 * Whether y-m-d names a day of the proleptic Gregorian calendar that PostgreSQL stores as a date:
 * years 0001..9999 (PostgreSQL has no year 0, and JavaScript's Date.UTC would read 0..99 as 19xx).
 */
const isCalendarDay = (y: number, m: number, d: number) => {
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]
  return days !== undefined && d >= 1 && d <= days
}

const YEAR_RANGE = 'year must be 0001..9999'

/** yyyy-MM-dd that is a real calendar date. */
export const dateString = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'must be yyyy-MM-dd', abort: true })
  .refine((v) => Number(v.slice(0, 4)) >= 1, { message: YEAR_RANGE, abort: true })
  .refine((v) => {
    const [y, m, d] = v.split('-').map(Number)
    return isCalendarDay(y, m, d)
  }, 'not a calendar date')
  .meta({ examples: ['2016-05-18'] })

const DATE_TIME_PATTERN = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/

/** yyyy-MM-dd HH:mm:ss naming a real calendar second: the spec's date-time and the version. */
export const dateTimeString = z
  .string()
  .regex(DATE_TIME_PATTERN, { message: 'must be yyyy-MM-dd HH:mm:ss', abort: true })
  .refine((v) => Number(v.slice(0, 4)) >= 1, { message: YEAR_RANGE, abort: true })
  .refine((v) => {
    const [, y, mo, d, h, mi, s] = (DATE_TIME_PATTERN.exec(v) ?? []).map(Number)
    return isCalendarDay(y, mo, d) && h <= 23 && mi <= 59 && s <= 59
  }, 'not a valid date-time')
  .meta({ examples: ['2026-11-23 10:15:00'] })
