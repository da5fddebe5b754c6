import {
  liveResources,
  relationPage,
  type RelationPageRow,
  type ResourceRow,
} from '../../../sql/resource'
import type { SupplierResourceInfoRespVO } from '../../schemas/resource'
import type { ResourceModule } from '../../vocabulary'
import { AppError, ERRORS, fail } from '../../errors'
import { page, type PageResult } from '../paging'
import type { Deps } from '../deps'
import { fleetResourcesFor, vehiclesById, type FleetVehicle } from '../../ports/fleet'
import { FLEET_MODULE, MODULE_NAMES, resourceModule } from './modules'

/*
 * The resource-information page of one supplier (read-only). Bounded work whatever the page
 * size: one statement for the relations of the page (with the supplier check, the total and the
 * status and settlement-type dictionaries), one per local module present on the page, and one
 * fleet call when vehicles are on it. All of it runs in one READ ONLY transaction, so the page
 * cannot write and reads one snapshot.
 */

/** Display names of isCharged (the spec names the field, not its words). */
export const IS_CHARGED_NAMES = { true: '收费', false: '免费' } as const

export interface ResourceInfoQuery {
  page: number
  pageSize: number
  /** Empty or absent: all modules. */
  resourceModule?: string
}

/** The current fields of an available resource, whichever side it came from. */
type Current = Omit<ResourceRow, 'resourceId'>

const fromVehicle = (v: FleetVehicle): Current | undefined =>
  v.deleted
    ? undefined
    : {
        resourceName: v.vehicleName!,
        coverUrl: v.coverUrl,
        city: v.city,
        isCharged: v.isCharged,
        settleTypeCode: v.settleTypeCode,
        statusCode: v.statusCode!,
        enabled: v.enabled!,
        updateTime: v.updateTime!,
        tags: v.tags,
        seasons: v.seasons,
      }

/** A code the dictionary cannot name is an incomplete dependency answer, not a blank name. */
const named = (names: Record<string, string>, code: string | null, what: string) => {
  if (code === null) return null
  const name = names[code]
  if (name === undefined) {
    throw new AppError(ERRORS.DEPENDENCY_UNAVAILABLE, `no ${what} name for code ${code}`)
  }
  return name
}

function toRecord(
  relation: RelationPageRow['relations'][number],
  current: Current | undefined,
  dict: Pick<RelationPageRow, 'statusNames' | 'settleTypeNames'>,
): SupplierResourceInfoRespVO {
  const frozen = {
    relationId: relation.relationId,
    resourceModule: relation.resourceModule,
    moduleName: MODULE_NAMES[relation.resourceModule],
    resourceId: relation.resourceId,
  }
  if (!current) {
    return {
      ...frozen,
      resourceName: null,
      coverUrl: null,
      city: null,
      isCharged: null,
      isChargedName: null,
      settleTypeCode: null,
      settleTypeName: null,
      tags: [],
      seasons: [],
      statusCode: null,
      statusName: null,
      enabled: null,
      resourceAvailable: false,
      updateTime: null,
    }
  }
  return {
    ...frozen,
    resourceName: current.resourceName,
    coverUrl: current.coverUrl,
    city: current.city,
    isCharged: current.isCharged,
    isChargedName: current.isCharged === null ? null : IS_CHARGED_NAMES[`${current.isCharged}`],
    settleTypeCode: current.settleTypeCode,
    settleTypeName: named(dict.settleTypeNames, current.settleTypeCode, 'settlement type'),
    tags: current.tags,
    seasons: current.seasons,
    statusCode: current.statusCode,
    statusName: named(dict.statusNames, current.statusCode, 'resource status'),
    enabled: current.enabled,
    resourceAvailable: true,
    updateTime: current.updateTime,
  }
}

/**
 * The resource-information page of a supplier in any status: 395001 when it does not exist,
 * 395034 for an unknown module filter, 395039 when the fleet (or a dictionary) cannot give a
 * complete answer for the page.
 */
export async function getResourceInfoPage(
  deps: Deps,
  supplierId: string,
  query: ResourceInfoQuery,
): Promise<PageResult<SupplierResourceInfoRespVO>> {
  const module = query.resourceModule ? resourceModule(query.resourceModule) : undefined
  const fleet = deps.fleet ?? fleetResourcesFor(deps.config)
  const timezone = deps.config.timezone
  return deps.sql.begin('ISOLATION LEVEL REPEATABLE READ READ ONLY', async (tx) => {
    const frame = await relationPage(tx, {
      supplierId,
      resourceModule: module,
      limit: query.pageSize,
      offset: (query.page - 1) * query.pageSize,
    })
    if (!frame.supplierFound) return fail('SUPPLIER_NOT_FOUND')

    const idsByModule = new Map<ResourceModule, string[]>()
    for (const r of frame.relations) {
      const ids = idsByModule.get(r.resourceModule) ?? []
      ids.push(r.resourceId)
      idsByModule.set(r.resourceModule, ids)
    }
    const current = new Map<string, Current | undefined>()
    const key = (m: string, id: string) => `${m}:${id}`
    await Promise.all(
      [...idsByModule].map(async ([m, ids]) => {
        if (m === FLEET_MODULE) {
          const answer = vehiclesById(ids, await fleet.supplierResourceInfo(ids, tx))
          for (const [id, v] of answer) current.set(key(m, id), fromVehicle(v))
          return
        }
        for (const row of await liveResources(tx, m, ids, timezone)) {
          const { resourceId, ...rest } = row
          current.set(key(m, resourceId), rest)
        }
      }),
    )
    const records = frame.relations.map((r) =>
      toRecord(r, current.get(key(r.resourceModule, r.resourceId)), frame),
    )
    return page(records, frame.total, query.page, query.pageSize)
  })
}
