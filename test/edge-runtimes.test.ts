import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { insertSupplier } from './fixtures'
import { useHarness } from './harness'
import { REAL_SECRETS } from './secrets'
import { insertRelation, insertResource, insertTag, linkSeason, linkTag } from './resource-data'

/*
 * The edge entry run for real: bundled the way a Workers or Deno deployment bundles it, served
 * by workerd (the Workers runtime) and by Deno, both talking to the test database over TCP, and
 * compared with what the Node service answers for the same requests. The test server's session
 * TimeZone is its default (UTC here) on the edge side, while the Node client sets APP_TIMEZONE:
 * equal answers also show that the edge's queries name the zone themselves.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url))
/*
 * The runtimes' own platform packages (as for dbmate): the registry we install from serves the
 * Linux x64 builds, and the `deno` / `workerd` wrapper packages would need every platform's.
 */
const WORKERD = join(ROOT, 'node_modules', '@cloudflare', 'workerd-linux-64', 'bin', 'workerd')
const DENO = join(ROOT, 'node_modules', '@deno', 'linux-x64-glibc', 'deno')

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

/** Starts a runtime and resolves with its base URL once `ready` answers. */
async function startRuntime(
  command: string,
  args: string[],
  options: { cwd: string; env?: Record<string, string>; port?: number },
): Promise<{ url: string; child: ChildProcess; output: () => string }> {
  let output = ''
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.stdout!.on('data', (d) => (output += d))
  child.stderr!.on('data', (d) => (output += d))
  const deadline = Date.now() + 30_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${command} exited: ${output}`)
    const port = options.port ?? Number(/LISTENING (\d+)/.exec(output)?.[1])
    if (port) {
      const url = `http://127.0.0.1:${port}`
      const up = await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
      if (up) return { url, child, output: () => output }
    }
    if (Date.now() > deadline) {
      child.kill()
      throw new Error(`${command} did not start: ${output}`)
    }
    await new Promise((r) => setTimeout(r, 200))
  }
}

const stop = (child?: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (!child || child.exitCode !== null) return resolve()
    child.once('exit', () => resolve())
    child.kill('SIGTERM')
  })

// PGlite behind pglite-socket serves one session at a time: the Node client of the harness holds
// it, so an edge runtime's own connection would interleave with it. The edge runtimes are run
// against a real PostgreSQL only.
const embedded = inject('database').kind === 'embedded'

