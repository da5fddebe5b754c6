import type postgres from 'postgres'
import { z } from 'zod'
import { many, maybeOne, none, one, type Sql } from './db'

/*
 * Kept keywords (migration 20261202000700): list keywords of three or more characters whose exact
 * totals supplier_keyword_count keeps, as supplier_term_count keeps a term's. These are the
 * keeper's steps (src/domain/supplier/kept-keywords.ts says in what order and why); the reader is
 * sql/supplier-read.ts (keptMatches).
 */

const State = z.object({ state: z.enum(['building', 'ready']) })

/**
 * Marks a kept keyword as used now (the eviction's order); false when it is not ready (a
 * 'building' row is a build under way, or one a keeper left unfinished: the next build clears it).
 */
export async function touchKeptKeyword(sql: Sql, fold: string): Promise<boolean> {
  const row = await maybeOne(
    sql`UPDATE supplier_keyword SET used_at = now() WHERE keyword = ${fold} AND state = 'ready'
        RETURNING state`,
    State,
  )
  return row !== null
}

/**
 * Step 1 of a build, under the keeper's lease: forgets the builds a keeper left unfinished, with
 * their count rows (and any a writer added after an eviction), then commits `fold` as 'building'
 * by `builder`. From that commit every writer's trigger records its deltas. False when `fold` is
 * kept already. Nothing kept is evicted here: only a build that ends kept makes room
 * (evictKeptKeywords), so a keyword that turns out rare costs no common one its place.
 */
export function startKeywordBuild(sql: postgres.Sql, fold: string, builder: string) {
  return sql.begin(async (tx) => {
    const kept = await maybeOne(
      tx`SELECT state FROM supplier_keyword WHERE keyword = ${fold} AND state = 'ready'`,
      State,
    )
    if (kept) return false
    await none(tx`DELETE FROM supplier_keyword WHERE state = 'building'`)
    await forgetOrphanCounts(tx)
    await none(tx`
      INSERT INTO supplier_keyword (keyword, state, builder) VALUES (${fold}, 'building', ${builder})
    `)
    return true
  })
}

/** The count rows of keywords no longer kept (evicted, forgotten, or a writer's late delta). */
const forgetOrphanCounts = (sql: Sql) =>
  none(sql`
    DELETE FROM supplier_keyword_count c
    WHERE NOT EXISTS (SELECT 1 FROM supplier_keyword k WHERE k.keyword = c.keyword)
  `)

/** After a build that ended kept: the least recently used keywords beyond `max`, and their rows. */
export function evictKeptKeywords(sql: postgres.Sql, max: number) {
  return sql.begin(async (tx) => {
    await none(tx`
      DELETE FROM supplier_keyword WHERE keyword IN (
        SELECT keyword FROM supplier_keyword WHERE state = 'ready' ORDER BY used_at, keyword
        LIMIT greatest((SELECT count(*) FROM supplier_keyword WHERE state = 'ready') - ${max}, 0))
    `)
    await forgetOrphanCounts(tx)
  })
}

const Xid = z.object({ xid: z.string() })

/** A transaction id of its own, committed at once: assigned after every commit before it. */
export async function newXid(sql: Sql): Promise<string> {
  return (await one(sql`SELECT txid_current()::text AS xid`, Xid)).xid
}

const Vxid = z.object({ vxid: z.string() })

/**
 * How old transaction id `xid` (a txid_current(), epoch included) is: an xid, or a session's xmin,
 * at least that old is at or before it, whatever the wraparound.
 */
const ageOfXid = (sql: Sql, xid: string) => sql`age((${xid}::bigint % 4294967296)::text::xid)`

/**
 * The transactions a build waits for once it holds `xid`: those of this database's client
 * sessions with an id up to `xid`, or a snapshot older than it (a REPEATABLE READ or SERIALIZABLE
 * writer whose snapshot predates the 'building' commit may take its id only later, and its
 * trigger would not see the keyword), as their virtual transaction ids. Taken once, as CREATE
 * INDEX CONCURRENTLY takes them: a snapshot's xmin is the oldest id running in the whole cluster,
 * so while a long transaction runs in another database (a dump, a bulk load) every snapshot
 * taken here looks old, and a build that asked "is any snapshot old now?" waited for it. Sessions
 * whose type is hidden from a role without pg_read_all_stats are client sessions too when they
 * have a user (autovacuum has none); walsenders have no database. Their ids and xmins are visible
 * to every role, as pg_locks is.
 */
export async function transactionsBefore(sql: Sql, xid: string): Promise<string[]> {
  const upTo = ageOfXid(sql, xid)
  const rows = await many(
    sql`
      SELECT l.virtualxid AS vxid
      FROM pg_stat_activity a
      JOIN pg_locks l ON l.pid = a.pid AND l.locktype = 'virtualxid' AND l.mode = 'ExclusiveLock'
        AND l.granted
      WHERE a.pid <> pg_backend_pid() AND a.datname = current_database()
        AND (a.backend_type = 'client backend' OR (a.backend_type IS NULL AND a.usesysid IS NOT NULL))
        AND (age(a.backend_xid) >= ${upTo} OR age(a.backend_xmin) >= ${upTo})
    `,
    Vxid,
  )
  return rows.map((r) => r.vxid)
}

