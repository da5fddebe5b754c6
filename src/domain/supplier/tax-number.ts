import {
  backfillProgress,
  rewriteTaxNo,
  saveBackfillProgress,
  storedTaxNumbers,
} from '../../../sql/tax-number'
import { taxNoHolder } from '../../../sql/supplier'
import { maskTaxNo } from '../../crypto/sensitive'
import { normalizeTaxNo } from '../../identity'
import type { Deps } from '../deps'
import { inBackground, inBatches } from '../backfill'

/*
 * Existing rows and the tax number's form (normalizeTaxNo): a number stored before look-alike
 * characters were folded (a zero-width space, a hyphen, a Cyrillic А in it) has a blind index
 * that C-02 cannot match with the same number typed plainly. The backfill rewrites such rows in
 * the new form; a row whose new index another live supplier holds is the same company twice, and
 * is left as it is for an administrator (findTaxNoCollisions, `npm run tax-no:collisions`).
 */

/** The progress row (migration 20261202000200) and the lease of the backfill. */
const JOB = 'tax-no-canonical'

export interface TaxNoBackfillOutcome {
  /** False when another replica held the lease, or the job had already finished. */
  ran: boolean
  /** Live suppliers read. */
  read: number
  /** Rows rewritten in the new form. */
  rewritten: number
  /** Rows left because another live supplier holds their new index (see findTaxNoCollisions). */
  collisions: number
  /** Rows left for a later round: in registration approval, or written meanwhile. */
  deferred: number
  /** True once every live supplier was read and none is deferred. */
  finished: boolean
}

/**
 * One pass over the live suppliers after the recorded progress, in batches of `batch`, each
 * row's number decrypted and brought to the new form where it differs (`rewriteTaxNo`: one
 * guarded statement per row; rows that differ are few). Progress is saved after each batch, so
 * a replica that stops leaves the rest to the next holder of the lease. A pass that deferred
 * rows starts again from the first supplier next time.
 */
export async function backfillTaxNumbers(
  deps: Pick<Deps, 'sql' | 'cipher'>,
  opts: { batch?: number; pauseMs?: number; signal?: AbortSignal } = {},
): Promise<TaxNoBackfillOutcome> {
  const { sql, cipher } = deps
  const batch = opts.batch ?? 1000
  const outcome: TaxNoBackfillOutcome = {
    ran: false,
    read: 0,
    rewritten: 0,
    collisions: 0,
    deferred: 0,
    finished: false,
  }
  const progress = await backfillProgress(sql, JOB)
  // No row: nothing was set up to run (the migration inserts it), so nothing is left to do.
  if (!progress || progress.finished) return { ...outcome, finished: true }
  const from = progress.afterId
  outcome.ran = await inBatches(sql, `${JOB}-backfill`, { ...opts, from }, async (after) => {
    const rows = await storedTaxNumbers(sql, after, batch)
    if (!rows.length) {
      outcome.finished = outcome.deferred === 0
      // Deferred rows lie behind the cursor: the next round reads from the start again.
      await saveBackfillProgress(sql, JOB, outcome.finished ? after : '0', outcome.finished)
      return null
    }
    for (const row of rows) {
      outcome.read++
      const stored = await cipher.decrypt(row.taxNoEnc)
      const canonical = normalizeTaxNo(stored)
      if (canonical === stored) continue
      const taxNoBidx = await cipher.blindIndex(canonical, 'taxNo')
      if (row.status === 'VETTING') {
        outcome.deferred++
        continue
      }
      const written = await rewriteTaxNo(sql, {
        supplierId: row.supplierId,
        readEnc: row.taxNoEnc,
        taxNoEnc: await cipher.encrypt(canonical),
        taxNoBidx,
        mask: maskTaxNo(canonical) as string,
      }).catch((err: { code?: string }) => {
        // Another supplier took the index between the guard and the write: a collision.
        if (err.code === '23505') return -1
        throw err
      })
      if (written === 1) outcome.rewritten++
      else if (written === -1 || (await taxNoHolder(sql, taxNoBidx, row.supplierId)))
        outcome.collisions++
      else outcome.deferred++
    }
    const last = rows[rows.length - 1].supplierId
    await saveBackfillProgress(sql, JOB, last, false)
    return last
  })
  return outcome
}

/**
 * Runs the backfill once the service serves, and again every `retrySeconds` until it has
 * finished (rows deferred, another replica stopping). Collisions are logged with the command
 * that lists them; they never stop the service or a registration.
 */
export function startTaxNoBackfill(deps: Deps, { retrySeconds = 300 } = {}) {
  return inBackground(deps.logger, 'tax numbers', retrySeconds, async (signal) => {
    const started = Date.now()
    const outcome = await backfillTaxNumbers(deps, { pauseMs: 20, signal })
    if (outcome.ran && !signal.aborted) {
      deps.logger.info(
        { ...outcome, ms: Date.now() - started },
        'tax numbers: backfill round ended',
      )
    }
    if (outcome.collisions) {
      deps.logger.warn(
        { collisions: outcome.collisions },
        'tax numbers: suppliers share one number once look-alike characters are folded; `npm run tax-no:collisions` lists them',
      )
    }
    return outcome.finished ? 'done' : 'again'
  })
}

/** One supplier of a colliding group, as an administrator sees it (never the number itself). */
export interface TaxNoHolder {
  supplierId: string
  supplierNo: string | null
  status: string
  fullName: string
  /** True when its number is stored as written before the new form (the backfill left it). */
  storedAsWritten: boolean
}

export interface TaxNoCollision {
  /** The shared number in its new form, masked (`91************P8WB`). */
  taxNoMask: string
  suppliers: TaxNoHolder[]
}

/**
 * The live suppliers that share one tax number once look-alike characters are folded: every
 * number read, decrypted and brought to its new form, grouped by its blind index. Read-only:
 * nothing is merged, rewritten or refused; the administrator decides which supplier keeps the
 * number. Groups in the order of their first supplier.
 */
export async function findTaxNoCollisions(
  deps: Pick<Deps, 'sql' | 'cipher'>,
  { batch = 1000 } = {},
): Promise<TaxNoCollision[]> {
  const groups = new Map<string, TaxNoCollision>()
  let after = '0'
  for (;;) {
    const rows = await storedTaxNumbers(deps.sql, after, batch)
    if (!rows.length) break
    for (const row of rows) {
      const stored = await deps.cipher.decrypt(row.taxNoEnc)
      const canonical = normalizeTaxNo(stored)
      const key = await deps.cipher.blindIndex(canonical, 'taxNo')
      const group = groups.get(key) ?? { taxNoMask: maskTaxNo(canonical) ?? '****', suppliers: [] }
      group.suppliers.push({
        supplierId: row.supplierId,
        supplierNo: row.supplierNo,
        status: row.status,
        fullName: row.fullName,
        storedAsWritten: canonical !== stored,
      })
      groups.set(key, group)
    }
    after = rows[rows.length - 1].supplierId
  }
  return [...groups.values()].filter((g) => g.suppliers.length > 1)
}
