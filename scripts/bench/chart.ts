/** p50 latency against data size, one line per scenario, as a self-contained SVG. */
export function latencyChart(
  series: { title: string; points: { size: number; p50: number }[] }[],
): string {
  const W = 860
  const H = 360
  const left = 60
  const right = 440
  const top = 30
  const bottom = 50
  const sizes = [...new Set(series.flatMap((s) => s.points.map((p) => p.size)))].sort(
    (a, b) => a - b,
  )
  const maxY = Math.max(...series.flatMap((s) => s.points.map((p) => p.p50))) * 1.15 || 1
  // Sizes span orders of magnitude: a log axis keeps both ends readable.
  const lo = Math.log10(sizes[0])
  const hi = Math.log10(sizes.at(-1)!)
  const x = (size: number) => left + ((Math.log10(size) - lo) / (hi - lo || 1)) * (W - left - right)
  const y = (ms: number) => H - bottom - (ms / maxY) * (H - top - bottom)
  const colors = [
    '#1f77b4',
    '#d62728',
    '#2ca02c',
    '#9467bd',
    '#ff7f0e',
    '#8c564b',
    '#e377c2',
    '#17becf',
    '#7f7f7f',
    '#bcbd22',
  ]
  const ticks = Array.from({ length: 5 }, (_, i) => (maxY / 4) * i)
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;')
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${left}" y="18" font-size="14">p50 latency (ms) against suppliers in the database</text>`,
    ...ticks.map(
      (t) =>
        `<line x1="${left}" x2="${W - right}" y1="${y(t)}" y2="${y(t)}" stroke="#ddd"/><text x="${left - 6}" y="${y(t) + 4}" text-anchor="end">${t.toFixed(1)}</text>`,
    ),
    ...sizes.map(
      (s) =>
        `<text x="${x(s)}" y="${H - bottom + 18}" text-anchor="middle">${s.toLocaleString('en')}</text>`,
    ),
    `<line x1="${left}" x2="${W - right}" y1="${H - bottom}" y2="${H - bottom}" stroke="#333"/>`,
    `<line x1="${left}" x2="${left}" y1="${top}" y2="${H - bottom}" stroke="#333"/>`,
    `<text x="${(left + W - right) / 2}" y="${H - 12}" text-anchor="middle">suppliers (log scale)</text>`,
    ...series.flatMap((s, i) => {
      const c = colors[i % colors.length]
      const pts = s.points.map((p) => `${x(p.size).toFixed(1)},${y(p.p50).toFixed(1)}`)
      return [
        `<polyline fill="none" stroke="${c}" stroke-width="2" points="${pts.join(' ')}"/>`,
        ...s.points.map(
          (p) =>
            `<circle cx="${x(p.size).toFixed(1)}" cy="${y(p.p50).toFixed(1)}" r="4" fill="${c}"><title>${esc(s.title)}: ${p.p50.toFixed(1)} ms at ${p.size}</title></circle>`,
        ),
        `<rect x="${W - right + 15}" y="${top + i * 22}" width="12" height="12" fill="${c}"/>`,
        `<text x="${W - right + 32}" y="${top + i * 22 + 10}">${esc(s.title)}</text>`,
      ]
    }),
    '</svg>',
    '',
  ].join('\n')
}
