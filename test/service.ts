import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import { sign } from 'hono/jwt'
import { DEV_SECRETS } from '../src/config'

/** The real entry point (`npm start`'s command) as a child process, for process-level tests. */

const ROOT = fileURLToPath(new URL('..', import.meta.url))

export const freePort = () =>
  new Promise<number>((resolve) => {
    const srv = createServer()
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number }
      srv.close(() => resolve(port))
    })
  })

export interface Service {
  child: ChildProcess
  base: string
  /** Resolves once the service logs that it serves; rejects if it exits first. */
  ready: Promise<void>
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>
  output(): string
  /** Whether the process has exited. */
  hasExited(): boolean
  stop(): Promise<number | null>
}

/** `npm start`'s arguments to node, read from package.json, run in the repository. */
export const NPM_START = {
  args: (
    JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as { scripts: { start: string } }
  ).scripts.start
    .replace(/^node /, '')
    .split(' '),
  cwd: ROOT,
}

/**
 * Starts the service as `npm start` does (src/dev.ts, then src/main.ts) on the embedded database,
 * with NODE_ENV=development and without demo data, unless `env` says otherwise;
 * a variable given as `undefined` is left unset (the service's own default, or a `.env` in `cwd`).
 */
export async function startService(
  env: Record<string, string | undefined>,
  { args, cwd } = NPM_START,
): Promise<Service> {
  const port = 'PORT' in env ? env.PORT : String(await freePort())
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: '',
    NODE_ENV: 'development',
    LOG_LEVEL: 'info',
    DEMO_DATA: 'false',
    ...env,
    PORT: port,
  }
  const child = spawn(process.execPath, args, {
    cwd,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  let exitedFlag = false
  child.stdout!.on('data', (d) => (output += d))
  child.stderr!.on('data', (d) => (output += d))
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      exitedFlag = true
      resolve(code)
    }),
  )
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (output.includes('supplier-admin serving')) {
        clearInterval(timer)
        resolve()
      }
    }, 50)
    void exited.then((code) => {
      clearInterval(timer)
      reject(new Error(`exited ${code}: ${output}`))
    })
  })
  ready.catch(() => {})
  return {
    child,
    base: `http://127.0.0.1:${port}`,
    ready,
    exited,
    output: () => output,
    hasExited: () => exitedFlag,
    async stop() {
      if (!exitedFlag) child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000)
      const code = await exited
      clearTimeout(timer)
      return code
    },
  }
}

/** Headers of a development token (HS256 with the development secret) for `adminId`. */
export async function devHeaders(adminId: string): Promise<Record<string, string>> {
  const now = Math.floor(Date.now() / 1000)
  const token = await sign(
    { sub: adminId, iat: now, exp: now + 3600 },
    DEV_SECRETS.AUTH_JWT_SECRET,
    'HS256',
  )
  return {
    authorization: `Bearer ${token}`,
    'x-admin-id': adminId,
    'content-type': 'application/json',
  }
}

/** fetch that never throws: a network failure is status 0. */
export async function request(
  url: string,
  init: RequestInit & { timeoutMs?: number } = {},
): Promise<{ status: number; body: any; ms: number }> {
  const started = performance.now()
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(init.timeoutMs ?? 30_000) })
    const text = await res.text()
    let body: unknown = text
    try {
      body = JSON.parse(text)
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, body, ms: performance.now() - started }
  } catch (err) {
    return { status: 0, body: String(err), ms: performance.now() - started }
  }
}
