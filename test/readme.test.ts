import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

/**
 * The README is the first screens (what the service is, set-up, the walk-through, a map); the
 * reference lives in docs/, one file per reader. These checks keep the two honest: every link and
 * anchor resolves, every configuration variable has one row in docs/configuration.md, the set-up
 * commands are the ones CI runs, and every file the text names exists.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8')
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
]

/** Fenced code blocks out: a `#` line of a shell block is no heading, a `](` in code no link. */
const withoutCode = (markdown: string) =>
  markdown.replace(/^ {0,3}(`{3,}|~{3,})[^\n]*\n[\s\S]*?^ {0,3}\1[^\n]*$/gm, '')

/** A heading's anchor as GitHub makes it (github-slugger over the heading's rendered text). */
function slug(heading: string): string {
  const text = heading
    .replace(/\s+#+\s*$/, '') // closing sequence
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link or image shows its text
    .replace(/<[^>]+>/g, '') // inline HTML
    // Emphasis marks outside code spans are not text; inside a code span `_` and `*` are.
    .split(/(`[^`]*`)/)
    .map((part) =>
      part.startsWith('`')
        ? part.slice(1, -1)
        : part.replace(/(^|[^\p{L}\p{N}])(_{1,2})([^_]+?)\2(?![\p{L}\p{N}])/gu, '$1$3'),
    )
    .join('')
  // Kept: letters, marks, numbers, connector punctuation (`_`), spaces and hyphens.
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-')
}

/** Every anchor of a document: its headings' slugs (a repeat gets -1, -2, …) and HTML ids. */
const anchors = (markdown: string) => {
  const seen = new Map<string, number>()
  for (const [, title] of withoutCode(markdown).matchAll(/^ {0,3}#{1,6}[ \t]+(.+?)[ \t]*$/gm)) {
    const base = slug(title)
    let result = base
    while (seen.has(result)) {
      seen.set(base, seen.get(base)! + 1)
      result = `${base}-${seen.get(base)}`
    }
    seen.set(result, 0)
  }
  const ids = [...markdown.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)].map(([, id]) => id)
  return new Set([...seen.keys(), ...ids])
}

/** Link targets outside code: inline links and images, reference definitions, autolinks. */
const links = (markdown: string) => {
  const prose = withoutCode(markdown).replace(/`[^`\n]*`/g, '')
  return [
    ...[...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map(([, t]) => t),
    ...[...prose.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map(([, t]) => t),
    ...[...prose.matchAll(/<(https?:\/\/[^>\s]+)>/g)].map(([, target]) => target),
  ]
}

/** What a file's links point at that is not there: files outside the clone, missing files or anchors. */
const brokenLinks = (file: string) => {
  const broken: string[] = []
  for (const target of links(read(file))) {
    if (/^https?:/.test(target)) {
      if (!/^http:\/\/(127\.0\.0\.1|localhost)(:\d+)?\//.test(target)) broken.push(target)
      continue
    }
    if (/^[a-z]+:/i.test(target)) {
      broken.push(target) // mailto:, ftp:, … lead out of the clone
      continue
    }
    const [path, anchor] = target.split('#').map(decodeURIComponent)
    const into = path ? resolve(dirname(join(ROOT, file)), path) : join(ROOT, file)
    if (relative(ROOT, into).startsWith('..') || !existsSync(into)) {
      broken.push(target)
      continue
    }
    if (anchor && into.endsWith('.md') && !anchors(readFileSync(into, 'utf8')).has(anchor)) {
      broken.push(target)
    }
  }
  return broken
}

/** The variables src/config.ts reads: the keys of its EnvSchema. */
const configVariables = () => {
  const config = read('src/config.ts')
  const schema = config.slice(config.indexOf('const EnvObject'), config.indexOf('type Env ='))
  return [...schema.matchAll(/^ {2}([A-Z][A-Z0-9_]+):/gm)].map(([, name]) => name)
}

/** The rows of the tables headed `| Variable |`: the names in backticks of each row's first cell. */
const variableRows = (markdown: string) => {
  const rows: string[][] = []
  let inTable = false
  for (const line of withoutCode(markdown).split('\n')) {
    if (/^\|\s*Variable\s*\|/.test(line)) inTable = true
    else if (!line.startsWith('|')) inTable = false
    else if (inTable && !/^\|[\s|:-]+\|$/.test(line)) {
      rows.push([...line.split('|')[1].matchAll(/`([^`]+)`/g)].map(([, name]) => name))
    }
  }
  return rows
}

