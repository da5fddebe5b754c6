import { describe, expect, it } from 'vitest'
import {
  allowedOperations,
  assertAllowed,
  POLICY,
  type Operation,
} from '../src/domain/lifecycle/policy'
import { SUPPLIER_STATUSES, type SupplierStatus } from '../src/vocabulary'
import { AppError } from '../src/errors'
import { insertSupplier, tag } from './fixtures'
import { useHarness } from './harness'
import { ACCOUNT_NO, STORAGE, uniqueName } from './supplier-data'
import { snapshot } from './unchanged'

/*
 * Rules 4 and 5 of "States and transitions": the in-state operations and prohibitions, enforced
 * by the one policy in every write route. Each prohibition is tried through the HTTP API on a
 * supplier in that status, and must leave nothing behind.
 */

const h = useHarness()
const ITEMS = '/admin/supplier/items'
const VERSION = '2026-01-01 10:00:00'

async function supplierIn(status: SupplierStatus) {
  const numbered = !['DRAFT', 'VETTING'].includes(status)
  const s = await insertSupplier(h, {
    fullName: uniqueName(),
    status,
    supplierNo: numbered ? `SPP${tag()}` : null,
    licenseImageUrl: `${STORAGE}license.png`,
    types: [{ typeCode: 'OTHER', isPrimary: true }],
    contacts: [{ contactName: '赵六', contactPhone: '13911112222' }],
    updateTime: VERSION,
  })
  return s.supplierId
}

type Attempt = (id: string) => Promise<{ body: any }>

const profileEdit: Attempt = (id) =>
  h.call('PUT', `${ITEMS}/${id}`, {
    body: { shortName: `简称${tag()}`, changeReason: '资料更新', expectedUpdateTime: VERSION },
  })
const contactsEdit: Attempt = (id) =>
  h.call('PUT', `${ITEMS}/${id}/contacts`, {
    body: {
      contacts: [{ contactName: '孙七', contactPhone: '13722223333' }],
      changeReason: '联系人变更',
      expectedUpdateTime: VERSION,
    },
  })
const identityEdit: Attempt = (id) =>
  h.call('PUT', `${ITEMS}/${id}`, {
    body: { fullName: uniqueName('Renamed'), changeReason: '更名', expectedUpdateTime: VERSION },
  })
const typesEdit: Attempt = (id) =>
  h.call('PUT', `${ITEMS}/${id}`, {
    body: {
      types: [{ typeCode: 'OTHER' }, { typeCode: 'TICKET' }],
      changeReason: '增加类型',
      expectedUpdateTime: VERSION,
    },
  })
const initialAccountsEdit: Attempt = (id) =>
  h.call('PUT', `${ITEMS}/${id}`, {
    body: {
      initialAccounts: [{ accountType: 'CORPORATE', bankName: 'ICBC', accountNo: ACCOUNT_NO }],
      changeReason: '初始账户',
      expectedUpdateTime: VERSION,
    },
  })
const remove: Attempt = (id) => h.call('DELETE', `${ITEMS}/${id}`)
const submit: Attempt = async (id) => {
  const [s] = await h.sql`SELECT full_name FROM supplier WHERE supplier_id = ${id}`
  return h.call('POST', `${ITEMS}/${id}/submit`, {
    body: {
      fullName: s.full_name,
      taxNo: '91330106MA2KXY712Q',
      types: [{ typeCode: 'OTHER' }],
      mainCooperation: 'Guided tours',
      licenseImageUrl: `${STORAGE}license.png`,
      expectedUpdateTime: VERSION,
    },
  })
}

