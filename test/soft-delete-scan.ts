import { readdir, readFile } from 'node:fs/promises'
import { join, posix } from 'node:path'
import {
  loadModule,
  parseSync,
  scanSync,
  type Node,
  type RangeVar,
  type SelectStmt,
  type InsertStmt,
  type UpdateStmt,
  type DeleteStmt,
} from 'libpg-query'
import ts from 'typescript'

/*
 * A static check of the soft-delete rule ("every query adds `deleted_at IS NULL` for each table
 * it touches that has the column"), run by test/soft-delete-check.test.ts.
 *
 * 1. Every tagged template literal of the scanned TypeScript files is read with the TypeScript
 *    parser. A template under a query tag (`sql`, `tx`, `h.sql`…: TAG_NAMES) whose text starts
 *    with SELECT, WITH, UPDATE, INSERT or DELETE is a statement (`(SELECT …) s` is a fragment;
 *    SQL under any other tag is reported, so a query cannot escape the check by its tag's name).
 *    Its substitutions are resolved where the code says what they are: fragments
 *    (`${listWhere(sql, f)}`, `${lock ? sql`…` : sql``}`, `{…}[key]`, local or imported functions
 *    and constants, with their arguments bound) are inlined, each branch of a conditional (each
 *    property of a looked-up object, each `return`) giving its own variant of the statement;
 *    `${sql('name')}` becomes that identifier; `${sql(other)}` what postgres.js makes of it
 *    there: a column list after `INSERT INTO table`, `column = value` after SET, a list after IN,
 *    else an unknown name (`"<dynamic>"`); any other value is a parameter (`$1`).
 * 2. Each variant is parsed by PostgreSQL's own parser (libpg-query); one that does not parse, or
 *    that holds another kind of statement (MERGE…), is reported. In each query scope of the tree
 *    (each SELECT, set-operation branch, sub-select, CTE, UPDATE, DELETE, and INSERT … ON
 *    CONFLICT … DO UPDATE), every table it reads or writes that has a deleted_at column, or whose
 *    name is not known (`"<dynamic>"`), needs `<alias or table>.deleted_at IS NULL` as an AND-ed
 *    term of a predicate that filters its rows: the scope's WHERE, the ON of a join on whose
 *    non-preserved side it stands, or the ON CONFLICT WHERE of an upsert's target. An unqualified
 *    `deleted_at IS NULL` counts when it is the only such table of the scope. A plain INSERT …
 *    VALUES reads no rows and needs nothing.
 * 3. A fragment that names such a table but is never inlined into a checked statement cannot be
 *    proven either way: it is reported too, so a pattern the resolver cannot follow fails loudly
 *    instead of passing unchecked.
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
  /**
   * `missing` filter, a fragment that no checked statement inlines (`unchecked`), or a statement
   * that PostgreSQL's parser rejects or that holds a statement other than SELECT, INSERT, UPDATE
   * and DELETE (MERGE…) (`unparsable`).
   */
  kind: 'missing' | 'unchecked' | 'unparsable'
  statement: string
}

