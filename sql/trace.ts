import type postgres from 'postgres'
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import { TRACER_NAME } from '../src/trace-context'

/*
 * A span per statement, made where every statement of the service passes: the row helpers of
 * sql/db.ts. It names the statement by its kind and tables (`SELECT supplier`), read from the text
 * postgres.js sent, in which every value is a bind parameter ($1, $2, …): parameters are never
 * read, and the text itself is not exported.
 */

export interface StatementSummary {
  /** The statement's verb (SELECT, INSERT, UPDATE, DELETE, …), upper case. */
  operation: string
  /** The table the verb acts on (FROM, INTO, UPDATE at the top level), when there is one. */
  table?: string
  /**
   * The verb and the tables the statement names anywhere, subqueries included, its own table
   * first (`SELECT supplier supplier_resource_relation`): OpenTelemetry's query summary, and the
   * span's name.
   */
  summary: string
}

/** The verb a WITH statement turns out to be (its main statement's, after the CTEs). */
const MAIN_VERBS = new Set(['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'MERGE'])
/** Where each verb names its table. */
const TABLE_AFTER: Record<string, string> = {
  SELECT: 'FROM',
  DELETE: 'FROM',
  INSERT: 'INTO',
  MERGE: 'INTO',
  UPDATE: 'UPDATE',
}
/** The summary names at most this many tables. */
const SUMMARY_TABLES = 5
/** Literals, dollar-quoted bodies and comments: skipped, so nothing inside them is ever a name. */
const SKIPPED = /'(?:[^']|'')*'|\$([A-Za-z_]\w*)?\$[\s\S]*?\$\1\$|--[^\n]*|\/\*[\s\S]*?\*\//g
/** Quoted names, names, bind parameters ($1) and parentheses: enough to find verbs and tables. */
const TOKEN = /"(?:[^"]|"")*"|[A-Za-z_][\w$]*(?:\.[A-Za-z_][\w$]*)*|\$\d+|[()]/g
const NAME = /^[A-Za-z_][\w$]*(?:\.[A-Za-z_][\w$]*)*$/

const unquoted = (token: string | undefined) =>
  token?.startsWith('"') ? token.slice(1, -1).replace(/""/g, '"') : token

/** The kind and tables of a statement's text (no value is ever part of either). */
export function statementSummary(text: string): StatementSummary {
  const tokens = text.replace(SKIPPED, ' ').match(TOKEN) ?? []
  const upper = tokens.map((t) => t.toUpperCase())
  // The top-level words, by their place among the tokens.
  const top: number[] = []
  let depth = 0
  tokens.forEach((token, at) => {
    if (token === '(') depth++
    else if (token === ')') depth--
    else if (depth === 0) top.push(at)
  })
  let verbAt = top[0] ?? -1
  if (upper[verbAt] === 'WITH') verbAt = top.find((at) => MAIN_VERBS.has(upper[at])) ?? verbAt
  const verb = upper[verbAt] ?? ''
  const operation = /^[A-Z]{1,20}$/.test(verb) ? verb : 'OTHER'

  /** The table named after the keyword at `at`, if what follows is a table (not a function). */
  const tableAfter = (at: number) => {
    let next = at + 1
    if (upper[next] === 'ONLY' || upper[next] === 'LATERAL') next++
    if (upper[at] !== 'INTO' && upper[at] !== 'UPDATE' && tokens[next + 1] === '(') return undefined
    const name = unquoted(tokens[next])
    return name && NAME.test(name) ? name : undefined
  }
  const tables: string[] = []
  upper.forEach((word, at) => {
    const names =
      ((word === 'FROM' || word === 'JOIN') && upper[at - 1] !== 'DISTINCT') ||
      word === 'INTO' ||
      // UPDATE as a verb (of the statement, or of a CTE), not FOR UPDATE.
      (word === 'UPDATE' && (at === verbAt || tokens[at - 1] === '('))
    const table = names ? tableAfter(at) : undefined
    if (table && !tables.includes(table)) tables.push(table)
  })
  const keyword = TABLE_AFTER[operation]
  const target = keyword
    ? top.find(
        (at) => at >= verbAt && upper[at] === keyword && (keyword !== 'UPDATE' || at === verbAt),
      )
    : undefined
  const table = target === undefined ? undefined : tableAfter(target)
  // The verb's own table first: the select list's subqueries come before FROM in the text.
  const named = table ? [table, ...tables.filter((t) => t !== table)] : tables
  const summary = [operation, ...named.slice(0, SUMMARY_TABLES)].join(' ')
  return table ? { operation, table, summary } : { operation, summary }
}

const summaries = new Map<string, StatementSummary>()
const SUMMARIES_MAX = 1000

/** The summary of a statement text, remembered: the same few hundred texts come back. */
function summaryOf(text: string): StatementSummary {
  let summary = summaries.get(text)
  if (!summary) {
    if (summaries.size >= SUMMARIES_MAX) summaries.clear()
    summary = statementSummary(text)
    summaries.set(text, summary)
  }
  return summary
}

/** The text postgres.js sent (set once the statement is built), else its template. */
const textOf = (query: object) => {
  const q = query as { string?: unknown; strings?: readonly string[] }
  return typeof q.string === 'string' ? q.string : (q.strings ?? []).join('$')
}

/**
 * Runs `query`, under a CLIENT span when a recorded trace is active (a traced request); outside
 * one, or with tracing off, it is only awaited. A failure records the SQLSTATE (or postgres.js's
 * code), never the message, which can quote a value (`Key (x)=(…) already exists`).
 */
export async function runStatement<T extends postgres.Row[]>(
  query: postgres.PendingQuery<T>,
): Promise<postgres.RowList<T>> {
  if (!trace.getActiveSpan()?.isRecording()) return await query
  const span = trace.getTracer(TRACER_NAME).startSpan('postgresql', {
    kind: SpanKind.CLIENT,
    attributes: { 'db.system.name': 'postgresql' },
  })
  try {
    const rows = await query
    span.setAttribute('db.response.returned_rows', rows.length)
    return rows
  } catch (err) {
    const code = (err as { code?: unknown }).code
    const type = typeof code === 'string' && /^[A-Z0-9_]{1,40}$/.test(code) ? code : 'unknown'
    span.setAttributes({ 'error.type': type, 'db.response.status_code': type })
    span.setStatus({ code: SpanStatusCode.ERROR })
    throw err
  } finally {
    const { operation, table, summary } = summaryOf(textOf(query))
    span.updateName(summary)
    span.setAttributes({ 'db.operation.name': operation, 'db.query.summary': summary })
    if (table) span.setAttribute('db.collection.name', table)
    span.end()
  }
}
