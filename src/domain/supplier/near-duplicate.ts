import { taxNoHolder, type SupplierRow } from '../../../sql/supplier'
import type { Sql } from '../../../sql/db'
import { constantTimeEqual } from '../../crypto/sensitive'
import { fail } from '../../errors'
import type { Deps } from '../deps'
import type { WriteContext } from '../context'
import { checkFieldRules, identityOf, type Identity } from './form'
import { findTaxNoHolderAndNearDuplicates, type NearDuplicate } from './name-keys'
import { allSettled } from '../write/transaction'

/**
 * Near-duplicate protection on create and submit. When live suppliers look like the same company
 * (same trade name, or the same written differently: name-keys.ts), the request must carry a
 * token proving the administrator saw exactly this candidate set for this name within the last
 * few minutes; otherwise it fails with the candidates, why each matched, and a fresh token. A
 * caller without supplier:view learns how many there are, not who they are.
 */
export async function confirmNoNearDuplicates(
  sql: Sql,
  deps: Deps,
  input: {
    adminId: string
    fullName: string
    shortName?: string | null
    supplierId: string | null
    token?: string
    mayViewSuppliers: boolean
    /** C-02 is asked in the same statement, and refused first (395004). */
    taxNoBidx?: string
  },
) {
  const { taxNoHolder: holder, nearDuplicates: candidates } =
    await findTaxNoHolderAndNearDuplicates(
      sql,
      { fullName: input.fullName, shortName: input.shortName },
      {
        threshold: deps.config.duplicateNameThreshold,
        exceptSupplierId: input.supplierId,
        taxNoBidx: input.taxNoBidx,
      },
    )
  if (holder) fail('TAX_NO_DUPLICATE')
  if (candidates.length === 0) return
  if (input.token && (await tokenMatches(deps, input, candidates, input.token))) return
  const expiresAt = Math.floor(Date.now() / 1000) + deps.config.duplicateConfirmTtlSeconds
  const duplicateConfirmToken = `${expiresAt}.${await sign(deps, input, candidates, expiresAt)}`
  fail('NEAR_DUPLICATE_CONFIRM_REQUIRED', undefined, {
    candidateCount: candidates.length,
    ...(input.mayViewSuppliers ? { candidates } : {}),
    duplicateConfirmToken,
    expiresAt: new Date(expiresAt * 1000).toISOString(),
  })
}

const sign = (
  deps: Deps,
  input: { adminId: string; fullName: string },
  candidates: NearDuplicate[],
  expiresAt: number,
) =>
  deps.cipher.blindIndex(
    [
      input.adminId,
      input.fullName,
      candidates
        .map((c) => c.supplierId)
        .sort()
        .join(','),
      expiresAt,
    ].join('|'),
    'duplicateConfirm',
  )

async function tokenMatches(
  deps: Deps,
  input: { adminId: string; fullName: string },
  candidates: NearDuplicate[],
  token: string,
) {
  const [expires, mac] = token.split('.')
  const expiresAt = Number(expires)
  if (!Number.isInteger(expiresAt) || expiresAt < Date.now() / 1000 || !mac) return false
  const expected = await sign(deps, input, candidates, expiresAt)
  return constantTimeEqual(expected, mac)
}

/**
 * The identity pre-checks of a supplier form, in this order: normalize the identity, the field
 * rules, the tax number's holder (C-02), then the near-duplicate names (C-01, confirmable by
 * token), the last two asked in one statement when both are checked. Against `seen` (an edit),
 * only a changed tax number or name is checked again;
 * `beforeRules` runs the command's own refusals between normalizing and the field rules.
 */
export async function checkIdentity(
  sql: Sql,
  deps: Deps,
  ctx: Pick<WriteContext, 'adminId' | 'heldCodes'>,
  {
    req,
    target,
    beforeRules,
  }: {
    req: Parameters<typeof checkFieldRules>[2] & {
      fullName?: string
      taxNo?: string
      shortName?: string | null
      duplicateConfirmToken?: string
    }
    target: { supplierId: string | null; seen?: SupplierRow }
    beforeRules?: (identity: Identity) => void
  },
): Promise<Identity> {
  const { supplierId, seen } = target
  const identity = await identityOf(deps, req, seen)
  beforeRules?.(identity)
  const { fullName, taxNoBidx } = identity
  const taxNoToCheck = taxNoBidx !== seen?.taxNoBidx ? taxNoBidx : undefined
  // The identity's reads go out with the field rules' (two round trips become one); the field
  // rules' refusal is still the answer before the identity's, as the write order has them.
  const identityChecked = (async () => {
    if (fullName !== undefined && fullName !== seen?.fullName) {
      await confirmNoNearDuplicates(sql, deps, {
        adminId: ctx.adminId,
        fullName,
        shortName: req.shortName ?? seen?.shortName,
        supplierId,
        token: req.duplicateConfirmToken,
        mayViewSuppliers: ctx.heldCodes?.includes('supplier:view') ?? false,
        taxNoBidx: taxNoToCheck,
      })
    } else if (taxNoToCheck !== undefined && (await taxNoHolder(sql, taxNoToCheck, supplierId))) {
      fail('TAX_NO_DUPLICATE')
    }
  })()
  await allSettled([checkFieldRules(sql, deps, req), identityChecked])
  return identity
}
