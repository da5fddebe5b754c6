import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { COMPLIANCE_STATES } from '../src/vocabulary'

/*
 * The compliance states have one source, src/vocabulary.ts. The SQL that computes them indexes an
 * ARRAY literal by severity (worst first) inside the query, so the literal stays in SQL; this
 * proves each copy is the vocabulary's list, in its order.
 */

const compliance = readFileSync(
  fileURLToPath(new URL('../sql/compliance.ts', import.meta.url)),
  'utf8',
)

describe('vocabulary: the SQL arrays of compliance states', () => {
  it('every ARRAY of states in sql/compliance.ts is COMPLIANCE_STATES, in order', () => {
    const arrays = [...compliance.matchAll(/ARRAY\[([^\]]*'MISSING'[^\]]*)\]/g)].map(([, items]) =>
      items.split(',').map((item) => item.trim().replace(/^'|'$/g, '')),
    )
    expect(arrays.length).toBeGreaterThanOrEqual(2)
    for (const states of arrays) expect(states).toEqual([...COMPLIANCE_STATES])
  })
})