describe.skipIf(embedded)('the edge entry under workerd and Deno, against PostgreSQL', () => {
  // The edge refuses the development secrets: the harness writes and signs with the same real ones.
  const h = useHarness({ env: REAL_SECRETS })
  let dir: string
  let admin: string
  let supplierId: string
  const runtimes: Record<string, { url: string; child: ChildProcess; output: () => string }> = {}

  beforeAll(async () => {
    admin = await h.admin()
    ;({ supplierId } = await insertSupplier(h, { status: 'ACTIVE', supplierNo: 'SPEDGE1' }))
    const hot = await insertTag(h)
    for (const [i, module] of (['HOTEL', 'VEHICLE', 'SCENIC'] as const).entries()) {
      const resourceId = await insertResource(h, module, { updateTime: '2026-02-03 23:30:00' })
      await linkTag(h, module, resourceId, hot.tagId, 0)
      await linkSeason(h, module, resourceId, 'AUTUMN', 0)
      await insertRelation(h, {
        supplierId,
        module,
        resourceId,
        updateTime: `2026-02-04 00:00:0${i}`,
      })
    }
    await insertRelation(h, { supplierId, module: 'STAFF', resourceId: '9007199254999990' })

    // Bundles live under node_modules so that Deno resolves postgres.js from the project.
    dir = await mkdtemp(join(ROOT, 'node_modules', '.edge-runtimes-'))
    const common = {
      absWorkingDir: ROOT,
      entryPoints: ['src/edge.ts'],
      bundle: true,
      format: 'esm' as const,
      platform: 'neutral' as const,
      mainFields: ['module', 'main'],
      logLevel: 'silent' as const,
    }
    // workerd: everything bundled, postgres.js in its Workers build.
    await build({
      ...common,
      conditions: ['workerd', 'worker', 'browser'],
      external: ['cloudflare:sockets', 'node:*'],
      outfile: join(dir, 'worker.js'),
    })
    // Deno: our code bundled, postgres.js imported from node_modules (its Node build runs on
    // Deno's Node compatibility).
    await build({
      ...common,
      conditions: ['deno', 'worker', 'browser'],
      external: ['postgres'],
      outfile: join(dir, 'edge.mjs'),
    })

    const env: Record<string, string> = {
      DATABASE_URL: h.db.url,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      APP_TIMEZONE: h.config.timezone,
      ...REAL_SECRETS,
    }
    const port = await freePort()
    const bindings = Object.entries(env)
      .map(([name, value]) => `(name = ${JSON.stringify(name)}, text = ${JSON.stringify(value)})`)
      .join(',\n    ')
    await writeFile(
      join(dir, 'config.capnp'),
      `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    # Outbound TCP (the database) and fetch may reach this machine's loopback addresses.
    (name = "loopback", network = (allow = ["public", "private", "local"])),
  ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ (name = "worker.js", esModule = embed "worker.js") ],
  compatibilityDate = "2026-11-01",
  bindings = [
    ${bindings}
  ],
  globalOutbound = "loopback",
);
`,
    )
    await writeFile(
      join(dir, 'serve.mjs'),
      `import edge from './edge.mjs'
const env = JSON.parse(Deno.env.get('EDGE_ENV'))
Deno.serve(
  { hostname: '127.0.0.1', port: 0, onListen: ({ port }) => console.log('LISTENING ' + port) },
  (req) => edge.fetch(req, env, { waitUntil: (p) => void p.catch(() => {}) }),
)
`,
    )
    const [workerd, deno] = await Promise.all([
      startRuntime(WORKERD, ['serve', 'config.capnp'], { cwd: dir, port }),
      startRuntime(
        DENO,
        [
          'run',
          '--allow-net=127.0.0.1',
          '--allow-env',
          '--allow-read',
          '--allow-sys',
          '--node-modules-dir=manual',
          join(dir, 'serve.mjs'),
        ],
        {
          cwd: ROOT,
          env: {
            EDGE_ENV: JSON.stringify(env),
            DENO_DIR: join(dir, 'deno-cache'),
            DENO_NO_UPDATE_CHECK: '1',
          },
        },
      ),
    ])
    runtimes.workerd = workerd
    runtimes.deno = deno
  }, 120_000)

  afterAll(async () => {
    await Promise.all(Object.values(runtimes).map((r) => stop(r.child)))
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  const over = async (runtime: string, path: string) => {
    const res = await fetch(`${runtimes[runtime].url}${path}`, {
      headers: { authorization: `Bearer ${await h.token(admin)}`, 'x-admin-id': admin },
    })
    return { status: res.status, body: await res.json() }
  }

  for (const runtime of ['workerd', 'deno']) {
    describe(runtime, () => {
      it('serves the dictionaries as the Node service does', async () => {
        for (const dict of ['supplier_type', 'supplier_lifecycle_status']) {
          const path = `/admin/dict/data/${dict}`
          const edge = await over(runtime, path)
          const node = await h.call('GET', path, { admin })
          expect(edge.status).toBe(200)
          expect(edge.body).toMatchObject({ code: 200, success: true })
          expect(edge.body.data.length).toBeGreaterThan(0)
          expect(edge.body).toEqual(node.body)
        }
      })

      it('serves the resource-information page (local modules, vehicles, a missing resource) as the Node service does', async () => {
        for (const query of ['', '?pageSize=2&pageNo=2', '?resourceModule=VEHICLE']) {
          const path = `/admin/supplier/items/${supplierId}/resource-info/page${query}`
          const edge = await over(runtime, path)
          const node = await h.call('GET', path, { admin })
          expect(edge.body, query).toMatchObject({ code: 200, success: true })
          expect(edge.body, query).toEqual(node.body)
        }
        const { body } = await over(
          runtime,
          `/admin/supplier/items/${supplierId}/resource-info/page`,
        )
        expect(body.data.total).toBe(4)
        expect(body.data.records.map((r: any) => r.resourceModule)).toEqual([
          'STAFF',
          'SCENIC',
          'VEHICLE',
          'HOTEL',
        ])
        // Rendered in APP_TIMEZONE although this session's TimeZone is the server's default.
        expect(body.data.records[1].updateTime).toBe('2026-02-03 23:30:00')
        expect(body.data.records[0]).toMatchObject({ resourceAvailable: false, tags: [] })
      })

      it('serves the supplier detail with the same date-times as the Node service', async () => {
        const path = `/admin/supplier/items/${supplierId}`
        const edge = await over(runtime, path)
        expect(edge.body).toMatchObject({ code: 200, success: true })
        expect(edge.body).toEqual((await h.call('GET', path, { admin })).body)
      })

      it('answers the business errors of the page as the Node service does', async () => {
        for (const path of [
          `/admin/supplier/items/${supplierId}/resource-info/page?resourceModule=hotel`,
          `/admin/supplier/items/9007199254999991/resource-info/page`,
          `/admin/supplier/items/${supplierId}/resource-info/page?pageSize=101`,
        ]) {
          const edge = await over(runtime, path)
          const node = await h.call('GET', path, { admin })
          expect(edge.body.success, path).toBe(false)
          expect(edge.body, path).toEqual(node.body)
        }
      })
    })
  }
})
