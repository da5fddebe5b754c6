import { readdir, readFile } from 'node:fs/promises'
import { join, posix } from 'node:path'
import ts from 'typescript'

/*
 * A static check of the soft-delete rule ("every query adds `deleted_at IS NULL` for each table
 * it touches that has the column"), run by test/soft-delete-check.test.ts.
 *
 * 1. Every tagged template literal of the scanned TypeScript files is read with the TypeScript
 *    parser. A template under a query tag (`sql`, `tx`, `h.sql`…: TAG_NAMES) whose text starts
 *    with SELECT, WITH, UPDATE, INSERT or DELETE is a statement (SQL under any other tag is
 *    reported, so a query cannot escape the check by its tag's name); its substitutions are resolved where the code says what they are: fragments
 *    (`${listWhere(sql, f)}`, `${typesOf(sql)}`, `${lock ? sql`…` : sql``}`, `{…}[key]`, local or
 *    imported functions and constants, with their arguments bound) are inlined, `${sql('name')}`
 *    becomes that identifier, `${sql(other)}` an unknown identifier (`__ident__`), and any other
 *    value a placeholder (`__v__`).
 * 2. The statement is tokenized (comments and string literals are not code) and split into
 *    query scopes (each parenthesized sub-select, and each branch of UNION / EXCEPT /
 *    INTERSECT). Every table it reads or writes (FROM, JOIN, comma lists, UPDATE, DELETE, and
 *    the target of INSERT … ON CONFLICT … DO UPDATE) that has a deleted_at column, or whose name
 *    is not known (`FROM ${sql(table)}`), needs `<alias or table>.deleted_at IS NULL` in its own
 *    scope, or an unqualified `deleted_at IS NULL` there when it is the only such table of the
 *    scope. A plain INSERT … VALUES reads no rows and needs nothing.
 * 3. A fragment that references such a table but is never inlined into a checked statement
 *    cannot be proven either way: it is reported too, so a pattern the resolver cannot follow
 *    fails loudly instead of passing unchecked.
 */

/** Where a statement comes from: file, the function or constant that holds it, and its line. */
export interface Origin {
  file: string
  owner: string
  line: number
}

export interface Violation extends Origin {
  /** The table name, `<dynamic>` when the statement names it through `${sql(…)}`. */
  table: string
  alias: string | null
  /** `missing` filter, or a fragment that no checked statement inlines (`unchecked`). */
  kind: 'missing' | 'unchecked'
  statement: string
}

export interface Statement extends Origin {
  text: string
}

export interface SourceFile {
  /** Path relative to the repository root, with forward slashes (`sql/supplier.ts`). */
  path: string
  text: string
}

/** An exception to the rule: one table in one named function or constant of one file. */
export interface Allowed {
  file: string
  owner: string
  table: string
  /** Why this statement may touch soft-deleted rows: required, and shown in the test. */
  why: string
}

// Reading the sources ----------------------------------------------------------------------------

/** The .ts files under these directories of `root`, as repository-relative paths. */
export async function readSources(root: string, dirs: readonly string[]): Promise<SourceFile[]> {
  const out: SourceFile[] = []
  for (const dir of dirs) {
    const entries = await readdir(join(root, dir), { recursive: true })
    for (const entry of entries.sort()) {
      if (!entry.endsWith('.ts') || entry.endsWith('.d.ts')) continue
      const path = join(dir, entry).split('\\').join('/')
      out.push({ path, text: await readFile(join(root, path), 'utf8') })
    }
  }
  return out
}

// Resolving templates to SQL text ----------------------------------------------------------------

