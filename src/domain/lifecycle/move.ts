import type { Sql } from '../../../sql/db'
import {
  moveSupplier,
  updateSupplier,
  type MoveAlso,
  type SupplierColumns,
} from '../../../sql/supplier'
import { fail } from '../../errors'
import type { SupplierStatus } from '../../vocabulary'
import type { Deps } from '../deps'
import { GUARDS, type GuardEvidence, type SupplierChildren } from './guards'
import type { Move } from './transitions'

/**
 * The supplier a move is applied to. `expectedUpdateTime` is the version the move is guarded by:
 * for a command, the one the client sent, so a change since the client read the row makes the
 * UPDATE miss.
 */
export interface MoveSubject {
  supplierId: string
  status: SupplierStatus
  expectedUpdateTime: string
}

/**
 * What `applyMove` applies: which move to which supplier, by whom, with the columns the same
 * UPDATE writes, the guard's evidence, and what else moves with the status (`MoveAlso`).
 */
export interface ApplyMoveOptions extends MoveAlso {
  supplier: MoveSubject
  move: Move
  adminId: string
  columns?: SupplierColumns & { supplier_no?: string | null }
  evidence?: GuardEvidence
  /** The supplier's types and accounts, read in this transaction and unchanged since. */
  known?: Partial<SupplierChildren>
}

/**
 * Applies `move` with the one guarded UPDATE (`WHERE id AND status = from AND update_time =
 * expected AND deleted_at IS NULL`); a miss is a concurrent change, 395014. The guard is then
 * checked on the row as written, in the same transaction (the registration rules must see the
 * form the same UPDATE writes), so a failed guard rolls the move back with everything else.
 */
export async function applyMove(
  tx: Sql,
  deps: Deps,
  { supplier, move, adminId, columns, evidence, known, drawSupplierNo, accounts }: ApplyMoveOptions,
) {
  if (move.from !== supplier.status) {
    fail(
      'SUPPLIER_STATUS_TRANSITION_INVALID',
      `${move.trigger} is not allowed from ${supplier.status}`,
    )
  }
  const row = await moveSupplier(tx, {
    guard: {
      supplierId: supplier.supplierId,
      status: move.from,
      expectedUpdateTime: supplier.expectedUpdateTime,
      adminId,
    },
    to: move.to,
    columns: columns ?? {},
    also: { drawSupplierNo, accounts },
  })
  if (!row) fail('CONCURRENT_MODIFICATION')
  const checked = await GUARDS[move.guard](tx, deps, {
    supplierId: supplier.supplierId,
    evidence,
    known: { ...known, written: row },
  })
  // What the guard checked, as read after the move's UPDATE: the caller's to use, not re-read.
  return {
    from: move.from,
    to: move.to,
    updateTime: row.updateTime,
    supplierNo: row.supplierNo,
    accountsMoved: row.accountsMoved,
    checked,
  }
}

/**
 * A command's claim on the supplier before its approval decides: the same guarded UPDATE with
 * the client's version, changing nothing but the version (and who wrote). Two commands sent on
 * the same version cannot both pass it, so at most one approval is opened per version.
 */
export async function claimVersion(
  tx: Sql,
  supplier: MoveSubject,
  adminId: string,
): Promise<string> {
  const row = await updateSupplier(
    tx,
    {
      supplierId: supplier.supplierId,
      status: supplier.status,
      expectedUpdateTime: supplier.expectedUpdateTime,
      adminId,
    },
    {},
  )
  if (!row) fail('CONCURRENT_MODIFICATION')
  return row.updateTime
}
