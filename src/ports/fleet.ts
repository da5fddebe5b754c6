import { z } from 'zod'
import type { Sql } from '../../sql/db'
import { liveResources } from '../../sql/resource'
import { AppError, ERRORS } from '../errors'
import { dateTimeString } from '../schemas/calendar'
import { SeasonVO, TagVO } from '../schemas/resource'
import { readLimited, UnreadableAnswer } from './bounded-answer'
import { outboundCall } from './outbound'

/*
 * Vehicles belong to the fleet service. The resource-information page asks it once per page
 * for every vehicle id on that page (POST /internal/fleet/vehicles/supplier-resource-info/batch
 * with X-Internal-Token); without FLEET_BASE_URL the embedded adapter answers the same contract
 * from the local fleet_vehicle table. Either way the answer must name each requested vehicle
 * exactly once: see `vehiclesById`.
 */

/**
 * The largest fleet answer read. One call asks for the vehicles of one page (at most 100); a
 * vehicle of the contract, with a name of 500 characters, a cover URL and its tags, takes a
 * few KiB, so 1 MiB leaves ample room. A longer answer is not read to the end (a 10 MB page
 * was passed through whole before).
 */
export const MAX_FLEET_ANSWER_BYTES = 1024 * 1024

/** Bound of a vehicle's name: every local resource's name has the same (`*_name_len_chk`). */
const VEHICLE_NAME_MAX = 500

/**
 * One vehicle as the fleet answers it (the contract's shape), checked for what it means, not
 * only for its shape: a date-time must be a real calendar second, a name within its bound.
 */
export const FleetVehicle = z
  .object({
    vehicleId: z.string().regex(/^[1-9][0-9]{0,18}$/),
    vehicleName: z.string().min(1).max(VEHICLE_NAME_MAX).nullable(),
    coverUrl: z.string().nullable(),
    city: z.string().nullable(),
    isCharged: z.boolean().nullable(),
    settleTypeCode: z.string().min(1).nullable(),
    tags: z.array(TagVO),
    seasons: z.array(SeasonVO),
    statusCode: z.string().min(1).nullable(),
    enabled: z.boolean().nullable(),
    deleted: z.boolean(),
    updateTime: dateTimeString.nullable(),
  })
  .refine(
    (v) =>
      v.deleted ||
      (v.vehicleName !== null &&
        v.statusCode !== null &&
        v.enabled !== null &&
        v.updateTime !== null),
    'a vehicle that is not deleted needs vehicleName, statusCode, enabled and updateTime',
  )
export type FleetVehicle = z.output<typeof FleetVehicle>

/** The fleet's batch answer: `Result<list of FleetVehicle>`. */
const FleetAnswer = z.object({
  code: z.literal(200),
  success: z.literal(true),
  data: z.array(FleetVehicle),
})

export interface FleetResources {
  /**
   * Resource information of these vehicles, in one call. `db` is the page's read-only
   * transaction, for an adapter that reads the local database; others ignore it.
   */
  supplierResourceInfo(vehicleIds: readonly string[], db: Sql): Promise<FleetVehicle[]>
}

/** The fleet's batch operation, below FLEET_BASE_URL. */
const FLEET_BATCH_PATH = '/internal/fleet/vehicles/supplier-resource-info/batch'

export const fleetUnavailable = (why: string) =>
  new AppError(ERRORS.DEPENDENCY_UNAVAILABLE, `fleet service unavailable: ${why}`)

/**
 * The fleet service over HTTP: one POST per page, X-Internal-Token, bounded by `timeoutMs`, no
 * retry (a retry would only stretch the page past its deadline; the user retries). Anything but
 * a well-formed success envelope within MAX_FLEET_ANSWER_BYTES is DEPENDENCY_UNAVAILABLE.
 */
