import type postgres from 'postgres'

/** One statement as the service sent it: text with $n placeholders, and its parameter values. */
export interface Statement {
  text: string
  parameters: unknown[]
  /** Sent while the request still awaited the previous statement (Promise.all in the service). */
  concurrent?: boolean
  /** The rows it answered (recorded for writes, whose later statements reuse them). */
  rows?: Record<string, unknown>[]
}

/** What one scenario's request made the service do: its statements and its fleet call, if any. */
export interface Recorded {
  statements: Statement[]
  fleetVehicleIds?: string[]
  /** A write: how to replay it again and again (writeScript). */
  write?: WriteScript
}

/**
 * A recorded write made replayable. Replayed as it was, a write would collide with itself: the
 * supplier it updates is the one the recording created, its blind indexes and request number are
 * taken. So the values of the recording that another recording of the same work does not share
 * are either `chained`, answered by an earlier statement (ids, versions, the supplier number:
 * each replay uses what its own statement answered), or `unique` (blind indexes, fingerprints,
 * request numbers and ids: a fresh hexadecimal tail each replay). The rest is sent as recorded.
 */
export interface WriteScript {
  statements: Statement[]
  /** Values an earlier statement answered (`element`: at that index of an array column). */
  chained: { value: string; statement: number; row: number; column: string; element?: number }[]
  /** Values made of a fixed prefix and a chained value (an audit chain: `supplier:<id>`). */
  derived: { value: string; prefix: string; of: string }[]
  unique: string[]
}

/** The p-th percentile of ascending `sorted` (nearest rank). */
export const percentile = (sorted: readonly number[], p: number) =>
  sorted.length
    ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]
    : NaN

/** A parameter as text, the way the server reads an untyped parameter. */
function asText(value: unknown): string {
  if (Array.isArray(value)) {
    return `{${value.map((v) => `"${String(v).replace(/["\\]/g, '\\$&')}"`).join(',')}}`
  }
  return String(value)
}

/**
 * A pgbench script issuing `statements` as one transaction, and its `-D` variables. Parameters
 * stay parameters (`:pI_N`), so `pgbench -M prepared` runs the same prepared statements with
 * the same values as the service; a NULL is written inline, since -D cannot carry one.
 */
export function pgbenchScript(statements: readonly Statement[]) {
  const variables: string[] = []
  const lines = statements.map((s, i) => {
    // pgbench reads `:name` as a variable: a single colon before a letter would be misread.
    if (/(^|[^:]):[A-Za-z_]/.test(s.text.replace(/'[^']*'/g, "''"))) {
      throw new Error(`statement ${i} has a ':name' pgbench would misread: ${s.text}`)
    }
    const text = s.text.replace(/\$(\d+)/g, (_, n: string) => {
      const value = s.parameters[Number(n) - 1]
      if (value === null || value === undefined) return 'NULL'
      if (value === '') return "''" // -D cannot carry an empty value either
      variables.push(`p${i}_${n}=${asText(value)}`)
      return `:p${i}_${n}`
    })
    return `${text.trim().replace(/;$/, '')};`
  })
  return { script: lines.join('\n') + '\n', variables }
}

type Db = postgres.Sql | postgres.TransactionSql

/**
 * Runs `statements` as the service sent them: each BEGIN … COMMIT becomes a postgres.js
 * transaction (which refuses a bare BEGIN on a pooled connection) with the same options, and
 * consecutive statements the service sent concurrently go out together. `run` sends one.
 */
async function inTransactions(
  sql: postgres.Sql,
  statements: readonly Statement[],
  run: (db: Db, s: Statement, index: number) => Promise<postgres.Row[]>,
) {
  let rows: unknown = null
  const send = async (db: Db, from: number, to: number) => {
    const groups: number[][] = []
    for (let i = from; i < to; i++) {
      if (statements[i].concurrent && groups.length && i > from) groups.at(-1)!.push(i)
      else groups.push([i])
    }
    for (const group of groups) {
      const results = await Promise.all(group.map((i) => run(db, statements[i], i)))
      for (const result of results) if (result.length) rows = result
    }
  }
  let i = 0
  while (i < statements.length) {
    const begin = statements.findIndex((s, k) => k >= i && /^begin\b/i.test(s.text.trim()))
    const commit =
      begin < 0 ? -1 : statements.findIndex((s, k) => k > begin && /^commit\b/i.test(s.text.trim()))
    if (begin < 0 || commit < 0) {
      await send(sql, i, statements.length)
      break
    }
    await send(sql, i, begin)
    const options = statements[begin].text.trim().replace(/^begin\s*/i, '')
    await sql.begin(options, (tx) => send(tx, begin + 1, commit))
    i = commit + 1
  }
  return rows
}

/**
 * Runs one request's statements on the pool as the service sent them. Returns the rows of the
 * last statement that returned any.
 */
export function replay(sql: postgres.Sql, statements: readonly Statement[]) {
  return inTransactions(sql, statements, (db, s) =>
    db.unsafe(s.text, s.parameters as never[], { prepare: true }),
  )
}

const isTransactionControl = (s: Statement) => /^(begin|commit|rollback)\b/i.test(s.text.trim())

/** String leaves of a parameter (JSON parameters are walked), with a way to rewrite them. */
function mapLeaves(value: unknown, f: (leaf: string) => string): unknown {
  if (typeof value === 'string') return f(value)
  if (Array.isArray(value)) return value.map((v) => mapLeaves(v, f))
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapLeaves(v, f)]))
  }
  return value
}
function leaves(value: unknown, out: string[] = []): string[] {
  mapLeaves(value, (leaf) => (out.push(leaf), leaf))
  return out
}

