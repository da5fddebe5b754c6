import { randomBytes } from 'node:crypto'
import postgres from 'postgres'
import { connect, isDatabaseUnavailable } from '../sql/db'
import { DEFAULT_REQUEST_TIMEOUT_MS, deadlineBounds } from '../src/config'

/**
 * The service's pool under a killer: workers issue statements whose every answer can be checked
 * (each carries a token of its own and echoes it back), while another client terminates the
 * pool's backends at random. A dropped connection may fail a statement; it must never give a
 * statement someone else's rows, holes, a wrong number of rows, or run it outside its
 * transaction. Shared by test/driver-integrity.test.ts and scripts/integrity-stress.ts.
 */

export interface StressOptions {
  /** A database where the run may create (and drops) a table of its own. */
  url: string
  seconds: number
  /** Concurrent workers; more workers than connections makes the pool pipeline. */
  workers?: number
  poolMax?: number
  /** Pause between two kill rounds, drawn uniformly from this range; null: no killer. */
  killEveryMs?: readonly [number, number] | null
  /**
   * A statement that has not settled after this long counts as hung and is abandoned. The pool
   * runs with the service's bounds for its default 5 s request deadline (connect, answer and
   * statement timeouts of 5 s or less, reconnects within 1 s), so twice that is a hang.
   */
  hangMs?: number
  /**
   * Share of operations that are reads failing after some rows, a fault that needs no killer;
   * 0 leaves only the kills as faults.
   */
  failing?: number
  /** Stop once this many answers have been checked, if that comes before `seconds`. */
  checkedAtMost?: number
  progress?: (counts: StressCounts, elapsedMs: number) => void
  progressEveryMs?: number
}

export interface StressCounts {
  /** Statement answers whose rows were checked. */
  checked: number
  lookups: number
  reads: number
  transactions: number
  /** Transactions whose begin() resolved. */
  committed: number
  kills: number
  /**
   * Statements or transactions rejected with a connection error, and transactions rejected for
   * any reason once their backend was killed: expected under the killer.
   */
  connectionErrors: number
  /** Statements a transaction's callback issued after its begin() had rejected. */
  lateStatements: number
  /** Reads made to fail part-way (division by zero on a later row). */
  failingReads: number
  /** Their expected rejections. */
  statementErrors: number
  /** Rows that are not the statement's: another's token, or another's shape (no token). */
  foreignRows: number
  /** Holes (or null rows) in an answer. */
  emptySlots: number
  /** Answers whose number of present rows is not the statement's. */
  wrongCounts: number
  /** Answers whose own rows are not what the statement returns (order, values). */
  wrongContent: number
  /** Statements of a transaction whose answer shows another transaction, or none. */
  outsideTransaction: number
  /** Rows in the table that no committed transaction of theirs explains. */
  committedOutside: number
  /** Transactions whose begin() resolved but whose rows are not all there. */
  lostCommits: number
  /** Statements or transactions that did not settle within hangMs. */
  hung: number
  /** Rejections that are neither connection errors nor the run's own checks. */
  unexpectedErrors: number
}

/** Each of these must stay 0; any other count is information. */
export const WRONG_ANSWERS = [
  'foreignRows',
  'emptySlots',
  'wrongCounts',
  'wrongContent',
  'outsideTransaction',
  'committedOutside',
  'lostCommits',
  'hung',
  'unexpectedErrors',
] as const satisfies readonly (keyof StressCounts)[]

export interface StressReport {
  counts: StressCounts
  elapsedMs: number
  /** Checked answers per second. */
  rate: number
  /** A few examples of each wrong answer, to start a diagnosis from. */
  samples: Partial<Record<keyof StressCounts, string[]>>
}

export const wrongAnswers = (counts: StressCounts) =>
  WRONG_ANSWERS.reduce((sum, key) => sum + counts[key], 0)

const ISOLATION = 'repeatable read'
const SAMPLES_PER_KIND = 5

type Row = Record<string, unknown>

