import { createServer, connect, type Server, type Socket } from 'node:net'

/**
 * A TCP proxy on 127.0.0.1 in front of the database, to take it away on purpose: `cut()` drops
 * every connection and closes the port (connection refused), `blackhole()` drops every connection
 * and then accepts new ones without ever answering (a host that went silent), `restore()` passes
 * traffic again on the same port.
 */
export async function tcpProxy(target: { host: string; port: number }) {
  let mode: 'pass' | 'blackhole' | 'cut' = 'pass'
  const sockets = new Set<Socket>()
  let server: Server | undefined
  let port = 0

  const track = (s: Socket) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
    s.on('error', () => s.destroy())
  }
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = createServer((client) => {
        track(client)
        if (mode !== 'pass') return // held open, never answered
        const upstream = connect(target.port, target.host)
        track(upstream)
        client.pipe(upstream).pipe(client)
        client.on('close', () => upstream.destroy())
        upstream.on('close', () => client.destroy())
      })
      server.once('error', reject)
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as { port: number }).port
        resolve()
      })
    })
  const dropAll = () => {
    for (const s of sockets) s.destroy()
  }
  const close = () =>
    new Promise<void>((resolve) => {
      if (!server) return resolve()
      server.close(() => resolve())
      server = undefined
    })

  await listen()
  return {
    get port() {
      return port
    },
    /** The URL of `databaseUrl` with its host and port replaced by the proxy's. */
    urlFor(databaseUrl: string) {
      const url = new URL(databaseUrl)
      url.hostname = '127.0.0.1'
      url.port = String(port)
      return url.toString()
    },
    async cut() {
      mode = 'cut'
      await Promise.all([close(), Promise.resolve(dropAll())])
    },
    blackhole() {
      mode = 'blackhole'
      dropAll()
    },
    /** Passes traffic again; connections held while silent are dropped (their peers retry). */
    async restore() {
      mode = 'pass'
      dropAll()
      if (!server) await listen()
    },
    async stop() {
      mode = 'cut'
      dropAll()
      await close()
    },
  }
}
