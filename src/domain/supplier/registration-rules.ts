import type { Sql } from '../../../sql/db'
import {
  accountNumbersHeldElsewhere,
  registrationFacts,
  requiredQualifications,
  taxNoHolder,
} from '../../../sql/supplier'
import { liveAccounts, liveTypes, validQualificationTypes } from '../../../sql/supplier-children'
import { fail } from '../../errors'
import { today, type DomainDeps } from '../context'

/**
 * The registration checks on the state as it will be approved, under the aggregate lock:
 * C-02 tax number unique, C-06 licence image, C-09 required qualifications of all chosen types,
 * and for each initial account C-19 (C-03 is checked with the other field rules).
 */
export async function checkRegistration(
  tx: Sql,
  deps: Pick<DomainDeps, 'config'>,
  supplierId: string,
) {
  const facts = await registrationFacts(tx, supplierId)
  if (!facts) fail('SUPPLIER_NOT_FOUND')
  const { taxNoBidx, licenseImageUrl } = facts!
  if (await taxNoHolder(tx, taxNoBidx, supplierId)) fail('TAX_NO_DUPLICATE')
  if (!licenseImageUrl) fail('LICENSE_IMAGE_REQUIRED')
  const types = (await liveTypes(tx, supplierId)).map((t) => t.typeCode)
  const required = await requiredQualifications(tx, types)
  const held = await validQualificationTypes(tx, supplierId, today(deps.config.timezone))
  const missing = required.filter((r) => !held.has(r.qualType))
  if (missing.length) {
    fail(
      'QUALIFICATIONS_MISSING',
      `required qualifications missing or expired: ${missing.map((m) => m.qualType).join(', ')} (C-09)`,
      { missing },
    )
  }
  const accounts = (await liveAccounts(tx, supplierId)).filter((a) => a.status !== 'ACTIVE')
  const elsewhere = await accountNumbersHeldElsewhere(
    tx,
    accounts.map((a) => a.accountNoBidx),
    supplierId,
  )
  const clash = accounts.find((a) => elsewhere.has(a.accountNoBidx))
  if (clash) {
    fail(
      'ACCOUNT_DUPLICATED',
      `account ${clash.accountNoMask} is a valid account of another supplier (C-19)`,
    )
  }
}
