import { describe, expect, it } from 'vitest'
import { APPROVAL_HANDLERS } from '../src/domain/approval/registry'
import { WRITE_OPERATIONS, type WriteOperation } from '../src/schemas/lifecycle'
import { APPROVAL_BIZ_TYPES, CHANGE_OPERATION_TYPES } from '../src/vocabulary'
import { documentOf, useHarness } from './harness'

/*
 * One name per write: the operationId. WRITE_OPERATIONS declares beside it the permissions, the
 * policy operation, the change-log operation types and the approval business type; these tests
 * hold the table to the served reference, the change log's vocabulary and the approval registry.
 */

/** POST routes that read: the body carries what may not travel in a URL. */
const READS_BY_BODY = new Set(['lookupSupplierByTaxNo'])

type Operation = { operationId: string; 'x-permissions'?: string[] }

describe('the write operations table', () => {
  const h = useHarness()

  async function writeRoutes() {
    const doc = (await documentOf(h.app)) as { paths: Record<string, Record<string, Operation>> }
    return Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/admin/'))
      .flatMap(([path, methods]) =>
        Object.entries(methods)
          .filter(([method]) => ['post', 'put', 'patch', 'delete'].includes(method))
          .map(([method, op]) => ({ route: `${method.toUpperCase()} ${path}`, ...op })),
      )
      .filter((op) => !READS_BY_BODY.has(op.operationId))
  }

  it('names every write route of the reference, with the permissions the route requires', async () => {
    const routes = await writeRoutes()
    expect(routes.map((r) => r.operationId).sort()).toEqual(Object.keys(WRITE_OPERATIONS).sort())
    for (const route of routes) {
      const declared = WRITE_OPERATIONS[route.operationId as WriteOperation]
      expect(route['x-permissions'], route.route).toEqual(declared.permissions)
    }
  })

  it('gives every change-log operation type to exactly one write', () => {
    const owners = CHANGE_OPERATION_TYPES.map((type) => ({
      type,
      writes: Object.entries(WRITE_OPERATIONS)
        .filter(([, w]) => (w.changeLog as readonly string[]).includes(type))
        .map(([name]) => name),
    }))
    expect(owners.filter((o) => o.writes.length !== 1)).toEqual([])
  })

  it('opens each approval business type by one write, whose permissions its handler requires', () => {
    for (const bizType of APPROVAL_BIZ_TYPES) {
      const openers = Object.entries(WRITE_OPERATIONS).filter(([, w]) => w.approval === bizType)
      expect(openers, bizType).toHaveLength(1)
      const handler = APPROVAL_HANDLERS[bizType]
      expect(handler?.bizType).toBe(bizType)
      expect(handler?.permissions).toEqual(openers[0][1].permissions)
    }
  })
})
