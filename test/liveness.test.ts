import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { devHeaders, request, startService, type Service } from './service'

/**
 * Liveness and readiness of the real process while it starts: /healthz answers 200 from the
 * moment the process serves HTTP (a liveness probe must not restart a process that is only
 * waiting for its database), /readyz and every other route answer 503 until the database is
 * ready, then 200: every probe before the first 200 saw 503, and none after it.
 */

let service: Service | undefined
let dataDir: string | undefined
afterAll(async () => {
  await service?.stop()
  if (dataDir) await rm(dataDir, { recursive: true, force: true })
})

interface Probe {
  path: string
  status: number
  code?: number
}

const GATED = ['/readyz', '/admin/dict/data/supplier_type']

describe('the process during start-up', () => {
  it('/healthz is 200 throughout; /readyz and the routes are 503 until the database is ready, then 200 for good', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'supplier-liveness-'))
    // A fresh data directory: PGlite's first start and the migrations take a while.
    service = await startService({ DATA_DIR: dataDir })
    let ready = false
    void service.ready.then(() => (ready = true))
    // The route with a valid token: once ready it answers its data, not 401.
    const headers = await devHeaders('10001')
    // Every answer, in the order the probes were sent (one at a time).
    const probes: Probe[] = []
    const deadline = Date.now() + 60_000
    // Probe as fast as the process answers until it says it serves, then twice more.
    for (let after = 0; after < 2 && Date.now() < deadline && !service.hasExited();) {
      const serving = ready
      for (const path of ['/healthz', ...GATED]) {
        const res = await request(`${service.base}${path}`, { headers, timeoutMs: 5_000 })
        // 0: not listening yet (before the port is bound), which no probe can mistake.
        if (res.status !== 0) probes.push({ path, status: res.status, code: res.body?.code })
      }
      if (serving) after++
      else await new Promise((resolve) => setTimeout(resolve, 20))
    }
    await service.ready
    const answers = (path: string) =>
      probes.filter((p) => p.path === path).map((p) => `${p.status} ${p.code}`)
    // Liveness: every probe 200, from the first answer to the last.
    const health = answers('/healthz')
    expect(health.length).toBeGreaterThan(0)
    expect(health).toEqual(health.map(() => '200 200'))
    // Readiness and a route, taken together in the order sent: 503 "starting" (395039) until
    // the first 200, and 200 from then on, never back; the window was seen on both.
    const gated = probes.filter((p) => GATED.includes(p.path))
    const first = gated.findIndex((p) => p.status === 200)
    expect(first, 'readiness came').toBeGreaterThan(0)
    expect(gated.slice(0, first).map((p) => `${p.path} ${p.status} ${p.code}`)).toEqual(
      gated.slice(0, first).map((p) => `${p.path} 503 395039`),
    )
    expect(gated.slice(first).map((p) => `${p.path} ${p.status}`)).toEqual(
      gated.slice(first).map((p) => `${p.path} 200`),
    )
    for (const path of GATED) {
      expect(answers(path), path).toContain('503 395039')
      expect(answers(path).at(-1), path).toBe('200 200')
    }
    // Once ready, readiness and the routes answer as usual.
    expect((await request(`${service.base}/readyz`)).status).toBe(200)
    expect((await request(`${service.base}/healthz`)).body).toEqual({
      code: 200,
      message: '成功',
      success: true,
      data: { status: 'UP' },
    })
  }, 90_000)
})