/** route, operation, and the code each status answers (200 = allowed). */
const CASES: [string, Operation, Attempt, Record<SupplierStatus, number>][] = [
  [
    'PUT /items/{id} (profile)',
    'PROFILE_EDIT',
    profileEdit,
    {
      DRAFT: 200,
      VETTING: 200,
      ACTIVE: 200,
      SUSPENDED: 200,
      FROZEN: 200,
      BLACKLIST: 395021,
      ARCHIVED: 395021,
    },
  ],
  [
    'PUT /items/{id}/contacts',
    'PROFILE_EDIT',
    contactsEdit,
    {
      DRAFT: 200,
      VETTING: 200,
      ACTIVE: 200,
      SUSPENDED: 200,
      FROZEN: 200,
      BLACKLIST: 395021,
      ARCHIVED: 395021,
    },
  ],
  [
    'PUT /items/{id} (fullName)',
    'IDENTITY_EDIT',
    identityEdit,
    {
      DRAFT: 200,
      VETTING: 395009,
      ACTIVE: 395009,
      SUSPENDED: 395009,
      FROZEN: 395009,
      BLACKLIST: 395021,
      ARCHIVED: 395021,
    },
  ],
  [
    'PUT /items/{id} (types)',
    'TYPES_EDIT',
    typesEdit,
    {
      DRAFT: 200,
      VETTING: 395009,
      ACTIVE: 200,
      SUSPENDED: 200,
      FROZEN: 200,
      BLACKLIST: 395021,
      ARCHIVED: 395021,
    },
  ],
  [
    'PUT /items/{id} (initialAccounts)',
    'INITIAL_ACCOUNTS_EDIT',
    initialAccountsEdit,
    {
      DRAFT: 200,
      VETTING: 395009,
      ACTIVE: 395009,
      SUSPENDED: 395009,
      FROZEN: 395009,
      BLACKLIST: 395021,
      ARCHIVED: 395021,
    },
  ],
  [
    'DELETE /items/{id}',
    'DELETE',
    remove,
    {
      DRAFT: 200,
      VETTING: 395021,
      ACTIVE: 395021,
      SUSPENDED: 395021,
      FROZEN: 395021,
      BLACKLIST: 395021,
      ARCHIVED: 395021,
    },
  ],
  [
    'POST /items/{id}/submit',
    'SUBMIT',
    submit,
    {
      DRAFT: 200,
      VETTING: 395005,
      ACTIVE: 395005,
      SUSPENDED: 395005,
      FROZEN: 395005,
      BLACKLIST: 395005,
      ARCHIVED: 395005,
    },
  ],
]

describe('in-state policy through the write routes', () => {
  for (const [route, operation, attempt, expected] of CASES) {
    describe(`${route} (${operation})`, () => {
      for (const status of SUPPLIER_STATUSES) {
        const code = expected[status]
        it(`${code === 200 ? 'allowed' : `refused with ${code}`} for a ${status} supplier`, async () => {
          const id = await supplierIn(status)
          const before = await snapshot(h)
          const res = await attempt(id)
          expect(res.body.code, JSON.stringify(res.body)).toBe(code)
          if (code === 200) {
            expect(await snapshot(h)).not.toEqual(before)
          } else {
            expect(res.body.success).toBe(false)
            expect(await snapshot(h)).toEqual(before)
          }
        })
      }
    })
  }
})

describe('the policy table', () => {
  it('says what rules 4 and 5 say, status by status', () => {
    expect(Object.fromEntries(SUPPLIER_STATUSES.map((s) => [s, allowedOperations(s)]))).toEqual({
      DRAFT: [
        'PROFILE_EDIT',
        'IDENTITY_EDIT',
        'TYPES_EDIT',
        'INITIAL_ACCOUNTS_EDIT',
        'DELETE',
        'SUBMIT',
      ],
      VETTING: ['PROFILE_EDIT'],
      ACTIVE: [
        'PROFILE_EDIT',
        'TYPES_EDIT',
        'ACCOUNT_CREATE',
        'ACCOUNT_CHANGE',
        'ACCOUNT_DEFAULT',
        'NEW_RELATION',
        'STATUS_CHANGE',
      ],
      SUSPENDED: [
        'PROFILE_EDIT',
        'TYPES_EDIT',
        'ACCOUNT_CREATE',
        'ACCOUNT_CHANGE',
        'ACCOUNT_DEFAULT',
        'STATUS_CHANGE',
        'ARCHIVE',
      ],
      FROZEN: [
        'PROFILE_EDIT',
        'TYPES_EDIT',
        'ACCOUNT_CREATE',
        'ACCOUNT_CHANGE',
        'ACCOUNT_DEFAULT',
        'STATUS_CHANGE',
      ],
      BLACKLIST: ['STATUS_CHANGE', 'ARCHIVE'],
      ARCHIVED: [],
    })
  })

  it('refuses with the operation’s own code and names the status', () => {
    const refusal = (status: SupplierStatus, op: Operation) => {
      try {
        assertAllowed(status, op)
      } catch (err) {
        return [(err as AppError).code, (err as AppError).message]
      }
      return null
    }
    expect(refusal('BLACKLIST', 'NEW_RELATION')).toEqual([
      395024,
      'NEW_RELATION is not allowed for a BLACKLIST supplier (only ACTIVE)',
    ])
    expect(refusal('DRAFT', 'ACCOUNT_CREATE')?.[0]).toBe(395021)
    expect(refusal('FROZEN', 'ARCHIVE')?.[0]).toBe(395005)
    expect(refusal('ARCHIVED', 'STATUS_CHANGE')?.[0]).toBe(395005)
    expect(refusal('ACTIVE', 'ACCOUNT_DEFAULT')).toBeNull()
    expect(Object.keys(POLICY).length).toBe(12)
  })
})
