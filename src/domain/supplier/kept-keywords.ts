import {
  abandonKeywordBuild,
  evictKeptKeywords,
  finishKeywordBuild,
  newXid,
  startKeywordBuild,
  touchKeptKeyword,
  transactionsBefore,
  transactionsEnded,
} from '../../../sql/supplier-keyword'
import { releaseLease, takeLease } from '../../../sql/lease'
import type { Deps, KeywordKeeper } from '../deps'
import { foldTerms } from './search'

/*
 * Kept keywords (migration 20261202000700). A keyword of three or more characters is looked up by
 * its pairs in the terms index, and its exact total needs every match read and rechecked: fast
 * for a rare keyword, not for a common one (旅遊服務, 65,000 of a million suppliers, 334 ms).
 * So a keyword whose answer counted at least KEEP_FROM matches, or whose search ran past the
 * statement timeout, is noted after the answer (never in the read-only request) and kept by this
 * process in the background: its total per status and
 * source is then kept by triggers in every writing transaction, and keptMatches serves it as it
 * serves one character (sql/supplier-read.ts). At most KEPT_KEYWORDS are kept, the least recently
 * used leaving, so that a write tests a bounded number of them.
 *
 * Making one kept is exact under concurrent writers, as CREATE INDEX CONCURRENTLY is: (1) commit
 * it as 'building', after which every writer's trigger records its deltas; (2) take a new
 * transaction id X, note this database's transactions with an id up to X or a snapshot older
 * than X, and wait until they have ended, so that every write that did not see the keyword is
 * committed or gone; (3) in one REPEATABLE READ snapshot
 * store base = matches counted − deltas recorded, and mark it 'ready'. A write committed before
 * that snapshot is in both terms, one after it in its delta only. A wait longer than `waitMs` (a
 * transaction left open) abandons the build; the keyword's next common answer notes it again.
 */

/** How many keywords are kept at most: each write tests each of them. */
export const KEPT_KEYWORDS = 256

/**
 * The matches from which a keyword is kept. Below, the terms index reads and rechecks them within
 * the list page's budget: about 6 µs a match at a million suppliers when cached (旅遊服務: 409 ms
 * for 65,351), so 12 ms for 2,000; about 20 µs read from disk.
 */
export const KEEP_FROM = 2000

/** The lease (sql/lease.ts) that lets one keeper at a time build. */
const KEEP_JOB = 'supplier-keyword-keep'
const LEASE_SECONDS = 120

export type KeepOutcome =
  | 'used' // kept already: marked as used
  | 'busy' // another keeper is building
  | 'kept'
  | 'rare' // fewer matches than the threshold: not kept
  | 'abandoned' // a transaction older than the build stayed open past the wait, or stopped
  | 'lost' // another keeper took the build over

/** Keeps the folded keyword `fold` (three characters or more), or marks it as used if kept. */
export async function keepKeyword(
  { sql }: Pick<Deps, 'sql'>,
  fold: string,
  {
    max = KEPT_KEYWORDS,
    minMatches = KEEP_FROM,
    waitMs = 30_000,
    pollMs = 50,
    signal,
  }: {
    max?: number
    minMatches?: number
    waitMs?: number
    pollMs?: number
    signal?: AbortSignal
  } = {},
): Promise<KeepOutcome> {
  if ([...fold].length < 3) return 'rare'
  if (await touchKeptKeyword(sql, fold)) return 'used'
  const builder = crypto.randomUUID()
  if (!(await takeLease(sql, KEEP_JOB, builder, LEASE_SECONDS))) return 'busy'
  try {
    if (!(await startKeywordBuild(sql, fold, builder))) return 'used'
    try {
      const xid = await newXid(sql)
      const before = await transactionsBefore(sql, xid)
      const deadline = Date.now() + waitMs
      while (!(await transactionsEnded(sql, { xid, before }))) {
        if (Date.now() >= deadline || signal?.aborted) {
          await abandonKeywordBuild(sql, fold, builder)
          return 'abandoned'
        }
        await new Promise((resolve) => setTimeout(resolve, pollMs))
      }
      const outcome = await finishKeywordBuild(sql, {
        fold,
        pairs: foldTerms(fold),
        builder,
        minMatches,
        signal,
      })
      if (outcome === 'kept') await evictKeptKeywords(sql, max)
      return outcome
    } catch (err) {
      await abandonKeywordBuild(sql, fold, builder).catch(() => {})
      // Stopped while counting: the count was cancelled.
      if (signal?.aborted) return 'abandoned'
      throw err
    }
  } finally {
    await releaseLease(sql, KEEP_JOB, builder)
  }
}

/** How often one keyword is marked as used (or tried again) at most. */
const NOTE_EVERY_MS = 60_000

/**
 * The process's keeper: `note` takes a keyword after its answer. A common one is queued, and one
 * at a time is kept (or marked as used) in the background on the primary; a kept one that
 * answered fewer is marked as used at once (one UPDATE), not behind a build, whose eviction would
 * otherwise not see it used. Each keyword is taken at most once a minute. `stop` waits for the
 * one being kept and the marks under way, and drops the queue.
 */
export function startKeywordKeeper(
  deps: Pick<Deps, 'sql' | 'logger'>,
  { minMatches = KEEP_FROM }: { minMatches?: number } = {},
): KeywordKeeper & { stop(): Promise<void> } {
  const queued = new Set<string>()
  // When each keyword was last taken, oldest first: a common answer is not held back by an
  // earlier answer of the keyword that was not.
  const noted = new Map<string, number>()
  const abort = new AbortController()
  let running: Promise<void> = Promise.resolve()
  const touching = new Set<Promise<unknown>>()
  const drain = async () => {
    for (const fold of queued) {
      queued.delete(fold)
      if (abort.signal.aborted) return
      const started = Date.now()
      try {
        const outcome = await keepKeyword(deps, fold, { minMatches, signal: abort.signal })
        if (outcome !== 'used' && outcome !== 'busy') {
          deps.logger.info({ outcome, ms: Date.now() - started }, 'list keyword: kept count build')
        }
      } catch (err) {
        deps.logger.warn({ err: (err as Error).message }, 'list keyword: kept count build failed')
      }
    }
  }
  const due = (key: string) => {
    const now = Date.now()
    if (now - (noted.get(key) ?? -Infinity) < NOTE_EVERY_MS) return false
    noted.delete(key)
    noted.set(key, now)
    if (noted.size > 4 * KEPT_KEYWORDS) noted.delete(noted.keys().next().value!)
    return true
  }
  return {
    note(fold, common) {
      if ([...fold].length < 3 || abort.signal.aborted) return
      if (!common) {
        if (!due(`used:${fold}`)) return
        const touch = touchKeptKeyword(deps.sql, fold)
          .catch((err: unknown) => {
            deps.logger.warn(
              { err: (err as Error).message },
              'list keyword: marking as used failed',
            )
          })
          .finally(() => touching.delete(touch))
        touching.add(touch)
        return
      }
      if ((queued.size >= KEPT_KEYWORDS && !queued.has(fold)) || !due(`keep:${fold}`)) return
      queued.add(fold)
      running = running.then(drain)
    },
    async stop() {
      abort.abort()
      queued.clear()
      await Promise.all([running, ...touching])
    },
  }
}
