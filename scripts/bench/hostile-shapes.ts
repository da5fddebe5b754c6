/**
 * The worst body shapes within a route's size limit, shared by the load test
 * (test/hostile-load.test.ts) and the benchmark (scripts/bench/hostile.ts): each fills the
 * route's limit with one kind of cost. docs/limits.md lists them.
 */

/** Default BODY_LIMIT_BYTES: the limit of the routes that take approveNote and remark. */
export const LARGE_BODY_BYTES = 48 * 1024 * 1024

export interface BodyRoute {
  method: string
  /** The OpenAPI path, parameters in braces. */
  path: string
  /** The route's body limit in bytes. */
  limit: number
}

/** The body routes of an OpenAPI document, each with its declared limit. */
export function bodyRoutes(doc: {
  paths: Record<string, Record<string, { requestBody?: { 'x-max-body-bytes'?: number } }>>
}): BodyRoute[] {
  const routes: BodyRoute[] = []
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      if (!op.requestBody) continue
      const limit = op.requestBody['x-max-body-bytes'] ?? LARGE_BODY_BYTES
      routes.push({ method: method.toUpperCase(), path, limit })
    }
  }
  return routes
}

/** A path of the route with every parameter filled; no such id exists. */
export const concrete = (path: string) =>
  path
    .replace('{typeCode}', 'OTHER')
    .replace('{resourceModule}', 'HOTEL')
    .replace(/\{\w+\}/g, '9223372036854775807')

/** `{"field":` + repeated `unit` + `}` of about `bytes` bytes (never more). */
const filled = (bytes: number, open: string, unit: string, close: string) => {
  const n = Math.max(1, Math.floor((bytes - open.length - close.length) / unit.length))
  return open + unit.repeat(n) + close
}

/**
 * The shapes, each as close to `limit` bytes as it fits: a wide array (of empty objects, the
 * shape that once took 42 s and 3.4 GB to parse), an object of many fields, one long string, many small strings, and a long string of
 * escapes (each quote found inside it is escaped).
 */
export const SHAPES: Record<string, (limit: number) => string> = {
  'wide array': (limit) => filled(limit, '{"types":[', '{},', '{}]}'),
  'many keys': (limit) => {
    const parts: string[] = []
    let size = 2
    for (let i = 0; size + 12 < limit; i++) {
      const part = `"k${i}":0`
      parts.push(part)
      size += part.length + 1
    }
    return `{${parts.join(',')}}`
  },
  'long string': (limit) => filled(limit, '{"approveNote":"', 'a', '"}'),
  'many small strings': (limit) => filled(limit, '{"types":[', '"a",', '"a"]}'),
  'escaped quotes': (limit) => filled(limit, '{"approveNote":"', '\\"', '"}'),
}

/** Resident memory of a process in bytes, from /proc (Linux). */
export async function rssOf(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises')
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1]
  return Number(kb ?? 0) * 1024
}

/**
 * CPU time a process has used so far, user and system, in ms, from /proc (Linux; clock ticks of
 * 10 ms). What one request costs the process, whatever else shares the machine's cores.
 */
export async function cpuMsOf(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises')
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8')
  // Fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}
