import { writeFile } from 'node:fs/promises'
import { sign } from 'hono/jwt'
import { connect } from '../sql/db'
import { grant } from '../sql/admin'
import { createApp } from '../src/app'
import { loadConfig } from '../src/config'
import { createCipher } from '../src/crypto/sensitive'
import { startEmbedded, type EmbeddedDatabase } from '../src/db/embedded'
import { migrate } from '../src/db/migrate'
import { loadReferenceData } from '../src/db/seed'
import { createLogger } from '../src/logger'
import { sqlPermissionLookup } from '../src/ports/permission'

/**
 * Measures the main paths in-process (app.request, no socket) on a fresh database: the embedded
 * PGlite by default, or BENCH_DATABASE_URL (a server database that is dropped and recreated).
 * Usage: npm run bench [-- --suppliers 2000 --out docs/benchmarks.md]
 */
const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? process.argv[i + 1] : fallback
}
const suppliers = Number(arg('suppliers', '1000'))
const out = arg('out', '')
const serverUrl = process.env.BENCH_DATABASE_URL

let embedded: EmbeddedDatabase | undefined
let url: string
if (serverUrl) {
  const admin = connect({ url: serverUrl, max: 1, timezone: 'UTC' })
  await admin.unsafe('DROP DATABASE IF EXISTS supplier_bench')
  await admin.unsafe('CREATE DATABASE supplier_bench')
  await admin.end()
  const u = new URL(serverUrl)
  u.pathname = '/supplier_bench'
  url = u.toString()
} else {
  embedded = await startEmbedded({ timezone: 'Asia/Shanghai' })
  url = embedded.url
}
await migrate(url)
const config = loadConfig({
  NODE_ENV: 'test',
  DUPLICATE_SUBMIT_WINDOW_SECONDS: '0',
  // The near-duplicate query still runs on every create; this threshold only keeps the
  // generated names (which share syllables) from tripping it.
  DUPLICATE_NAME_THRESHOLD: '0.95',
  LOG_LEVEL: 'silent',
})
const sql = connect({ url, max: embedded ? 1 : 10, timezone: config.timezone })
await loadReferenceData(sql)
const app = createApp({
  config,
  sql,
  logger: createLogger({ level: 'silent' }),
  cipher: await createCipher(config.crypto),
  permissions: sqlPermissionLookup(sql),
})
const adminId = '9007199254740993'
await grant(sql, adminId, {
  permissions: [
    'supplier:list',
    'supplier:view',
    'supplier:create',
    'supplier:update',
    'supplier:approval:submit',
  ],
})
const token = await sign(
  { sub: adminId, iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + 3600 },
  config.auth.jwtSecret!,
  'HS256',
)
const headers = {
  authorization: `Bearer ${token}`,
  'x-admin-id': adminId,
  'content-type': 'application/json',
}
const call = async (method: string, path: string, body?: unknown) => {
  const res = await app.request(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const json = (await res.json()) as { code: number; data: Record<string, string>; message: string }
  if (json.code !== 200) throw new Error(`${method} ${path}: ${json.code} ${json.message}`)
  return json.data
}

// Names far apart in trigram space (random syllables), so no create trips the near-duplicate check.
const syllables = [
  'ka',
  'zu',
  'mi',
  'ro',
  'te',
  'ba',
  'ni',
  'so',
  'gu',
  'le',
  'pa',
  'vo',
  'xi',
  'dy',
  'fe',
  'ho',
]
const word = (n: number, len: number) =>
  Array.from({ length: len }, (_, k) => syllables[Math.floor(n / 16 ** k) % 16]).join('')
const name = (i: number) => {
  const h = Math.imul(i + 1, 2654435761) >>> 0
  return `${word(h, 4)} ${word(h >>> 8, 3)} ${word(i, 3)} Co`
}
const words = syllables.map((s, k) => s + syllables[(k * 5) % 16])

async function measure(label: string, n: number, run: (i: number) => Promise<unknown>) {
  const times: number[] = []
  const started = performance.now()
  for (let i = 0; i < n; i++) {
    const t = performance.now()
    await run(i)
    times.push(performance.now() - t)
  }
  const total = performance.now() - started
  times.sort((a, b) => a - b)
  const q = (p: number) =>
    times[Math.min(times.length - 1, Math.floor(p * times.length))].toFixed(1)
  return {
    label,
    n,
    p50: q(0.5),
    p95: q(0.95),
    max: times[times.length - 1].toFixed(1),
    perSecond: ((n / total) * 1000).toFixed(0),
  }
}

const ids: { id: string; version: string }[] = []
const results = []
results.push(
  await measure(
    `create draft (up to ${suppliers} suppliers, near-duplicate check each time)`,
    suppliers,
    async (i) => {
      const d = await call('POST', '/admin/supplier/items', {
        fullName: name(i),
        taxNo: `9133${String(i).padStart(14, '0')}`,
        types: [{ typeCode: 'OTHER' }],
        mainCooperation: 'benchmark',
        contacts: [{ contactName: 'Li', contactPhone: '13800000000' }],
      })
      ids.push({ id: d.supplierId, version: d.updateTime })
    },
  ),
)
results.push(
  await measure('list, default order, page 1 of 20', 200, () =>
    call('GET', '/admin/supplier/items'),
  ),
)
results.push(
  await measure('list, keyword (trigram + substring)', 200, (i) =>
    call(
      'GET',
      `/admin/supplier/items?keyword=${encodeURIComponent(words[i % 10] + ' ' + words[(i * 3) % 10])}`,
    ),
  ),
)
results.push(
  await measure('detail', 200, (i) =>
    call('GET', `/admin/supplier/items/${ids[i % ids.length].id}`),
  ),
)
results.push(
  await measure('update one field', 200, async (i) => {
    const s = ids[i]
    const d = await call('PUT', `/admin/supplier/items/${s.id}`, {
      shortName: `S${i}`,
      expectedUpdateTime: s.version,
    })
    s.version = d.updateTime
  }),
)
results.push(
  await measure('submit registration (LOCAL_AUTO, applied)', 100, (i) => {
    const s = ids[200 + i]
    return call('POST', `/admin/supplier/items/${s.id}/submit`, {
      fullName: name(200 + i),
      taxNo: `9133${String(200 + i).padStart(14, '0')}`,
      types: [{ typeCode: 'OTHER' }],
      mainCooperation: 'benchmark',
      licenseImageUrl: 'https://storage.example.com/supplier/l.png',
      expectedUpdateTime: s.version,
    })
  }),
)

const database = serverUrl ? 'PostgreSQL (BENCH_DATABASE_URL)' : 'embedded PGlite'
const table = [
  `### ${database}, ${new Date().toISOString().slice(0, 10)}, Node ${process.version}`,
  '',
  '| operation | requests | p50 ms | p95 ms | max ms | requests/s (sequential) |',
  '|---|---|---|---|---|---|',
  ...results.map(
    (r) => `| ${r.label} | ${r.n} | ${r.p50} | ${r.p95} | ${r.max} | ${r.perSecond} |`,
  ),
  '',
].join('\n')
console.log(table)
if (out) await writeFile(out, table, { flag: 'a' })
await sql.end()
await embedded?.stop()
