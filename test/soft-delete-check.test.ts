import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from './harness'
import {
  checkSources,
  readSources,
  type Allowed,
  type SourceFile,
  type Violation,
} from './soft-delete-scan'

/*
 * "Every query adds `deleted_at IS NULL` for each table it touches that has the column" (spec,
 * rule 6 of the overview), checked on every SQL statement of sql/ and src/ against the tables
 * that have the column in the migrated database. How the check reads the code is described in
 * test/soft-delete-scan.ts.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const SCANNED = ['sql', 'src']

/**
 * The statements that may touch soft-deleted rows, each with its reason. One entry covers one
 * table in one named function of one file; an entry that matches nothing fails the test.
 */
export const ALLOWED: readonly Allowed[] = [
  ...['lockPlaintextApproveNotes', 'storeApproveNoteEncrypted'].map((owner) => ({
    file: 'sql/supplier.ts',
    owner,
    table: 'supplier',
    why:
      'moves approveNote written in plaintext before migration 20261123000100 into its ' +
      'ciphertext column: no plaintext may stay at rest, in a deleted draft either',
  })),
  ...['lockEncryptedApproveNotes', 'storeApproveNotePlaintext'].map((owner) => ({
    file: 'sql/supplier.ts',
    owner,
    table: 'supplier',
    why:
      'prepares a rollback of migration 20261123000100: every note, in a deleted draft too, ' +
      'must be back in the column the older release reads before that column is dropped',
  })),
  {
    file: 'sql/resource.ts',
    owner: 'insertRelation',
    table: 'supplier_resource_relation',
    why:
      'a rebind reads the version of the relation it replaces, which the same transaction has ' +
      'just ended (soft-deleted), so that the new relation gets a later version',
  },
]

const show = (v: Violation) =>
  `${v.file}:${v.line} ${v.owner}: ${v.kind === 'missing' ? 'no' : 'unchecked'} ` +
  `deleted_at IS NULL for ${v.table}${v.alias ? ` ${v.alias}` : ''}\n    ${v.statement.slice(0, 300)}`

/** Where the template literal text of a file is (not its comments, not its code). */
function templateRanges(path: string, text: string): [number, number][] {
  const ranges: [number, number][] = []
  const visit = (node: ts.Node) => {
    if (
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node)
    )
      ranges.push([node.getStart(), node.getEnd()])
    ts.forEachChild(node, visit)
  }
  visit(ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true))
  return ranges
}

/** A tagged-template module, as the check reads it. */
const source = (path: string, text: string): SourceFile => ({ path, text })

let db: TestDatabase
let softDeleteTables: Set<string>
let sources: SourceFile[]

beforeAll(async () => {
  db = await createTestDatabase()
  const rows = await db.sql<{ table_name: string }[]>`
    SELECT DISTINCT table_name FROM information_schema.columns
    WHERE table_schema = 'public' AND column_name = 'deleted_at'
  `
  softDeleteTables = new Set(rows.map((r) => r.table_name))
  sources = await readSources(ROOT, SCANNED)
})
afterAll(async () => {
  await db?.close()
})

describe('the soft-delete rule in the code of sql/ and src/', () => {
  it('every statement filters deleted_at for each table it touches that has the column', () => {
    const { statements, violations, unusedAllowed } = checkSources(
      sources,
      softDeleteTables,
      ALLOWED,
    )
    // The scan really reads the code: the supplier aggregate's queries are there.
    expect(statements.length).toBeGreaterThan(50)
    for (const table of ['supplier', 'supplier_type', 'supplier_contact', 'dict_data']) {
      expect(softDeleteTables.has(table), table).toBe(true)
      expect(
        statements.some((s) => new RegExp(`\\b${table}\\b`).test(s.text)),
        table,
      ).toBe(true)
    }
    expect(violations.map(show), violations.map(show).join('\n')).toEqual([])
    expect(unusedAllowed, 'allow-list entries that match nothing: remove them').toEqual([])
    for (const a of ALLOWED) expect(a.why.length, `${a.owner} needs its reason`).toBeGreaterThan(20)
  })

  it('catches every filter removed from the supplier aggregate and reference queries (one at a time)', () => {
    const files = [
      'sql/supplier.ts',
      'sql/supplier-read.ts',
      'sql/supplier-children.ts',
      'sql/qualification-rule.ts',
      'sql/dict.ts',
      'sql/admin.ts',
    ]
    let mutants = 0
    for (const path of files) {
      const original = sources.find((s) => s.path === path)!.text
      const filter = /(\b\w+\.)?deleted_at IS NULL/g
      const sql = templateRanges(path, original)
      for (const m of original.matchAll(filter)) {
        const at = m.index!
        if (!sql.some(([from, to]) => at >= from && at < to)) continue // a comment
        const rest = original.slice(at + m[0].length, at + m[0].length + 40)
        // An ON CONFLICT … WHERE that names a partial unique index for DO NOTHING reads no row.
        if (/^\s*DO NOTHING/.test(rest)) continue
        const mutated = original.slice(0, at) + 'true' + original.slice(at + m[0].length)
        const others = sources.filter((s) => s.path !== path)
        const { violations } = checkSources(
          [...others, source(path, mutated)],
          softDeleteTables,
          ALLOWED,
          [path],
        )
        const line = original.slice(0, at).split('\n').length
        expect(
          violations.filter((v) => v.file === path),
          `${path}:${line} without "${m[0]}" passed the check`,
        ).not.toEqual([])
        mutants++
      }
    }
    expect(mutants).toBeGreaterThan(40)
  })
})

