import { relative } from 'node:path'
import { Session } from 'node:inspector/promises'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useHarness } from './harness'
import { resolveVersions, validRequest } from './valid-requests'

/*
 * The path of a write, as a reader follows it from the route to the SQL and back:
 * - which of the project's files and functions one request runs, read from V8's precise coverage
 *   (call counts, reset after a warm-up request of the same kind, so only this request's calls
 *   count);
 * - how many calls deep each statement is sent from the route's `answerWrite`, and through which
 *   files (the route-to-SQL reading: the files of those calls, over all the statements): the
 *   project's frames of the stack V8 gives a statement where it is made (postgres.js makes a Query
 *   object in the function that holds the SQL; its `new Error()` is recorded here), counted from
 *   `answerWrite` down to the first function of sql/ (the module's own helpers below it are the
 *   SQL's). Async frames are the awaiting ones, as a debugger's async stack shows them.
 * The bounds pin today's walk so that it does not grow back unnoticed; the lists are printed
 * with WRITE_PATH_LIST=1 for docs/architecture.md, where the walk is described.
 */

// Every statement is then made with a fresh origin `new Error()` (postgres.js's `debug` mode),
// not one cached per SQL text, so each one's stack can be read where it is made.
const h = useHarness({ onStatement: () => {} })
const ROOT = fileURLToPath(new URL('..', import.meta.url))
const session = new Session()

beforeAll(async () => {
  session.connect()
  await session.post('Profiler.enable')
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false })
})
afterAll(async () => {
  await session.post('Profiler.stopPreciseCoverage')
  session.disconnect()
})

interface Walk {
  files: string[]
  functions: string[]
  /** The most calls from `answerWrite` to a function of sql/, and that chain. */
  depth: number
  deepest: string[]
  /**
   * The files of the calls from `answerWrite` to the SQL, over all the request's statements: the
   * route-to-SQL reading, without the middleware before the route and the helpers no statement
   * is made under (a reader opens those too; `files` counts them).
   */
  chainFiles: string[]
  /**
   * Statements of sql/ whose stack reaches neither `answerWrite` nor the route's authorization: a
   * caller returned a promise without awaiting it, so the depth of what it sends cannot be read.
   * (A transaction's BEGIN, sent by postgres.js from the transaction helper, holds no sql/ frame.)
   */
  cut: string[]
}

interface Frame {
  file: string
  fn: string
}

const FRAME = /at (?:async )?(?:(\S+) \()?((?:file:\/\/)?\/[^):]+):\d+:\d+\)?$/

