import { readFileSync } from 'node:fs'
import { connect } from '../../sql/db'
import { percentile, replay, replayWrite, type Recorded } from './statements'

/**
 * The driver floor, in its own process: the statements of one scenario issued by postgres.js
 * in `concurrency` loops for `seconds`, no HTTP (a write: each time a new one). Prints one JSON line of figures.
 * Usage: DATABASE_URL=… node --import tsx scripts/bench/driver.ts <statements.json> <scenario>
 *   <concurrency> <seconds> <pool max>
 */
const [file, scenario, concurrency, seconds, poolMax] = process.argv.slice(2)
const { statements, write } = (JSON.parse(readFileSync(file, 'utf8')) as Record<string, Recorded>)[
  scenario
]
const sql = connect({
  url: process.env.DATABASE_URL!,
  max: Number(poolMax),
  timezone: 'Asia/Shanghai',
})

// A write is replayed as a new one each time (replayWrite): the run and the count make its
// unique values, so no two replays, of this run or an earlier one, collide.
const runId = Date.now() % 1e6
let replays = 0
const run = () => (write ? replayWrite(sql, write, runId, ++replays) : replay(sql, statements))
await Promise.all(Array.from({ length: Number(poolMax) }, run)) // connect and prepare first
const latencies: number[] = []
const until = performance.now() + Number(seconds) * 1000
const started = performance.now()
await Promise.all(
  Array.from({ length: Number(concurrency) }, async () => {
    while (performance.now() < until) {
      const t = performance.now()
      await run()
      latencies.push(performance.now() - t)
    }
  }),
)
const elapsed = (performance.now() - started) / 1000
latencies.sort((a, b) => a - b)
console.log(
  JSON.stringify({
    requestsPerSecond: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    failures: 0,
  }),
)
await sql.end()
