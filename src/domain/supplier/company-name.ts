// Placeholder until the company-name module lands (branch i26-key): same interface.
import type { MatchReason } from '../../vocabulary'
export type { MatchReason }
export interface ParsedName {
  normalized: string
  script: 'han' | 'latin' | 'other'
  region?: string
  tradeName?: string
  industry?: string
  form?: string
}
const norm = (s: string) =>
  s
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\s()（）.,]/g, '')
    .replace(/(有限责任公司|有限公司)$/, '')
export function parseCompanyName(name: string): ParsedName {
  return { normalized: norm(name), script: 'han' }
}
export function companyKeys(name: string): string[] {
  return [`w:${norm(name)}`]
}
export function compareCompanies(a: string, b: string): { score: number; reason: MatchReason } {
  return { score: norm(a) === norm(b) ? 1 : 0, reason: 'SIMILAR_WHOLE_NAME' }
}
export const DEFAULT_THRESHOLD = 0.8
