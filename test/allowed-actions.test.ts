import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { grant } from '../sql/admin'
import { TRANSITIONS } from '../src/domain/lifecycle/transitions'
import { sqlPermissionLookup } from '../src/ports/permission'
import { SUPPLIER_STATUSES, type SupplierStatus } from '../src/vocabulary'
import { ITEMS, LICENSE, detail, ok, type Answer } from './client'
import { insertSupplier } from './fixtures'
import { ALL_PERMISSIONS, documentOf, useHarness } from './harness'
import { insertRelation, insertResource } from './resource-data'
import { draftBody } from './supplier-data'

/*
 * The detail's `allowedActions` and the commands never disagree. For every status and a set of
 * permission profiles, each command is sent as the caller: an action offered passes its status
 * and permission checks (the probe is built to stop at a later check that writes nothing, and
 * the test expects that later answer); an action withheld is refused with the code the command
 * gives: permission denied when the caller lacks a permission its route declares in
 * /openapi.json, else the command's status refusal.
 */

const h = useHarness()

/** A version no supplier has: a command that gets this far answers 395003. */
const STALE = '2000-01-01 00:00:00'
/** An id no row has. */
const NOBODY = '9223372036854775000'
const REASON = 'allowed-actions check'

const PERMISSION_DENIED = 395002
const VERSION_STALE = 395003
const TRANSITION_INVALID = 395005
const NOT_IN_STATUS = 395021

interface Subject {
  supplierId: string
  /** A SCENIC resource bound to the supplier (for the unbind probe). */
  resourceId: string
}

interface Probe {
  /** The command's answer to `admin` on `s`. */
  send(admin: string, s: Subject): Promise<Answer>
  /** The answer of a command that passed its status and permission checks (the probe's later stop). */
  passed: number
  /** The command's refusal when the supplier's status does not allow it; null: no status check. */
  refusal: number | null
}

const probes: Record<string, Probe> = {
  updateSupplier: {
    send: (admin, s) =>
      h.call('PUT', `${ITEMS}/${s.supplierId}`, {
        admin,
        body: { shortName: 'probe', changeReason: REASON, expectedUpdateTime: STALE },
      }),
    passed: VERSION_STALE,
    refusal: NOT_IN_STATUS,
  },
  replaceSupplierContacts: {
    send: (admin, s) =>
      h.call('PUT', `${ITEMS}/${s.supplierId}/contacts`, {
        admin,
        body: { contacts: [], expectedUpdateTime: STALE },
      }),
    passed: VERSION_STALE,
    refusal: NOT_IN_STATUS,
  },
  submitSupplierRegistration: {
    send: (admin, s) =>
      h.call('POST', `${ITEMS}/${s.supplierId}/submit`, {
        admin,
        body: draftBody({ licenseImageUrl: LICENSE, expectedUpdateTime: STALE }),
      }),
    passed: VERSION_STALE,
    refusal: TRANSITION_INVALID,
  },
  archiveSupplier: {
    // The clearance provider is not connected: 395032, after the status check.
    send: (admin, s) => h.call('POST', `${ITEMS}/${s.supplierId}/archive`, { admin }),
    passed: 395032,
    refusal: TRANSITION_INVALID,
  },
  createSupplierAccounts: {
    // A proof file outside the authorized storage: 395018, checked after the status.
    send: (admin, s) =>
      h.call('POST', `${ITEMS}/${s.supplierId}/accounts/batch`, {
        admin,
        body: {
          accounts: [
            {
              accountType: 'CORPORATE',
              bankName: 'ICBC Hangzhou',
              accountNo: '6222021234567890123',
              proofFileUrls: ['https://elsewhere.example.net/proof.png'],
            },
          ],
        },
      }),
    passed: 395018,
    refusal: NOT_IN_STATUS,
  },
  changeSupplierAccount: {
    send: (admin, s) =>
      h.call('POST', `${ITEMS}/${s.supplierId}/accounts/${NOBODY}/change`, {
        admin,
        body: { bankName: 'ICBC Ningbo', changeReason: REASON, expectedUpdateTime: STALE },
      }),
    passed: 395020,
    refusal: NOT_IN_STATUS,
  },
  setDefaultSupplierAccount: {
    send: (admin, s) =>
      h.call('PUT', `${ITEMS}/${s.supplierId}/accounts/${NOBODY}/default`, {
        admin,
        body: { expectedUpdateTime: STALE },
      }),
    passed: 395020,
    refusal: NOT_IN_STATUS,
  },
  setResourceRelation: {
    // A resource that does not exist: 395031, asked after the supplier's eligibility.
    send: (admin, s) =>
      h.call('PUT', `/admin/supplier/resource-relations/SCENIC/${NOBODY}`, {
        admin,
        body: { supplierId: s.supplierId, changeReason: REASON },
      }),
    passed: 395031,
    refusal: 395024,
  },
  unbindResourceRelation: {
    // The supplier's own relation, sent with a version it does not have: 395022.
    send: (admin, s) =>
      h.call('POST', `/admin/supplier/resource-relations/SCENIC/${s.resourceId}/unbind`, {
        admin,
        body: {
          expectedCurrentSupplierId: s.supplierId,
          expectedRelationUpdateTime: STALE,
          changeReason: REASON,
        },
      }),
    passed: 395022,
    refusal: null,
  },
  // Last (the status commands are sent before every probe): offered, it deletes the supplier,
  // since a delete carries no version to make it stop.
  deleteSupplierDraft: {
    send: (admin, s) => h.call('DELETE', `${ITEMS}/${s.supplierId}`, { admin }),
    passed: 200,
    refusal: NOT_IN_STATUS,
  },
}

