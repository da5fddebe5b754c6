import type { Sql } from '../../../sql/db'
import { findSupplier, lockSupplier, type SupplierRow } from '../../../sql/supplier'
import { fail, type ErrorName } from '../../errors'
import { assertAllowed, type Operation } from '../lifecycle/policy'

/*
 * The supplier a command writes, found twice: by the pre-checks, outside the transaction, and
 * again under the lock inside it, where it must still be what the pre-checks saw. Every command
 * on a supplier goes through these two, so the order of the refusals is the same everywhere:
 * not found (395001), not in this status (the policy), stale version (395003); and under the
 * lock, changed meanwhile (395014).
 */

/**
 * Steps 2 and 3 of a write on a supplier: it is live, its status allows `operation` (`what` names
 * the operation in the refusal), and, when the client sent one, it is at `expectedUpdateTime`.
 * With `lock`, the same under the row lock, for a command that asks the policy again on what it
 * locked rather than comparing with what it saw.
 */
export async function supplierForWrite(
  sql: Sql,
  supplierId: string,
  options: { operation: Operation; what: string; expectedUpdateTime?: string; lock?: boolean },
): Promise<SupplierRow> {
  const { operation, what } = options
  const supplier = await (options.lock ? lockSupplier : findSupplier)(sql, supplierId)
  if (!supplier) fail('SUPPLIER_NOT_FOUND')
  assertAllowed(supplier.status, operation, what)
  if (
    options.expectedUpdateTime !== undefined &&
    supplier.updateTime !== options.expectedUpdateTime
  ) {
    fail('VERSION_STALE')
  }
  return supplier
}

/** What is compared under the lock: the status, or the status and the version. */
export type Recheck = 'status' | 'version'

/**
 * Inside the transaction: locks the supplier and re-compares it with what the pre-checks saw;
 * anything moved is a concurrent modification (395014, with `message` when the command says
 * why). `gone` is the answer when the row vanished in between.
 */
export async function relockSupplier(
  tx: Sql,
  seen: Pick<SupplierRow, 'supplierId' | 'status' | 'updateTime'>,
  recheck: Recheck,
  options: { gone?: ErrorName; message?: string } = {},
): Promise<SupplierRow> {
  const locked = await lockSupplier(tx, seen.supplierId)
  if (!locked) fail(options.gone ?? 'SUPPLIER_NOT_FOUND')
  if (
    locked.status !== seen.status ||
    (recheck === 'version' && locked.updateTime !== seen.updateTime)
  ) {
    fail('CONCURRENT_MODIFICATION', options.message)
  }
  return locked
}
