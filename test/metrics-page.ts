/**
 * The sum of the samples of `name` in a Prometheus text page whose labels include all of
 * `labels` (every sample of it with none given): the reads served by the standby,
 * `sampleSum(page, 'supplier_db_reads_total', { target: 'standby' })`. The benchmark reads its
 * pages with it too.
 */
export function sampleSum(page: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`)
  let total = 0
  for (const line of page.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue
    const [head, value] = line.split(/\s+/)
    if (wanted.every((w) => head.includes(w))) total += Number(value)
  }
  return total
}
