import { mkdir } from 'node:fs/promises'
import { PGlite } from '@electric-sql/pglite'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import { PGLiteSocketServer } from '@electric-sql/pglite-socket'

export interface EmbeddedDatabase {
  url: string
  stop(): Promise<void>
  /** A gzip dump of the data directory, loadable with `loadDataDir`. */
  dump(): Promise<Blob>
}

/**
 * PGlite behind a loopback Postgres socket, so the app, dbmate and psql all speak the
 * ordinary wire protocol to it. `dataDir` persists; `loadDataDir` starts from a dump (tests).
 */
export async function startEmbedded(options: {
  dataDir?: string
  loadDataDir?: Blob
  port?: number
  /** pglite-socket ignores the client's TimeZone parameter, so the session gets it here. */
  timezone?: string
}): Promise<EmbeddedDatabase> {
  if (options.dataDir) await mkdir(options.dataDir, { recursive: true })
  const db = await PGlite.create({
    dataDir: options.dataDir,
    loadDataDir: options.loadDataDir,
    extensions: { pg_trgm },
  })
  // Two slots, not one: dbmate closes one connection and opens the next at once, and the server
  // may not have released the first slot yet. The app itself uses a single connection (max: 1).
  const server = new PGLiteSocketServer({
    db,
    host: '127.0.0.1',
    port: options.port ?? 0,
    maxConnections: 2,
  })
  if (options.timezone)
    await db.query(`SELECT set_config('TimeZone', $1, false)`, [options.timezone])
  await server.start()
  return {
    url: `postgres://postgres@${server.getServerConn()}/postgres?sslmode=disable`,
    async stop() {
      await server.stop()
      await db.close()
    },
    dump: () => db.dumpDataDir('gzip') as Promise<Blob>,
  }
}
