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

/** The parts a name is read into; each is absent when the name has none. */
export interface NameParts {
  /** The name normalised: simplified, half-width, lower case, without spaces, marks or brackets. */
  normalized: string
  /** The most specific place the name gives, as its short name (苏州), or a Latin name's place word. */
  region?: string
  /** What identifies the company: 云栖, or a Latin name's distinctive words. */
  tradeName?: string
  /** Industry wording: 旅游服务, or a Latin name's industry words. */
  industry?: string
  /** Organisational form: 有限公司, 集团有限公司, co ltd. */
  form?: string
  /** A branch's own part after the parent's name: 上海分公司. */
  branch?: string
}

/** What the reader of one script (parseHan, parseLatin) makes of a name: its parts and readings. */
export interface ScriptName extends NameParts {
  readings: NameReading[]
}
