import { execFile } from 'node:child_process'
import type { AddressInfo } from 'node:net'
import { promisify } from 'node:util'
import { createAdaptorServer } from '@hono/node-server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useHarness } from './harness'

/**
 * `npm run demo` as a reader sees it: the script itself, run against the app served on a
 * loopback port, and its printed change log read line by line.
 */

const h = useHarness()
const run = promisify(execFile)
let server: ReturnType<typeof createAdaptorServer>
let stdout: string
let supplierId: string

beforeAll(async () => {
  server = createAdaptorServer({ fetch: h.app.fetch, hostname: '127.0.0.1' })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const adminId = await h.admin()
  ;({ stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/demo.ts'], {
    env: {
      ...process.env,
      NODE_ENV: 'test',
      DATABASE_URL: '',
      BASE_URL: `http://127.0.0.1:${port}`,
      DEMO_ADMIN_ID: adminId,
    },
  }))
  supplierId = /^supplier (\d+) went DRAFT → VETTING → ACTIVE/m.exec(stdout)![1]
}, 60_000)

afterAll(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())))

/** The change-log lines the demo prints under step 4. */
const changeLogLines = () =>
  stdout
    .slice(stdout.indexOf('its approval records'))
    .split('\n')
    .filter((line) => /^ +\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} /.test(line))

describe('npm run demo', () => {
  it('prints a change log where every line says what changed and to what', () => {
    const lines = changeLogLines()
    expect(lines.length, stdout).toBeGreaterThan(2)
    // Nothing dangles after an arrow: a removed-and-re-added contact was printed as `contact → `.
    expect(
      lines.filter((line) => /→\s*$/.test(line)),
      stdout,
    ).toEqual([])
    // Each line is told apart from the others (two `status → ACTIVE` lines were identical).
    expect(new Set(lines.map((l) => l.trim())).size, stdout).toBe(lines.length)
  })

  it('names the target type of every line', () => {
    for (const line of changeLogLines()) {
      expect(line, stdout).toMatch(/\b(SUPPLIER|CONTACT|ACCOUNT|TYPE|QUALIFICATION)\b/)
    }
  })

  it("keeps the draft's contact: the submit sends it with its contactId", async () => {
    const records = await h.call(
      'GET',
      `/admin/supplier/approval-records?supplierId=${supplierId}&targetType=CONTACT&pageSize=100`,
    )
    expect(records.body.success).toBe(true)
    const removals = records.body.data.records.filter(
      (r: { operationType: string; newValueMasked: string | null }) => r.newValueMasked === null,
    )
    expect(removals).toEqual([])
    const detail = await h.call('GET', `/admin/supplier/items/${supplierId}`)
    expect(detail.body.data.contacts).toHaveLength(1)
  })
})
