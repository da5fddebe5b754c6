import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { sign } from 'hono/jwt'
import { loadConfig } from '../../src/config'

/*
 * npm run bench:startup: how long each way of starting the service takes to its first
 * successful list request on the embedded database, and how much memory the server process
 * holds then. Two starts, each on a fresh DATA_DIR (first run: migrations, reference and demo
 * data) and again on the same directory (restart):
 *   - `npm start`: TypeScript through the tsx loader, as the README's quick start;
 *   - `npm run start:prod`: the bundle `npm run build` emits, as docs/operations.md's production start.
 * Memory is the server process's resident set (VmRSS) after its first answer and its peak
 * (VmHWM), read from /proc; npm's own process is not counted. Writes its section of
 * docs/benchmarks.md. Take the figures on a quiet machine: start-up is CPU-bound.
 */

const { values: opts } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    out: { type: 'string', default: 'docs/benchmarks.md' },
  },
})
const RUNS = Number(opts.runs)
const PORT = 18791

interface Sample {
  ms: number
  rssMiB: number
  peakMiB: number
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** The Node process of the process group `pgid` that is the server (not npm, not sh). */
function serverProcess(pgid: number): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (comm !== 'node' || Number(fields[2]) !== pgid) continue
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0')
      if (cmdline.some((a) => a.endsWith('src/main.ts') || a.endsWith('dist/node/main.js')))
        return Number(entry)
    } catch {
      // the process ended while it was read
    }
  }
  return undefined
}

const statusKiB = (pid: number, field: string) => {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`))
  return Number(line?.split(/\s+/)[1])
}

async function startOnce(script: string, dataDir: string, token: string): Promise<Sample> {
  const started = performance.now()
  // The bundle (start:prod) takes the development secret the token is signed with only so.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'development',
    DATA_DIR: dataDir,
    PORT: String(PORT),
  }
  delete env.DATABASE_URL // the embedded database
  const child = spawn('npm', ['run', script], { env, detached: true, stdio: 'ignore' })
  try {
    for (let i = 0; i < 2400; i++) {
      try {
        const res = await fetch(
          `http://127.0.0.1:${PORT}/admin/supplier/items?page=1&pageSize=20`,
          {
            headers: { authorization: `Bearer ${token}`, 'x-admin-id': ADMIN },
          },
        )
        if (((await res.json()) as { success?: boolean }).success) {
          const ms = performance.now() - started
          const pid = serverProcess(child.pid!)
          if (!pid) throw new Error(`no server process found under npm run ${script}`)
          return {
            ms,
            rssMiB: statusKiB(pid, 'VmRSS') / 1024,
            peakMiB: statusKiB(pid, 'VmHWM') / 1024,
          }
        }
      } catch (err) {
        if (err instanceof Error && err.message.startsWith('no server')) throw err
        // not listening yet
      }
      await sleep(25)
    }
    throw new Error(`npm run ${script} did not answer within 60 s`)
  } finally {
    process.kill(-child.pid!, 'SIGTERM')
    await new Promise((r) => child.once('exit', r))
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

async function measure(script: string, token: string) {
  const first: Sample[] = []
  const restart: Sample[] = []
  for (let run = 0; run < RUNS; run++) {
    const dataDir = mkdtempSync(join(tmpdir(), 'supplier-startup-'))
    try {
      first.push(await startOnce(script, dataDir, token))
      restart.push(await startOnce(script, dataDir, token))
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  }
  const summary = (s: Sample[]) => ({
    ms: median(s.map((x) => x.ms)),
    rssMiB: median(s.map((x) => x.rssMiB)),
    peakMiB: median(s.map((x) => x.peakMiB)),
  })
  return { first: summary(first), restart: summary(restart) }
}

// The demo data grants the demo administrator every permission; the token is the one
// `npm run token` prints for it.
const config = loadConfig({ NODE_ENV: 'development' })
const ADMIN = config.demoAdminId
const now = Math.floor(Date.now() / 1000)
const token = await sign(
  { sub: ADMIN, iat: now, exp: now + 3600, iss: config.auth.issuer, aud: config.auth.audience },
  config.auth.jwtSecret!,
  'HS256',
)
const build = spawnSync('npm', ['run', 'build'], { stdio: 'inherit' })
if (build.status !== 0) process.exit(build.status ?? 1)
const results = {
  date: new Date().toISOString(),
  machine: `${cpus().length} × ${cpus()[0].model}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
  runs: RUNS,
  tsx: await measure('start', token),
  bundle: await measure('start:prod', token),
}
console.log(JSON.stringify(results, null, 2))

const f0 = (n: number) => Math.round(n).toLocaleString('en')
const row = (label: string, r: typeof results.tsx) =>
  `| ${label} | ${f0(r.first.ms)} | ${f0(r.first.rssMiB)} / ${f0(r.first.peakMiB)} | ${f0(r.restart.ms)} | ${f0(r.restart.rssMiB)} / ${f0(r.restart.peakMiB)} |`
const BEGIN = '<!-- start-up: written by npm run bench:startup -->'
const END = '<!-- end of start-up -->'
const section = [
  BEGIN,
  `Run of ${results.date.slice(0, 16).replace('T', ' ')} UTC on ${results.machine}; median of ${RUNS} runs, each on a fresh \`DATA_DIR\` (first run: migrations, reference and demo data) and then on the same directory (restart). Time is from the command to the first successful list request; memory is the server process's resident set after that answer and its peak (MiB).`,
  '',
  '| start | first run ms | memory MiB (now / peak) | restart ms | memory MiB (now / peak) |',
  '|---|---|---|---|---|',
  row('`npm start` (tsx loader)', results.tsx),
  row('`npm run start:prod` (bundle)', results.bundle),
  END,
].join('\n')
const doc = readFileSync(opts.out!, 'utf8')
writeFileSync(
  opts.out!,
  doc.includes(BEGIN)
    ? doc.replace(new RegExp(`${BEGIN}[\\s\\S]*${END}`), section)
    : `${doc}\n## Start-up\n\n${section}\n`,
)
