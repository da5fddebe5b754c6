import { createServer, connect, type Server, type Socket } from 'node:net'

/**
 * A TCP proxy on 127.0.0.1 in front of the database, to take it away on purpose:
 * - `cut()` drops every connection and closes the port (connection refused);
 * - `blackhole()` drops every connection and then accepts new ones without ever answering;
 * - `silence()` keeps every connection open but lets no byte through, either way, and accepts
 *   new connections just as silently: a network that stopped delivering. Nothing is lost: as
 *   with TCP retransmission, `restore()` delivers what was held, then the closes that happened
 *   meanwhile (the far side learns of a close only when the network is back);
 * - `arm(trigger)` does the same to one connection, at the moment a chunk of the client or of
 *   the server matches (say, the server's answer to a COMMIT);
 * - `restore()` passes traffic again on the same port.
 */

export interface Trigger {
  /** Whose bytes are watched. */
  from: 'client' | 'server'
  /** Whether this chunk fires the trigger. */
  matches: (chunk: Buffer) => boolean
  /** Whether the matching chunk itself is still delivered. */
  deliver: boolean
  /** `silence`: that connection holds everything from then on; `cut`: it is dropped. */
  then: 'silence' | 'cut'
}

/** The server's CommandComplete for `tag` (for example `COMMIT`), as it appears on the wire. */
export const commandComplete = (tag: string) => {
  const message = Buffer.concat([
    Buffer.from([0x43, 0, 0, 0, 4 + tag.length + 1]),
    Buffer.from(`${tag}\0`),
  ])
  return (chunk: Buffer): boolean => chunk.includes(message)
}

/** A ReadyForQuery saying the session is inside a transaction ('Z', length 5, 'T'). */
export const readyInTransaction = (chunk: Buffer): boolean =>
  chunk.includes(Buffer.from([0x5a, 0, 0, 0, 5, 0x54]))

/** A client chunk carrying `text` (a statement's text travels only the first time: prepared). */
export const statementText =
  (text: string) =>
  (chunk: Buffer): boolean =>
    chunk.includes(Buffer.from(text))

interface Link {
  client: Socket
  upstream?: Socket
  /** Holding bytes and closes, either way. */
  silent: boolean
  /** Accepted while blackholed: never answered, dropped on restore. */
  blackholed: boolean
  toServer: Buffer[]
  toClient: Buffer[]
  clientClosed: boolean
  upstreamClosed: boolean
}

export async function tcpProxy(target: { host: string; port: number }) {
  let mode: 'pass' | 'silent' | 'blackhole' | 'cut' = 'pass'
  const links = new Set<Link>()
  const armed: { trigger: Trigger; fired: () => void }[] = []
  let server: Server | undefined
  let port = 0

  const fire = (link: Link, from: Trigger['from'], chunk: Buffer): Trigger | undefined => {
    const index = armed.findIndex(({ trigger }) => trigger.from === from && trigger.matches(chunk))
    if (index < 0) return undefined
    const [{ trigger, fired }] = armed.splice(index, 1)
    fired()
    return trigger
  }

  const apply = (link: Link, trigger: Trigger) => {
    if (trigger.then === 'silence') link.silent = true
    else drop(link)
  }

  const drop = (link: Link) => {
    link.client.destroy()
    // Graceful towards the server: what it was sent reaches it before the end of the stream.
    link.upstream?.end()
    links.delete(link)
  }

  const openUpstream = (link: Link) => {
    const upstream = connect(target.port, target.host)
    link.upstream = upstream
    upstream.on('error', () => upstream.destroy())
    upstream.on('data', (chunk: Buffer) => {
      if (link.silent) return void link.toClient.push(chunk)
      const trigger = fire(link, 'server', chunk)
      if (!trigger || trigger.deliver) link.client.write(chunk)
      if (trigger) apply(link, trigger)
    })
    upstream.on('close', () => {
      if (link.silent) link.upstreamClosed = true
      else link.client.end()
    })
  }

  const accept = (client: Socket) => {
    const link: Link = {
      client,
      silent: mode === 'silent',
      blackholed: mode === 'blackhole',
      toServer: [],
      toClient: [],
      clientClosed: false,
      upstreamClosed: false,
    }
    links.add(link)
    client.on('error', () => client.destroy())
    client.on('close', () => {
      link.clientClosed = true
      if (!link.silent) {
        link.upstream?.end()
        links.delete(link)
      }
    })
    client.on('data', (chunk: Buffer) => {
      if (link.blackholed) return
      if (link.silent) return void link.toServer.push(chunk)
      const trigger = fire(link, 'client', chunk)
      if (!trigger || trigger.deliver) link.upstream!.write(chunk)
      if (trigger) apply(link, trigger)
    })
    if (mode === 'pass') openUpstream(link)
  }

  /** Delivers what a silent link held, then the closes it held back. */
  const resume = (link: Link) => {
    link.silent = false
    if (!link.upstream && !link.clientClosed) openUpstream(link)
    for (const chunk of link.toServer.splice(0)) link.upstream?.write(chunk)
    if (!link.clientClosed) for (const chunk of link.toClient.splice(0)) link.client.write(chunk)
    if (link.clientClosed) {
      link.upstream?.end()
      links.delete(link)
    } else if (link.upstreamClosed) link.client.end()
  }

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = createServer(accept)
      server.once('error', reject)
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as { port: number }).port
        resolve()
      })
    })
  const dropAll = () => {
    for (const link of links) {
      link.client.destroy()
      link.upstream?.destroy()
    }
    links.clear()
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
    /** No byte passes any more, either way, on existing or new connections; nothing is closed. */
    silence() {
      mode = 'silent'
      for (const link of links) link.silent = true
    },
    /**
     * Fires once, on the first matching chunk of any connection; resolves when it has. Several
     * may be armed at a time.
     */
    arm(trigger: Trigger): Promise<void> {
      return new Promise((fired) => armed.push({ trigger, fired }))
    },
    /**
     * Passes traffic again. Silent connections get what was held, in order, then the closes
     * held back; connections held while blackholed are dropped (their peers retry).
     */
    async restore() {
      mode = 'pass'
      armed.length = 0
      for (const link of [...links]) {
        if (link.blackholed) {
          link.client.destroy()
          links.delete(link)
        } else if (link.silent) resume(link)
      }
      if (!server) await listen()
    },
    async stop() {
      mode = 'cut'
      armed.length = 0
      dropAll()
      await close()
    },
  }
}
