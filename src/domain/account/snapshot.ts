import { z } from 'zod'
import type { AccountTermColumns } from '../../../sql/account'
import { maskAccountNo } from '../../crypto/sensitive'
import { fail } from '../../errors'
import { ACCOUNT_TYPES, INVOICE_TYPES, SETTLE_MODES } from '../../vocabulary'
import { canonicalJson, type DomainDeps } from '../context'
import { normalizeAccountNo } from '../../identity'
import { emptyToNull } from '../write/fields'
import { CANDIDATE_FIELDS, type RiskFlag } from './rules'

/*
 * The candidate snapshot of ACCOUNT_CREATE and ACCOUNT_CHANGE approvals (schemaVersion 1). The
 * candidate values travel as one AES-GCM ciphertext; in clear the snapshot keeps only what may be
 * read by anyone who reads approvals: ids, field names, the new number's mask and blind index,
 * and the risk flags (codes and other suppliers' ids). The applier decrypts and applies it.
 */

/** The candidate values, as applied: the account number normalized, blanks as null. */
export const Candidate = z
  .object({
    bankName: z.string().min(1),
    bankBranch: z.string().nullable(),
    accountNo: z.string().regex(/^\d{6,32}$/),
    proofFileUrls: z.array(z.string()),
    settleMode: z.enum(SETTLE_MODES).nullable(),
    accountPeriod: z.int().nullable(),
    invoiceType: z.enum(INVOICE_TYPES).nullable(),
    taxRate: z.number().nullable(),
  })
  .partial()
  .strict()
export type Candidate = z.output<typeof Candidate>

const RiskFlagSchema = z.discriminatedUnion('code', [
  z.object({ code: z.literal('ACCOUNT_NO_HELD_ELSEWHERE'), supplierIds: z.array(z.string()) }),
  z.object({ code: z.literal('PERSONAL_HOLDER_MISMATCH') }),
])

const common = {
  schemaVersion: z.literal(1),
  supplierId: z.string(),
  accountId: z.string(),
  accountType: z.enum(ACCOUNT_TYPES),
  /** Which fields the candidate sets (a create sets them all). */
  fields: z.array(z.enum(CANDIDATE_FIELDS)),
  /** Mask and blind index of the candidate's account number, when it sets one. */
  accountNoMask: z.string().nullable(),
  accountNoBidx: z.string().nullable(),
  riskFlags: z.array(RiskFlagSchema),
  candidateEnc: z.string(),
}

export const AccountCreateSnapshot = z.object(common)
export type AccountCreateSnapshot = z.output<typeof AccountCreateSnapshot>

export const AccountChangeSnapshot = z.object({
  ...common,
  /** The account's version once the change was submitted: anything later voids the approval. */
  baseUpdateTime: z.string(),
  changeReason: z.string(),
})
export type AccountChangeSnapshot = z.output<typeof AccountChangeSnapshot>

/** A request's account fields as a candidate: the number normalized, blanks as null. */
export function toCandidate(input: {
  bankName?: string
  bankBranch?: string | null
  accountNo?: string
  proofFileUrls?: string[]
  settleMode?: Candidate['settleMode']
  accountPeriod?: number | null
  invoiceType?: Candidate['invoiceType']
  taxRate?: number | null
}): Candidate {
  const c: Candidate = {}
  if (input.bankName !== undefined) c.bankName = input.bankName
  if (input.bankBranch !== undefined) c.bankBranch = emptyToNull(input.bankBranch)
  if (input.accountNo !== undefined) c.accountNo = normalizeAccountNo(input.accountNo)
  if (input.proofFileUrls !== undefined) c.proofFileUrls = input.proofFileUrls
  if (input.settleMode !== undefined) c.settleMode = input.settleMode ?? null
  if (input.accountPeriod !== undefined) c.accountPeriod = input.accountPeriod ?? null
  if (input.invoiceType !== undefined) c.invoiceType = input.invoiceType ?? null
  if (input.taxRate !== undefined) c.taxRate = input.taxRate ?? null
  return c
}

/** The clear part of a snapshot and the sealed candidate. */
export async function sealCandidate(
  deps: Pick<DomainDeps, 'cipher'>,
  candidate: Candidate,
  riskFlags: RiskFlag[],
) {
  const number = candidate.accountNo
  return {
    fields: CANDIDATE_FIELDS.filter((f) => candidate[f] !== undefined),
    accountNoMask: number === undefined ? null : (maskAccountNo(number) as string),
    accountNoBidx: number === undefined ? null : await deps.cipher.blindIndex(number, 'accountNo'),
    riskFlags,
    candidateEnc: await deps.cipher.encrypt(canonicalJson(candidate)),
  }
}

/**
 * The candidate of an approval, decrypted and checked against the clear part: a candidate that
 * does not parse, or whose number is not the one indexed, cannot be applied.
 */
export async function openCandidate(
  deps: Pick<DomainDeps, 'cipher'>,
  snapshot: AccountCreateSnapshot,
): Promise<Candidate> {
  const parsed = Candidate.safeParse(JSON.parse(await deps.cipher.decrypt(snapshot.candidateEnc)))
  if (!parsed.success) fail('APPROVAL_SCHEMA_UNSUPPORTED', 'the account candidate cannot be read')
  const candidate = parsed.data
  const bidx =
    candidate.accountNo === undefined
      ? null
      : await deps.cipher.blindIndex(candidate.accountNo, 'accountNo')
  if (bidx !== snapshot.accountNoBidx) {
    fail('APPROVAL_APPLY_FAILED', 'the account candidate does not match its approval')
  }
  return candidate
}

/** The columns a candidate sets, the number encrypted, indexed and masked. */
export async function candidateColumns(
  deps: Pick<DomainDeps, 'cipher'>,
  c: Candidate,
): Promise<AccountTermColumns> {
  const columns: AccountTermColumns = {}
  if (c.bankName !== undefined) columns.bank_name = c.bankName
  if (c.bankBranch !== undefined) columns.bank_branch = c.bankBranch
  if (c.accountNo !== undefined) {
    columns.account_no_enc = await deps.cipher.encrypt(c.accountNo)
    columns.account_no_bidx = await deps.cipher.blindIndex(c.accountNo, 'accountNo')
    columns.account_no_mask = maskAccountNo(c.accountNo) as string
  }
  if (c.proofFileUrls !== undefined) columns.proof_file_urls = c.proofFileUrls
  if (c.settleMode !== undefined) columns.settle_mode = c.settleMode
  if (c.accountPeriod !== undefined) columns.account_period = c.accountPeriod
  if (c.invoiceType !== undefined) columns.invoice_type = c.invoiceType
  if (c.taxRate !== undefined) columns.tax_rate = c.taxRate
  return columns
}
