import { readFileSync } from 'node:fs'
import { serve } from '@hono/node-server'
import { Hono } from 'hono'
import { connect } from '../../sql/db'
import { replay, type Recorded } from './statements'

/**
 * The handler floor, in its own process: a bare Hono route per scenario that runs the very
 * statements the service issued for that request (recorded by the benchmark), on a pool of the
 * same size, and answers the envelope, with no authentication, validation or logging. What
 * separates the service from this is the service's own work. A page that asked the fleet service
 * for vehicles makes the same call here (a dependency, not the service's own work).
 * Usage: DATABASE_URL=… FLEET_BASE_URL=… FLEET_INTERNAL_TOKEN=… node --import tsx
 *   scripts/bench/floor.ts <statements.json> <pool max>
 */
const scenarios = JSON.parse(readFileSync(process.argv[2], 'utf8')) as Record<string, Recorded>
const fleetUrl = `${process.env.FLEET_BASE_URL}/internal/fleet/vehicles/supplier-resource-info/batch`
const sql = connect({
  url: process.env.DATABASE_URL!,
  max: Number(process.argv[3] ?? 16),
  timezone: 'Asia/Shanghai',
})

const app = new Hono()
app.get('/floor/:scenario', async (c) => {
  const recorded = scenarios[c.req.param('scenario')]
  if (!recorded) return c.json({ code: 404, success: false }, 404)
  const data = await replay(sql, recorded.statements)
  if (recorded.fleetVehicleIds) {
    const res = await fetch(fleetUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-internal-token': process.env.FLEET_INTERNAL_TOKEN!,
      },
      body: JSON.stringify({ vehicleIds: recorded.fleetVehicleIds }),
    })
    await res.json()
  }
  return c.json({ code: 200, message: '成功', success: true, data })
})

const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) =>
  console.log(JSON.stringify({ port: info.port })),
)
process.on('SIGTERM', () => server.close(() => sql.end().then(() => process.exit(0))))
