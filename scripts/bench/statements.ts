import type postgres from 'postgres'

/** One statement as the service sent it: text with $n placeholders, and its parameter values. */
export interface Statement {
  text: string
  parameters: unknown[]
  /** Sent while the request still awaited the previous statement (Promise.all in the service). */
  concurrent?: boolean
}

/** What one scenario's request made the service do: its statements and its fleet call, if any. */
export interface Recorded {
  statements: Statement[]
  fleetVehicleIds?: string[]
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
      variables.push(`p${i}_${n}=${asText(value)}`)
      return `:p${i}_${n}`
    })
    return `${text.trim().replace(/;$/, '')};`
  })
  return { script: lines.join('\n') + '\n', variables }
}

/**
 * Runs one request's statements on the pool as the service sent them: a BEGIN … COMMIT pair
 * becomes a postgres.js transaction (which refuses a bare BEGIN on a pooled connection) with the
 * same options. Returns the rows of the last statement that returned any.
 */
export async function replay(sql: postgres.Sql, statements: readonly Statement[]) {
  const run = async (db: postgres.Sql | postgres.TransactionSql, list: readonly Statement[]) => {
    let rows: unknown = null
    // Consecutive statements the service sent concurrently go out together here too.
    const groups: Statement[][] = []
    for (const s of list) {
      if (s.concurrent && groups.length) groups.at(-1)!.push(s)
      else groups.push([s])
    }
    for (const group of groups) {
      const results = await Promise.all(
        group.map((s) => db.unsafe(s.text, s.parameters as never[], { prepare: true })),
      )
      for (const result of results) if (result.length) rows = result
    }
    return rows
  }
  const begin = statements.findIndex((s) => /^begin\b/i.test(s.text.trim()))
  const commit = statements.findIndex((s) => /^commit\b/i.test(s.text.trim()))
  if (begin < 0 || commit < begin) return run(sql, statements)
  const options = statements[begin].text.trim().replace(/^begin\s*/i, '')
  const before = await run(sql, statements.slice(0, begin))
  const inside = await sql.begin(options, (tx) => run(tx, statements.slice(begin + 1, commit)))
  const after = await run(sql, statements.slice(commit + 1))
  return after ?? inside ?? before
}