/** The README's set-up block: its first shell block. */
const setUp = () => {
  const readme = read('README.md')
  const block = /^```sh\n([\s\S]*?)^```$/m.exec(readme)!
  const commands = block[1]
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter(Boolean)
  const lastLine = readme.slice(0, block.index + block[0].length).split('\n').length
  return { readme, commands, lastLine, before: readme.slice(0, block.index) }
}

describe('GitHub heading anchors', () => {
  it.each([
    ['API decisions', 'api-decisions'],
    ['Tracing (`OTEL_*`)', 'tracing-otel_'],
    ['What’s new? v2.0 & more!', 'whats-new-v20--more'],
    ['供应商管理：设置（Set-up）', '供应商管理设置set-up'],
    ['C++ & Go', 'c--go'],
    ['[The audit trail](docs/audit-trail.md) in _short_', 'the-audit-trail-in-short'],
    ['🚀 Launch', '-launch'],
    ['Closing hashes ##', 'closing-hashes'],
  ])('%s → #%s', (heading, anchor) => {
    expect(slug(heading)).toBe(anchor)
  })

  it('numbers repeated headings as GitHub does, and ignores headings inside code', () => {
    const doc = '# Tests\n\n## Tests\n\n## Tests-1\n\n```sh\n# not a heading\n```\n'
    expect([...anchors(doc)]).toEqual(['tests', 'tests-1', 'tests-1-1'])
  })
})

