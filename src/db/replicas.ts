import type { Logger } from 'pino'
import type postgres from 'postgres'
import { withinDeadline } from '../../sql/db'
import { primaryWalPosition, standbyReplayPosition } from '../../sql/replication'
import type { ReadReason, ReadRouting } from '../domain/deps'
import type { Observer } from '../ports/observer'

/**
 * Read routing over standbys (DATABASE_READ_URL). A poll every POLL_MS reads the primary's WAL
 * position and each standby's replay position. A standby's lag is how old the newest primary
 * position it has replayed is: the primary's positions are sampled with this process's clock, so
 * no two servers' clocks are compared, and an idle primary means no lag. A standby serves reads
 * while that lag is within `maxLagMs`; a read sees data at most `maxLagMs + POLL_MS` old.
 *
 * Read-your-writes: after a write, the administrator's reads go to a standby only once it has
 * replayed the primary's WAL position taken after the commit; until then the primary serves
 * them. That position is kept for `maxLagMs + 2 × POLL_MS + 1 s` at most: past that, the lag rule
 * alone already guarantees the standby has it. It is this process's memory: another instance
 * does not know the write (docs/replicas.md).
 */

/** Between two polls. */
export const POLL_MS = 250
/** A poll answer slower than this counts as the standby down. */
const POLL_TIMEOUT_MS = 1_000

export interface Standby {
  /** `host:port`, as the metrics label it. */
  name: string
  sql: postgres.Sql
}

interface StandbyState extends Standby {
  up: boolean
  /** Replayed WAL position at the last poll. */
  replayed: bigint
  /** Lag at the last poll, ms. */
  lagMs: number
  /** A read failed on it since its last good poll. */
  failedRead: boolean
}

export interface ReadRouter extends ReadRouting {
  /** One poll now (the timer does them on its own); resolves when it is done. */
  poll(): Promise<void>
  stop(): Promise<void>
}

export function startReadRouting({
  primary,
  standbys,
  maxLagMs,
  observer,
  logger,
}: {
  primary: postgres.Sql
  standbys: Standby[]
  maxLagMs: number
  observer?: Observer
  logger: Pick<Logger, 'warn' | 'info'>
}): ReadRouter {
  const states: StandbyState[] = standbys.map((s) => ({
    ...s,
    up: false,
    replayed: 0n,
    lagMs: Infinity,
    failedRead: false,
  }))
  /** The primary's WAL position by this process's clock, oldest first. */
  const samples: { at: number; lsn: bigint }[] = []
  const keepMs = Math.max(maxLagMs * 2, 5_000) + POLL_MS
  const writes = new Map<string, { lsn: bigint; at: number }>()
  const rememberMs = maxLagMs + 2 * POLL_MS + 1_000
  let next = 0

  const lagOf = (replayed: bigint, now: number) => {
    const newest = samples.at(-1)
    if (!newest || replayed >= newest.lsn) return 0
    // The newest position it has replayed tells how old its view is (at most).
    for (let i = samples.length - 1; i >= 0; i--) {
      if (samples[i].lsn <= replayed) return now - samples[i].at
    }
    return Infinity
  }

  const pollStandby = async (s: StandbyState) => {
    try {
      const { standby, replayed } = await withinDeadline(
        standbyReplayPosition(s.sql),
        POLL_TIMEOUT_MS,
        `standby ${s.name}`,
      )
      // A promoted standby is somebody's primary now, not a copy of ours to read from.
      if (!standby || replayed === null) throw new Error('not in recovery')
      if (!s.up) logger.info({ standby: s.name }, 'standby answers: reads may use it')
      s.up = true
      s.failedRead = false
      s.replayed = replayed
      s.lagMs = lagOf(replayed, performance.now())
      // Older than every sample kept: at least that old.
      observer?.standbyLag?.(s.name, (Number.isFinite(s.lagMs) ? s.lagMs : keepMs) / 1000)
    } catch (err) {
      if (s.up) logger.warn({ standby: s.name, err: (err as Error).message }, 'standby down')
      s.up = false
      s.lagMs = Infinity
      observer?.standbyLag?.(s.name, undefined)
    }
  }

  let polling: Promise<void> | undefined
  const poll = () =>
    (polling ??= (async () => {
      try {
        const lsn = await withinDeadline(primaryWalPosition(primary), POLL_TIMEOUT_MS, 'primary')
        const at = performance.now()
        samples.push({ at, lsn })
        while (samples.length > 1 && samples[0].at < at - keepMs) samples.shift()
      } catch {
        // The primary is away (a failover): the standbys' lag is judged on the last samples.
      }
      await Promise.all(states.map(pollStandby))
      const now = performance.now()
      for (const [admin, w] of writes) if (w.at < now - rememberMs) writes.delete(admin)
    })().finally(() => (polling = undefined)))

  let stopped = false
  const timer = setInterval(() => {
    if (!stopped) void poll()
  }, POLL_MS)
  timer.unref()
  void poll()

  return {
    poll,
    pick(adminId) {
      const wrote = adminId === undefined ? undefined : writes.get(adminId)
      const fit = states.filter((s) => s.up && !s.failedRead)
      if (!fit.length) return { reason: 'down' as ReadReason }
      const fresh = fit.filter((s) => s.lagMs <= maxLagMs)
      if (!fresh.length) return { reason: 'lagging' as ReadReason }
      const mine = wrote ? fresh.filter((s) => s.replayed >= wrote.lsn) : fresh
      if (!mine.length) return { reason: 'read-your-writes' as ReadReason }
      const chosen = mine[next++ % mine.length]
      return { name: chosen.name, sql: chosen.sql }
    },
    failed(name) {
      const s = states.find((x) => x.name === name)
      if (s) s.failedRead = true
    },
    async wrote(adminId) {
      let lsn: bigint
      try {
        lsn = await withinDeadline(primaryWalPosition(primary), POLL_TIMEOUT_MS, 'primary')
      } catch {
        // Position unknown: no standby is known to have the write until the bound passes.
        lsn = BigInt(Number.MAX_SAFE_INTEGER) << 16n
      }
      const before = writes.get(adminId)
      writes.set(adminId, {
        lsn: before && before.lsn > lsn ? before.lsn : lsn,
        at: performance.now(),
      })
    },
    async stop() {
      stopped = true
      clearInterval(timer)
      await polling
    },
  }
}