describe('the check itself, on statements written to break it', () => {
  const check = (text: string, extra: SourceFile[] = []) =>
    checkSources([source('sql/probe.ts', text), ...extra], softDeleteTables).violations.map(
      (v) => `${v.kind} ${v.table}${v.alias ? ` ${v.alias}` : ''}`,
    )

  it('error: a query without the filter, or with it on another alias, is reported', () => {
    expect(
      check(
        'export const q = (sql, id) => sql`SELECT * FROM supplier s WHERE s.supplier_id = ${id}`',
      ),
    ).toEqual(['missing supplier s'])
    expect(
      check(`const q = (sql) => sql\`
        SELECT 1 FROM supplier a JOIN supplier b ON b.supplier_id = a.supplier_id
        WHERE a.deleted_at IS NULL\``),
    ).toEqual(['missing supplier b'])
    expect(
      check(`const q = (sql) => sql\`
        SELECT 1 FROM supplier s JOIN supplier_type t ON t.supplier_id = s.supplier_id
        WHERE s.deleted_at IS NULL\``),
    ).toEqual(['missing supplier_type t'])
    expect(
      check(
        'const q = (sql) => sql`SELECT 1 FROM supplier_type t, supplier s WHERE s.deleted_at IS NULL`',
      ),
    ).toEqual(['missing supplier_type t'])
    // Unaliased: the table name qualifies, or an unqualified filter when it is the only one.
    expect(
      check('const q = (sql) => sql`UPDATE supplier SET remark = 1 WHERE supplier_id = 2`'),
    ).toEqual(['missing supplier'])
    expect(
      check('const q = (sql) => sql`UPDATE supplier SET remark = 1 WHERE deleted_at IS NULL`'),
    ).toEqual([])
    expect(
      check(
        'const q = (sql) => sql`SELECT 1 FROM supplier JOIN supplier_type t ON true WHERE deleted_at IS NULL`',
      ),
    ).toEqual(['missing supplier', 'missing supplier_type t'])
    // Tables without the column need nothing.
    expect(
      check('const q = (sql) => sql`SELECT * FROM change_log c JOIN approval_log a ON true`'),
    ).toEqual([])
  })

  it('error: a filter in another query scope does not count', () => {
    expect(
      check(`const q = (sql) => sql\`
        SELECT s.supplier_id,
               (SELECT count(*) FROM supplier_bank_account a WHERE a.supplier_id = s.supplier_id)
        FROM supplier s WHERE s.deleted_at IS NULL\``),
    ).toEqual(['missing supplier_bank_account a'])
    expect(
      check(`const q = (sql) => sql\`
        SELECT 1 FROM supplier s WHERE EXISTS (
          SELECT 1 FROM supplier_type t WHERE t.supplier_id = s.supplier_id AND s.deleted_at IS NULL
        ) AND t.deleted_at IS NULL\``),
    ).toEqual(['missing supplier s', 'missing supplier_type t'])
    expect(
      check(`const q = (sql) => sql\`
        SELECT s.supplier_id FROM supplier s WHERE s.deleted_at IS NULL
        UNION ALL SELECT s.supplier_id FROM supplier s WHERE s.status = 'DRAFT'\``),
    ).toEqual(['missing supplier s'])
  })

  it('error: a filter in a comment or a string literal is not code', () => {
    expect(
      check(`const q = (sql) => sql\`
        SELECT 1 FROM supplier s -- AND s.deleted_at IS NULL
        WHERE s.note = 's.deleted_at IS NULL' /* s.deleted_at IS NULL */\``),
    ).toEqual(['missing supplier s'])
  })

  it('error: a table named through sql(…) counts as soft-deletable unless the code names it', () => {
    expect(
      check(
        'const q = (sql, table) => sql`UPDATE ${sql(table)} SET deleted_at = now() WHERE id = 1`',
      ),
    ).toEqual(['missing <dynamic>'])
    expect(
      check(
        'const q = (sql, table) => sql`UPDATE ${sql(table)} SET x = 1 WHERE deleted_at IS NULL`',
      ),
    ).toEqual([])
    expect(check("const q = (sql) => sql`SELECT 1 FROM ${sql('supplier')} x`")).toEqual([
      'missing supplier x',
    ])
    expect(check("const q = (sql) => sql`SELECT 1 FROM ${sql('change_log')} x`")).toEqual([])
  })

  it('happy: fragments are inlined (local, conditional, looked up, imported, with arguments bound)', () => {
    const where = `
      const listWhere = (sql, f) => {
        const status = f.status ? sql\`AND s.status = \${f.status}\` : sql\`\`
        return sql\`WHERE s.deleted_at IS NULL \${status}\`
      }
      export const count = (sql, f) => sql\`SELECT count(*) FROM supplier s \${listWhere(sql, f)}\`
    `
    expect(check(where)).toEqual([])
    expect(check(where.replace('s.deleted_at IS NULL', 'true'))).toEqual(['missing supplier s'])

    const order = `
      export const page = (sql, f) => sql\`
        SELECT 1 FROM supplier s \${f.live ? sql\`WHERE s.deleted_at IS NULL\` : sql\`\`}
        ORDER BY \${{ a: sql\`s.a\`, b: sql\`s.b\` }[f.key]} \${f.lock ? sql\`FOR UPDATE OF s\` : sql\`\`}\`
    `
    // Both branches of a conditional are read: the filter is there when it may be needed.
    expect(check(order)).toEqual([])

    const live = source(
      'sql/live.ts',
      'export const alive = (sql, alias) => sql`${sql(alias)}.deleted_at IS NULL`',
    )
    const uses = (alias: string) => `
      import { alive } from './live'
      export const q = (sql) => sql\`SELECT 1 FROM supplier s WHERE \${alive(sql, '${alias}')}\`
    `
    expect(check(uses('s'), [live])).toEqual([])
    expect(check(uses('t'), [live])).toEqual(['missing supplier s'])
  })

  it('happy: FOR UPDATE, DO UPDATE, functions in FROM and plain inserts are no table references', () => {
    expect(
      check(`const q = (sql) => sql\`
        SELECT d.x FROM dict_data d CROSS JOIN unnest(\${[1]}::int[]) AS n(v)
        WHERE d.deleted_at IS NULL AND d.x IS DISTINCT FROM \${1}
        FOR UPDATE OF d\``),
    ).toEqual([])
    expect(
      check(
        'const q = (sql) => sql`INSERT INTO supplier_type (supplier_id) VALUES (${1}) RETURNING id`',
      ),
    ).toEqual([])
  })

  it('error: INSERT … SELECT reads rows, and ON CONFLICT … DO UPDATE writes them', () => {
    expect(
      check('const q = (sql) => sql`INSERT INTO change_log (x) SELECT s.x FROM supplier s`'),
    ).toEqual(['missing supplier s'])
    expect(
      check(`const q = (sql) => sql\`
        INSERT INTO qualification_rule (type_code) VALUES (\${1})
        ON CONFLICT (type_code) DO UPDATE SET update_time = now()\``),
    ).toEqual(['missing qualification_rule'])
    expect(
      check(`const q = (sql) => sql\`
        INSERT INTO qualification_rule (type_code) VALUES (\${1})
        ON CONFLICT (type_code) WHERE deleted_at IS NULL DO UPDATE SET update_time = now()\``),
    ).toEqual([])
  })

  it('error: a fragment with a table that no checked statement inlines is reported as unchecked', () => {
    expect(
      check(`
        export const from = (sql) => sql\`FROM supplier s\`
        export const q = (sql, parts) => sql\`SELECT 1 \${parts.from} WHERE s.deleted_at IS NULL\`
      `),
    ).toEqual(['unchecked supplier s'])
  })

  it('error: SQL under another tag name is reported, not skipped; other templates are not SQL', () => {
    expect(
      check('const q = (query) => query`SELECT 1 FROM supplier s WHERE s.deleted_at IS NULL`'),
    ).toEqual(['unchecked <any>'])
    expect(
      check('const page = (html) => html`<p>Select a supplier from the supplier list</p>`'),
    ).toEqual([])
  })

  it('happy: a list of fragments is read element by element', () => {
    const text = (filter: string) => `
      export const q = (sql) => sql\`
        SELECT 1 FROM supplier s WHERE \${[sql\`s.status = 'ACTIVE'\`, sql\`${filter}\`]}\`
    `
    expect(check(text('s.deleted_at IS NULL'))).toEqual([])
    expect(check(text('true'))).toEqual(['missing supplier s'])
  })

  it('happy: an allow-list entry silences exactly its table in its function', () => {
    const text = `
      export function sweep(sql) { return sql\`SELECT 1 FROM supplier s, supplier_type t\` }
    `
    const allowed = [{ file: 'sql/probe.ts', owner: 'sweep', table: 'supplier', why: 'a probe' }]
    const result = checkSources([source('sql/probe.ts', text)], softDeleteTables, allowed)
    expect(result.violations.map((v) => v.table)).toEqual(['supplier_type'])
    expect(result.unusedAllowed).toEqual([])
    const stale = checkSources([source('sql/probe.ts', text)], softDeleteTables, [
      { ...allowed[0], owner: 'gone' },
    ])
    expect(stale.unusedAllowed).toHaveLength(1)
  })
})
