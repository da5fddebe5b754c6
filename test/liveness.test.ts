import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { request, startService, type Service } from './service'

/**
 * Liveness and readiness of the real process while it starts: /healthz answers 200 from the
 * moment the process serves HTTP (a liveness probe must not restart a process that is only
 * waiting for its database), /readyz and every other route answer 503 until the database is
 * ready, then 200.
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
  beforeReady: boolean
}

describe('the process during start-up', () => {
  it('/healthz is 200 throughout; /readyz and the routes are 503 until the database is ready', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'supplier-liveness-'))
    // A fresh data directory: PGlite's first start and the migrations take a while.
    service = await startService({ DATA_DIR: dataDir })
    let ready = false
    void service.ready.then(() => (ready = true))
    const probes: Probe[] = []
    const deadline = Date.now() + 60_000
    // Probe as fast as the process answers until it is ready, then once more.
    for (let after = 0; after < 2 && Date.now() < deadline && !service.hasExited();) {
      const beforeReady = !ready
      for (const path of ['/healthz', '/readyz', '/admin/dict/data/supplier_type']) {
        const res = await request(`${service.base}${path}`, { timeoutMs: 5_000 })
        // 0: not listening yet (before the port is bound), which no probe can mistake.
        if (res.status !== 0)
          probes.push({ path, status: res.status, code: res.body?.code, beforeReady })
      }
      if (!beforeReady) after++
      else await new Promise((resolve) => setTimeout(resolve, 20))
    }
    await service.ready
    const during = probes.filter((p) => p.beforeReady)
    // The start-up window was seen: readiness and a route were 503 while the process answered.
    for (const path of ['/readyz', '/admin/dict/data/supplier_type']) {
      const seen = during.filter((p) => p.path === path)
      expect(
        seen.some((p) => p.status === 503 && p.code === 395039),
        path,
      ).toBe(true)
    }
    const health = probes.filter((p) => p.path === '/healthz')
    expect(health.length).toBeGreaterThan(0)
    expect(health.map((p) => `${p.status} ${p.code}`)).toEqual(health.map(() => '200 200'))
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
