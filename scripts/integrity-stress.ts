import { parseArgs } from 'node:util'
import { formatCounts, runIntegrityStress, wrongAnswers } from '../test/integrity-stress'

/**
 * The driver-integrity stress, for as long as asked: the pool's backends are killed at random
 * while every answer is checked against the statement that asked for it. Exits 1 on any wrong
 * answer (a connection error is not one). The last line is the report as JSON.
 *
 *   DATABASE_URL='postgres://postgres@127.0.0.1:5432/test?sslmode=disable' \
 *     npm run integrity:stress -- --seconds 600 --checked 500000
 *
 * It stops after --seconds (30), or once --checked answers have been checked. --workers (24)
 * and --pool (10) size the load; --failing (0.02) is the share of reads made to fail on a later
 * row, a fault without any kill; --no-kills runs the same load as a control, which must check
 * clean on any driver. It creates a table of its own in that database and drops it at the end,
 * and kills only connections carrying its own application_name.
 */

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '30' },
    checked: { type: 'string', default: 'Infinity' },
    workers: { type: 'string', default: '24' },
    pool: { type: 'string', default: '10' },
    failing: { type: 'string', default: '0.02' },
    'no-kills': { type: 'boolean', default: false },
  },
})
const url = process.env.DATABASE_URL
const seconds = Number(values.seconds)
const checkedAtMost = Number(values.checked)
const workers = Number(values.workers)
const poolMax = Number(values.pool)
const failing = Number(values.failing)
const valid =
  seconds > 0 && checkedAtMost > 0 && workers > 0 && poolMax > 0 && failing >= 0 && failing < 1
if (!url || !valid) {
  console.error(
    'usage: DATABASE_URL=postgres://… node --import tsx scripts/integrity-stress.ts ' +
      '[--seconds N] [--checked N] [--workers N] [--pool N] [--failing SHARE] [--no-kills]',
  )
  process.exit(2)
}

console.log(
  `integrity stress: ${seconds} s, ${workers} workers, pool of ${poolMax}, ` +
    `${failing * 100}% failing reads${values['no-kills'] ? ', no kills' : ''}`,
)
const report = await runIntegrityStress({
  url,
  seconds,
  checkedAtMost,
  workers,
  poolMax,
  failing,
  // The control: the same load with nothing killed must check clean on any driver.
  ...(values['no-kills'] && { killEveryMs: null }),
  progress: (counts, ms) =>
    console.log(
      `${(ms / 1000).toFixed(0).padStart(5)} s  checked ${counts.checked}  kills ${counts.kills}` +
        `  wrong ${wrongAnswers(counts)}`,
    ),
  progressEveryMs: 10_000,
})
console.log(formatCounts(report))
for (const [kind, examples] of Object.entries(report.samples)) {
  console.log(`\n${kind}, for example:`)
  for (const example of examples) console.log(`  ${example}`)
}
console.log(
  JSON.stringify({
    ...report.counts,
    seconds: Number((report.elapsedMs / 1000).toFixed(1)),
    rate: Math.round(report.rate),
    wrong: wrongAnswers(report.counts),
  }),
)
process.exit(wrongAnswers(report.counts) ? 1 : 0)
