import { withCheckCharacter } from '../../src/domain/supplier/uscc'

/**
 * The registration form the benchmarks send (as scripts/bench/wrk/registration.lua does): one
 * type, one initial corporate account. `key` (digits) makes the tax and account numbers unique.
 */
export const registrationForm = (fullName: string, key: string) => ({
  fullName,
  taxNo: withCheckCharacter(`91${key.padStart(15, '0')}`),
  types: [{ typeCode: 'OTHER' }],
  mainCooperation: '导游与门票',
  licenseImageUrl: 'https://storage.example.com/supplier/license.png',
  initialAccounts: [
    {
      accountType: 'CORPORATE',
      bankName: '工商银行杭州分行',
      accountNo: `6222${key}`,
      settleMode: 'MONTHLY',
      accountPeriod: 30,
      invoiceType: 'SPECIAL',
      taxRate: 6,
    },
  ],
})
