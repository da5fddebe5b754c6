import { latinForms, latinIndustry, latinRegions, latinStopwords } from './dictionaries'
import type { NameReading } from './model'
import { latinWords } from './normalize'

export interface LatinName {
  normalized: string
  region?: string
  tradeName?: string
  industry?: string
  form?: string
  readings: NameReading[]
}

/**
 * Reads a Latin name as words: the legal suffix comes off the end (Co., Ltd., GmbH), articles and
 * joiners anywhere, then place names (Suzhou, Hong Kong) and industry words (Travel, Services)
 * wherever they stand, since English word order puts them anywhere. The words left are the
 * distinctive ones; where none is left, the last place (Shanghai Jinjiang Hotels → jinjiang), else
 * the industry words, are the name.
 */
export function parseLatin(text: string): LatinName {
  const all = latinWords(text)
  const normalized = all.join(' ')
  const words = [...all]
  const forms: string[] = []
  while (words.length > 1 && latinForms.has(words.at(-1) ?? '')) forms.unshift(words.pop() ?? '')
  const kept = words.filter((w) => !latinStopwords.has(w))
  const body = kept.length ? kept : words

  const regions = latinRegions()
  const places: string[] = []
  const regionWords: string[] = []
  const industry: string[] = []
  const lines = new Set<string>()
  const distinctive: string[] = []
  for (let i = 0; i < body.length; i++) {
    const w = body[i]
    const pair = i + 1 < body.length ? w + body[i + 1] : ''
    const codes = (pair && regions.get(pair)) || regions.get(w)
    if (codes) {
      const used = pair && regions.get(pair) ? 2 : 1
      regionWords.push(body.slice(i, i + used).join(' '))
      for (const c of codes) if (c !== '000000' && !places.includes(c)) places.push(c)
      i += used - 1
      continue
    }
    const l = latinIndustry.get(w)
    if (l) {
      industry.push(w)
      for (const x of l) lines.add(x)
      continue
    }
    distinctive.push(w)
  }
  const tradeWords = distinctive.length
    ? distinctive
    : regionWords.length
      ? regionWords.slice(-1)
      : industry.length
        ? industry
        : body
  const tradeName = tradeWords.join(' ')
  const trade = tradeName.replace(/ /g, '')
  return {
    normalized,
    region: regionWords[0],
    tradeName: trade ? tradeName : undefined,
    industry: industry.join(' ') || undefined,
    form: forms.join(' ') || undefined,
    readings: trade ? [{ trade, roman: trade, script: 'latin', places, lines, primary: true }] : [],
  }
}
