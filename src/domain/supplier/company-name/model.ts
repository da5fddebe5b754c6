/**
 * One way of reading a name: what identifies the company (its trade name) and what supports it
 * (where, in which line of business). A name has one reading, or two where its first word may be
 * a place or part of the trade name (东方明珠: the city of 东方, or the trade name 东方明珠).
 */
export interface NameReading {
  /** The trade name as compared: Han characters, or a Latin name's distinctive words without spaces. */
  trade: string
  /** Its romanisation (toneless pinyin, or the Latin itself): equal for homophones and across scripts. */
  roman: string
  script: 'han' | 'latin'
  /** GB/T 2260 codes of the places the name is in; empty when it names none. */
  places: readonly string[]
  /** Lines of business its industry wording names; empty when none or only generic wording. */
  lines: ReadonlySet<string>
  /** The name's first reading: only it is compared for typos (and keyed for them). */
  primary: boolean
  /**
   * The name has no trade name: `trade` is all it says but its form (杭州旅游服务), or the whole
   * name. Such a reading agrees only when equal: no typo, no homophone.
   */
  whole?: boolean
}
