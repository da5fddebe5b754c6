import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { CORPUS_PATH, buildPairs, serialise, type Pair } from './fixtures/company-name-pairs.gen'

// The corpus the near-duplicate check is measured on. These tests keep it fit to
// measure with: big enough, balanced, a tenth Latin, no pair twice, no label contradicting
// another, and the committed file exactly what its generator writes.

const text = readFileSync(CORPUS_PATH, 'utf8')
const pairs = JSON.parse(text) as Pair[]
const CJK = /[\u3400-\u9fff\uf900-\ufaff]/
const isLatin = (p: Pair) => !CJK.test(p.a) && !CJK.test(p.b)

describe('company-name corpus', () => {
  it('is a list of {a, b, same, kind} with two different non-empty names each', () => {
    expect(Array.isArray(pairs)).toBe(true)
    for (const p of pairs) {
      expect(Object.keys(p).sort()).toEqual(['a', 'b', 'kind', 'same'])
      expect(typeof p.a === 'string' && p.a.trim().length > 0).toBe(true)
      expect(typeof p.b === 'string' && p.b.trim().length > 0).toBe(true)
      expect(p.a).not.toBe(p.b)
      expect(typeof p.same).toBe('boolean')
      expect(p.kind).toMatch(/^[a-z]+(-[a-z]+)*$/)
    }
  })

  it('holds at least 360 pairs, as many the same company as not (within a tenth)', () => {
    expect(pairs.length).toBeGreaterThanOrEqual(360)
    const same = pairs.filter((p) => p.same).length
    const different = pairs.length - same
    expect(Math.abs(same - different)).toBeLessThanOrEqual(pairs.length / 10)
  })

  it('is at least a tenth Latin-script pairs, both labels among them', () => {
    const latin = pairs.filter(isLatin)
    expect(latin.length).toBeGreaterThanOrEqual(pairs.length / 10)
    expect(latin.filter((p) => p.same).length).toBeGreaterThanOrEqual(20)
    expect(latin.filter((p) => !p.same).length).toBeGreaterThanOrEqual(20)
  })

  it('has no pair twice, in either order', () => {
    const keys = pairs.map((p) => [p.a, p.b].sort().join('\u0000'))
    expect(new Set(keys).size).toBe(keys.length)
  })

  it('has at least 8 pairs of every kind, and one label per kind', () => {
    const byKind = new Map<string, Pair[]>()
    for (const p of pairs) byKind.set(p.kind, [...(byKind.get(p.kind) ?? []), p])
    for (const [kind, ps] of byKind) {
      expect({ kind, count: ps.length >= 8 }).toEqual({ kind, count: true })
      expect({ kind, labels: new Set(ps.map((p) => p.same)).size }).toEqual({ kind, labels: 1 })
    }
  })

  it('carries the six reference rows against 苏州云栖旅游服务有限公司 verbatim with their labels', () => {
    const yunqi = '苏州云栖旅游服务有限公司'
    const label = (a: string) => pairs.find((p) => p.a === a && p.b === yunqi)?.same
    expect(label('苏州云栖旅行社有限公司')).toBe(true)
    expect(label('云栖旅游服务（苏州）有限公司')).toBe(true)
    expect(label('苏州市云栖旅游服务有限责任公司')).toBe(true)
    expect(label('苏州雲棲旅遊服務有限公司')).toBe(true)
    expect(label('苏州金桥旅游服务有限公司')).toBe(false)
    expect(label('苏州云溪旅游服务有限公司')).toBe(false)
  })

  it('never labels two names different that its same-company pairs join', () => {
    const parent = new Map<string, string>()
    const find = (x: string): string => {
      const p = parent.get(x)
      if (p === undefined || p === x) return x
      const root = find(p)
      parent.set(x, root)
      return root
    }
    for (const p of pairs) if (p.same) parent.set(find(p.a), find(p.b))
    const contradictions = pairs.filter((p) => !p.same && find(p.a) === find(p.b))
    expect(contradictions).toEqual([])
  })

  it('is exactly what its generator writes, so it can be rebuilt and reviewed', () => {
    expect(text).toBe(serialise(buildPairs()))
  })
})