export interface Statement extends Origin {
  /** The SQL texts the statement can take, one per combination of its fragments' branches. */
  variants: string[]
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

/** A parenthesized sub-select written as its own template (`(SELECT …) s`) is a fragment. */
const STATEMENT_START = /^\s*(SELECT|WITH|UPDATE|INSERT|DELETE)\b/i
/** How a statement under an unexpected tag name still gives itself away. */
const SQL_LOOKING = /^[\s(]*(SELECT|WITH|UPDATE|INSERT|DELETE)\s[\s\S]*\b(FROM|SET|INTO)\b/
const VALUE = ' $1 '
const DYNAMIC = '<dynamic>'
/** Past this many variants a statement is a pattern to split up, not to enumerate. */
const MAX_VARIANTS = 4096

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

/** Every concatenation of one text of each list, in order. */
function product(lists: readonly (readonly string[])[]): string[] {
  let out = ['']
  for (const list of lists) {
    out = [...new Set(out.flatMap((a) => list.map((b) => a + b)))]
    if (out.length > MAX_VARIANTS) throw new Error(`more than ${MAX_VARIANTS} variants`)
  }
  return out
}

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

  /** The SQL texts of a tagged template, substitutions resolved. */
  templateText(node: ts.TaggedTemplateExpression, env: Env, depth = 0): string[] {
    this.reached.add(node)
    const t = node.template
    if (ts.isNoSubstitutionTemplateLiteral(t)) return [t.text]
    const literals = [t.head.text, ...t.templateSpans.map((s) => s.literal.text)]
    const texts = t.templateSpans.map((span, i) =>
      this.resolve(span.expression, env, depth + 1, literals.slice(0, i + 1).join(VALUE)),
    )
    // Substitutions that name one binding (`${order} … ${order}`) are one value at run time: in a
    // variant they take the same branch, so they multiply the variants once, not once each.
    const slotOf: number[] = []
    const slots: { key: unknown; size: number }[] = []
    t.templateSpans.forEach((span, i) => {
      const key = this.bindingOf(span.expression, env)
      const same = slots.findIndex((s) => key !== undefined && s.key === key)
      if (same >= 0 && slots[same].size === texts[i].length) slotOf.push(same)
      else slotOf.push(slots.push({ key, size: texts[i].length }) - 1)
    })
    let choices: number[][] = [[]]
    for (const slot of slots) {
      choices = choices.flatMap((c) => Array.from({ length: slot.size }, (_, j) => [...c, j]))
      if (choices.length > MAX_VARIANTS) throw new Error(`more than ${MAX_VARIANTS} variants`)
    }
    return [
      ...new Set(
        choices.map(
          (c) =>
            t.head.text +
            t.templateSpans.map((span, i) => texts[i][c[slotOf[i]]] + span.literal.text).join(''),
        ),
      ),
    ]
  }

  /** What an identifier substitution is bound to (one object per binding), else undefined. */
  private bindingOf(expr: ts.Expression, env: Env): unknown {
    if (!ts.isIdentifier(expr)) return undefined
    const decl = this.lookup(expr)
    return env.get(expr.text) ?? (decl?.kind === 'value' ? decl.expr : undefined)
  }

  private resolve(expr: ts.Expression, env: Env, depth: number, before: string): string[] {
    const each = (exprs: readonly ts.Expression[]) =>
      exprs.flatMap((e) => this.resolve(e, env, depth + 1, before))
    if (depth > 40) return [VALUE]
    if (
      ts.isParenthesizedExpression(expr) ||
      ts.isAsExpression(expr) ||
      ts.isNonNullExpression(expr)
    )
      return this.resolve(expr.expression, env, depth + 1, before)
    if (ts.isTaggedTemplateExpression(expr))
      return this.templateText(expr, env, depth + 1).map((t) => ` ${t} `)
    if (ts.isConditionalExpression(expr)) return each([expr.whenTrue, expr.whenFalse])
    if (
      ts.isBinaryExpression(expr) &&
      [
        ts.SyntaxKind.QuestionQuestionToken,
        ts.SyntaxKind.BarBarToken,
        ts.SyntaxKind.AmpersandAmpersandToken,
      ].includes(expr.operatorToken.kind)
    )
      return each([expr.left, expr.right])
    // Only a key picks one of an object's fragments (`{ a: sql`…`, b: sql`…` }[key]).
    if (ts.isObjectLiteralExpression(expr))
      return each(expr.properties.filter(ts.isPropertyAssignment).map((p) => p.initializer))
    if (ts.isElementAccessExpression(expr)) return this.resolve(expr.expression, env, depth, before)
    // postgres.js joins a list of fragments with spaces.
    if (ts.isArrayLiteralExpression(expr))
      return product(
        expr.elements.map((e) => this.resolve(e, env, depth + 1, before).map((t) => ` ${t}`)),
      )
    if (ts.isIdentifier(expr)) {
      const bound = env.get(expr.text)
      if (bound) return this.resolve(bound.expr, bound.env, depth + 1, before)
      const decl = this.lookup(expr)
      if (decl?.kind !== 'value') return [VALUE]
      return this.resolve(decl.expr, decl.local ? env : EMPTY_ENV, depth + 1, before)
    }
    if (ts.isCallExpression(expr)) return this.resolveCall(expr, env, depth, before)
    return [VALUE]
  }

  private resolveCall(call: ts.CallExpression, env: Env, depth: number, before: string): string[] {
    const callee = call.expression
    // `sql(x)` (also `tx(x)`, `h.sql(x)`): an identifier, or a helper whose text is not SQL.
    if (isTagName(callee)) {
      const [arg] = call.arguments
      const literal = arg && this.stringValue(arg, env, depth + 1)
      return [literal === undefined ? helperText(before) : ` "${literal}" `]
    }
    if (!ts.isIdentifier(callee) || env.has(callee.text)) return [VALUE]
    const decl = this.lookup(callee)
    if (decl?.kind !== 'function') return [VALUE]
    const bound = new Map(env)
    decl.node.parameters.forEach((p, i) => {
      const arg = call.arguments[i]
      if (ts.isIdentifier(p.name) && arg) bound.set(p.name.text, { expr: arg, env })
      else if (ts.isIdentifier(p.name)) bound.delete(p.name.text)
    })
    return returnedExpressions(decl.node).flatMap((e) => this.resolve(e, bound, depth + 1, before))
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

/**
 * What postgres.js writes for `sql(x)` when x is not a known string: a column list and values
 * after `INSERT INTO table`, `column = value` after SET, a list after IN, rows after VALUES, else
 * a name.
 */
function helperText(before: string): string {
  if (/\bINSERT\s+INTO\s+\S+\s*$/i.test(before)) return ' ("<column>") VALUES ($1) '
  if (/\bSET\s*$/i.test(before)) return ' "<column>" = $1 '
  if (/\bIN\s*$/i.test(before)) return ' ($1) '
  if (/\bVALUES\s*$/i.test(before)) return ' ($1) '
  return ` "${DYNAMIC}" `
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
      if (SQL_LOOKING.test(text)) foreign.push({ ...origin(node), variants: [text] })
    } else if (STATEMENT_START.test(text)) {
      const at = origin(node)
      try {
        statements.push({ ...at, variants: resolver.templateText(node, EMPTY_ENV) })
      } catch (e) {
        throw new Error(`${at.file}:${at.line} ${at.owner}: ${(e as Error).message}`, { cause: e })
      }
    }
  }
  const fragments: Statement[] = templates
    .filter((node) => isTagName(node.tag) && !resolver.reached.has(node))
    .map((node) => ({ ...origin(node), variants: [ownText(node)] }))
  return { statements, fragments, foreign }
}

/** A template's text with every substitution as a value placeholder. */
function ownText(node: ts.TaggedTemplateExpression): string {
  const t = node.template
  if (ts.isNoSubstitutionTemplateLiteral(t)) return t.text
  return t.head.text + t.templateSpans.map((s) => VALUE + s.literal.text).join('')
}

// Reading SQL ----------------------------------------------------------------------------------

await loadModule()

/** A table a query scope reads or writes, and the predicates that filter its rows. */
interface TableRef {
  table: string
  alias: string | null
  location: number
  filters: (Node | undefined)[]
}

type Scope = SelectStmt & InsertStmt & UpdateStmt & DeleteStmt

/** The AND-ed terms of a predicate. */
const conjuncts = (node: Node | undefined): Node[] =>
  !node
    ? []
    : 'BoolExpr' in node && node.BoolExpr.boolop === 'AND_EXPR'
      ? node.BoolExpr.args!.flatMap(conjuncts)
      : [node]

/** `q.deleted_at IS NULL` gives q, `deleted_at IS NULL` null, anything else undefined. */
function livenessQualifier(node: Node): string | null | undefined {
  if (!('NullTest' in node) || node.NullTest.nulltesttype !== 'IS_NULL') return undefined
  const arg = node.NullTest.arg
  if (!arg || !('ColumnRef' in arg)) return undefined
  const names = arg.ColumnRef.fields!.map((f) => ('String' in f ? f.String.sval : undefined))
  if (names.at(-1) !== 'deleted_at') return undefined
  return names.length === 1 ? null : names.at(-2)
}

/** The tables of a statement's scopes that lack their filter, in the order they are written. */
function unfilteredTables(stmt: Node, checked: (table: string) => boolean): TableRef[] {
  const out: TableRef[] = []
  const visit = (node: unknown, ctes: ReadonlySet<string>): void => {
    if (typeof node !== 'object' || node === null) return
    for (const [key, value] of Object.entries(node)) {
      if (['SelectStmt', 'InsertStmt', 'UpdateStmt', 'DeleteStmt'].includes(key))
        scope(key, value as Scope, ctes)
      else if (/^[A-Z]\w*Stmt$/.test(key)) throw new Error(`${key} is not read by this check`)
      else visit(value, ctes)
    }
  }
  const scope = (kind: string, s: Scope, outer: ReadonlySet<string>) => {
    // A CTE's name hides a table of that name after it (and, WITH RECURSIVE, in it).
    const ctes = new Set(outer)
    const { withClause, larg, rarg, ...body } = s
    const defs = (withClause?.ctes ?? []).map((c) =>
      'CommonTableExpr' in c ? c.CommonTableExpr : {},
    )
    if (withClause?.recursive) for (const c of defs) ctes.add(c.ctename!)
    for (const c of defs) {
      visit(c.ctequery, ctes)
      ctes.add(c.ctename!)
    }
    if (larg && rarg) {
      scope(kind, larg as Scope, ctes)
      scope(kind, rarg as Scope, ctes)
      return visit(body, ctes)
    }
    const refs: TableRef[] = []
    const add = (r: RangeVar | undefined, filters: (Node | undefined)[]) => {
      if (!r?.relname || (!r.schemaname && ctes.has(r.relname)) || !checked(r.relname)) return
      const alias = r.alias?.aliasname ?? null
      refs.push({ table: r.relname, alias, location: r.location ?? 0, filters })
    }
    // An outer join's ON filters the side whose rows it may leave out, not the one it keeps.
    const from = (item: Node | undefined, filters: (Node | undefined)[]): void => {
      if (!item) return
      if ('RangeVar' in item) add(item.RangeVar, filters)
      if ('RangeTableSample' in item) from(item.RangeTableSample.relation, filters)
      if (!('JoinExpr' in item)) return
      const { jointype, larg, rarg, quals } = item.JoinExpr
      from(larg, ['JOIN_INNER', 'JOIN_RIGHT'].includes(jointype!) ? [...filters, quals] : filters)
      from(rarg, ['JOIN_INNER', 'JOIN_LEFT'].includes(jointype!) ? [...filters, quals] : filters)
    }
    for (const item of [...(s.fromClause ?? []), ...(s.usingClause ?? [])])
      from(item, [s.whereClause])
    if (kind === 'UpdateStmt' || kind === 'DeleteStmt') add(s.relation, [s.whereClause])
    const upsert = s.onConflictClause
    if (upsert?.action === 'ONCONFLICT_UPDATE')
      add(s.relation, [upsert.infer?.whereClause, upsert.whereClause])
    for (const ref of refs) {
      const name = ref.alias ?? ref.table
      const found = ref.filters.flatMap(conjuncts).map(livenessQualifier)
      if (found.includes(name) && name !== DYNAMIC) continue
      if (refs.length === 1 && found.includes(null)) continue
      out.push(ref)
    }
    visit(body, ctes)
  }
  visit(stmt, new Set())
  return out.sort((a, b) => a.location - b.location)
}

/** What each text checks to, by set of soft-deletable tables: variants and mutants share most. */
const CHECKED = new WeakMap<ReadonlySet<string>, Map<string, TableRef[] | Error>>()

function check(text: string, softDeleteTables: ReadonlySet<string>): TableRef[] | Error {
  const known = CHECKED.get(softDeleteTables) ?? new Map<string, TableRef[] | Error>()
  CHECKED.set(softDeleteTables, known)
  if (!known.has(text)) {
    const checked = (table: string) => softDeleteTables.has(table) || table === DYNAMIC
    try {
      const stmts = parseSync(text).stmts ?? []
      known.set(
        text,
        stmts.flatMap(({ stmt }) => unfilteredTables(stmt!, checked)),
      )
    } catch (e) {
      known.set(text, e as Error)
    }
  }
  return known.get(text)!
}

/** The table references of one statement (in any variant) that lack their liveness filter. */
export function missingFilters(
  statement: Statement,
  softDeleteTables: ReadonlySet<string>,
): Violation[] {
  const found = new Map<string, Violation>()
  const { file, owner, line } = statement
  for (const text of statement.variants) {
    const result = check(text, softDeleteTables)
    const failed = result instanceof Error
    for (const { table, alias } of failed ? [{ table: '<any>', alias: null }] : result) {
      const kind = failed ? 'unparsable' : 'missing'
      const shown = (failed ? `${result.message}: ${text}` : text).replace(/\s+/g, ' ').trim()
      const key = `${kind} ${table} ${alias}`
      if (!found.has(key))
        found.set(key, { file, owner, line, table, alias, kind, statement: shown })
    }
  }
  return [...found.values()]
}

/** The soft-deletable tables a fragment names, with the alias that follows each. */
function namedTables(text: string, softDeleteTables: ReadonlySet<string>) {
  // An empty fragment (`sql\`\``, the "nothing" branch of a conditional) names no table, and
  // the scanner refuses empty input.
  if (!text.trim()) return []
  const tokens = scanSync(text).tokens
  const name = (i: number) => {
    const t = tokens[i]?.text ?? ''
    return t.startsWith('"') ? t.slice(1, -1) : t.toLowerCase()
  }
  return tokens.flatMap((t, i) => {
    if (t.tokenName !== 'IDENT' || !softDeleteTables.has(name(i))) return []
    const a = name(i + 1) === 'as' ? i + 2 : i + 1
    return [{ table: name(i), alias: tokens[a]?.tokenName === 'IDENT' ? name(a) : null }]
  })
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
    const [text] = f.variants
    for (const { table, alias } of namedTables(text, softDeleteTables)) {
      const statement = text.replace(/\s+/g, ' ').trim()
      violations.push({ ...f, table, alias, kind: 'unchecked', statement })
    }
  }
  for (const f of foreign) {
    violations.push({
      ...f,
      table: '<any>',
      alias: null,
      kind: 'unchecked',
      statement: `SQL under a tag other than ${[...TAG_NAMES].join(', ')}: ${f.variants[0].replace(/\s+/g, ' ').trim()}`,
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
