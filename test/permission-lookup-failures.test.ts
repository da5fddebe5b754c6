import postgres from 'postgres'
import { afterAll, describe, expect, it } from 'vitest'
import { connect } from '../sql/db'
import { createApp } from '../src/app'
import { createLogger } from '../src/logger'
import { sqlPermissionLookup } from '../src/ports/permission'
import { ITEMS } from './client'
import { snapshot } from './unchanged'
import { useHarness } from './harness'
import { statementText, tcpProxy } from './tcp-proxy'
import { draftBody } from './supplier-data'

/**
 * A permission lookup that fails for a database reason judged nobody's permission: it answers
 * 395030 (retry later), not 395002, and the operation does not run (fail closed). The lookup
 * timing out is covered by test/db-outage.test.ts.
 */

const UNAVAILABLE = { code: 395030, success: false, data: null }

describe('a permission lookup failing for a database reason', () => {
  const h = useHarness({ env: { PERMISSION_READ_CACHE_SECONDS: '0' } })
  const pools: postgres.Sql[] = []
  let proxy: Awaited<ReturnType<typeof tcpProxy>> | undefined
  const logs: string[] = []
  afterAll(async () => {
    await proxy?.stop()
    for (const pool of pools) await pool.end({ timeout: 1 })
  })

  /** The app with its permission lookup on `sql`; everything else on the harness pool. */
  const appWithLookupOn = (sql: postgres.Sql) =>
    createApp({
      config: h.config,
      sql: h.sql,
      logger: createLogger({
        level: 'info',
        destination: { write: (line: string) => void logs.push(line) },
      }),
      cipher: h.cipher,
      permissions: sqlPermissionLookup(sql),
    })

  /** A write and a read through `app`: both 395030, and the database unchanged. */
  async function refusedWithoutRunning(app: ReturnType<typeof createApp>) {
    const admin = await h.admin()
    const before = await snapshot(h, { grants: true })
    const write = await h.callVia(app, 'POST', ITEMS, { admin, body: draftBody() })
    expect(write.body).toMatchObject(UNAVAILABLE)
    expect(write.body.message).toMatch(/retry/)
    const read = await h.callVia(app, 'GET', `${ITEMS}?page=1&pageSize=10`, { admin })
    expect(read.body).toMatchObject(UNAVAILABLE)
    expect(await snapshot(h, { grants: true })).toEqual(before)
  }

  it('an answer row that does not parse: 395030, nothing run', async () => {
    // The permission statement answered, but not with what its parser expects (a damaged or
    // misdelivered answer): the real statement runs, its row is then garbled.
    const garbled = ((...args: Parameters<postgres.Sql>) =>
      h
        .sql(...args)
        .then((rows) =>
          rows.map((row) => ({ ...row, permissions: 'not a list' })),
        )) as unknown as postgres.Sql
    await refusedWithoutRunning(appWithLookupOn(garbled))
    expect(logs.join('\n')).toContain('a row that does not parse')
  })

  it('the connection lost while the lookup runs: 395030, nothing run', async () => {
    const url = new URL(h.db.url)
    proxy = await tcpProxy({ host: url.hostname, port: Number(url.port) })
    const lookups = connect({ url: proxy.urlFor(h.db.url), max: 1, timezone: h.config.timezone })
    pools.push(lookups)
    // Each time a fresh connection sends the permission statement, the connection drops after
    // the server has it (its text travels once per connection: postgres.js prepares it).
    for (let i = 0; i < 2; i++) {
      void proxy.arm({
        from: 'client',
        matches: statementText('admin_permission'),
        deliver: true,
        then: 'cut',
      })
    }
    await refusedWithoutRunning(appWithLookupOn(lookups))
    expect(logs.join('\n')).toContain('permission lookup: the database is unreachable')
  })
})
