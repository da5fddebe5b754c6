import type postgres from 'postgres'
import type { Deps } from '../deps'
import {
  CHANGE_LOG_SEALED_COLUMNS,
  insertSealedChangeLogs,
  legacyRowsPending,
  lockChainHead,
  markLegacyRowsSealed,
  QUALIFICATION_RULES_CHAIN,
  sealApprovalRow,
  sealApprovalRowTakingIds,
  sealRows,
  supplierChain,
  readUnsealedRows,
  lockChainHeads,
  moveChainHeads,
  type UnsealedRow,
  type ApprovalToSeal,
  type SealedChangeLogRow,
  type ChainHead,
} from '../../../sql/audit-trail'
import { none, type Sql } from '../../../sql/db'
import { insertEventsStep, type DomainEvent } from '../../../sql/outbox'
import type { AuditKey, SealInput } from '../../crypto/audit'
import type { ChangeOperationType, ChangeTargetType } from '../../vocabulary'
import type { WriteContext } from '../context'
import { changeLogEntries, type ChangeLogRows } from '../write/change-log'

/*
 * The audit trail (docs/audit-trail.md): every change-log and approval-log row is sealed, in
 * the transaction that writes it, with a keyed hash over its content, its chain, its place (seq)
 * in the chain and the hash of the row before. The chain's head row, locked by the first sealed
 * write of a transaction, serializes the writers of one chain (one supplier) only.
 */

/** The chain of a change-log row: its supplier's, or the qualification rules' one. */
export const chainOf = (supplierId: string | null) =>
  supplierId === null ? QUALIFICATION_RULES_CHAIN : supplierChain(supplierId)

/** A decimal id as PostgreSQL prints it back ('007' is stored as 7). */
const idText = (id: string | null) => (id === null ? null : BigInt(id).toString())

/**
 * The hash input of a row. An approval row's audit_vacated is covered too, as one more field,
 * so the places it left cannot be claimed by a row it did not come from.
 */
export function sealInput(
  table: 'change_log' | 'approval_log',
  place: { chain: string; seq: string; prev: string },
  fields: readonly (string | null)[],
  vacated: string | null = null,
): SealInput {
  return {
    table,
    ...place,
    fields: table === 'approval_log' ? [...fields, vacated] : fields,
  }
}

/** One change-log row to write, its values already masked by the caller. */
export interface ChangeLogEntry {
  /** Null only for rows about a supplier type's qualification rules. */
  supplierId: string | null
  approvalLogId?: string | null
  operationType: ChangeOperationType
  targetType: ChangeTargetType
  targetId?: string | null
  fieldName: string
  oldValueMasked: string | null
  newValueMasked: string | null
  changeReason?: string | null
  status?: string | null
  operatorId: string
  requestId: string
}

/**
 * Writes the change-log rows of one command, sealed, with its pending events: one statement
 * locks the head of the supplier's chain (and takes the rows' ids and the transaction's time),
 * one inserts the rows, moves the head and records the `events` (the outbox). Values arrive
 * masked (`../write/change-log`): nothing sensitive reaches here unmasked.
 */
export async function logChanges(
  tx: Sql,
  deps: Deps,
  ctx: Pick<WriteContext, 'adminId' | 'requestId'>,
  { events = [], ...rows }: ChangeLogRows & { events?: readonly DomainEvent[] },
) {
  const entries = changeLogEntries(ctx, rows)
  if (entries.length === 0) {
    if (events.length > 0) await none(insertEventsStep(tx, events))
    return 0
  }
  const chain = chainOf(rows.supplierId)
  const head = await lockChainHead(tx, chain, entries.length)
  const sealed = await sealChangeLogs(deps, { chain, head, entries })
  await insertSealedChangeLogs(tx, sealed.rows, sealed.tail, events)
  return sealed.rows.length
}

/** The rows of `logChanges`, sealed after `head` (which this transaction holds locked). */
async function sealChangeLogs(
  deps: Deps,
  { chain, head, entries }: { chain: string; head: ChainHead; entries: ChangeLogEntry[] },
) {
  let seq = BigInt(head.seq)
  let prev = head.hash
  const rows: SealedChangeLogRow[] = []
  for (const [i, e] of entries.entries()) {
    const row = {
      change_log_id: head.ids[i],
      supplier_id: idText(e.supplierId),
      approval_log_id: idText(e.approvalLogId ?? null),
      operation_type: e.operationType,
      target_type: e.targetType,
      target_id: idText(e.targetId ?? null),
      field_name: e.fieldName,
      old_value_masked: e.oldValueMasked,
      new_value_masked: e.newValueMasked,
      change_reason: e.changeReason ?? null,
      status: e.status ?? null,
      operator_id: idText(e.operatorId)!,
      request_id: e.requestId,
    }
    seq += 1n
    const fields = CHANGE_LOG_SEALED_COLUMNS.map((column) =>
      column === 'create_time' ? head.now : row[column],
    )
    const place = { chain, seq: seq.toString(), prev }
    const hash = await deps.cipher.audit.seal(sealInput('change_log', place, fields))
    rows.push({
      ...row,
      audit_chain: chain,
      audit_seq: place.seq,
      audit_prev: prev,
      audit_hash: hash,
    })
    prev = hash
  }
  return { rows, tail: { chain, seq: seq.toString(), hash: prev } }
}

/** An approval row that no longer matches its seal: it is never sealed again over the edit. */
export class AuditTrailBrokenError extends Error {
  constructor(readonly approvalLogId: string) {
    super(
      `approval_log ${approvalLogId} does not match its audit seal (edited around the service): not written; run npm run audit:verify`,
    )
    this.name = 'AuditTrailBrokenError'
  }
}