const STATEMENT_START = /^[\s(]*(SELECT|WITH|UPDATE|INSERT|DELETE)\b/i
/** How a statement under an unexpected tag name still gives itself away. */
const SQL_LOOKING = /^[\s(]*(SELECT|WITH|UPDATE|INSERT|DELETE)\s[\s\S]*\b(FROM|SET|INTO)\b/
const VALUE = ' __v__ '
const IDENT = ' __ident__ '

type Env = ReadonlyMap<string, { expr: ts.Expression; env: Env }>
const EMPTY_ENV: Env = new Map()

type Declaration = (
  | { kind: 'value'; expr: ts.Expression }
  | { kind: 'function'; node: ts.SignatureDeclaration & { body?: ts.ConciseBody } }
) & {
  /** Declared inside a function: its initializer may use the parameters bound there. */
  local?: boolean
}

/** Syntax trees by path and text: checking many variants of one file parses the others once. */
const PARSED = new Map<string, ts.SourceFile>()

/** A tag right before a backtick: the files without one hold no SQL (parsed only if imported). */
const TAGGED = /[\w$)\]]`/

class Resolver {
  private readonly texts = new Map<string, string>()
  private readonly parsed = new Map<string, ts.SourceFile>()
  /** Templates inlined into (or being) a checked statement. */
  readonly reached = new Set<ts.Node>()

  constructor(sources: readonly SourceFile[]) {
    for (const s of sources) this.texts.set(s.path, s.text)
  }

  private file(path: string): ts.SourceFile | undefined {
    const text = this.texts.get(path)
    if (text === undefined) return undefined
    let file = this.parsed.get(path)
    if (!file) {
      const key = `${path}\0${text}`
      file = PARSED.get(key) ?? ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true)
      PARSED.set(key, file)
      this.parsed.set(path, file)
    }
    return file
  }

  /** The files that contain a tagged template (of these paths only, when given). */
  sourceFiles(only?: readonly string[]) {
    return [...this.texts]
      .filter(([path, text]) => (!only || only.includes(path)) && TAGGED.test(text))
      .map(([path]) => this.file(path)!)
  }

  /** The SQL text of a tagged template, substitutions resolved. */
  templateText(node: ts.TaggedTemplateExpression, env: Env, depth = 0): string {
    this.reached.add(node)
    const t = node.template
    if (ts.isNoSubstitutionTemplateLiteral(t)) return t.text
    let text = t.head.text
    for (const span of t.templateSpans) {
      text += this.resolve(span.expression, env, depth + 1) + span.literal.text
    }
    return text
  }

  private resolve(expr: ts.Expression, env: Env, depth: number): string {
    if (depth > 40) return VALUE
    if (
      ts.isParenthesizedExpression(expr) ||
      ts.isAsExpression(expr) ||
      ts.isNonNullExpression(expr)
    )
      return this.resolve(expr.expression, env, depth + 1)
    if (ts.isTaggedTemplateExpression(expr)) return ` ${this.templateText(expr, env, depth + 1)} `
    if (ts.isConditionalExpression(expr))
      return `${this.resolve(expr.whenTrue, env, depth + 1)} ${this.resolve(expr.whenFalse, env, depth + 1)}`
    if (
      ts.isBinaryExpression(expr) &&
      [
        ts.SyntaxKind.QuestionQuestionToken,
        ts.SyntaxKind.BarBarToken,
        ts.SyntaxKind.AmpersandAmpersandToken,
      ].includes(expr.operatorToken.kind)
    )
      return `${this.resolve(expr.left, env, depth + 1)} ${this.resolve(expr.right, env, depth + 1)}`
    if (ts.isObjectLiteralExpression(expr))
      return expr.properties
        .map((p) => (ts.isPropertyAssignment(p) ? this.resolve(p.initializer, env, depth + 1) : ''))
        .join(' ')
    if (ts.isElementAccessExpression(expr)) return this.resolve(expr.expression, env, depth + 1)
    if (ts.isArrayLiteralExpression(expr))
      return expr.elements.map((e) => this.resolve(e, env, depth + 1)).join(' ')
    if (ts.isIdentifier(expr)) {
      const bound = env.get(expr.text)
      if (bound) return this.resolve(bound.expr, bound.env, depth + 1)
      const decl = this.lookup(expr)
      if (decl?.kind !== 'value') return VALUE
      return this.resolve(decl.expr, decl.local ? env : EMPTY_ENV, depth + 1)
    }
    if (ts.isCallExpression(expr)) return this.resolveCall(expr, env, depth)
    return VALUE
  }

  private resolveCall(call: ts.CallExpression, env: Env, depth: number): string {
    const callee = call.expression
    // `sql(x)` (also `tx(x)`, `h.sql(x)`): an identifier, or a helper whose text is not SQL.
    if (isTagName(callee)) {
      const [arg] = call.arguments
      const literal = arg && this.stringValue(arg, env, depth + 1)
      return literal === undefined ? IDENT : ` "${literal}" `
    }
    if (!ts.isIdentifier(callee) || env.has(callee.text)) return VALUE
    const decl = this.lookup(callee)
    if (decl?.kind !== 'function') return VALUE
    const bound = new Map(env)
    decl.node.parameters.forEach((p, i) => {
      const arg = call.arguments[i]
      if (ts.isIdentifier(p.name) && arg) bound.set(p.name.text, { expr: arg, env })
      else if (ts.isIdentifier(p.name)) bound.delete(p.name.text)
    })
    return returnedExpressions(decl.node)
      .map((e) => this.resolve(e, bound, depth + 1))
      .join(' ')
  }

  /** A string literal an expression stands for (directly, bound, or a constant), else undefined. */
  private stringValue(expr: ts.Expression, env: Env, depth: number): string | undefined {
    if (depth > 40) return undefined
    if (ts.isStringLiteral(expr) || ts.isNoSubstitutionTemplateLiteral(expr)) return expr.text
    if (ts.isIdentifier(expr)) {
      const bound = env.get(expr.text)
      if (bound) return this.stringValue(bound.expr, bound.env, depth + 1)
      const decl = this.lookup(expr)
      if (decl?.kind === 'value')
        return this.stringValue(decl.expr, decl.local ? env : EMPTY_ENV, depth + 1)
    }
    return undefined
  }

  /** The declaration an identifier refers to: enclosing blocks, the file, or a relative import. */
  private lookup(id: ts.Identifier): Declaration | undefined {
    for (let node: ts.Node | undefined = id.parent; node; node = node.parent) {
      if (isFunctionLike(node) && node.parameters.some((p) => bindsName(p.name, id.text)))
        return undefined
      const statements = ts.isBlock(node) || ts.isSourceFile(node) ? node.statements : undefined
      if (!statements) continue
      const found = findDeclaration(statements, id.text)
      if (found) return { ...found, local: !ts.isSourceFile(node) }
      if (ts.isSourceFile(node)) return this.imported(node, id.text)
    }
    return undefined
  }

  private imported(file: ts.SourceFile, name: string): Declaration | undefined {
    for (const st of file.statements) {
      if (!ts.isImportDeclaration(st) || !ts.isStringLiteral(st.moduleSpecifier)) continue
      const bindings = st.importClause?.namedBindings
      if (!bindings || !ts.isNamedImports(bindings)) continue
      const spec = bindings.elements.find((e) => e.name.text === name)
      if (!spec || !st.moduleSpecifier.text.startsWith('.')) continue
      const base = posix.normalize(
        posix.join(posix.dirname(file.fileName), st.moduleSpecifier.text.replace(/\.js$/, '')),
      )
      const source = this.file(`${base}.ts`) ?? this.file(`${base}/index.ts`)
      if (!source) return undefined
      return findDeclaration(source.statements, (spec.propertyName ?? spec.name).text)
    }
    return undefined
  }
}

const TAG_NAMES = new Set(['sql', 'tx', 'trx', 'db'])

function isTagName(e: ts.Expression): boolean {
  if (ts.isIdentifier(e)) return TAG_NAMES.has(e.text)
  if (ts.isPropertyAccessExpression(e))
    return TAG_NAMES.has(e.name.text) && !isTagName(e.expression)
  return false
}

function isFunctionLike(node: ts.Node): node is ts.SignatureDeclaration {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node)
  )
}

function bindsName(name: ts.BindingName, text: string): boolean {
  if (ts.isIdentifier(name)) return name.text === text
  return name.elements.some((e) => !ts.isOmittedExpression(e) && bindsName(e.name, text))
}

function findDeclaration(
  statements: ts.NodeArray<ts.Statement>,
  name: string,
): Declaration | undefined {
  for (const st of statements) {
    if (ts.isFunctionDeclaration(st) && st.name?.text === name)
      return { kind: 'function', node: st }
    if (!ts.isVariableStatement(st)) continue
    for (const d of st.declarationList.declarations) {
      if (!ts.isIdentifier(d.name) || d.name.text !== name || !d.initializer) continue
      const init = d.initializer
      if (ts.isArrowFunction(init) || ts.isFunctionExpression(init))
        return { kind: 'function', node: init }
      return { kind: 'value', expr: init }
    }
  }
  return undefined
}

/** What a function returns: its expression body, or its own `return` expressions. */
function returnedExpressions(fn: ts.SignatureDeclaration & { body?: ts.ConciseBody }) {
  if (!fn.body) return []
  if (!ts.isBlock(fn.body)) return [fn.body]
  const out: ts.Expression[] = []
  const visit = (node: ts.Node) => {
    if (isFunctionLike(node)) return
    if (ts.isReturnStatement(node) && node.expression) out.push(node.expression)
    ts.forEachChild(node, visit)
  }
  ts.forEachChild(fn.body, visit)
  return out
}

/**
 * The name of the function a node belongs to (a declaration, a method, or a function stored in
 * a named constant or property), else of the top-level constant holding it, else `(top level)`.
 */
function ownerOf(node: ts.Node): string {
  let constant: string | undefined
  for (let n: ts.Node | undefined = node.parent; n; n = n.parent) {
    if ((ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n)) && n.name)
      return n.name.getText()
    if (ts.isArrowFunction(n) || ts.isFunctionExpression(n)) {
      const holder = n.parent
      if (ts.isVariableDeclaration(holder) && ts.isIdentifier(holder.name)) return holder.name.text
      if (ts.isPropertyAssignment(holder)) return holder.name.getText()
    }
    if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name)) constant = n.name.text
  }
  return constant ?? '(top level)'
}

function origin(node: ts.Node): Origin {
  const file = node.getSourceFile()
  return {
    file: file.fileName,
    owner: ownerOf(node),
    line: file.getLineAndCharacterOfPosition(node.getStart()).line + 1,
  }
}

/**
 * Every SQL statement of these sources (templates starting with a statement keyword, fragments
 * inlined), and the fragments no statement inlines (text as written, substitutions as values).
 */
export function extractStatements(sources: readonly SourceFile[], only?: readonly string[]) {
  const resolver = new Resolver(sources)
  const templates: ts.TaggedTemplateExpression[] = []
  for (const file of resolver.sourceFiles(only)) {
    const visit = (node: ts.Node) => {
      if (ts.isTaggedTemplateExpression(node)) templates.push(node)
      ts.forEachChild(node, visit)
    }
    visit(file)
  }
  const statements: Statement[] = []
  /** Templates that read like SQL under a tag that is not one of TAG_NAMES. */
  const foreign: Statement[] = []
  for (const node of templates) {
    const text = ownText(node)
    if (!isTagName(node.tag)) {
      if (SQL_LOOKING.test(text)) foreign.push({ ...origin(node), text })
    } else if (STATEMENT_START.test(text)) {
      statements.push({ ...origin(node), text: resolver.templateText(node, EMPTY_ENV) })
    }
  }
  const fragments: Statement[] = templates
    .filter((node) => isTagName(node.tag) && !resolver.reached.has(node))
    .map((node) => ({ ...origin(node), text: ownText(node) }))
  return { statements, fragments, foreign }
}

/** A template's text with every substitution as a value placeholder. */
function ownText(node: ts.TaggedTemplateExpression): string {
  const t = node.template
  if (ts.isNoSubstitutionTemplateLiteral(t)) return t.text
  return t.head.text + t.templateSpans.map((s) => VALUE + s.literal.text).join('')
}

// Reading SQL ----------------------------------------------------------------------------------

interface Token {
  /** Upper-cased for words, as written for quoted identifiers and punctuation. */
  value: string
  kind: 'word' | 'quoted' | 'punct' | 'literal'
  scope: number
}

const SCOPE_OPENERS = new Set(['SELECT', 'WITH', 'VALUES', 'UPDATE', 'INSERT', 'DELETE'])
const SET_OPERATORS = new Set(['UNION', 'EXCEPT', 'INTERSECT'])
/** Words that end a table reference, so they are never taken for an alias. */
const NOT_ALIAS = new Set([
  'WHERE',
  'JOIN',
  'INNER',
  'LEFT',
  'RIGHT',
  'FULL',
  'CROSS',
  'NATURAL',
  'ON',
  'USING',
  'SET',
  'GROUP',
  'ORDER',
  'LIMIT',
  'OFFSET',
  'FOR',
  'HAVING',
  'WINDOW',
  'UNION',
  'EXCEPT',
  'INTERSECT',
  'RETURNING',
  'VALUES',
  'SELECT',
  'DEFAULT',
  'TABLESAMPLE',
  'FETCH',
  'DO',
  'OVERRIDING',
  'WITH',
  'LATERAL',
  '__V__',
  '__IDENT__',
])

const WORD = /[A-Za-z_][A-Za-z0-9_$]*/y
const NUMBER = /[0-9.]+/y

/** Tokens of one statement, each with the id of the query scope it belongs to. */
export function tokenize(sql: string): Token[] {
  const raw: Omit<Token, 'scope'>[] = []
  let i = 0
  while (i < sql.length) {
    const c = sql[i]
    if (/\s/.test(c)) i++
    else if (sql.startsWith('--', i))
      i = sql.indexOf('\n', i) === -1 ? sql.length : sql.indexOf('\n', i)
    else if (sql.startsWith('/*', i))
      i = sql.indexOf('*/', i) === -1 ? sql.length : sql.indexOf('*/', i) + 2
    else if (c === "'") {
      let j = i + 1
      while (j < sql.length && !(sql[j] === "'" && sql[j + 1] !== "'")) j += sql[j] === "'" ? 2 : 1
      raw.push({ value: "''", kind: 'literal' })
      i = j + 1
    } else if (c === '"') {
      const j = sql.indexOf('"', i + 1)
      const end = j === -1 ? sql.length : j
      raw.push({ value: sql.slice(i + 1, end), kind: 'quoted' })
      i = end + 1
    } else if (/[A-Za-z_]/.test(c)) {
      WORD.lastIndex = i
      const m = WORD.exec(sql)![0]
      raw.push({ value: m.toUpperCase(), kind: 'word' })
      i += m.length
    } else if (/[0-9]/.test(c)) {
      NUMBER.lastIndex = i
      const m = NUMBER.exec(sql)![0]
      raw.push({ value: m, kind: 'literal' })
      i += m.length
    } else {
      raw.push({ value: c, kind: 'punct' })
      i++
    }
  }
  // Scopes: a parenthesized statement opens one; a set operator starts a sibling.
  let next = 0
  const stack: { scope: number; opens: boolean }[] = [{ scope: next++, opens: true }]
  const current = () => stack[stack.length - 1].scope
  const out: Token[] = []
  raw.forEach((t, k) => {
    if (t.kind === 'punct' && t.value === '(') {
      out.push({ ...t, scope: current() })
      const after = raw[k + 1]
      const opens = after?.kind === 'word' && SCOPE_OPENERS.has(after.value)
      stack.push({ scope: opens ? next++ : current(), opens })
      return
    }
    if (t.kind === 'punct' && t.value === ')' && stack.length > 1) {
      stack.pop()
      out.push({ ...t, scope: current() })
      return
    }
    if (t.kind === 'word' && SET_OPERATORS.has(t.value)) {
      // The rest of this query level is another query: the nearest opening entry and the plain
      // parentheses above it (which share its scope) move to a new scope.
      let top = stack.length - 1
      while (top > 0 && !stack[top].opens) top--
      const sibling = next++
      for (let s = top; s < stack.length; s++) stack[s] = { ...stack[s], scope: sibling }
    }
    out.push({ ...t, scope: current() })
  })
  return out
}

const isWord = (t: Token | undefined, ...values: string[]) =>
  t !== undefined && t.kind === 'word' && values.includes(t.value)
const isPunct = (t: Token | undefined, value: string) =>
  t !== undefined && t.kind === 'punct' && t.value === value
const nameOf = (t: Token) => (t.kind === 'quoted' ? t.value : t.value.toLowerCase())

interface TableRef {
  table: string
  alias: string | null
  scope: number
  /** An INSERT target: checked only under ON CONFLICT … DO UPDATE. */
  insertTarget: boolean
}

/** The table references of a statement (FROM, JOIN, comma lists, UPDATE, DELETE, INSERT INTO). */
export function tableRefs(tokens: Token[]): TableRef[] {
  const refs: TableRef[] = []
  /** Reads one table reference at k; returns the index after it (or k when there is none). */
  const readRef = (k: number, insertTarget: boolean): number => {
    while (isPunct(tokens[k], '(') && !SCOPE_OPENERS.has(tokens[k + 1]?.value ?? '')) k++
    while (isWord(tokens[k], 'ONLY', 'LATERAL')) k++
    const first = tokens[k]
    if (!first || first.kind === 'punct' || first.kind === 'literal') return k
    if (isWord(first, '__V__')) return k + 1
    let j = k
    let name = nameOf(first)
    while (isPunct(tokens[j + 1], '.') && tokens[j + 2] && tokens[j + 2].kind !== 'punct') {
      j += 2
      name = nameOf(tokens[j])
    }
    // A function (unnest(…), jsonb_to_recordset(…)); after INSERT INTO, the column list.
    if (isPunct(tokens[j + 1], '(') && !insertTarget) return j + 1
    const table = first.value === '__IDENT__' && j === k ? '<dynamic>' : name
    j++
    if (isWord(tokens[j], 'AS')) j++
    let alias: string | null = null
    const a = tokens[j]
    if (a && (a.kind === 'quoted' || (a.kind === 'word' && !NOT_ALIAS.has(a.value)))) {
      alias = nameOf(a)
      j++
    }
    refs.push({ table, alias, scope: first.scope, insertTarget })
    return j
  }
  tokens.forEach((t, k) => {
    if (t.kind !== 'word') return
    const before = tokens[k - 1]
    if (t.value === 'FROM' || t.value === 'USING') {
      let j = readRef(k + 1, false)
      while (isPunct(tokens[j], ',') && tokens[j].scope === t.scope) j = readRef(j + 1, false)
    } else if (t.value === 'JOIN') readRef(k + 1, false)
    else if (t.value === 'UPDATE' && !isWord(before, 'FOR', 'DO', 'KEY')) readRef(k + 1, false)
    else if (t.value === 'INTO' && isWord(before, 'INSERT')) readRef(k + 1, true)
  })
  return refs
}

/** `[qualifier .] deleted_at IS NULL` predicates, by scope. */
function livenessPredicates(tokens: Token[]) {
  const found: { scope: number; qualifier: string | null }[] = []
  tokens.forEach((t, k) => {
    if (!(t.kind === 'word' && t.value === 'DELETED_AT')) return
    if (!isWord(tokens[k + 1], 'IS') || !isWord(tokens[k + 2], 'NULL')) return
    const qualified = isPunct(tokens[k - 1], '.') && tokens[k - 2]
    found.push({ scope: t.scope, qualifier: qualified ? nameOf(tokens[k - 2]) : null })
  })
  return found
}

/** The table references of one statement that lack their liveness filter. */
export function missingFilters(
  statement: Statement,
  softDeleteTables: ReadonlySet<string>,
): Violation[] {
  const tokens = tokenize(statement.text)
  const upsert = tokens.some((t, k) => isWord(t, 'DO') && isWord(tokens[k + 1], 'UPDATE'))
  const refs = tableRefs(tokens).filter(
    (r) =>
      (softDeleteTables.has(r.table) || r.table === '<dynamic>') && (!r.insertTarget || upsert),
  )
  const predicates = livenessPredicates(tokens)
  return refs
    .filter((ref) => {
      const name = ref.alias ?? ref.table
      const inScope = predicates.filter((p) => p.scope === ref.scope)
      if (inScope.some((p) => p.qualifier === name)) return false
      const alone = refs.filter((r) => r.scope === ref.scope).length === 1
      return !(alone && inScope.some((p) => p.qualifier === null))
    })
    .map((ref) => ({
      file: statement.file,
      owner: statement.owner,
      line: statement.line,
      table: ref.table,
      alias: ref.alias,
      kind: 'missing' as const,
      statement: statement.text.replace(/\s+/g, ' ').trim(),
    }))
}

/**
 * The whole check: every statement's missing filters, plus the fragments that reference a
 * soft-deletable table but that no checked statement inlines. Allowed exceptions are left out.
 */
export function checkSources(
  sources: readonly SourceFile[],
  softDeleteTables: ReadonlySet<string>,
  allowed: readonly Allowed[] = [],
  /** Check the statements of these files only (the others still resolve imports). */
  only?: readonly string[],
) {
  const { statements, fragments, foreign } = extractStatements(sources, only)
  const violations: Violation[] = []
  for (const s of statements) violations.push(...missingFilters(s, softDeleteTables))
  for (const f of fragments) {
    for (const ref of tableRefs(tokenize(f.text))) {
      if (!softDeleteTables.has(ref.table) || ref.insertTarget) continue
      violations.push({
        ...f,
        table: ref.table,
        alias: ref.alias,
        kind: 'unchecked',
        statement: f.text.replace(/\s+/g, ' ').trim(),
      })
    }
  }
  for (const f of foreign) {
    violations.push({
      ...f,
      table: '<any>',
      alias: null,
      kind: 'unchecked',
      statement: `SQL under a tag other than ${[...TAG_NAMES].join(', ')}: ${f.text.replace(/\s+/g, ' ').trim()}`,
    })
  }
  const isAllowed = (v: Violation, a: Allowed) =>
    a.file === v.file && a.owner === v.owner && a.table === v.table
  return {
    statements,
    violations: violations.filter((v) => !allowed.some((a) => isAllowed(v, a))),
    /** Exceptions that matched nothing: stale entries must go. */
    unusedAllowed: allowed.filter((a) => !violations.some((v) => isAllowed(v, a))),
  }
}
