import { fail } from '../../errors'

export interface MergePlan<I, E> {
  added: I[]
  kept: { item: I; current: E }[]
  removed: E[]
}

/**
 * Reconciles a complete snapshot with the live rows: an item with an id updates that row (its
 * version must match when given), an item without one is new, a live row absent from the
 * snapshot is removed. Ids must belong to this supplier.
 */
export function planMerge<I, E extends { id: string; updateTime?: string }>({
  what,
  existing,
  incoming,
  idOf,
  versionOf = () => undefined,
}: {
  what: string
  existing: E[]
  incoming: I[]
  idOf: (item: I) => string | undefined
  versionOf?: (item: I) => string | undefined
}): MergePlan<I, E> {
  const byId = new Map(existing.map((e) => [e.id, e]))
  const seen = new Set<string>()
  const plan: MergePlan<I, E> = { added: [], kept: [], removed: [] }
  for (const item of incoming) {
    const id = idOf(item)
    if (id === undefined) {
      plan.added.push(item)
      continue
    }
    if (seen.has(id)) fail('BAD_REQUEST', `${what}: id ${id} appears twice`)
    seen.add(id)
    const current = byId.get(id)
    if (!current) fail('CHILD_NOT_OWNED', `${what} ${id} does not belong to this supplier`)
    const expected = versionOf(item)
    if (expected !== undefined && expected !== current.updateTime) {
      fail(
        'VERSION_STALE',
        `${what} ${id} was changed since you loaded it (expectedUpdateTime is stale)`,
      )
    }
    plan.kept.push({ item, current: current })
  }
  plan.removed = existing.filter((e) => !seen.has(e.id))
  return plan
}