export function httpFleetResources(options: {
  baseUrl: string
  token: string
  timeoutMs: number
  fetch?: typeof fetch
}): FleetResources {
  const doFetch = options.fetch ?? fetch
  const url = `${options.baseUrl.replace(/\/+$/, '')}${FLEET_BATCH_PATH}`
  const call = { peer: 'fleet', method: 'POST', url, template: FLEET_BATCH_PATH }
  return {
    supplierResourceInfo: (vehicleIds) =>
      outboundCall(call, async (trace) => {
        let res: Response
        let body: unknown
        try {
          res = await doFetch(url, {
            method: 'POST',
            headers: {
              ...trace.headers,
              accept: 'application/json',
              'content-type': 'application/json',
              'x-internal-token': options.token,
            },
            body: JSON.stringify({ vehicleIds }),
            signal: AbortSignal.timeout(options.timeoutMs),
          })
          trace.answered(res.status)
          if (!res.ok) {
            await res.body?.cancel()
            throw fleetUnavailable(`HTTP ${res.status}`)
          }
          body = JSON.parse(await readLimited(res, MAX_FLEET_ANSWER_BYTES))
        } catch (err) {
          if (err instanceof AppError) throw err
          if (err instanceof UnreadableAnswer) {
            trace.failed('unreadable_answer')
            throw fleetUnavailable(err.message)
          }
          const name = (err as Error).name
          trace.failed(name)
          throw fleetUnavailable(
            name === 'TimeoutError'
              ? `no answer within ${options.timeoutMs} ms`
              : 'no valid answer',
          )
        }
        const parsed = FleetAnswer.safeParse(body)
        if (!parsed.success) {
          trace.failed('malformed_answer')
          throw fleetUnavailable('malformed or non-success answer')
        }
        return parsed.data.data
      }),
  }
}

/** The embedded fleet: the local fleet_vehicle table, read in the caller's transaction. */
export function embeddedFleetResources(options: { timezone: string }): FleetResources {
  return {
    async supplierResourceInfo(vehicleIds, db) {
      const rows = await liveResources(db, 'VEHICLE', vehicleIds, options.timezone)
      const live = new Map(rows.map((r) => [r.resourceId, r]))
      return vehicleIds.map((vehicleId): FleetVehicle => {
        const r = live.get(vehicleId)
        if (!r) {
          return {
            vehicleId,
            vehicleName: null,
            coverUrl: null,
            city: null,
            isCharged: null,
            settleTypeCode: null,
            tags: [],
            seasons: [],
            statusCode: null,
            enabled: null,
            deleted: true,
            updateTime: null,
          }
        }
        return {
          vehicleId,
          vehicleName: r.resourceName,
          coverUrl: r.coverUrl,
          city: r.city,
          isCharged: r.isCharged,
          settleTypeCode: r.settleTypeCode,
          tags: r.tags,
          seasons: r.seasons,
          statusCode: r.statusCode,
          enabled: r.enabled,
          deleted: false,
          updateTime: r.updateTime,
        }
      })
    },
  }
}

/**
 * The answer keyed by vehicle id, when it names each requested id exactly once and nothing
 * else; an empty, duplicated, missing or extra answer fails the whole page (never a partial
 * page).
 */
export function vehiclesById(
  requested: readonly string[],
  answer: readonly FleetVehicle[],
): Map<string, FleetVehicle> {
  const wanted = new Set(requested)
  if (answer.length === 0 && wanted.size > 0) throw fleetUnavailable('empty answer')
  const byId = new Map<string, FleetVehicle>()
  for (const v of answer) {
    if (byId.has(v.vehicleId)) throw fleetUnavailable(`vehicle ${v.vehicleId} answered twice`)
    if (!wanted.has(v.vehicleId)) throw fleetUnavailable(`vehicle ${v.vehicleId} not requested`)
    byId.set(v.vehicleId, v)
  }
  const missing = [...wanted].filter((id) => !byId.has(id))
  if (missing.length > 0) throw fleetUnavailable(`vehicle ${missing[0]} missing from the answer`)
  return byId
}

/** The adapter the configuration selects: the fleet service when FLEET_BASE_URL is set. */
export function fleetResourcesFor(config: {
  timezone: string
  fleet: { baseUrl?: string; token?: string; timeoutMs: number }
}): FleetResources {
  const { baseUrl, token, timeoutMs } = config.fleet
  return baseUrl && token
    ? httpFleetResources({ baseUrl, token, timeoutMs })
    : embeddedFleetResources({ timezone: config.timezone })
}