/** The project's frames (src/, sql/) of a stack, innermost first; anonymous ones included. */
function projectFrames(stack: string): Frame[] {
  const frames: Frame[] = []
  for (const line of stack.split('\n').slice(1)) {
    const m = FRAME.exec(line.trim())
    if (!m) continue
    const file = relative(ROOT, m[2].startsWith('file:') ? fileURLToPath(m[2]) : m[2])
    if (/^(src|sql)\//.test(file)) frames.push({ file, fn: m[1] ?? '(anonymous)' })
  }
  return frames
}

/** Calls from `answerWrite` to the outermost sql/ function of one statement's stack. */
function depthOf(frames: Frame[]): { depth: number; chain: Frame[] } | undefined {
  const top = frames.findIndex((f) => f.fn === 'answerWrite')
  if (top < 0) return undefined
  for (let i = top; i >= 0; i--) {
    if (!frames[i].file.startsWith('sql/')) continue
    const chain = frames.slice(i, top + 1).reverse()
    return { depth: chain.length - 1, chain }
  }
  return undefined
}

/**
 * The stacks of the statements made while `run` runs. postgres.js makes every statement's Query
 * with `new Error()` (its origin, kept for error reports), in the function that holds the SQL:
 * the global Error is a recording subclass meanwhile.
 */
async function statementStacks<T>(
  run: () => Promise<T>,
): Promise<{ result: T; stacks: Frame[][] }> {
  const stacks: Frame[][] = []
  const Native = globalThis.Error
  class Recording extends Native {
    constructor(...args: ConstructorParameters<ErrorConstructor>) {
      super(...args)
      const stack = this.stack ?? ''
      if (stack.includes('new Query')) stacks.push(projectFrames(stack))
    }
  }
  const limit = Native.stackTraceLimit
  Native.stackTraceLimit = Infinity
  globalThis.Error = Recording as ErrorConstructor
  try {
    return { result: await run(), stacks }
  } finally {
    globalThis.Error = Native
    Native.stackTraceLimit = limit
  }
}

/** The project's files (src/, sql/) and functions that ran since the last call. */
async function ranSinceLast(): Promise<Pick<Walk, 'files' | 'functions'>> {
  const { result } = await session.post('Profiler.takePreciseCoverage')
  const files = new Set<string>()
  const functions: string[] = []
  for (const script of result) {
    if (!script.url.startsWith('file://')) continue
    const file = relative(ROOT, fileURLToPath(script.url.split('?')[0]))
    if (!/^(src|sql)\//.test(file)) continue
    for (const fn of script.functions) {
      // The first range of a function is the function itself; its count is how often it ran.
      if (fn.ranges[0].count === 0 || fn.functionName === '') continue
      files.add(file)
      functions.push(`${file}#${fn.functionName}`)
    }
  }
  return { files: [...files].sort(), functions: functions.sort() }
}

/** What one successful request of `route` runs, after a warm-up request of the same route. */
async function walkOf(route: { method: string; path: string }): Promise<Walk> {
  const admin = await h.admin()
  for (const measured of [false, true]) {
    const request = await validRequest(h, route)
    const body = await resolveVersions(h, request.body?.())
    await ranSinceLast()
    const { result: res, stacks } = await statementStacks(() =>
      h.call(route.method, request.url, { admin, body }),
    )
    const walk = await ranSinceLast()
    expect(res.body, JSON.stringify(res.body)).toMatchObject({ code: 200, success: true })
    let deepest = { depth: 0, chain: [] as Frame[] }
    const cut: string[] = []
    const chainFiles = new Set<string>()
    for (const stack of stacks) {
      const d = depthOf(stack)
      for (const call of d?.chain ?? []) chainFiles.add(call.file)
      if (d && d.depth > deepest.depth) deepest = d
      const reached = stack.some((f) => f.fn === 'answerWrite' || f.file === 'src/http/auth.ts')
      if (!reached && stack.some((f) => f.file.startsWith('sql/'))) {
        cut.push(stack.map((f) => `${f.file}#${f.fn}`).join(' < '))
      }
    }
    if (measured) {
      return {
        ...walk,
        depth: deepest.depth,
        deepest: deepest.chain.map((f) => `${f.file}#${f.fn}`),
        chainFiles: [...chainFiles].sort(),
        cut,
      }
    }
  }
  throw new Error('unreachable')
}

describe('the path of a write', () => {
  it.each([
    {
      name: 'bank-account change',
      route: {
        method: 'POST',
        path: '/admin/supplier/items/{supplierId}/accounts/{accountId}/change',
      },
      files: 42,
      chain: 16,
      depth: 8,
    },
    {
      name: 'registration submit',
      route: { method: 'POST', path: '/admin/supplier/items/{supplierId}/submit' },
      files: 58,
      chain: 21,
      depth: 8,
    },
    {
      name: 'status change',
      route: { method: 'POST', path: '/admin/supplier/items/{supplierId}/status' },
      files: 39,
      chain: 14,
      depth: 8,
    },
  ])(
    '$name runs at most $files of the project’s files, $chain from the route to the SQL, at most $depth calls deep',
    async ({ name, route, files, chain, depth }) => {
      const walk = await walkOf(route)
      const listed = `${name}: ${walk.files.length} files, ${walk.functions.length} functions, ${walk.depth} calls deep:\n  ${walk.files.join('\n  ')}\n deepest:\n  ${walk.deepest.join('\n  ')}\n route to SQL, ${walk.chainFiles.length} files:\n  ${walk.chainFiles.join('\n  ')}`
      if (process.env.WRITE_PATH_LIST) process.stderr.write(`${listed}\n`)
      expect(walk.files.length, listed).toBeGreaterThan(5)
      expect(walk.files.length, listed).toBeLessThanOrEqual(files)
      expect(walk.chainFiles.length, listed).toBeLessThanOrEqual(chain)
      // A statement was seen below answerWrite: the measure itself works.
      expect(walk.deepest.length, listed).toBeGreaterThan(2)
      expect(walk.depth, listed).toBeLessThanOrEqual(depth)
      // Every statement is counted: none sent from a continuation whose callers were dropped.
      expect(walk.cut, listed).toEqual([])
    },
  )
})
