import type { Harness } from './harness'
import { insertSupplier, randomAccountNo, type SupplierFixture } from './fixtures'
import { STORAGE } from './supplier-data'

/** Every permission an account administrator needs to write and read accounts. */
export const ACCOUNT_ADMIN = ['supplier:account:manage', 'supplier:view'] as const

let seq = 0

/** A live supplier past registration (ACTIVE unless told), with a supplierNo. */
export function registeredSupplier(h: Harness, o: SupplierFixture = {}) {
  const status = o.status ?? 'ACTIVE'
  return insertSupplier(h, {
    fullName: `杭州湖畔旅游服务有限公司${Date.now()}${++seq}`,
    legalRepresentative: '王五',
    status,
    supplierNo: status === 'DRAFT' || status === 'VETTING' ? null : `SP${Date.now()}${++seq}`,
    ...o,
  })
}

/** A valid SupplierBankAccountInput with a fresh real-looking account number. */
export function accountBody(overrides: Record<string, unknown> = {}): Record<string, any> {
  return {
    accountType: 'CORPORATE',
    bankName: '中国工商银行杭州分行',
    bankBranch: '西湖支行',
    accountNo: randomAccountNo(),
    proofFileUrls: [`${STORAGE}proof/${++seq}.png`],
    settleMode: 'MONTHLY',
    accountPeriod: 30,
    invoiceType: 'SPECIAL',
    taxRate: 6,
    ...overrides,
  }
}

/** Every row of every table of the database as text, for scanning for plaintext. */
export async function everyRowAsText(h: Harness) {
  const tables = await h.sql<{ name: string }[]>`
    SELECT table_name AS name FROM information_schema.tables
    WHERE table_schema = 'public' AND table_type = 'BASE TABLE'
  `
  const out: string[] = []
  for (const { name } of tables) {
    const rows = await h.sql.unsafe(`SELECT t::text AS row FROM "${name}" t`)
    for (const r of rows) out.push(`${name}: ${r.row}`)
  }
  return out
}

/** Account numbers as a client may type them, and the digits they stand for. */
export const spellings = (digits: string) => [
  digits,
  digits.replace(/(\d{4})(?=\d)/g, '$1 '),
  digits.replace(/(\d{4})(?=\d)/g, '$1-'),
]