/** SUP-ADM-043 to `target`, on a version the supplier does not have. */
const statusCommand = (admin: string, s: Subject, target: SupplierStatus) =>
  h.call('POST', `${ITEMS}/${s.supplierId}/status`, {
    admin,
    body: { targetStatus: target, changeReason: REASON, expectedUpdateTime: STALE },
  })

/** The profiles: everything, reading only, and reading plus each command permission alone. */
const PROFILES: Record<string, readonly string[]> = {
  everything: ALL_PERMISSIONS,
  'view only': ['supplier:view'],
  ...Object.fromEntries(
    [
      'supplier:update',
      'supplier:delete',
      'supplier:approval:submit',
      'supplier:status:manage',
      'supplier:account:manage',
    ].map((code) => [`view + ${code}`, ['supplier:view', code]]),
  ),
}

/** The permissions each operation's route declares, as /openapi.json says (`x-permissions`). */
let routePermissions: Record<string, string[]>
const admins: Record<string, string> = {}

beforeAll(async () => {
  const doc = (await documentOf(h.app)) as {
    paths: Record<string, Record<string, { operationId?: string; 'x-permissions'?: string[] }>>
  }
  routePermissions = Object.fromEntries(
    Object.values(doc.paths)
      .flatMap((ops) => Object.values(ops))
      .filter((op) => op.operationId)
      .map((op) => [op.operationId, op['x-permissions'] ?? []]),
  )
  for (const [name, codes] of Object.entries(PROFILES)) admins[name] = await h.admin(codes)
})

/** A supplier in `status` with a SCENIC resource bound to it. */
async function subject(status: SupplierStatus): Promise<Subject> {
  const numbered = !['DRAFT', 'VETTING'].includes(status)
  const { supplierId } = await insertSupplier(h, {
    status,
    supplierNo: numbered ? `SPA${Date.now()}${Math.floor(Math.random() * 1e6)}` : null,
  })
  const resourceId = await insertResource(h, 'SCENIC')
  await insertRelation(h, { supplierId, module: 'SCENIC', resourceId })
  return { supplierId, resourceId }
}

/** `answer`'s code, with the answer itself as the message of a failed expectation. */
const codeOf = (answer: Answer) => [answer.body.code, JSON.stringify(answer.body)] as const

