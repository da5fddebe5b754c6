import {
  latinBranches,
  latinForms,
  latinIndustry,
  latinStopwords,
  latinVocabulary,
} from './dictionaries'
import type { ScriptName } from './model'
import { latinWords } from './normalize'

/** A place in a Latin name: one word (suzhou) or two (hong kong, hang zhou). */
interface Unit {
  text: string
  codes: readonly string[]
}

/**
 * Reads a Latin name as words: a branch's own words after the parent's legal form come off the
 * end (Co., Ltd. Wujiang Branch), then the legal suffix (Co., Ltd., GmbH), then articles and
 * joiners anywhere. A place is a place where names put it: first (Hangzhou Jincheng …, and a place
 * within it after it) or last (… (Hangzhou) Co., Ltd.); a place name anywhere else is part of the
 * trade name (Shanghai Jinjiang Hotels: jinjiang). Industry words (Travel, Services) come out
 * wherever they stand; the words left are the distinctive ones. Where none is left, a place in
 * front of another place is the trade name; else the name has no trade name and is read as all
 * its words but its legal form.
 * Dictionary words mistyped by one letter are read as the word (Managment).
 */
export function parseLatin(text: string): ScriptName {
  const vocabulary = latinVocabulary()
  // A place in brackets is the region wherever it stands: Yunqi (Suzhou) Travel Service.
  const bracketed: Unit[] = []
  const unbracketed = text.replace(/\(([^()]*)\)/g, (_m, inner: string) => {
    const joined = latinWords(inner).join('')
    const codes = vocabulary.regions.get(joined)
    if (!codes) return ` ${inner} `
    bracketed.push({ text: joined, codes })
    return ' '
  })
  const all = latinWords(text)
  const normalized = all.join(' ')
  let words = latinWords(unbracketed).map(vocabulary.spell)

  let branch: string | undefined
  if (words.length > 2 && latinBranches.has(words.at(-1) ?? '')) {
    const form = words.slice(0, -1).findLastIndex((w) => latinForms.has(w))
    const cut = form > 0 ? form + 1 : words.length - 1
    branch = words.slice(cut).join(' ')
    words = words.slice(0, cut)
  }
  const forms: string[] = []
  while (words.length > 1 && latinForms.has(words.at(-1) ?? '')) forms.unshift(words.pop() ?? '')
  const kept = words.filter((w) => !latinStopwords.has(w))
  const body = kept.length ? kept : words

  const units: (Unit | string)[] = []
  for (let i = 0; i < body.length; i++) {
    const pair = i + 1 < body.length ? body[i] + body[i + 1] : ''
    const codes = (pair && vocabulary.regions.get(pair)) || vocabulary.regions.get(body[i])
    if (!codes) units.push(body[i])
    else {
      const two = Boolean(pair && vocabulary.regions.get(pair))
      units.push({ text: two ? pair : body[i], codes })
      if (two) i++
    }
  }
  const isPlace = (u: Unit | string | undefined): u is Unit => typeof u === 'object'
  const leading: Unit[] = []
  for (const u of units) {
    const last = leading.at(-1)
    if (!isPlace(u) || (last && !vocabulary.within(u.text, last.text))) break
    leading.push(u)
  }
  const tail = units.at(-1)
  const last = units.length > leading.length && isPlace(tail) ? tail : undefined
  const middle = units.slice(leading.length, last ? -1 : undefined)
  const trailing = last ?? bracketed.at(-1)

  const industry: string[] = []
  const lines = new Set<string>()
  const distinctive: string[] = []
  for (const u of middle) {
    const w = isPlace(u) ? u.text : u
    const l = latinIndustry.get(w)
    if (l) {
      industry.push(w)
      for (const x of l) lines.add(x)
    } else distinctive.push(w)
  }
  let places = [...leading, ...bracketed, ...(last ? [last] : [])]
  let tradeWords = distinctive
  if (!tradeWords.length && leading.length && trailing) {
    // A place before another one is the trade name (Jincheng … (Hangzhou)).
    const named = leading[leading.length - 1]
    tradeWords = [named.text]
    places = places.filter((p) => p !== named)
  }
  // Otherwise no distinctive word leaves no trade name: the name is then read as all it says but
  // its form (Hangzhou Travel Service), so that it agrees only with names saying all of that, not
  // with every name of its place (Hangzhou Co., Ltd.).
  if (!tradeWords.length) tradeWords = body
  const tradeName = tradeWords.join(' ')
  const trade = tradeName.replace(/ /g, '')
  const codes = [...new Set(places.flatMap((p) => p.codes))].filter((c) => c !== '000000')
  return {
    normalized,
    region: (trailing ?? leading.at(-1))?.text,
    tradeName: trade ? tradeName : undefined,
    industry: industry.join(' ') || undefined,
    form: forms.join(' ') || undefined,
    branch,
    readings: trade
      ? [{ trade, roman: trade, script: 'latin', places: codes, lines, primary: true }]
      : [],
  }
}
