import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from './harness'
import {
  checkSources,
  extractStatements,
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
        statements.some((s) => s.variants.some((v) => new RegExp(`\\b${table}\\b`).test(v))),
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
    // Nor is a dollar-quoted one, and a quote inside it hides no code.
    expect(
      check(
        'const q = (sql) => sql`SELECT 1 FROM supplier s WHERE s.note = $$ s.deleted_at IS NULL $$`',
      ),
    ).toEqual(['missing supplier s'])
    expect(check("const q = (sql) => sql`SELECT $$it's$$ AS note FROM supplier s`")).toEqual([
      'missing supplier s',
    ])
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

  it('happy: one binding substituted twice takes one branch per variant; two bindings do not', () => {
    const text = `
      export const page = (sql, f) => {
        const order = f.asc ? sql\`ORDER BY s.a ASC\` : sql\`ORDER BY s.a DESC\`
        const other = f.asc ? sql\`ORDER BY s.b ASC\` : sql\`ORDER BY s.b DESC\`
        return sql\`SELECT 1 FROM (SELECT s.id FROM supplier s \${order}) p \${order} \${other}\`
      }
    `
    const {
      statements: [page],
    } = extractStatements([source('sql/page.ts', text)])
    // order: 2 branches shared by its two uses; other: 2 of its own.
    expect(page.variants).toHaveLength(4)
    expect(page.variants.filter((v) => /a ASC\s*\)\s*p\s+ORDER BY s\.a ASC/.test(v))).toHaveLength(
      2,
    )
    expect(page.variants.some((v) => /a ASC\s*\)\s*p\s+ORDER BY s\.a DESC/.test(v))).toBe(false)
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
    // Each branch of a conditional makes its own statement: the one without the filter is
    // reported, and the filter must hold whichever branch runs.
    expect(check(order)).toEqual(['missing supplier s'])
    expect(check(order.replace('sql``}\n', 'sql`WHERE s.deleted_at IS NULL AND s.x`}\n'))).toEqual(
      [],
    )

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
    // The statement is no SQL either, with a value where its FROM should be.
    expect(
      check(`
        export const from = (sql) => sql\`FROM supplier s\`
        export const q = (sql, parts) => sql\`SELECT 1 \${parts.from} WHERE s.deleted_at IS NULL\`
      `),
    ).toEqual(['unparsable <any>', 'unchecked supplier s'])
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
        SELECT 1 FROM supplier s WHERE \${[sql\`s.status = 'ACTIVE'\`, sql\`AND ${filter}\`]}\`
    `
    expect(check(text('s.deleted_at IS NULL'))).toEqual([])
    expect(check(text('true'))).toEqual(['missing supplier s'])
  })

  it('error: a filter that filters no row of its table is reported', () => {
    const where = (condition: string) =>
      check(`const q = (sql) => sql\`SELECT 1 FROM supplier s WHERE ${condition}\``)
    expect(where("s.deleted_at IS NULL OR s.status = 'DRAFT'")).toEqual(['missing supplier s'])
    expect(where('NOT s.deleted_at IS NULL')).toEqual(['missing supplier s'])
    expect(where('s.deleted_at IS NOT NULL')).toEqual(['missing supplier s'])
    expect(check('const q = (sql) => sql`SELECT s.deleted_at IS NULL FROM supplier s`')).toEqual([
      'missing supplier s',
    ])
    // An outer join's ON filters the joined side, not the side it keeps.
    const join = (type: string, on: string, where: string) =>
      check(`const q = (sql) => sql\`
        SELECT 1 FROM supplier s ${type} JOIN supplier_type t ON t.supplier_id = s.supplier_id
        AND ${on} WHERE ${where}\``)
    expect(join('LEFT', 't.deleted_at IS NULL', 's.deleted_at IS NULL')).toEqual([])
    expect(join('LEFT', 't.deleted_at IS NULL AND s.deleted_at IS NULL', 'true')).toEqual([
      'missing supplier s',
    ])
    expect(join('RIGHT', 's.deleted_at IS NULL', 't.deleted_at IS NULL')).toEqual([])
    expect(join('RIGHT', 's.deleted_at IS NULL AND t.deleted_at IS NULL', 'true')).toEqual([
      'missing supplier_type t',
    ])
    expect(join('FULL', 's.deleted_at IS NULL AND t.deleted_at IS NULL', 'true')).toEqual([
      'missing supplier s',
      'missing supplier_type t',
    ])
  })

  it('error: every table of a FROM list is read, after a join, a sub-select or a function too', () => {
    const from = (list: string) =>
      check(`const q = (sql) => sql\`SELECT 1 FROM ${list} WHERE s.deleted_at IS NULL\``)
    expect(
      from('supplier s JOIN supplier_type t ON t.deleted_at IS NULL, supplier_contact c'),
    ).toEqual(['missing supplier_contact c'])
    expect(from('(SELECT 1) x, supplier s, supplier_contact c')).toEqual([
      'missing supplier_contact c',
    ])
    expect(from('unnest(${[1]}::int[]) n, supplier s, supplier_contact c')).toEqual([
      'missing supplier_contact c',
    ])
    expect(
      from('supplier s, LATERAL (SELECT 1 FROM supplier_type t WHERE t.supplier_id = 1) x'),
    ).toEqual(['missing supplier_type t'])
    expect(from('supplier s TABLESAMPLE SYSTEM (1), ONLY supplier_type AS t')).toEqual([
      'missing supplier_type t',
    ])
  })

  it('error: each CTE is a query scope of its own; a CTE is no table', () => {
    expect(
      check('const q = (sql) => sql`WITH live AS (SELECT * FROM supplier s) SELECT * FROM live`'),
    ).toEqual(['missing supplier s'])
    expect(
      check(`const q = (sql) => sql\`
        WITH gone AS (UPDATE supplier_type t SET is_primary = false WHERE t.id = 1 RETURNING t.id)
        SELECT count(*) FROM gone\``),
    ).toEqual(['missing supplier_type t'])
    // A CTE that hides a table's name is read, not the table (inside it, the table is).
    expect(
      check(`const q = (sql) => sql\`
        WITH supplier AS (SELECT * FROM supplier s WHERE s.deleted_at IS NULL)
        SELECT * FROM supplier JOIN supplier_type t ON t.supplier_id = supplier.supplier_id\``),
    ).toEqual(['missing supplier_type t'])
    expect(
      check(
        'const q = (sql) => sql`WITH supplier AS (SELECT * FROM supplier) SELECT * FROM supplier`',
      ),
    ).toEqual(['missing supplier'])
  })

  it('error: a statement that PostgreSQL does not parse, or the check does not read, is reported', () => {
    expect(
      check('const q = (sql) => sql`SELECT 1 FROM supplier s WHERE s.deleted_at IS NULL AND`'),
    ).toEqual(['unparsable <any>'])
    expect(
      check(`const q = (sql) => sql\`
        WITH m AS (MERGE INTO supplier s USING supplier_type t ON t.supplier_id = s.supplier_id
                   WHEN MATCHED THEN DELETE RETURNING s.supplier_id)
        SELECT * FROM m\``),
    ).toEqual(['unparsable <any>'])
  })

  it('happy: sql(object or list) is read as postgres.js writes it', () => {
    const text = (filter: string) => `const q = (sql, row, set, ids) => [
      sql\`INSERT INTO supplier_type \${sql(row)} RETURNING id\`,
      sql\`UPDATE supplier_type t SET \${sql(set)} WHERE t.id IN \${sql(ids)} AND ${filter}\`,
    ]`
    expect(check(text('t.deleted_at IS NULL'))).toEqual([])
    expect(check(text('true'))).toEqual(['missing supplier_type t'])
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