describe('allowedActions agrees with the commands', () => {
  it('covers every command it offers, and each is an operation of the document', async () => {
    const s = await subject('ACTIVE')
    const actions = ok(await detail(h, s.supplierId, { admin: admins.everything })).allowedActions
    const commands = Object.keys(actions).filter((k) => k !== 'statusTargets')
    expect(commands.sort()).toEqual([...Object.keys(probes), 'changeSupplierStatus'].sort())
    for (const id of commands) expect(routePermissions[id], id).toBeDefined()
  })

  describe.each(SUPPLIER_STATUSES)('a %s supplier', (status) => {
    it.each(Object.keys(PROFILES))('for a caller holding %s', async (profile) => {
      const admin = admins[profile]
      const held = PROFILES[profile]
      const s = await subject(status)
      const actions = ok(await detail(h, s.supplierId, { admin })).allowedActions
      const lacks = (operationId: string) =>
        routePermissions[operationId].some((code) => !held.includes(code))

      expect(actions.changeSupplierStatus).toBe(actions.statusTargets.length > 0)
      for (const target of SUPPLIER_STATUSES) {
        const [code, answer] = codeOf(await statusCommand(admin, s, target))
        const offered = actions.statusTargets.includes(target)
        const why = `status → ${target} (${status}, ${profile}): offered ${offered}, answered ${answer}`
        if (offered) expect(code, why).toBe(VERSION_STALE)
        else {
          expect(code, why).toBe(
            lacks('changeSupplierStatus') ? PERMISSION_DENIED : TRANSITION_INVALID,
          )
        }
      }

      for (const [id, probe] of Object.entries(probes)) {
        const [code, answer] = codeOf(await probe.send(admin, s))
        const why = `${id} (${status}, ${profile}): offered ${actions[id]}, answered ${answer}`
        if (actions[id] === true) expect(code, why).toBe(probe.passed)
        else expect(code, why).toBe(lacks(id) ? PERMISSION_DENIED : probe.refusal)
      }
    })
  })

  it('an ACTIVE supplier: SUSPENDED, FROZEN and BLACKLIST with supplier:status:manage, none without', async () => {
    const s = await subject('ACTIVE')
    const manager = ok(
      await detail(h, s.supplierId, { admin: admins['view + supplier:status:manage'] }),
    )
    expect(manager.allowedActions.statusTargets).toEqual(['SUSPENDED', 'FROZEN', 'BLACKLIST'])
    const reader = ok(await detail(h, s.supplierId, { admin: admins['view only'] }))
    expect(reader.allowedActions).toEqual({
      statusTargets: [],
      updateSupplier: false,
      replaceSupplierContacts: false,
      submitSupplierRegistration: false,
      deleteSupplierDraft: false,
      changeSupplierStatus: false,
      archiveSupplier: false,
      createSupplierAccounts: false,
      changeSupplierAccount: false,
      setDefaultSupplierAccount: false,
      setResourceRelation: false,
      unbindResourceRelation: false,
    })
  })
})

