import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { create, remove } from './client'
import { useHarness } from './harness'
import { draftBody } from './supplier-data'

/*
 * The near-duplicate check measured through the API on the labelled corpus
 * (test/fixtures/company-name-pairs.json, built independently of the matcher; how, in its .md).
 * Every first name of a pair is registered as a draft; then each second name is sent as a new
 * draft, and the check "says same company" when the first one's supplier is among the 395006
 * candidates. Nothing of the second names is written (the token is never sent back). Recall
 * (same-company pairs found) and precision (of the pairs found, those really the same) must each
 * reach 0.95 at the configured default threshold.
 */

interface Pair {
  a: string
  b: string
  same: boolean
  kind: string
}

const PAIRS: Pair[] = JSON.parse(
  readFileSync(new URL('./fixtures/company-name-pairs.json', import.meta.url), 'utf8'),
)

const h = useHarness()

/** A draft of `fullName` (confirming a 395006 with its token: the corpus repeats names). */
async function register(admin: string, fullName: string): Promise<string> {
  const body = draftBody({ fullName, shortName: null })
  let res = await create(h, body, { admin })
  if (res.body.code === 395006) {
    const token = res.body.data.duplicateConfirmToken
    res = await create(h, { ...body, duplicateConfirmToken: token }, { admin })
  }
  expect(res.body.code, `${fullName}: ${res.body.message}`).toBe(200)
  return res.body.data.supplierId
}

describe('near-duplicate check on the labelled corpus, through the API', () => {
  it(`recall and precision ≥ 0.95 over ${PAIRS.length} pairs`, { timeout: 600_000 }, async () => {
    const admin = await h.admin()
    const ids = new Map<string, string>()
    for (const { a } of PAIRS) if (!ids.has(a)) ids.set(a, await register(admin, a))

    const byKind = new Map<string, { tp: number; fp: number; fn: number; tn: number }>()
    const wrong: string[] = []
    for (const pair of PAIRS) {
      const res = await create(h, draftBody({ fullName: pair.b, shortName: null }), { admin })
      const candidates: { supplierId: string }[] =
        res.body.code === 395006 ? res.body.data.candidates : []
      if (res.body.code !== 395006) {
        expect(res.body.code, `${pair.b}: ${res.body.message}`).toBe(200)
      }
      const found = candidates.some((c) => c.supplierId === ids.get(pair.a))
      const counts = byKind.get(pair.kind) ?? { tp: 0, fp: 0, fn: 0, tn: 0 }
      if (pair.same && found) counts.tp++
      else if (!pair.same && found) counts.fp++
      else if (pair.same) counts.fn++
      else counts.tn++
      byKind.set(pair.kind, counts)
      if (found !== pair.same)
        wrong.push(`${pair.same ? 'missed' : 'flagged'} [${pair.kind}] ${pair.a} ~ ${pair.b}`)
      // A created second name would be a candidate of later pairs: the first names only stay.
      if (res.body.code === 200) {
        expect((await remove(h, res.body.data.supplierId, { admin })).body.code).toBe(200)
      }
    }
    const total = [...byKind.values()].reduce(
      (t, c) => ({ tp: t.tp + c.tp, fp: t.fp + c.fp, fn: t.fn + c.fn, tn: t.tn + c.tn }),
      { tp: 0, fp: 0, fn: 0, tn: 0 },
    )
    const recall = total.tp / (total.tp + total.fn)
    const precision = total.tp / (total.tp + total.fp)
    const table = [...byKind.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([kind, c]) => `  ${kind}: ${c.tp + c.tn}/${c.tp + c.tn + c.fp + c.fn} right`)
    // The measures per kind, and each pair judged wrongly, in the test's output.
    process.stdout.write(
      [
        `near-duplicate corpus: recall ${recall.toFixed(3)}, precision ${precision.toFixed(3)} (threshold ${h.config.duplicateNameThreshold})`,
        ...table,
        ...wrong.map((w) => `  ${w}`),
      ].join('\n') + '\n',
    )
    expect(recall, wrong.join('\n')).toBeGreaterThanOrEqual(0.95)
    expect(precision, wrong.join('\n')).toBeGreaterThanOrEqual(0.95)
  })
})
