import { z } from 'zod'
import type { Sql } from '../../../sql/db'
import { currentRelation, liveResources } from '../../../sql/resource'
import type { SupplierResourceRelationVO } from '../../schemas/resource'
import { SUPPLIER_STATUSES, type ResourceModule } from '../../vocabulary'
import type { Deps } from '../deps'
import { fleetResourcesFor, vehiclesById, type FleetResources } from '../../ports/fleet'
import { relationReasons } from './eligibility'
import { FLEET_MODULE, MODULE_NAMES, resourceModule } from './modules'

/** The current name of a resource, or null when it is deleted or missing (vehicles: the fleet). */
export async function currentResourceName(
  tx: Sql,
  fleet: FleetResources,
  {
    module,
    resourceId,
    timezone,
  }: { module: ResourceModule; resourceId: string; timezone: string },
): Promise<string | null> {
  if (module === FLEET_MODULE) {
    const v = vehiclesById([resourceId], await fleet.supplierResourceInfo([resourceId], tx)).get(
      resourceId,
    )!
    return v.deleted ? null : v.vehicleName
  }
  const [row] = await liveResources(tx, module, [resourceId], timezone)
  return row?.resourceName ?? null
}

/**
 * The VO of the valid relation of a resource read in `tx`, or null when it has none. A write
 * passes the vehicle name it already had from the fleet (`known`), so that no outbound call is
 * made inside its transaction.
 */
export async function relationView(
  tx: Sql,
  deps: Deps,
  {
    module,
    resourceId,
    known = { resourceName: null },
  }: { module: ResourceModule; resourceId: string; known?: { resourceName: string | null } },
): Promise<SupplierResourceRelationVO | null> {
  const timezone = deps.config.timezone
  const row = await currentRelation(tx, module, resourceId, timezone)
  if (!row) return null
  const fleet = deps.fleet ?? fleetResourcesFor(deps.config)
  const resourceName =
    known.resourceName ?? (await currentResourceName(tx, fleet, { module, resourceId, timezone }))
  const status = z.enum(SUPPLIER_STATUSES).parse(row.supplierStatus)
  const reasons = relationReasons({
    supplierStatus: status,
    requiredTypeHeld: row.requiredTypeHeld,
    resourceAvailable: resourceName !== null,
  })
  return {
    relationId: row.relationId,
    supplierId: row.supplierId,
    supplierNo: row.supplierNo,
    supplierName: row.supplierName,
    resourceModule: row.resourceModule,
    moduleName: MODULE_NAMES[row.resourceModule],
    resourceId: row.resourceId,
    resourceName,
    requiredTypeCode: row.requiredTypeCode,
    requiredTypeName: row.requiredTypeName,
    remark: row.remark,
    available: reasons.length === 0,
    reasons,
    createTime: row.createTime,
    updateTime: row.updateTime,
  }
}

/** SUP-ADM-048: the current relation of a resource, or null; 395034 for an unknown module. */
export async function getCurrentRelation(
  deps: Deps,
  moduleCode: string,
  resourceId: string,
): Promise<SupplierResourceRelationVO | null> {
  const module = resourceModule(moduleCode)
  return deps.sql.begin('ISOLATION LEVEL REPEATABLE READ READ ONLY', (tx) =>
    relationView(tx, deps, { module, resourceId }),
  )
}
