import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

/** The README and docs/ link only to what a clone contains (or to the local service). */

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
]

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
const anchors = (markdown: string) =>
  new Set(
    [...markdown.matchAll(/^#{1,6} (.+)$/gm)].map(([, title]) =>
      title
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    ),
  )

/** Markdown links and autolinks outside code blocks. */
const links = (markdown: string) => {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, '')
  return [
    ...[...prose.matchAll(/\]\(([^)\s]+)\)/g)].map(([, target]) => target),
    ...[...prose.matchAll(/<(https?:\/\/[^>\s]+)>/g)].map(([, target]) => target),
  ]
}

describe('README.md and docs/', () => {
  it.each(DOCS)('%s links only to files of this repository or to the local service', (file) => {
    const markdown = readFileSync(join(ROOT, file), 'utf8')
    const broken: string[] = []
    for (const target of links(markdown)) {
      if (/^https?:/.test(target)) {
        if (!/^http:\/\/(127\.0\.0\.1|localhost)(:\d+)?\//.test(target)) broken.push(target)
        continue
      }
      const [path, anchor] = target.split('#')
      const into = path ? resolve(dirname(join(ROOT, file)), path) : join(ROOT, file)
      if (relative(ROOT, into).startsWith('..') || !existsSync(into)) {
        broken.push(target)
        continue
      }
      if (anchor && into.endsWith('.md') && !anchors(readFileSync(into, 'utf8')).has(anchor)) {
        broken.push(target)
      }
    }
    expect(broken).toEqual([])
    // Paths outside the clone, in backticks or not, are not something a reader can open.
    expect(markdown).not.toMatch(/\.\.\/shared\//)
  })

  it('the README documents every configuration variable the service reads', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
    const config = readFileSync(join(ROOT, 'src/config.ts'), 'utf8')
    const schema = config.slice(config.indexOf('const EnvSchema'), config.indexOf('.superRefine'))
    const variables = [...schema.matchAll(/^ {4}([A-Z][A-Z0-9_]+):/gm)].map(([, name]) => name)
    expect(variables.length).toBeGreaterThan(20)
    expect(variables.filter((name) => !readme.includes(`\`${name}\``))).toEqual([])
  })
})