describe('README.md and docs/', () => {
  it.each(DOCS)(
    '%s links only to files, and anchors, of this repository or the local service',
    (file) => {
      expect(brokenLinks(file)).toEqual([])
      // Paths outside the clone, in backticks or not, are not something a reader can open.
      expect(read(file)).not.toMatch(/\.\.\/shared\//)
    },
  )

  it.each(DOCS)('%s names only files that exist', (file) => {
    const named = [
      ...read(file).matchAll(/`((?:src|sql|test|scripts|db|docs|patches|\.ci)\/[^`\s*…{}]*)`/g),
    ].map(([, path]) => path)
    const missing = (path: string) =>
      !existsSync(join(ROOT, path)) && !existsSync(join(ROOT, `${path}.ts`))
    expect(named.filter(missing)).toEqual([])
  })

  it('every row of docs/guarantees.md names what proves it, and the tests it quotes exist', () => {
    const rows = withoutCode(read('docs/guarantees.md'))
      .split('\n')
      .filter((line) => line.startsWith('| ') && !/^\|\s*Guarantee\s*\|/.test(line))
    expect(rows.length).toBeGreaterThan(20)
    /** A file's string literals, each within a line: its titles, and those of generated tests. */
    const titlesOf = (file: string) =>
      [...read(file).matchAll(/(['"`])((?:\\.|(?!\1)[^\\\n])*)\1/g)].map(([, , text]) => text)
    const wrong: string[] = []
    for (const row of rows) {
      const proof = row.slice(row.lastIndexOf(' | ') + 3).replace(/\s*\|\s*$/, '')
      const tests = [...proof.matchAll(/`(test\/[^`]+\.test\.ts)`/g)]
      const scripts = [...proof.matchAll(/`npm run ([\w:-]+)/g)]
      if (tests.length + scripts.length === 0) wrong.push(`names no test: ${row.slice(0, 80)}`)
      // `test/x.test.ts` › a title…, another title… : each a title (or its start) in that file.
      for (const [, file, quoted] of proof.matchAll(/`(test\/[^`]+\.test\.ts)`\s*›\s*([^`;]*)/g)) {
        const titles = titlesOf(file)
        const starts = quoted
          .replace(/\([^)]*\)/g, '')
          .split('…')
          .map((part) => part.replace(/^[,\s]+|[,\s]+$/g, ''))
          .filter(Boolean)
        for (const start of starts) {
          if (!titles.some((title) => title.startsWith(start))) wrong.push(`${file} › ${start}`)
        }
      }
    }
    expect(wrong).toEqual([])
  })

  it('the README fits three screens and maps every file of docs/', () => {
    const readme = read('README.md')
    expect(readme.split('\n').length).toBeLessThanOrEqual(300)
    const linked = new Set(
      links(readme)
        .map((target) => target.split('#')[0])
        .filter(Boolean),
    )
    expect(DOCS.filter((file) => file.startsWith('docs/') && !linked.has(file))).toEqual([])
  })

  it('docs/configuration.md has one row for every variable src/config.ts reads, and no other', () => {
    const variables = configVariables()
    expect(variables.length).toBeGreaterThan(20)
    const rows = variableRows(read('docs/configuration.md'))
    const named = rows.flat()
    // A wildcard row (`OTEL_*`) points at the rows below it; it documents nothing itself.
    const wildcards = named.filter((name) => name.includes('*'))
    const matches = (wildcard: string) => {
      const pattern = new RegExp(`^${wildcard.replace(/\*/g, '[A-Z0-9_]+')}$`)
      return (name: string) => pattern.test(name)
    }
    expect(wildcards.filter((w) => !variables.some(matches(w)))).toEqual([])
    const rowsOf = (name: string) => rows.filter((row) => row.includes(name)).length
    expect(variables.filter((name) => rowsOf(name) === 0)).toEqual([]) // undocumented
    expect(variables.filter((name) => rowsOf(name) > 1)).toEqual([]) // documented twice
    const stale = named.filter((name) => !name.includes('*') && !variables.includes(name))
    expect(stale).toEqual([])
    // Anywhere else a variable table would be a second place to say the same thing.
    const elsewhere = DOCS.filter((f) => f !== 'docs/configuration.md')
    expect(elsewhere.filter((file) => variableRows(read(file)).length > 0)).toEqual([])
  })

  it('the two set-up commands are on screen one, with the Node versions the service supports', () => {
    const { commands, lastLine, before } = setUp()
    expect(commands).toEqual(['npm ci && npm start', 'npm test'])
    expect(lastLine).toBeLessThanOrEqual(40)
    const versions = /Node (\d+), (\d+) or (\d+)/.exec(before)!.slice(1).map(Number)
    const engines = JSON.parse(read('package.json')).engines.node as string
    expect(engines).toBe(`>=${versions[0]}`)
    // CI runs the suite again on the newest line the README names.
    expect(read('.ci/run')).toContain(`node@${versions.at(-1)} `)
  })

  it("CI runs exactly the README's test command: on the embedded database, on the newest Node, on PostgreSQL", () => {
    const test = setUp().commands[1]
    const ci = read('.ci/run')
    const at = (prefix: string) => new RegExp(`^${prefix} ${test}$`, 'm')
    expect(ci).toMatch(at('env -u DATABASE_URL'))
    expect(ci).toMatch(at('env -u DATABASE_URL npx --yes --package node@\\d+ --'))
    expect(ci).toMatch(at("DATABASE_URL='postgres://[^']+'"))
    // `npm test`: the formatter, the linter, the type check, then the whole suite.
    const scripts = JSON.parse(read('package.json')).scripts as Record<string, string>
    expect(scripts.test).toBe('npm run check && vitest run')
    expect(scripts.check).toBe('prettier --check . && eslint . && tsc --noEmit')
  })

  it('the walk-through and `npm run demo` read the service address from the same variable', () => {
    const walkthrough = /The same journey by hand[\s\S]*?```sh\n([\s\S]*?)```/.exec(
      read('README.md'),
    )![1]
    const used = new Set([...walkthrough.matchAll(/"\$([A-Z_]+)\/admin\//g)].map(([, v]) => v))
    expect([...used]).toEqual(['BASE_URL'])
    expect(walkthrough).toMatch(/^BASE_URL=\$\{BASE_URL:-http:\/\/127\.0\.0\.1:8787\}/m)
    expect(read('scripts/demo.ts')).toContain('process.env.BASE_URL')
  })
})