describe('GET /lifecycle/transitions', () => {
  const TRANSITIONS_PATH = '/admin/supplier/lifecycle/transitions'

  it('answers the transition table the state machine runs on, row by row', async () => {
    const rows = ok(await h.call('GET', TRANSITIONS_PATH, { admin: admins['view only'] }))
    expect(rows).toEqual(
      TRANSITIONS.map((t) => ({
        from: t.from,
        to: t.to,
        trigger: t.trigger,
        command: t.command,
        bizType: t.approval?.bizType ?? null,
        subType: t.approval?.subType ?? null,
        approvalLevels: t.approval?.levels ?? null,
        guard: t.guard,
      })),
    )
    // The spec's levels: registration four, blacklisting one, lifting a blacklist two.
    const row = (from: string, to: string) => rows.find((r: any) => r.from === from && r.to === to)
    expect(row('DRAFT', 'VETTING')).toMatchObject({ bizType: 'PROFILE_CREATE', approvalLevels: 4 })
    expect(row('ACTIVE', 'BLACKLIST')).toMatchObject({
      subType: 'STATUS_BLACKLIST',
      approvalLevels: 1,
    })
    expect(row('BLACKLIST', 'SUSPENDED')).toMatchObject({
      trigger: 'UNBLACKLIST',
      subType: 'STATUS_UNBLACKLIST',
      approvalLevels: 2,
    })
    expect(row('SUSPENDED', 'ARCHIVED')).toMatchObject({
      command: 'ARCHIVE',
      guard: 'FINANCE_CLEARED',
      approvalLevels: null,
    })
  })

  it("its status-command rows from each status are the detail's statusTargets for a status manager", async () => {
    const rows = ok(await h.call('GET', TRANSITIONS_PATH, { admin: admins['view only'] }))
    for (const status of SUPPLIER_STATUSES) {
      const s = await subject(status)
      const view = ok(
        await detail(h, s.supplierId, { admin: admins['view + supplier:status:manage'] }),
      )
      expect(view.allowedActions.statusTargets, status).toEqual(
        rows.filter((r: any) => r.from === status && r.command === 'STATUS').map((r: any) => r.to),
      )
    }
  })

  it('security: needs supplier:view (395002) and a login (401); takes no query (400)', async () => {
    const nobody = await h.admin([])
    expect((await h.call('GET', TRANSITIONS_PATH, { admin: nobody })).body.code).toBe(
      PERMISSION_DENIED,
    )
    expect((await h.call('GET', TRANSITIONS_PATH, { admin: null })).body.code).toBe(401)
    const query = await h.call('GET', `${TRANSITIONS_PATH}?from=ACTIVE`, {
      admin: admins['view only'],
    })
    expect(query.body.code).toBe(400)
  })
})

describe('the caller codes behind allowedActions', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('a new grant shows within PERMISSION_READ_CACHE_SECONDS; the command takes it at once', async () => {
    const admin = await h.admin(['supplier:view'])
    const s = await subject('ACTIVE')
    const before = ok(await detail(h, s.supplierId, { admin })).allowedActions
    expect(before.statusTargets).toEqual([])
    await grant(h.sql, admin, { permissions: ['supplier:status:manage'] })
    // Advice only: the command asks for itself, and passes its permission check at once.
    const [code] = codeOf(await statusCommand(admin, s, 'SUSPENDED'))
    expect(code).toBe(VERSION_STALE)
    // The advice is remembered (what is not held too) for the configured 5 s, then asked again.
    expect(ok(await detail(h, s.supplierId, { admin })).allowedActions.statusTargets).toEqual([])
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 5_001 })
    expect(ok(await detail(h, s.supplierId, { admin })).allowedActions.statusTargets).toEqual([
      'SUSPENDED',
      'FROZEN',
      'BLACKLIST',
    ])
  })

  describe('with a permission service asked code by code (no one-statement answer)', () => {
    const failing = new Set(['supplier:update'])
    const hs = useHarness({
      env: { PERMISSION_READ_CACHE_SECONDS: '0' },
      permissions: (sql) => {
        const tables = sqlPermissionLookup(sql)
        return {
          has: async (adminId, code) => {
            if (failing.has(code)) throw new Error('permission service answered HTTP 503')
            return tables.has(adminId, code)
          },
          roles: tables.roles,
        }
      },
    })

    it('an advice code whose lookup fails counts as not held (fail closed); the detail still answers', async () => {
      const admin = await hs.admin(ALL_PERMISSIONS)
      const { supplierId } = await insertSupplier(hs, { status: 'ACTIVE', supplierNo: 'SPA-HTTP' })
      const actions = ok(await detail(hs, supplierId, { admin })).allowedActions
      expect(actions).toMatchObject({
        updateSupplier: false,
        replaceSupplierContacts: false,
        setResourceRelation: false,
        unbindResourceRelation: false,
        createSupplierAccounts: true,
        changeSupplierStatus: true,
        statusTargets: ['SUSPENDED', 'FROZEN', 'BLACKLIST'],
      })
      // The command itself is refused, as every command is when its lookup fails.
      const update = await hs.call('PUT', `${ITEMS}/${supplierId}`, {
        admin,
        body: { shortName: 'probe', changeReason: REASON, expectedUpdateTime: STALE },
      })
      expect(update.body.code).toBe(PERMISSION_DENIED)
    })
  })
})
