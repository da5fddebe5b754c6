import {
  countUnkeyedSuppliers,
  probeIdentity,
  setNameKeys,
  suppliersSharingNameKeys,
  unkeyedSuppliers,
  type NameKeyCandidate,
} from '../../../sql/supplier'
import { inBackground, inBatches } from '../backfill'
import type { Sql } from '../../../sql/db'
import type { Deps } from '../deps'
import {
  compareCompanies,
  companyKeyGroups,
  parseCompanyName,
  type MatchReason,
  type ParsedName,
} from './company-name'

/*
 * A key of companyKeys holds a trade name; the same trade name is common across the country
 * (华夏, 东方, 金桥), but two names whose places lie in different provinces never agree on the
 * region, and such a pair scores below 0.75 (compareCompanies: at most 0.7). So each key is filed
 * by province: `t:云栖@32` for a name in Jiangsu, `t:云栖@` for a name that gives no place, and
 * `t:云栖@*` in every case, each reading of a name by its own places (the second reading of
 * 绍兴夏竹旅游有限公司, trade name 绍兴夏竹 with no place, is filed `@`; the first, 夏竹 in 绍兴, is
 * not). A check probes each reading's keys in that reading's provinces and among the placeless
 * readings, and reads only the suppliers of that trade name there; below NATIONWIDE_BELOW (a
 * threshold that accepts other regions), or for a reading that gives no place, it probes `@*`,
 * the whole country. Two readings of one pair agree on the region exactly when one is filed where
 * the other probes, so a pair scored at or above the threshold is found.
 */

/** Thresholds under this let a candidate in another region through: the probe goes nationwide. */
export const NATIONWIDE_BELOW = 0.75

const filed = (keys: string[], provinces: string[]) =>
  keys.flatMap((key) => provinces.map((province) => `${key}@${province}`))

/*
 * A short name (云栖旅游) names no place and no line of business, so it agrees with every company
 * of that trade name: compared with full names it would flag them all. Short names are compared
 * with short names only, and their keys are kept apart (`s|t:云栖@*`).
 */
const SHORT = 's|'

/** The keys stored with a supplier: those of its full name, and apart those of its short name. */
export function nameKeysOf(fullName: string, shortName: string | null | undefined): string[] {
  const keys = new Set<string>()
  const add = (name: string | null | undefined, prefix: string) => {
    if (!name?.trim()) return
    for (const group of companyKeyGroups(name)) {
      for (const key of filed(group.keys, [...group.provinces, '*'])) keys.add(prefix + key)
    }
  }
  add(fullName, '')
  add(shortName, SHORT)
  return [...keys].sort()
}

/** The keys a check of a full name (and maybe a short name) looks up. */
export function probeKeysOf(
  names: { fullName: string; shortName?: string | null },
  threshold: number,
): string[] {
  const keys = new Set<string>()
  const add = (name: string | null | undefined, prefix: string) => {
    if (!name?.trim()) return
    // Each reading by its own places: one reading that gives none does not send the others'
    // keys nationwide (the suppliers sharing a short typo key across the country are many).
    for (const group of companyKeyGroups(name)) {
      const nationwide = threshold < NATIONWIDE_BELOW || group.provinces.includes('')
      const where = nationwide ? ['*'] : [...group.provinces, '']
      for (const key of filed(group.keys, where)) keys.add(prefix + key)
    }
  }
  add(names.fullName, '')
  add(names.shortName, SHORT)
  return [...keys]
}

/**
 * How many suppliers sharing a key one probe reads at most. A key holds a trade name, so it is
 * shared by the companies of that name (in every region and line of business): a few, or for the
 * commonest trade names a few hundred. The cap bounds the check's cost whatever the data.
 */
export const PROBE_LIMIT = 500
/** How many candidates a 395006 answer lists (the strongest first). */
export const CANDIDATES_SHOWN = 20

export interface NearDuplicate {
  supplierId: string
  supplierNo: string | null
  fullName: string
  status: string
  /** 0..1: how likely the same company (compareCompanies' score of the closest pair of names). */
  similarity: number
  reason: MatchReason
  /** One sentence an administrator reads at a glance: what matched. */
  explanation: string
}

/**
 * The live suppliers that look like the same company as `names` (a full name and maybe a short
 * name): those sharing a key (one index probe), scored by compareCompanies full name against full
 * name and short against short, kept at or above `threshold`, strongest first.
 */
export async function findNearDuplicates(
  sql: Sql,
  names: { fullName: string; shortName?: string | null },
  threshold: number,
  exceptSupplierId: string | null,
): Promise<NearDuplicate[]> {
  const keys = probeKeysOf(names, threshold)
  if (!keys.length) return []
  const rows = await suppliersSharingNameKeys(sql, keys, exceptSupplierId, PROBE_LIMIT)
  return nearDuplicatesAmong(names, rows, threshold)
}

/**
 * `findNearDuplicates` and, when `taxNoBidx` is given, C-02's holder of that tax number, in one
 * statement (`probeIdentity`).
 */
export async function findTaxNoHolderAndNearDuplicates(
  sql: Sql,
  names: { fullName: string; shortName?: string | null },
  {
    threshold,
    exceptSupplierId,
    taxNoBidx,
  }: { threshold: number; exceptSupplierId: string | null; taxNoBidx: string | undefined },
): Promise<{ taxNoHolder: string | null; nearDuplicates: NearDuplicate[] }> {
  const keys = probeKeysOf(names, threshold)
  if (!keys.length && taxNoBidx === undefined) return { taxNoHolder: null, nearDuplicates: [] }
  const probe = { taxNoBidx, keys, exceptSupplierId, limit: PROBE_LIMIT }
  const { taxNoHolder, candidates } = await probeIdentity(sql, probe)
  return { taxNoHolder, nearDuplicates: nearDuplicatesAmong(names, candidates, threshold) }
}