/**
 * Seals an approval row just written (`insertApproval`, `recordDecision`…, which locked the
 * head in the same statement) at the end of its chain. A row that was sealed before leaves its
 * old place, which it keeps accounted for in audit_vacated; its old seal is checked first, so
 * that an edit made around the service is refused, never sealed over. Nothing to do when the
 * write matched no row.
 */
export async function sealApproval<T extends ApprovalToSeal>(
  tx: Sql,
  deps: Deps,
  written: T | null,
): Promise<T | null> {
  if (!written) return null
  await sealApprovalRow(tx, await approvalSeal(deps, written))
  return written
}

/**
 * `sealApproval`, then the change-log rows (and pending events) of the same chain, as
 * `logChanges` writes them: the seal's statement answers the head the rows need, so they take no
 * head lock of their own.
 */
export async function sealApprovalAndLog(
  tx: Sql,
  deps: Deps,
  written: ApprovalToSeal,
  {
    ctx,
    log,
    events = [],
  }: {
    ctx: Pick<WriteContext, 'adminId' | 'requestId'>
    log: ChangeLogRows
    events?: readonly DomainEvent[]
  },
) {
  const entries = changeLogEntries(ctx, log)
  if (entries.length === 0 || chainOf(log.supplierId) !== written.sealChain) {
    await sealApproval(tx, deps, written)
    return await logChanges(tx, deps, ctx, { ...log, events })
  }
  const head = await sealApprovalRowTakingIds(tx, await approvalSeal(deps, written), entries.length)
  const sealed = await sealChangeLogs(deps, { chain: written.sealChain, head, entries })
  await insertSealedChangeLogs(tx, sealed.rows, sealed.tail, events)
  return sealed.rows.length
}

/** Where an approval row just written goes in its chain, and its hash (its old seal checked). */
async function approvalSeal(deps: Deps, written: ApprovalToSeal) {
  const old = written.sealOld
  if (old && written.sealOldSeq !== null && written.sealOldHash !== null) {
    const place = { chain: old.chain ?? '', seq: written.sealOldSeq, prev: old.prev ?? '' }
    const was = await deps.cipher.audit.seal(
      sealInput('approval_log', place, old.fields, written.sealVacated),
    )
    if (was !== written.sealOldHash) throw new AuditTrailBrokenError(written.sealId)
  }
  const left =
    written.sealOldSeq !== null && written.sealOldHash !== null
      ? `${written.sealOldSeq}:${written.sealOldHash}`
      : null
  const vacated = left ? (written.sealVacated ? `${written.sealVacated},${left}` : left) : null
  const place = {
    chain: written.sealChain,
    seq: (BigInt(written.sealHeadSeq) + 1n).toString(),
    prev: written.sealHeadHash,
  }
  const hash = await deps.cipher.audit.seal(
    sealInput('approval_log', place, written.sealFields, vacated),
  )
  return { id: written.sealId, ...place, hash, vacated }
}

/**
 * Seals every row that has no seal yet, appending it to its chain in the order rows were
 * written; returns how many it sealed. One transaction reads the unsealed rows in one pass, by
 * chain, and seals them a batch of chains at a time (their heads locked together), so a database
 * of a million suppliers is sealed in minutes, not in a transaction per supplier. Rows written
 * before the audit trail are sealed so, once (`sealLegacyRows`); any other unsealed row was
 * written around the service, and only an operator's `npm run audit:verify -- --seal` seals it.
 */
export async function sealUnsealedRows(sql: postgres.Sql, key: AuditKey) {
  return sql.begin(async (tx) => {
    let sealed = 0
    let pending: UnsealedRow[] = []
    const sealChains = async (rows: UnsealedRow[]) => {
      if (rows.length === 0) return
      const chains = [...new Set(rows.map((r) => r.chain))]
      const heads = new Map((await lockChainHeads(tx, chains)).map((h) => [h.chain, h]))
      const done = { change_log: [] as Sealed[], approval_log: [] as Sealed[] }
      for (const row of rows) {
        const head = heads.get(row.chain)!
        const place = { chain: row.chain, seq: (BigInt(head.seq) + 1n).toString(), prev: head.hash }
        const hash = await key.seal(sealInput(row.table, place, row.fields))
        done[row.table].push({ id: row.id, ...place, hash })
        heads.set(row.chain, { chain: row.chain, seq: place.seq, hash })
      }
      // A long chain arrives whole: its rows are written 5,000 at a time (5 parameters each,
      // under the protocol's 65,535).
      for (const table of ['approval_log', 'change_log'] as const) {
        for (let i = 0; i < done[table].length; i += 5000)
          await sealRows(tx, table, done[table].slice(i, i + 5000))
      }
      await moveChainHeads(tx, [...heads.values()])
      sealed += rows.length
    }
    await readUnsealedRows(tx, async (batch) => {
      // The batch's last chain may go on in the next batch: it waits for it.
      const rows = [...pending, ...batch]
      const last = rows[rows.length - 1].chain
      const cut = rows.findIndex((r) => r.chain === last)
      await sealChains(rows.slice(0, cut))
      pending = rows.slice(cut)
    })
    await sealChains(pending)
    return sealed
  })
}

type Sealed = { id: string; chain: string; seq: string; prev: string; hash: string }

/**
 * Seals the rows written before the audit trail (migration 20261125000100), once: at every
 * start until it has run through, then never again. Returns how many rows it sealed.
 */
export async function sealLegacyRows(sql: postgres.Sql, key: AuditKey) {
  if (!(await legacyRowsPending(sql))) return 0
  const sealed = await sealUnsealedRows(sql, key)
  await markLegacyRowsSealed(sql)
  return sealed
}
