import { withCheckCharacter } from '../src/domain/supplier/uscc'

/** Request bodies for supplier tests, with real-looking sensitive values. */
export const TAX_NO = '91330106MA2KXY712Q'
export const PHONE = '13812345678'
export const CONTACT_PHONE = '13987654321'
export const ACCOUNT_NO = '6222021234567890123'
export const CERT_NO = 'JY23301060012345'
export const STORAGE = 'https://storage.example.com/supplier/'
/** A date-time as the API writes it (`yyyy-MM-dd HH:mm:ss`, service time zone). */
export const DATE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/

let n = 0
/** A unified social credit code nobody else in this file uses, its check character right. */
export const uniqueTaxNo = () =>
  withCheckCharacter(`9133${String(Date.now()).slice(-8)}MA${String(++n % 1000).padStart(3, '0')}`)
/** A name far from every other generated name (near-duplicate detection uses trigrams). */
export const uniqueName = (base = 'Supplier') =>
  `${base} ${Math.random().toString(36).slice(2, 10)}${Math.random().toString(36).slice(2, 10)} Co`

export function draftBody(overrides: Record<string, unknown> = {}): Record<string, any> {
  return {
    fullName: uniqueName(),
    taxNo: uniqueTaxNo(),
    types: [{ typeCode: 'OTHER' }],
    mainCooperation: 'Guided tours and tickets',
    ...overrides,
  }
}

export function fullDraftBody(overrides: Record<string, unknown> = {}): Record<string, any> {
  return draftBody({
    shortName: uniqueName('Short'),
    legalRepresentative: 'Zhang San',
    contactPhone: PHONE,
    establishDate: '2015-06-01',
    registeredCapital: '1000万',
    businessScope: 'Travel services',
    address: 'Hangzhou, Xihu district',
    staffScale: 'R50_200',
    licenseImageUrl: `${STORAGE}license.png`,
    contacts: [{ contactName: 'Li Si', contactPhone: CONTACT_PHONE, contactRole: 'SALES' }],
    qualifications: [
      {
        qualType: 'BUSINESS_LICENSE',
        certNo: CERT_NO,
        imageUrl: `${STORAGE}bl.png`,
        expiryDate: '2099-12-31',
      },
    ],
    initialAccounts: [
      {
        accountType: 'CORPORATE',
        bankName: 'ICBC Hangzhou',
        accountNo: ACCOUNT_NO,
        settleMode: 'MONTHLY',
        accountPeriod: 30,
        invoiceType: 'SPECIAL',
        taxRate: 6,
      },
    ],
    ...overrides,
  })
}

const ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789'
/** Random letters and digits: two of these share almost no trigram, so names stay dissimilar. */
export const randomText = (n: number) =>
  Array.from({ length: n }, () => ALNUM[Math.floor(Math.random() * ALNUM.length)]).join('')
/** Random digits, the first one never 0. */
export const randomDigits = (n: number) =>
  Array.from({ length: n }, (_, i) => String(Math.floor(Math.random() * 10) || (i ? 0 : 6))).join(
    '',
  )
/** Full-width form of printable ASCII (U+FF01..U+FF5E; space → U+3000). */
export const fullWidth = (s: string) =>
  s.replace(/[!-~ ]/g, (ch) =>
    ch === ' ' ? '\u3000' : String.fromCharCode(ch.charCodeAt(0) + 0xfee0),
  )
