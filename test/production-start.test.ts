import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devHeaders, freePort, request, startService, type Service } from './service'

/**
 * The production start: `npm run build` emits JavaScript that plain `node` runs without the
 * TypeScript loader, from any working directory, reading that directory's `.env`.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url))

describe('npm run build, then node dist/node/main.js in a directory with a .env', () => {
  let dir: string
  let port: number
  let service: Service

  beforeAll(async () => {
    await promisify(execFile)('npm', ['run', 'build'], { cwd: ROOT })
    dir = await mkdtemp(join(tmpdir(), 'supplier-prod-'))
    port = await freePort()
    // LOG_LEVEL in the file is overridden by the environment below: the environment wins.
    await writeFile(
      join(dir, '.env'),
      `# a comment\nPORT=${port}\nDATA_DIR=${join(dir, 'data')}\nDEMO_DATA=true\nLOG_LEVEL=error\n`,
    )
    service = await startService(
      { PORT: undefined, DEMO_DATA: undefined, LOG_LEVEL: 'info' },
      { args: ['--enable-source-maps', join(ROOT, 'dist/node/main.js')], cwd: dir },
    )
    await service.ready
  }, 90_000)

  afterAll(async () => {
    await service?.stop()
    await rm(dir, { recursive: true, force: true })
  })

  it('listens on the PORT of .env, with the environment winning over the file', async () => {
    // The "serving" line is an info line: LOG_LEVEL=error from .env would have hidden it.
    expect(service.output()).toContain('supplier-admin serving')
    expect(service.output()).toContain(`:${port}`)
    const ready = await request(`http://127.0.0.1:${port}/readyz`)
    expect(ready.status).toBe(200)
  })

  it('serves the API from the bundle: migrations, reference and demo data found from dist/', async () => {
    const res = await request(`http://127.0.0.1:${port}/admin/dict/data/supplier_type`, {
      headers: await devHeaders('10001'),
    })
    expect(res.body).toMatchObject({ code: 200, success: true })
    expect(res.body.data.map((d: { dictValue: string }) => d.dictValue)).toContain('FLEET')
    // The demo data (db/seed/*.sql, found relative to the bundle) grants 10001 and sets rules.
    const rules = await request(
      `http://127.0.0.1:${port}/admin/supplier/types/FLEET/qualification-rules`,
      { headers: await devHeaders('10001') },
    )
    expect(rules.body).toMatchObject({ code: 200, success: true })
    expect(rules.body.data.map((r: { qualType: string }) => r.qualType)).toEqual([
      'BUSINESS_LICENSE',
      'ROAD_TRANSPORT_PERMIT',
    ])
  })
})