/** The rows of the name-key probe that score at or above `threshold`, strongest first. */
function nearDuplicatesAmong(
  names: { fullName: string; shortName?: string | null },
  rows: NameKeyCandidate[],
  threshold: number,
): NearDuplicate[] {
  const found: NearDuplicate[] = []
  for (const row of rows) {
    // Full name with full name, short name with short name (see SHORT).
    const pairs: [string, string][] = [[names.fullName, row.fullName]]
    if (names.shortName?.trim() && row.shortName?.trim()) {
      pairs.push([names.shortName, row.shortName])
    }
    let best: { score: number; reason: MatchReason; ours: string; theirs: string } | undefined
    for (const [ours, theirs] of pairs) {
      const { score, reason } = compareCompanies(ours, theirs)
      if (!best || score > best.score) best = { score, reason, ours, theirs }
    }
    if (!best || best.score < threshold) continue
    found.push({
      supplierId: row.supplierId,
      supplierNo: row.supplierNo,
      fullName: row.fullName,
      status: row.status,
      similarity: Math.round(best.score * 10_000) / 10_000,
      reason: best.reason,
      explanation: explain(best.reason, parseCompanyName(best.ours), parseCompanyName(best.theirs)),
    })
  }
  return found
    .sort((a, b) => b.similarity - a.similarity || compareIds(b.supplierId, a.supplierId))
    .slice(0, CANDIDATES_SHOWN)
}

const compareIds = (a: string, b: string) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0)

const quoted = (value: string | undefined) => (value ? `“${value}”` : '')

/** The reason in words, with the parts of the two names that made it. */
function explain(reason: MatchReason, ours: ParsedName, theirs: ParsedName): string {
  const trade = quoted(theirs.tradeName)
  switch (reason) {
    case 'SAME_TRADE_NAME_AND_REGION':
      return theirs.region && ours.region
        ? `same trade name ${trade} in the same region ${quoted(theirs.region)}`
        : `same trade name ${trade}; one of the names states no region`
    case 'SAME_TRADE_NAME':
      return `same trade name ${trade}, in another region or line of business (${[
        theirs.region,
        theirs.industry,
      ]
        .filter(Boolean)
        .join(', ')})`
    case 'TRADE_NAME_WRITTEN_DIFFERENTLY':
      return `trade name ${trade} written differently as ${quoted(ours.tradeName)} (same sound or one character apart), the rest agreeing`
    case 'SAME_LATIN_NAME':
      return `same name without its legal form: ${quoted(theirs.tradeName ?? theirs.normalized)}`
    case 'LATIN_NAME_WRITTEN_DIFFERENTLY':
      return `name ${quoted(theirs.tradeName ?? theirs.normalized)} spelled differently as ${quoted(ours.tradeName ?? ours.normalized)}`
    case 'SIMILAR_WHOLE_NAME':
      return 'the whole names are alike (the names could not be read as region, trade name, industry and form)'
  }
}

/** The lease (sql/lease.ts) that lets one replica at a time key the suppliers written before. */
const BACKFILL_JOB = 'name-keys-backfill'

export interface BackfillOutcome {
  /** False when another replica held the lease. */
  ran: boolean
  keyed: number
  batches: number
}

/**
 * Keys the live suppliers that have none (written before the keys were), in batches of
 * `batch` rows, each batch one INSERT into supplier_name_key guarded by the names it read (supplier
 * itself is not written), with `pauseMs` between batches (`inBatches`).
 */
export async function backfillNameKeys(
  deps: Pick<Deps, 'sql' | 'logger'>,
  opts: { batch?: number; pauseMs?: number; signal?: AbortSignal } = {},
): Promise<BackfillOutcome> {
  const { sql, logger } = deps
  const outcome: BackfillOutcome = { ran: false, keyed: 0, batches: 0 }
  outcome.ran = await inBatches(sql, BACKFILL_JOB, opts, async (after) => {
    const rows = await unkeyedSuppliers(sql, after, opts.batch ?? 1000)
    if (!rows.length) return null
    outcome.keyed += await setNameKeys(
      sql,
      rows.map((r) => ({ ...r, keys: nameKeysOf(r.fullName, r.shortName) })),
    )
    if (++outcome.batches % 100 === 0) {
      logger.info({ keyed: outcome.keyed }, 'name keys: backfill in progress')
    }
    return rows[rows.length - 1].supplierId
  })
  return outcome
}

/**
 * Runs the backfill in the background once the service serves, and again every `retrySeconds`
 * while suppliers are left unkeyed. Until it ends, the near-duplicate check sees the keyed
 * suppliers only: a log line says how many are not.
 */
export function startNameKeyBackfill(
  deps: Deps,
  { retrySeconds = 60 }: { retrySeconds?: number } = {},
) {
  return inBackground(deps.logger, 'name keys', retrySeconds, async (signal) => {
    const pending = await countUnkeyedSuppliers(deps.sql)
    if (!pending || signal.aborted) return 'done'
    deps.logger.warn(
      { pending },
      'near-duplicate check covers keyed suppliers only until the name-key backfill ends',
    )
    const started = Date.now()
    const outcome = await backfillNameKeys(deps, { pauseMs: 20, signal })
    if (outcome.ran && !signal.aborted) {
      deps.logger.info({ ...outcome, ms: Date.now() - started }, 'name keys: backfill ended')
    }
    return !signal.aborted && (await countUnkeyedSuppliers(deps.sql)) ? 'again' : 'done'
  })
}
