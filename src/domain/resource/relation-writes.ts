import { insertEvent } from '../../../sql/outbox'
import { type FieldChange, maskForLog } from '../write/change-log'
import { logChanges } from '../audit/trail'
import type { Sql } from '../../../sql/db'
import {
  endRelation,
  insertRelation,
  relationSupplier,
  relationVersion,
  resourceExists,
  updateRelation,
  type RelationVersionRow,
} from '../../../sql/resource'
import { SUPPLIER_STATUSES, type ResourceModule, type SupplierStatus } from '../../vocabulary'
import { fail } from '../../errors'
import type { Deps } from '../deps'
import { fleetResourcesFor, vehiclesById } from '../../ports/fleet'
import type {
  SupplierResourceReassignRequest,
  SupplierResourceUnbindRequest,
  SupplierResourceRelationVO,
} from '../../schemas/resource'
import type { WriteContext } from '../context'
import { runWrite, type WriteCommand } from '../write/pipeline'
import { NEW_RELATION_ALLOWED } from './eligibility'
import { FLEET_MODULE, resourceModule } from './modules'
import { relationView } from './relations'

/*
 * SUP-ADM-049 (set or rebind) and SUP-ADM-050 (unbind), as write commands: `precheck` outside
 * the transaction (existence, eligibility, the resource, the expected relation), `run` inside it
 * (lock the supplier and the relation, re-check, write the relation, change log and event, build
 * the answer). One valid relation per resource is the partial unique index's to guarantee: two
 * binds racing for an unbound resource both pass their checks, and the loser's INSERT violates
 * supplier_resource_relation_one_valid, which the pipeline's constraint map turns into 395022.
 */

export interface RelationTarget {
  module: ResourceModule
  resourceId: string
}

/** `resourceModule` checked (395034) and paired with its id. */
export const relationTarget = (moduleCode: string, resourceId: string): RelationTarget => ({
  module: resourceModule(moduleCode),
  resourceId,
})

const isStatus = (s: string): s is SupplierStatus =>
  (SUPPLIER_STATUSES as readonly string[]).includes(s)

/** 395001 / 395024 unless the supplier may take a new relation (of `requiredTypeCode`). */
async function eligibleSupplier(
  sql: Sql,
  supplierId: string,
  requiredTypeCode: string | null,
  lock: boolean,
) {
  const supplier = await relationSupplier(sql, supplierId, lock)
  if (!supplier) return fail('SUPPLIER_NOT_FOUND')
  if (!isStatus(supplier.status) || !NEW_RELATION_ALLOWED[supplier.status]) {
    fail('SUPPLIER_NOT_ELIGIBLE', `a ${supplier.status} supplier takes no new resource relation`)
  }
  if (requiredTypeCode !== null && !supplier.typeCodes.includes(requiredTypeCode)) {
    fail('SUPPLIER_NOT_ELIGIBLE', `the supplier does not hold type ${requiredTypeCode}`)
  }
  return supplier
}

/** The distinct ids given, smallest first: the order several suppliers are locked in. */
const inIdOrder = (ids: (string | undefined)[]) =>
  [...new Set(ids.filter((id): id is string => id !== undefined))].sort((a, b) =>
    BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0,
  )

/** The current name of a live resource to bind, or 395031 (vehicles: asked of the fleet). */
async function bindableResource(
  sql: Sql,
  deps: Deps,
  target: RelationTarget,
): Promise<string | null> {
  if (target.module === FLEET_MODULE) {
    const fleet = deps.fleet ?? fleetResourcesFor(deps.config)
    const answer = vehiclesById(
      [target.resourceId],
      await fleet.supplierResourceInfo([target.resourceId], sql),
    )
    const vehicle = answer.get(target.resourceId)!
    if (vehicle.deleted) fail('RESOURCE_NOT_FOUND', `vehicle ${target.resourceId} does not exist`)
    return vehicle.vehicleName
  }
  if (!(await resourceExists(sql, target.module, target.resourceId))) {
    fail('RESOURCE_NOT_FOUND', `${target.module} resource ${target.resourceId} does not exist`)
  }
  return null
}

/**
 * The relation the caller expects against the one there is: rebinding or unbinding an existing
 * relation names its supplier and version; binding a free resource names none. Any difference
 * is 395022 and changes nothing.
 */
