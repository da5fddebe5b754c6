import { z } from 'zod'
import type { NewAccount, StoredTerms } from '../../../sql/account'
import { maskAccountNo } from '../../crypto/sensitive'
import { fail } from '../../errors'
import { ACCOUNT_TYPES } from '../../vocabulary'
import type { Deps } from '../deps'
import { canonicalJson } from '../context'
import { normalizeAccountNo } from '../../identity'
import { emptyToNull } from '../write/fields'
import {
  ACCOUNT_TERMS,
  AccountTerms,
  SettlementTerms,
  type AccountTerm,
} from '../../schemas/account-terms'
import type { BankAccountInput } from '../../schemas/supplier'

/*
 * The candidate snapshot of ACCOUNT_CREATE and ACCOUNT_CHANGE approvals (schemaVersion 1). The
 * candidate values travel as one AES-GCM ciphertext; in clear the snapshot keeps only what may be
 * read by anyone who reads approvals: ids, field names, the new number's mask and blind index,
 * and the risk flags (codes and other suppliers' ids). The applier decrypts and applies it.
 */

/** The candidate values, as applied: the terms a change sets (a create sets them all). */
export const Candidate = AccountTerms.partial().strict()
export type Candidate = z.output<typeof Candidate>

/** A named risk flag: codes and other suppliers' ids only, never a value of theirs. */
export const RiskFlag = z.discriminatedUnion('code', [
  z.object({ code: z.literal('ACCOUNT_NO_HELD_ELSEWHERE'), supplierIds: z.array(z.string()) }),
  z.object({ code: z.literal('PERSONAL_HOLDER_MISMATCH') }),
])
export type RiskFlag = z.output<typeof RiskFlag>

const common = {
  schemaVersion: z.literal(1),
  supplierId: z.string(),
  accountId: z.string(),
  accountType: z.enum(ACCOUNT_TYPES),
  /** Which fields the candidate sets (a create sets them all). */
  fields: z.array(AccountTerms.keyof()),
  /** Mask and blind index of the candidate's account number, when it sets one. */
  accountNoMask: z.string().nullable(),
  accountNoBidx: z.string().nullable(),
  riskFlags: z.array(RiskFlag),
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

/** The terms a request sends, as a candidate: the number normalized, blanks as null. */
export function toCandidate(input: { [T in AccountTerm]?: AccountTerms[T] | null }): Candidate {
  const candidate: Record<string, unknown> = {}
  for (const term of ACCOUNT_TERMS) {
    const value = input[term]
    if (value === undefined) continue
    candidate[term] =
      term === 'accountNo' ? normalizeAccountNo(value as string) : emptyToNull(value)
  }
  return candidate as Candidate
}

/** Whether two values of a term are the same (a list by its items, in order). */
export const sameTerm = (a: unknown, b: unknown) =>
  Array.isArray(a) && Array.isArray(b)
    ? a.length === b.length && a.every((item, i) => item === b[i])
    : a === b

/** The terms of an account that sets none: no branch, no proof files, no settlement terms. */
const UNSET = {
  bankBranch: null,
  proofFileUrls: [],
  ...(Object.fromEntries(SettlementTerms.keyof().options.map((term) => [term, null])) as {
    [T in keyof SettlementTerms]: null
  }),
} satisfies Partial<AccountTerms>

/** A new account's values: the request's terms (the unset ones empty), the number as stored. */
export async function newAccount(
  deps: Deps,
  input: z.output<typeof BankAccountInput>,
  accountName: string,
): Promise<NewAccount> {
  const { accountNo, ...terms } = { ...UNSET, ...toCandidate(input) } as AccountTerms
  return {
    accountName,
    accountType: input.accountType,
    ...terms,
    ...(await storedNumber(deps, accountNo)),
  }
}

/** The clear part of a snapshot and the sealed candidate. */
export async function sealCandidate(deps: Deps, candidate: Candidate, riskFlags: RiskFlag[]) {
  const number = candidate.accountNo
  return {
    fields: ACCOUNT_TERMS.filter((term) => candidate[term] !== undefined),
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
  deps: Deps,
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

/** A normalized account number as the account stores it: encrypted, indexed and masked. */
async function storedNumber(deps: Deps, accountNo: string) {
  return {
    accountNoEnc: await deps.cipher.encrypt(accountNo),
    accountNoBidx: await deps.cipher.blindIndex(accountNo, 'accountNo'),
    accountNoMask: maskAccountNo(accountNo) as string,
  }
}

/** The terms a candidate sets, as the account stores them (the number as above). */
export async function storedTerms(
  deps: Deps,
  { accountNo, ...terms }: Candidate,
): Promise<Partial<StoredTerms>> {
  return accountNo === undefined ? terms : { ...terms, ...(await storedNumber(deps, accountNo)) }
}
