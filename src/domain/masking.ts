import { maskAccountNo, maskCertNo, maskPhone, maskTaxNo, maskText } from '../crypto/sensitive'

const EXCERPT = 200

/** Proof files are shown only to holders of supplier:account:proof:read: logs keep the count. */
const fileCount = (json: string) => {
  const n = (JSON.parse(json) as unknown[]).length
  return n === 1 ? '1 file' : `${n} files`
}

/** How a field's value may appear in a change log: sensitive ones masked, long ones cut. */
const POLICY: Record<string, (value: string) => string | null> = {
  taxNo: maskTaxNo,
  contactPhone: maskPhone,
  accountNo: maskAccountNo,
  certNo: maskCertNo,
  approveNote: maskText,
  opinion: maskText,
  proofFileUrls: fileCount,
}

export function maskForLog(field: string, value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null
  const text = typeof value === 'string' ? value : JSON.stringify(value)
  const policy = POLICY[field]
  if (policy) return policy(text)
  return text.length > EXCERPT ? `${text.slice(0, EXCERPT)}…` : text
}