const Ended = z.object({ ended: z.boolean() })

/**
 * True once the transactions `transactionsBefore` answered have ended (each holds the lock of its
 * virtual id until then), and no transaction of this database prepared for two-phase commit has
 * an id up to `xid` (one prepared later by such a session outlives its virtual id).
 */
export async function transactionsEnded(
  sql: Sql,
  { xid, before }: { xid: string; before: string[] },
): Promise<boolean> {
  const row = await one(
    sql`
      SELECT NOT EXISTS (
               SELECT 1 FROM pg_locks l
               WHERE l.locktype = 'virtualxid' AND l.virtualxid = ANY(${before}::text[])
             ) AND NOT EXISTS (
               SELECT 1 FROM pg_prepared_xacts p
               WHERE p.database = current_database()
                 AND age(p.transaction) >= ${ageOfXid(sql, xid)}
             ) AS ended
    `,
    Ended,
  )
  return row.ended
}

const MatchCount = z.object({ source: z.number().int(), status: z.string(), n: z.number().int() })

/**
 * Step 3 of a build: in one REPEATABLE READ snapshot, counts the keyword's matches per source and
 * status from the terms index (`pairs`: its pairs of adjacent characters), stores their base
 * (the count less the deltas writers recorded since step 1, visible in the same snapshot) and
 * makes it 'ready'. With fewer than `minMatches`, or when this builder's row is gone (another
 * keeper took over), it is forgotten instead. Answers what became of it.
 */
export function finishKeywordBuild(
  sql: postgres.Sql,
  {
    fold,
    pairs,
    builder,
    minMatches,
    signal,
  }: {
    fold: string
    pairs: string[]
    builder: string
    minMatches: number
    /** Cancels the count (a process stopping): the build rolls back. */
    signal?: AbortSignal
  },
): Promise<'kept' | 'rare' | 'lost'> {
  return sql
    .begin('ISOLATION LEVEL REPEATABLE READ', async (tx) => {
      // A request's bound is too short for a keyword held by a third of a million suppliers.
      await none(tx`SELECT set_config('statement_timeout', '60s', true)`)
      signal?.throwIfAborted()
      const counting = tx`
        SELECT m.source, s.status, count(*)::int AS n
        FROM supplier_search s,
             LATERAL (SELECT supplier_keyword_source(${fold}, s.full_fold || chr(31) || s.short_fold,
                       s.spellings || chr(31) || coalesce(supplier_no_fold(s.supplier_no), '')) AS source) m
        WHERE s.terms @> ${pairs}::text[] AND s.status IS NOT NULL AND s.version >= 2
          AND m.source IS NOT NULL
        GROUP BY 1, 2
      `
      const cancel = () => void counting.cancel()
      signal?.addEventListener('abort', cancel, { once: true })
      const counted = await many(counting, MatchCount).finally(() =>
        signal?.removeEventListener('abort', cancel),
      )
      const total = counted.reduce((sum, c) => sum + c.n, 0)
      if (total < minMatches) {
        await forget(tx, fold, builder)
        return 'rare'
      }
      await none(tx`
      INSERT INTO supplier_keyword_count (keyword, source, status, n)
      SELECT ${fold}, x.source, x.status, sum(x.n)
      FROM (
        SELECT * FROM unnest(${counted.map((c) => c.source)}::smallint[],
                             ${counted.map((c) => c.status)}::text[],
                             ${counted.map((c) => c.n)}::bigint[]) AS c(source, status, n)
        UNION ALL
        SELECT c.source, c.status, -c.n FROM supplier_keyword_count c WHERE c.keyword = ${fold}
      ) x
      GROUP BY 2, 3 HAVING sum(x.n) <> 0 ORDER BY 2, 3
    `)
      const ready = await none(tx`
      UPDATE supplier_keyword SET state = 'ready', used_at = now()
      WHERE keyword = ${fold} AND state = 'building' AND builder = ${builder}
    `)
      if (ready === 0) throw new LostBuild()
      return 'kept' as const
    })
    .catch((err: unknown) => {
      if (err instanceof LostBuild) return 'lost' as const
      throw err
    })
}

class LostBuild extends Error {}

const forget = (sql: Sql, fold: string, builder: string) =>
  none(sql`
    WITH gone AS (
      DELETE FROM supplier_keyword WHERE keyword = ${fold} AND builder = ${builder} AND state = 'building'
      RETURNING keyword
    )
    DELETE FROM supplier_keyword_count c WHERE c.keyword IN (SELECT keyword FROM gone)
  `)

/** Gives up `builder`'s build of `fold` (its wait timed out, or it failed). */
export function abandonKeywordBuild(sql: Sql, fold: string, builder: string) {
  return forget(sql, fold, builder)
}