function checkExpected(
  current: RelationVersionRow | null,
  expected: { supplierId?: string; updateTime?: string },
) {
  if (!current) {
    if (expected.supplierId !== undefined) {
      fail('RELATION_CONFLICT', 'the resource has no supplier any more: reload it')
    }
    return
  }
  if (expected.supplierId === undefined) {
    fail(
      'RELATION_CONFLICT',
      'the resource already has a supplier: send expectedCurrentSupplierId and expectedRelationUpdateTime',
    )
  }
  if (expected.supplierId !== current.supplierId || expected.updateTime !== current.updateTime) {
    fail('RELATION_CONFLICT', 'the relation was changed since you loaded it: reload it')
  }
}

interface ReassignSeen {
  target: RelationTarget
  /** Known only for vehicles (from the fleet); local names are read with the answer. */
  resourceName: string | null
}

/** A relation command (SUP-ADM-049, 050) on one resource, whose module is already checked. */
type RelationCommand<B, S, R> = (
  deps: Deps,
  ctx: WriteContext,
  target: RelationTarget,
  body: B,
) => WriteCommand<S, R>

/** `command` as a write on the resource a module code and an id name (an unknown module is 395034). */
const onResource =
  <B, S, R>(command: RelationCommand<B, S, R>) =>
  (
    deps: Deps,
    ctx: WriteContext,
    { moduleCode, resourceId, body }: { moduleCode: string; resourceId: string; body: B },
  ) =>
    runWrite(deps, ctx, command(deps, ctx, relationTarget(moduleCode, resourceId), body))

/** The command of SUP-ADM-049. */
export function reassignRelationCommand(
  deps: Deps,
  ctx: WriteContext,
  target: RelationTarget,
  body: SupplierResourceReassignRequest,
): WriteCommand<ReassignSeen, SupplierResourceRelationVO> {
  const requiredTypeCode = body.requiredTypeCode ?? null
  const remark = body.remark ?? null
  const expected = {
    supplierId: body.expectedCurrentSupplierId,
    updateTime: body.expectedRelationUpdateTime,
  }
  const timezone = deps.config.timezone
  return {
    async precheck(sql: Sql): Promise<ReassignSeen> {
      await eligibleSupplier(sql, body.supplierId, requiredTypeCode, false)
      const resourceName = await bindableResource(sql, deps, target)
      const current = await relationVersion(sql, {
        module: target.module,
        resourceId: target.resourceId,
        timezone,
      })
      checkExpected(current, expected)
      if (
        current?.supplierId === body.supplierId &&
        current.requiredTypeCode === requiredTypeCode &&
        current.remark === remark
      ) {
        fail('NO_ACTUAL_CHANGE', 'the resource already has this supplier, type and remark')
      }
      return { target, resourceName }
    },

    async run(tx: Sql, seen: ReassignSeen): Promise<SupplierResourceRelationVO> {
      // The lock order of every write (docs/architecture.md): the suppliers first, in id order
      // (the new one, and the one the resource leaves, whose history records it), then the
      // relation, then their audit chain heads.
      const before = await relationVersion(tx, {
        module: target.module,
        resourceId: target.resourceId,
        timezone,
      })
      for (const supplierId of inIdOrder([body.supplierId, before?.supplierId])) {
        if (supplierId === body.supplierId) {
          await eligibleSupplier(tx, supplierId, requiredTypeCode, true)
        } else {
          await relationSupplier(tx, supplierId, true)
        }
      }
      const current = await relationVersion(tx, {
        module: target.module,
        resourceId: target.resourceId,
        timezone,
        lock: true,
      })
      checkExpected(current, expected)
      if (current?.supplierId !== before?.supplierId) {
        fail('RELATION_CONFLICT', 'the relation was changed since you loaded it: reload it')
      }
      const log = (
        targetId: string,
        fieldName: string,
        oldValue: unknown,
        newValue: unknown,
      ): FieldChange => ({
        targetType: 'RELATION',
        targetId,
        fieldName,
        oldValueMasked: maskForLog(fieldName, oldValue),
        newValueMasked: maskForLog(fieldName, newValue),
      })
      // The previous supplier's history records that the resource left it.
      const left: FieldChange[] = []
      const entries: FieldChange[] = []
      let relationId: string
      if (current && current.supplierId === body.supplierId) {
        // Same supplier: the relation stays, its terms change.
        relationId = current.relationId
        await updateRelation(tx, relationId, { requiredTypeCode, remark, adminId: ctx.adminId })
        if (current.requiredTypeCode !== requiredTypeCode)
          entries.push(
            log(relationId, 'requiredTypeCode', current.requiredTypeCode, requiredTypeCode),
          )
        if (current.remark !== remark)
          entries.push(log(relationId, 'remark', current.remark, remark))
      } else {
        // A new supplier: the old relation ends and a new one starts, so each supplier's
        // history keeps its own relation.
        if (current) await endRelation(tx, current.relationId, ctx.adminId)
        relationId = await insertRelation(
          tx,
          {
            supplierId: body.supplierId,
            resourceModule: target.module,
            resourceId: target.resourceId,
            requiredTypeCode,
            remark,
            adminId: ctx.adminId,
          },
          current?.relationId ?? null,
        )
        const resource = `${target.module}:${target.resourceId}`
        if (current) {
          left.push(log(current.relationId, 'supplierId', current.supplierId, body.supplierId))
          entries.push(log(relationId, 'supplierId', current.supplierId, body.supplierId))
        } else {
          entries.push(log(relationId, 'resource', null, resource))
        }
        if (requiredTypeCode !== null)
          entries.push(log(relationId, 'requiredTypeCode', null, requiredTypeCode))
        if (remark !== null) entries.push(log(relationId, 'remark', null, remark))
      }
      const reason = { changeReason: body.changeReason }
      const logs: [string, FieldChange[]][] = [[body.supplierId, entries]]
      if (current && left.length) logs.push([current.supplierId, left])
      // Each supplier's audit chain head stays locked until commit: in id order, as the rows.
      logs.sort(([a], [b]) => (BigInt(a) < BigInt(b) ? -1 : 1))
      for (const [supplierId, changes] of logs) {
        await logChanges(tx, deps, ctx, {
          supplierId,
          operationType: 'RELATION_SET',
          changes,
          ...reason,
        })
      }
      await insertEvent(tx, {
        aggregateType: 'RELATION',
        aggregateId: relationId,
        eventType: 'SupplierResourceRelationSet',
        payload: {
          relationId,
          supplierId: body.supplierId,
          resourceModule: target.module,
          resourceId: target.resourceId,
          previousRelationId: current?.relationId ?? null,
          previousSupplierId: current?.supplierId ?? null,
        },
      })
      const view = await relationView(tx, deps, {
        module: target.module,
        resourceId: target.resourceId,
        known: { resourceName: seen.resourceName },
      })
      return view!
    },
  }
}

