import {
  contains,
  countryAliases,
  hanBranches,
  hanForms,
  hanIndustry,
  regionAliases,
  regionAt,
  regionEnding,
  romanize,
  type Place,
} from './dictionaries'
import type { NameReading, ScriptName } from './model'
import { hanText, otherText } from './normalize'
import { HAN_LEADING_FORMS } from './words'

interface Front {
  places: Place[]
  start: number
  /** A place written without its suffix: it may be the start of the trade name (东方明珠, 白云机场). */
  ambiguous: boolean
}

/**
 * Reads a Chinese name the way 企业名称登记管理规定 composes it: region + trade name + industry +
 * organisational form, the region either in front or in brackets after the trade name, a branch's
 * own place and 分公司 after the parent's form. Each part is found from the outside in (brackets,
 * branch, form, region, industry); what is left is the trade name.
 */
export function parseHan(text: string): ScriptName {
  const bracketed = hanText(text)
  const forms: string[] = []
  const bracketForms: string[] = []
  const bracketPlaces: Place[] = []
  let s = bracketed
    .replace(/\(([^()]*)\)/g, (_m, inner: string) => {
      const places = regionAliases.get(inner)
      if (places) {
        bracketPlaces.push(...places)
        return ''
      }
      if (countryAliases.has(inner)) return ''
      if (hanForms.get(inner)) {
        bracketForms.push(inner)
        return ''
      }
      return inner
    })
    .replace(/[()]/g, '')
  const normalized = bracketed.replace(/[()]/g, '')

  for (const lead of HAN_LEADING_FORMS)
    if (s.startsWith(lead) && s.length > lead.length) {
      forms.push(lead)
      s = s.slice(lead.length)
    }

  let branch: string | undefined
  const b = hanBranches.endOf(s, 2)
  if (b) {
    let head = s.slice(0, -b.word.length)
    const place = regionEnding(head)
    if (place && head.length > place.alias.length) head = head.slice(0, -place.alias.length)
    else {
      // 云栖旅行社南京路营业部: the branch's own name follows the parent's form.
      const cut = Math.max(head.lastIndexOf('公司') + 2, head.lastIndexOf('旅行社') + 3)
      if (cut > 2 && cut < head.length) head = head.slice(0, cut)
    }
    branch = s.slice(head.length)
    s = head
  }

  // A name that is nothing but a form (有限公司) has no trade name: the loop below keeps a character.
  if (hanForms.get(s)) {
    forms.unshift(s)
    s = ''
  }
  for (;;) {
    const form = hanForms.endOf(s, 1)
    // 饭店 is a hotel, not a 店: the longer of form and industry wording wins.
    const industry = hanIndustry.endOf(s, 1)
    if (!form || (industry && industry.word.length > form.word.length)) break
    forms.unshift(form.word)
    s = s.slice(0, -form.word.length)
  }

  let pos = 0
  let country = ''
  const c = s.slice(0, 2)
  if (countryAliases.has(c) && s.length > 2) {
    country = c
    pos = 2
  }
  const fronts: Front[] = []
  while (fronts.length < 4) {
    const m = regionAt(s, pos)
    if (!m) break
    const parent = fronts.at(-1)
    let places = m.readings
    if (parent) {
      // After 苏州, 吴中 is the district of Suzhou; a place elsewhere is the trade name's start.
      places = places.filter((r) =>
        parent.places.some((p) => p.code !== r.code && contains(p.code, r.code)),
      )
      if (!places.length) break
    }
    fronts.push({
      places,
      start: pos,
      ambiguous: !m.readings.some((r) => r.suffixed),
    })
    pos += m.alias.length
  }

  // A place after the trade name without brackets, as short names write it (云栖苏州): a province
  // or prefecture, or any place with its suffix, leaving two characters or more before it.
  const rest = s.slice(pos)
  const ending = regionEnding(rest)
  const tailPlaces = ending?.readings.filter((r) => r.suffixed || r.level < 3) ?? []
  const tail =
    ending && tailPlaces.length && rest.length - ending.alias.length >= 2
      ? {
          places: tailPlaces,
          at: s.length - ending.alias.length,
          ambiguous: !ending.readings.some((r) => r.suffixed),
        }
      : undefined

  const placesOf = (list: Front[], withTail: boolean) => [
    ...new Set([
      ...list.flatMap((f) => f.places.map((p) => p.code)),
      ...(withTail && tail ? tail.places.map((p) => p.code) : []),
      ...bracketPlaces.map((p) => p.code),
    ]),
  ]
  // Each way to read the name: every place stripped; or the trade name starting at the first or
  // the last place in front written without its suffix (东方明珠旅游; 广州白云机场), the places
  // before it still places; or ending with the place after it (印象丽江).
  const read = (from: number, to = tail?.at ?? s.length) => {
    const before = fronts.filter((f) => f.start < from)
    const lastPlace =
      before.at(-1)?.places[0]?.short ?? (to < s.length ? tail?.places[0]?.short : undefined)
    const rest = readRest(s.slice(from, to), placesOf(before, to < s.length), lastPlace, country)
    if (!rest.reading.trade) {
      // Only a form (有限公司), or letters of another script before it: every letter and digit.
      // Letters of another script have no pinyin: such a name sounds like nothing else.
      const trade = otherText(text)
      const roman = hanText(trade) === trade ? romanize(trade) : ''
      rest.reading = { ...rest.reading, trade, roman, whole: true }
    }
    return { ...rest, region: lastPlace }
  }
  const ambiguous = fronts.filter((f) => f.ambiguous)
  const starts = [...new Set([ambiguous[0], ambiguous.at(-1)])].filter((f) => f !== undefined)
  const ways = [read(pos), ...starts.map((f) => read(f.start))]
  if (tail?.ambiguous) ways.push(read(pos, s.length))
  // A district's short name in front, with nothing before it, is more often a word of the trade
  // name than the place (锦江之星, 西湖): read it so first; the other reading stays.
  const first = fronts[0]
  if (first?.ambiguous && first.places.every((p) => p.district)) ways.unshift(ways.splice(1, 1)[0])
  const readings: NameReading[] = []
  // At most three readings, so that their keys stay within 16. A later reading whose trade name
  // is a place alone (杭州 of 杭州旅游服务有限公司) is no trade name: the name's first reading
  // already says what it does without one.
  for (const w of ways)
    if (
      readings.length < 3 &&
      readings.every((r) => r.trade !== w.reading.trade) &&
      !(readings.length && regionAliases.has(w.reading.trade))
    )
      readings.push({ ...w.reading, primary: readings.length === 0 })
  const chosen = ways[0]
  const region = chosen.region ?? bracketPlaces[0]?.short ?? (country || undefined)
  return {
    normalized,
    region,
    tradeName: chosen.reading.trade,
    industry: chosen.industry || undefined,
    // 锦江国际酒店（集团）股份有限公司: the bracketed form stands before the one at the end.
    form: [...bracketForms, ...forms].join('') || undefined,
    branch,
    readings,
  }
}

/** The trade name and industry of what follows the region: industry words come off the end. */
function readRest(rest: string, places: string[], lastPlace: string | undefined, country: string) {
  const words: string[] = []
  const lines = new Set<string>()
  for (;;) {
    const w = hanIndustry.endOf(rest)
    // A single character left is part of a word, not a trade name (云旅游 stays whole).
    if (!w || rest.length - w.word.length === 1) break
    words.unshift(w.word)
    for (const l of w.value) lines.add(l)
    rest = rest.slice(0, -w.word.length)
  }
  // Nothing but place, industry and form leaves no trade name: the reading is then everything the
  // name says but its form (杭州市旅游服务有限公司 → 杭州旅游服务, 黄山市旅游发展 → 黄山旅游发展,
  // 中国国际旅行社), so that two such names agree only where all of that agrees, not on an empty
  // or a bare place's trade name. A name of nothing but a form is read whole (parseHan).
  const trade = rest || (lastPlace ?? country) + words.join('')
  const whole = !rest
  return {
    industry: words.join(''),
    reading: {
      trade,
      roman: romanize(trade),
      script: 'han' as const,
      places,
      lines,
      whole,
    },
  }
}
