/**
 * Values remembered until each one's own deadline (ms since the epoch), at most `max` of them:
 * beyond that the oldest remembered goes first. An expired entry is dropped when next asked for.
 * The verified-token memory and the grant memory are both this.
 */
export function expiringMemory<V>(max: number, now = () => Date.now()) {
  const entries = new Map<string, { value: V; until: number }>()
  return {
    get(key: string): V | undefined {
      const hit = entries.get(key)
      if (hit && hit.until > now()) return hit.value
      if (hit) entries.delete(key)
      return undefined
    },
    set(key: string, value: V, until: number) {
      entries.delete(key) // re-inserted last, so eviction stays oldest-first
      if (entries.size >= max) entries.delete(entries.keys().next().value!)
      entries.set(key, { value, until })
    },
  }
}