/** A value worth tracing back to an earlier answer: long enough not to match by chance. */
const traceable = (v: string) => v.length >= 8

/** Ends with, or holds, a run of hexadecimal digits (a blind index, fingerprint, UUID). */
const HEX_TAIL = /[0-9a-f]{12}(?=[^0-9a-f]*$)/i

/**
 * The replay script of a write, from two recordings of the same work on different inputs
 * (`a` is replayed, `b` tells which of its values belong to that one request).
 */
export function writeScript(a: readonly Statement[], b: readonly Statement[]): WriteScript {
  if (a.length !== b.length || a.some((s, i) => s.text !== b[i].text)) {
    throw new Error('the two recordings of the write sent different statements: cannot replay')
  }
  const chained: WriteScript['chained'] = []
  const derived: WriteScript['derived'] = []
  const unique = new Set<string>()
  const known = new Set<string>()
  a.forEach((s, i) => {
    const mine = leaves(s.parameters)
    const theirs = leaves(b[i].parameters)
    mine.forEach((value, j) => {
      if (value === theirs[j] || known.has(value) || unique.has(value)) return
      const source = traceable(value)
        ? a.slice(0, i).flatMap((earlier, k) =>
            (earlier.rows ?? []).flatMap((row, r) =>
              Object.entries(row).flatMap(([column, v]) => {
                const other = b[k].rows?.[r]?.[column]
                if (Array.isArray(v)) {
                  // e.g. the change-log ids the audit chain's head lock takes with nextval
                  const element = v.findIndex((e) => e !== null && String(e) === value)
                  return element >= 0 &&
                    Array.isArray(other) &&
                    String(other[element]) === theirs[j]
                    ? [{ value, statement: k, row: r, column, element }]
                    : []
                }
                return v !== null && String(v) === value && String(other) === theirs[j]
                  ? [{ value, statement: k, row: r, column }]
                  : []
              }),
            ),
          )[0]
        : undefined
      // A value made of a prefix and an earlier answer (an audit chain: `supplier:<id>`).
      const suffix = source
        ? undefined
        : a.slice(0, i).flatMap((earlier, k) =>
            (earlier.rows ?? []).flatMap((row, r) =>
              Object.entries(row)
                .filter(([, v]) => v !== null && !Array.isArray(v) && traceable(String(v)))
                .filter(([, v]) => value.endsWith(String(v)) && value !== String(v))
                .map(([column, v]) => ({ value: String(v), statement: k, row: r, column })),
            ),
          )[0]
      if (source) {
        chained.push(source)
        known.add(value)
      } else if (suffix && theirs[j].startsWith(value.slice(0, -suffix.value.length))) {
        if (!known.has(suffix.value)) chained.push(suffix)
        known.add(suffix.value)
        derived.push({ value, prefix: value.slice(0, -suffix.value.length), of: suffix.value })
        known.add(value)
      } else if (HEX_TAIL.test(value)) unique.add(value)
    })
  })
  return { statements: [...a], chained, derived, unique: [...unique] }
}

/**
 * Replays a write once, as replay number `n` of run `run` (both make its unique values): each
 * chained value is what this replay's own earlier statement answered.
 */
export async function replayWrite(sql: postgres.Sql, script: WriteScript, run: number, n: number) {
  const values = new Map<string, string>()
  const tail = (run * 2 ** 20 + n).toString(16).padStart(12, '0').slice(-12)
  for (const u of script.unique) values.set(u, u.replace(HEX_TAIL, tail))
  const swap = (leaf: string) => values.get(leaf) ?? leaf
  await inTransactions(sql, script.statements, async (db, s, index) => {
    if (isTransactionControl(s)) return []
    const rows = await db.unsafe(s.text, s.parameters.map((p) => mapLeaves(p, swap)) as never[], {
      prepare: true,
    })
    for (const c of script.chained) {
      if (c.statement !== index || !rows[c.row]) continue
      const v = rows[c.row][c.column]
      values.set(c.value, String(c.element === undefined ? v : (v as unknown[])[c.element]))
    }
    for (const d of script.derived) {
      const of = values.get(d.of)
      if (of !== undefined) values.set(d.value, d.prefix + of)
    }
    return rows
  })
  /** What each recorded value became in this replay. */
  return swap
}
