import { createServer } from 'node:http'
import { connect } from '../../sql/db'
import { embeddedFleetResources } from '../../src/ports/fleet'

/**
 * The fleet service for the benchmark, in its own process: it answers the batch endpoint over
 * HTTP, as the real one does, from the seeded `fleet_vehicle` table, and counts its calls
 * (`GET /calls`) so the benchmark can check that a resource page costs one fleet call.
 * Usage: DATABASE_URL=… FLEET_INTERNAL_TOKEN=… node --import tsx scripts/bench/fleet.ts <port>
 */
const port = Number(process.argv[2] ?? 0)
const token = process.env.FLEET_INTERNAL_TOKEN
const sql = connect({ url: process.env.DATABASE_URL!, max: 4, timezone: 'Asia/Shanghai' })
const fleet = embeddedFleetResources({ timezone: 'Asia/Shanghai' })
const PATH = '/internal/fleet/vehicles/supplier-resource-info/batch'
let calls = 0
let vehicles = 0

const server = createServer((req, res) => {
  const answer = (status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(JSON.stringify(body))
  }
  if (req.method === 'GET' && req.url === '/calls') return answer(200, { calls, vehicles })
  if (req.method !== 'POST' || req.url !== PATH) return answer(404, { code: 404 })
  if (req.headers['x-internal-token'] !== token) return answer(401, { code: 401 })
  const chunks: Buffer[] = []
  req.on('data', (c: Buffer) => chunks.push(c))
  req.on('end', async () => {
    try {
      const { vehicleIds } = JSON.parse(Buffer.concat(chunks).toString()) as {
        vehicleIds: string[]
      }
      calls += 1
      vehicles += vehicleIds.length
      const data = await fleet.supplierResourceInfo(vehicleIds, sql)
      answer(200, { code: 200, message: 'ok', success: true, data })
    } catch (err) {
      answer(500, { code: 500, message: String(err), success: false, data: null })
    }
  })
})
server.listen(port, '127.0.0.1', () => {
  const address = server.address()
  console.log(JSON.stringify({ port: typeof address === 'object' && address?.port }))
})
process.on('SIGTERM', () => server.close(() => sql.end().then(() => process.exit(0))))
