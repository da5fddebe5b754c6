import { relative } from 'node:path'
import { Session } from 'node:inspector/promises'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useHarness } from './harness'
import { resolveVersions, validRequest } from './valid-requests'

/*
 * The path of a write, as a reader follows it from the route to the SQL and back:
 * which of the project's files and functions one request runs, read from V8's precise coverage
 * (call counts, reset after a warm-up request of the same kind, so only this request's calls
 * count). The bounds pin today's walk so that it does not grow back unnoticed; the lists are
 * printed with WRITE_PATH_LIST=1 for docs/architecture.md, where the walk is described.
 */

const h = useHarness()
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
}

/** The project's files (src/, sql/) and functions that ran since the last call. */
async function ranSinceLast(): Promise<Walk> {
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
    const res = await h.call(route.method, request.url, { admin, body })
    const walk = await ranSinceLast()
    expect(res.body, JSON.stringify(res.body)).toMatchObject({ code: 200, success: true })
    if (measured) return walk
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
    },
    {
      name: 'status change',
      route: { method: 'POST', path: '/admin/supplier/items/{supplierId}/status' },
      files: 39,
    },
  ])('$name runs at most $files of the project’s files', async ({ name, route, files }) => {
    const walk = await walkOf(route)
    const listed = `${name}: ${walk.files.length} files, ${walk.functions.length} functions:\n  ${walk.files.join('\n  ')}`
    if (process.env.WRITE_PATH_LIST) process.stderr.write(`${listed}\n`)
    expect(walk.files.length, listed).toBeGreaterThan(5)
    expect(walk.files.length, listed).toBeLessThanOrEqual(files)
  })
})
