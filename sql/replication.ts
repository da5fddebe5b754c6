import { z } from 'zod'
import { one, type Sql } from './db'

/*
 * Positions in the write-ahead log, for routing reads to standbys (src/db/replicas.ts). They
 * touch no table. An LSN travels as PostgreSQL's text (`16/B374D848`) and is compared as a
 * number (lsnValue).
 */

const Lsn = z.string().regex(/^[0-9A-F]+\/[0-9A-F]+$/)

/** An LSN as one number: the high 32 bits, then the low. */
export const lsnValue = (lsn: string): bigint => {
  const [high, low] = lsn.split('/')
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`)
}

/**
 * The primary's current write position: after a COMMIT has returned (synchronous_commit on, the
 * default), at or past that commit's WAL record.
 */
export async function primaryWalPosition(sql: Sql): Promise<bigint> {
  const row = await one(sql`SELECT pg_current_wal_lsn()::text AS lsn`, z.object({ lsn: Lsn }))
  return lsnValue(row.lsn)
}

/**
 * The primary's flushed WAL position: every COMMIT acknowledged so far (synchronous_commit on, the
 * default) is at or before it, and nothing past it can have reached a standby yet.
 */
export async function primaryFlushPosition(sql: Sql): Promise<bigint> {
  const row = await one(sql`SELECT pg_current_wal_flush_lsn()::text AS lsn`, z.object({ lsn: Lsn }))
  return lsnValue(row.lsn)
}

const Replay = z.object({ standby: z.boolean(), replayed: Lsn.nullable() })

/**
 * Whether the server is a standby (in recovery), and how far it has replayed the primary's WAL:
 * everything up to `replayed` is visible to its queries. Null when it is not a standby.
 */
export async function standbyReplayPosition(
  sql: Sql,
): Promise<{ standby: boolean; replayed: bigint | null }> {
  const row = await one(
    sql`SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn()::text AS replayed`,
    Replay,
  )
  return {
    standby: row.standby,
    replayed: row.standby && row.replayed ? lsnValue(row.replayed) : null,
  }
}