interface InspectOptions {
  rowProblem?: (row: Row, i: number) => string | undefined
  blankIsOutside?: boolean
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** generate_series(1, n) in order, one row each. */
const inOrder = (row: Row, i: number) =>
  row.g === i + 1 ? undefined : `row ${i} has g ${String(row.g)}`

/** Thrown inside a transaction once an answer is wrong: it has been counted, stop there. */
class WrongAnswer extends Error {}

class Hung extends Error {}

interface TransactionRecord {
  token: string
  /** txid_current() as the transaction's first statement saw it. */
  txid?: string
  /** Its backend, as the first statement saw it. */
  pid?: number
  /** Steps whose INSERT answered correctly inside the transaction. */
  inserted: number[]
  /** The callback returned: only then may a COMMIT have been sent. */
  completed: boolean
  resolved: boolean
  /** begin() has rejected: statements the callback still issues have no transaction. */
  rejected: boolean
}

export async function runIntegrityStress(options: StressOptions): Promise<StressReport> {
  const {
    url,
    seconds,
    workers = 24,
    poolMax = 10,
    killEveryMs = [50, 750],
    hangMs = 10_000,
    failing = 0.02,
    progress,
    progressEveryMs = 5_000,
    checkedAtMost = Infinity,
  } = options
  const run = randomBytes(4).toString('hex')
  const applicationName = `integrity-stress-${run}`
  const table = `integrity_probe_${run}`
  const counts: StressCounts = {
    checked: 0,
    lookups: 0,
    reads: 0,
    transactions: 0,
    committed: 0,
    kills: 0,
    connectionErrors: 0,
    lateStatements: 0,
    failingReads: 0,
    statementErrors: 0,
    foreignRows: 0,
    emptySlots: 0,
    wrongCounts: 0,
    wrongContent: 0,
    outsideTransaction: 0,
    committedOutside: 0,
    lostCommits: 0,
    hung: 0,
    unexpectedErrors: 0,
  }
  const samples: StressReport['samples'] = {}
  const note = (kind: keyof StressCounts, text: string, n = 1) => {
    counts[kind] += n
    const list = (samples[kind] ??= [])
    if (list.length < SAMPLES_PER_KIND) list.push(text.slice(0, 400))
  }

  const admin = postgres(url, { max: 1, onnotice: () => {} })
  await admin.unsafe(`CREATE UNLOGGED TABLE ${table} (
    token text NOT NULL, step int NOT NULL, pid int NOT NULL, txid bigint NOT NULL,
    isolation text NOT NULL)`)
  // The pool the service runs: without its bounds postgres.js waits up to 20 s before a
  // reconnect (its backoff grows with failures counted across the pool), which under a fast
  // killer on a busy machine read as statements hanging when they were only queued.
  const sql = connect({
    url,
    max: poolMax,
    timezone: 'UTC',
    applicationName,
    bounds: deadlineBounds(DEFAULT_REQUEST_TIMEOUT_MS),
  })
  const probe = sql(table)
  const records: TransactionRecord[] = []
  const killedPids = new Set<number>()
  const suspects: { pid: number; err: unknown }[] = []
  let sequence = 0
  const newToken = () => `${run}:${(sequence++).toString(36)}`
  const started = performance.now()
  const until = started + seconds * 1000
  let stopping = false

  const show = (answer: readonly unknown[]) =>
    JSON.stringify(
      Array.from({ length: answer.length }, (_, i) => (i in answer ? answer[i] : '<empty>')),
    )

  /**
   * Counts what is wrong with `answer` for the statement that owns `token` and returns `expected`
   * rows; its own rows are returned only when the answer is entirely right. `blankIsOutside`:
   * the token column is read from the transaction's setting, so a blank one means the statement
   * ran where the setting is not (outside the transaction).
   */
  const inspect = (
    what: string,
    answer: readonly unknown[],
    token: string,
    expected: number,
    rowProblem?: InspectOptions['rowProblem'],
    blankIsOutside = false,
  ): Row[] | undefined => {
    counts.checked++
    const present: Row[] = []
    let empty = 0
    for (let i = 0; i < answer.length; i++) {
      const row = answer[i]
      if (!(i in answer) || row === null || row === undefined) empty++
      else present.push(row as Row)
    }
    let right = true
    const about = () => `${what} ${token}: ${show(answer)}`
    if (empty) {
      note('emptySlots', about(), empty)
      right = false
    }
    // Blank means "outside the transaction" only where the token is read from its setting; a
    // statement echoing its own token that gets a blank one got another statement's row.
    const blank = present.filter((r) => blankIsOutside && (r.token === null || r.token === ''))
    const foreign = present.filter((r) => r.token !== token && !blank.includes(r))
    if (foreign.length) {
      note('foreignRows', about(), foreign.length)
      right = false
    }
    if (blank.length) {
      note('outsideTransaction', about())
      right = false
    }
    if (present.length !== expected) {
      note('wrongCounts', about())
      right = false
    }
    const own = present.filter((r) => r.token === token)
    if (right && rowProblem) {
      const problem = own.map(rowProblem).find((p) => p !== undefined)
      if (problem) {
        note('wrongContent', `${about()} (${problem})`)
        right = false
      }
    }
    return right ? own : undefined
  }

  const rejected = (err: unknown) => {
    if (err instanceof WrongAnswer) return
    if (err instanceof Hung) return note('hung', err.message)
    if (isDatabaseUnavailable(err)) return void counts.connectionErrors++
    const e = err as { code?: string; message?: string }
    note('unexpectedErrors', `${e?.code ?? ''} ${e?.message ?? String(err)}`)
  }

  /** `work`, unless it has not settled within hangMs: then it is left behind and counted. */
  const bounded = <T>(what: string, work: Promise<T>) => {
    let timer: NodeJS.Timeout | undefined
    work.catch(() => {})
    return Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Hung(`${what} not settled in ${hangMs} ms`)), hangMs)
      }),
    ]).finally(() => clearTimeout(timer))
  }

  const lookup = async () => {
    const token = newToken()
    counts.lookups++
    // A parameterless statement goes out in one message, with no describe round trip first.
    const answer =
      Math.random() < 0.2
        ? await bounded(
            'lookup',
            sql.unsafe(`SELECT '${token}'::text AS token`, [], { prepare: false }),
          )
        : await bounded('lookup', sql`SELECT ${token}::text AS token`)
    inspect('lookup', answer, token, 1)
  }

  const read = async () => {
    const token = newToken()
    counts.reads++
    // Some reads stream their rows over a few milliseconds, so that kills land mid-result.
    const slow = Math.random() < 0.2
    const n = slow ? 2 + Math.floor(Math.random() * 20) : 2 + Math.floor(Math.random() * 60)
    const answer = await bounded(
      'read',
      slow
        ? sql`SELECT ${token}::text AS token, g, pg_sleep(0.0005)::text AS pause
            FROM generate_series(1, ${n}::int) g`
        : sql`SELECT ${token}::text AS token, g FROM generate_series(1, ${n}::int) g`,
    )
    inspect('read', answer, token, n, inOrder)
  }

  /** A read that fails on its k-th row, as a cast or a check on a later row does. */
  const failingRead = async () => {
    const token = newToken()
    const n = 3 + Math.floor(Math.random() * 20)
    const k = 2 + Math.floor(Math.random() * (n - 1))
    counts.failingReads++
    try {
      const answer = await bounded(
        'failing read',
        sql`SELECT ${token}::text AS token, g, 1 / (${k}::int - g) AS q
          FROM generate_series(1, ${n}::int) g`,
      )
      counts.checked++
      note('wrongContent', `failing read ${token}: answered ${show(answer)}`)
    } catch (err) {
      if ((err as { code?: unknown }).code !== '22012') throw err
      counts.statementErrors++
    }
  }

  const transaction = async () => {
    const token = newToken()
    const record: TransactionRecord = {
      token,
      inserted: [],
      completed: false,
      resolved: false,
      rejected: false,
    }
    records.push(record)
    counts.transactions++
    const statements = 3 + Math.floor(Math.random() * 4)

    const work = sql.begin(`isolation level ${ISOLATION}`, async (tx) => {
      /** The transaction's own answer, or WrongAnswer once it has been counted. */
      const own = async (
        what: string,
        query: Promise<readonly unknown[]>,
        expected = 1,
        { rowProblem, blankIsOutside = false }: InspectOptions = {},
      ) => {
        const late = record.rejected
        const answer = await query.catch((err) => {
          if (late) note('lateStatements', `${what} ${token}: rejected ${String(err?.code)}`)
          throw err
        })
        if (late) note('lateStatements', `${what} ${token}: answered ${show(answer)}`)
        const rows = inspect(what, answer, token, expected, rowProblem, blankIsOutside)
        if (!rows) throw new WrongAnswer(what)
        for (const row of rows) {
          const outside =
            row.isolation !== ISOLATION
              ? `isolation ${String(row.isolation)}`
              : record.txid !== undefined && row.txid !== record.txid
                ? `txid ${String(row.txid)}, the transaction's is ${record.txid}`
                : 'x' in row && row.x !== token
                  ? `app.x is ${String(row.x)}`
                  : undefined
          if (outside) {
            note('outsideTransaction', `${what} ${token}: ${outside}`)
            throw new WrongAnswer(what)
          }
        }
        return rows
      }
      const insert = async (step: number) => {
        const [row] = await own(
          `insert ${step}`,
          tx`INSERT INTO ${probe} (token, step, pid, txid, isolation)
            VALUES (${token}, ${step}, pg_backend_pid(), txid_current(),
              current_setting('transaction_isolation'))
            RETURNING token, txid::text AS txid, isolation, pid`,
        )
        // The first statement's txid is the transaction's: every later answer must carry it.
        record.txid ??= row.txid as string
        record.pid ??= row.pid as number
        record.inserted.push(step)
      }
      const readBack = () =>
        own(
          'read-back',
          tx`SELECT ${token}::text AS token, current_setting('app.x', true) AS x,
            txid_current()::text AS txid, current_setting('transaction_isolation') AS isolation`,
        )
      // No parameter, so no describe round trip: the statement goes out in one message. The
      // setting stands in for the token, and reads blank outside the transaction.
      const bareReadBack = () =>
        own(
          'bare read-back',
          tx`SELECT current_setting('app.x', true) AS token, txid_current()::text AS txid,
            current_setting('transaction_isolation') AS isolation`,
          1,
          { blankIsOutside: true },
        )
      const rows = (n: number) =>
        own(
          'rows',
          tx`SELECT ${token}::text AS token, g, txid_current()::text AS txid,
            current_setting('transaction_isolation') AS isolation
            FROM generate_series(1, ${n}::int) g`,
          n,
          { rowProblem: inOrder },
        )

      await insert(0)
      await own(
        'set',
        tx`SELECT ${token}::text AS token, set_config('app.x', ${token}, true) AS x,
          txid_current()::text AS txid, current_setting('transaction_isolation') AS isolation`,
      )
      for (let step = 2; step < statements; step++) {
        // Work between statements (a call to another service, say): the backend sits idle in
        // transaction. A long pause lets the pool reconnect a killed connection and lend it to
        // someone else before the callback goes on.
        const think = Math.random()
        if (think < 0.5) await sleep(think < 0.1 ? 10 + Math.random() * 50 : Math.random() * 3)
        const pick = Math.random()
        if (pick < 0.3) await insert(step)
        else if (pick < 0.5) await readBack()
        else if (pick < 0.65) await bareReadBack()
        else if (pick < 0.8) await rows(2 + Math.floor(Math.random() * 20))
        // Two at once: the second waits in the transaction's own queue.
        else await Promise.all([readBack(), rows(2 + Math.floor(Math.random() * 20))])
      }
      record.completed = true
    })
    work.catch(() => (record.rejected = true))
    try {
      await bounded('transaction', work)
    } catch (err) {
      // Once its backend is gone, how a transaction fails is the driver's choice. The killer may
      // not have noted the pid yet: judged when the run is over.
      const other = !(
        err instanceof WrongAnswer ||
        err instanceof Hung ||
        isDatabaseUnavailable(err)
      )
      if (other && record.pid !== undefined) return void suspects.push({ pid: record.pid, err })
      throw err
    }
    record.resolved = true
    counts.committed++
  }

  const worker = async () => {
    while (performance.now() < until && counts.checked < checkedAtMost) {
      const pick = Math.random()
      try {
        if (pick < failing) await failingRead()
        else if (pick < 0.5) await lookup()
        else if (pick < 0.75) await read()
        else await transaction()
      } catch (err) {
        rejected(err)
      }
    }
  }

  const killer = async ([least, most]: readonly [number, number]) => {
    while (!stopping) {
      await sleep(least + Math.random() * (most - least))
      if (stopping) break
      // Mostly one backend at a time, now and then the whole pool; a third of the rounds go for
      // a transaction left idle (as idle_in_transaction_session_timeout would), if there is one.
      const limit = Math.random() < 0.2 ? poolMax : 1
      const idleFirst = Math.random() < 1 / 3
      try {
        const killed = await admin<{ pid: number }[]>`
          SELECT pid, pg_terminate_backend(pid) FROM (
            SELECT pid FROM pg_stat_activity
            WHERE application_name = ${applicationName} AND pid <> pg_backend_pid()
            ORDER BY ${idleFirst} AND state = 'idle in transaction' DESC, random()
            LIMIT ${limit}
          ) p`
        counts.kills += killed.length
        for (const { pid } of killed) killedPids.add(pid)
      } catch {
        // The killer's own hiccup is no finding; the next round tries again.
      }
    }
  }

  const ticker =
    progress && setInterval(() => progress(counts, performance.now() - started), progressEveryMs)
  const killing = killEveryMs ? killer(killEveryMs) : Promise.resolve()
  try {
    await Promise.all(Array.from({ length: workers }, worker))
  } finally {
    stopping = true
    if (ticker) clearInterval(ticker)
    await killing
  }
  const elapsedMs = performance.now() - started
  for (const { pid, err } of suspects) {
    if (killedPids.has(pid)) counts.connectionErrors++
    else rejected(err)
  }

  try {
    await audit()
  } finally {
    await sql.end({ timeout: 2 })
    await admin.unsafe(`DROP TABLE IF EXISTS ${table}`)
    await admin.end()
  }
  return { counts, elapsedMs, rate: counts.checked / (elapsedMs / 1000), samples }

  /**
   * What is committed, read by another client once the run is over. A transaction's rows are
   * either all there under its own txid (it committed, even if the acknowledgement was lost) or
   * absent; any other row was written by a statement that ran outside its transaction.
   */
  async function audit() {
    const committed = new Map<string, { step: number; txid: string; isolation: string }[]>()
    for (const row of await admin<
      { token: string; step: number; txid: string; isolation: string }[]
    >`
      SELECT token, step, txid::text AS txid, isolation FROM ${admin(table)} ORDER BY token, step`) {
      const list = committed.get(row.token) ?? []
      list.push(row)
      committed.set(row.token, list)
    }
    for (const record of records) {
      const rows = committed.get(record.token) ?? []
      committed.delete(record.token)
      const legit = rows.filter(
        (r) => record.completed && r.txid === record.txid && r.isolation === ISOLATION,
      )
      const stray = rows.filter((r) => !legit.includes(r))
      const steps = (list: { step: number }[]) => list.map((r) => r.step).join(',')
      if (stray.length) {
        note(
          'committedOutside',
          `${record.token} (begin ${record.resolved ? 'resolved' : 'rejected'}, txid ` +
            `${record.txid ?? '?'}): ${JSON.stringify(stray)}`,
          stray.length,
        )
      }
      const whole = steps(legit) === [...record.inserted].sort((a, b) => a - b).join(',')
      if (legit.length && !whole) {
        note('committedOutside', `${record.token}: partial commit, steps ${steps(legit)}`)
      }
      if (record.resolved && (!legit.length || !whole)) {
        note(
          'lostCommits',
          `${record.token}: begin resolved, steps ${record.inserted.join(',')} inserted, ` +
            `committed ${steps(rows)}`,
        )
      }
    }
    for (const [token, rows] of committed) {
      note(
        'committedOutside',
        `${token}: rows of no transaction ${JSON.stringify(rows)}`,
        rows.length,
      )
    }
  }
}

/** The counts as a two-column table, wrong answers marked. */
export function formatCounts(report: StressReport): string {
  const { counts } = report
  const wrong = new Set<string>(WRONG_ANSWERS)
  const width = Math.max(...Object.keys(counts).map((k) => k.length))
  const lines = Object.entries(counts).map(
    ([key, value]) =>
      `${key.padEnd(width)}  ${String(value).padStart(9)}${wrong.has(key) && value ? '  <- wrong' : ''}`,
  )
  lines.push(
    `${'seconds'.padEnd(width)}  ${(report.elapsedMs / 1000).toFixed(1).padStart(9)}`,
    `${'checked/s'.padEnd(width)}  ${report.rate.toFixed(0).padStart(9)}`,
  )
  return lines.join('\n')
}