/** The command of SUP-ADM-050. */
export function unbindRelationCommand(
  deps: Deps,
  ctx: WriteContext,
  target: RelationTarget,
  body: SupplierResourceUnbindRequest,
): WriteCommand<RelationTarget, null> {
  const expected = {
    supplierId: body.expectedCurrentSupplierId,
    updateTime: body.expectedRelationUpdateTime,
  }
  const timezone = deps.config.timezone
  const found = (current: RelationVersionRow | null) => {
    if (!current) return fail('RELATION_NOT_FOUND', 'the resource has no valid relation')
    checkExpected(current, expected)
    return current
  }
  return {
    async precheck(sql: Sql): Promise<RelationTarget> {
      found(
        await relationVersion(sql, {
          module: target.module,
          resourceId: target.resourceId,
          timezone,
        }),
      )
      return target
    },

    async run(tx: Sql): Promise<null> {
      // The supplier first, then the relation, then its audit chain head (docs/architecture.md).
      const before = found(
        await relationVersion(tx, {
          module: target.module,
          resourceId: target.resourceId,
          timezone,
        }),
      )
      await relationSupplier(tx, before.supplierId, true)
      const current = found(
        await relationVersion(tx, {
          module: target.module,
          resourceId: target.resourceId,
          timezone,
          lock: true,
        }),
      )
      if (current.supplierId !== before.supplierId) {
        fail('RELATION_CONFLICT', 'the relation was changed since you loaded it: reload it')
      }
      await endRelation(tx, current.relationId, ctx.adminId)
      await logChanges(tx, deps, ctx, {
        supplierId: current.supplierId,
        operationType: 'RELATION_UNBIND',
        changes: [
          {
            targetType: 'RELATION',
            targetId: current.relationId,
            fieldName: 'resource',
            oldValueMasked: `${target.module}:${target.resourceId}`,
            newValueMasked: null,
          },
        ],
        changeReason: body.changeReason,
      })
      await insertEvent(tx, {
        aggregateType: 'RELATION',
        aggregateId: current.relationId,
        eventType: 'SupplierResourceRelationUnbound',
        payload: {
          relationId: current.relationId,
          supplierId: current.supplierId,
          resourceModule: target.module,
          resourceId: target.resourceId,
        },
      })
      return null
    },
  }
}

/**
 * SUP-ADM-049: bind a free resource, rebind it to another supplier (with the expected relation),
 * or change the terms of its relation with the same supplier.
 */
export const reassignRelation = onResource(reassignRelationCommand)

/** SUP-ADM-050: remove the valid relation of a resource that the caller saw. */
export const unbindRelation = onResource(unbindRelationCommand)
