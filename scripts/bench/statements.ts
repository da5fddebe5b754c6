import type postgres from 'postgres'

/** One statement as the service sent it: text with $n placeholders, and its parameter values. */
export interface Statement {
  text: string
  parameters: unknown[]
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
    for (const s of list) {
      const result = await db.unsafe(s.text, s.parameters as never[], { prepare: true })
      if (result.length) rows = result
    }
    return rows
  }
  const first = statements[0]?.text.trim()
  if (first && /^begin\b/i.test(first) && /^commit\b/i.test(statements.at(-1)!.text.trim())) {
    const options = first.replace(/^begin\s*/i, '')
    return sql.begin(options, (tx) => run(tx, statements.slice(1, -1)))
  }
  return run(sql, statements)
}
