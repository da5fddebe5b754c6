import { createServer } from 'node:http'

/**
 * A collector stand-in for the tracing benchmark, in its own process: it accepts every OTLP/HTTP
 * trace export (protobuf or JSON) at once and counts them (`GET /counts`), so that the benchmark
 * measures the service's cost of tracing, not a collector's.
 * Usage: node --import tsx scripts/bench/otlp-sink.ts <port>
 */
const port = Number(process.argv[2] ?? 0)
let exports = 0
let bytes = 0

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/counts') {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ exports, bytes }))
    return
  }
  req.on('data', (c: Buffer) => (bytes += c.length))
  req.on('end', () => {
    if (req.method !== 'POST' || req.url !== '/v1/traces') {
      res.writeHead(404).end()
      return
    }
    exports += 1
    const json = (req.headers['content-type'] ?? '').startsWith('application/json')
    res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' })
    res.end(json ? '{}' : undefined)
  })
})
server.listen(port, '127.0.0.1', () => {
  const address = server.address()
  console.log(JSON.stringify({ port: typeof address === 'object' && address?.port }))
})
process.on('SIGTERM', () => server.close(() => process.exit(0)))
