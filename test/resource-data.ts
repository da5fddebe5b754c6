import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { FIXTURE_ADMIN, tag } from './fixtures'
import type { Harness } from './harness'

/*
 * Resources and relations written directly with SQL, for the resource-information tests, and a
 * fleet service on 127.0.0.1 that answers each fault of the contract on purpose.
 */

export const MODULE_TABLES = {
  SCENIC: 'resource_scenic',
  RESTAURANT: 'resource_restaurant',
  SUPPLIES: 'resource_supplies',
  SUPPLIES_COMBO: 'resource_supplies_combo',
  ACTIVITY: 'resource_activity',
  HOTEL: 'resource_hotel',
  SERVICE: 'resource_service',
  COST_ITEM: 'resource_cost_item',
  STAFF: 'resource_staff',
  VEHICLE: 'fleet_vehicle',
} as const
export type Module = keyof typeof MODULE_TABLES
export const MODULES = Object.keys(MODULE_TABLES) as Module[]

export interface ResourceFixture {
  name?: string
  coverUrl?: string | null
  city?: string | null
  isCharged?: boolean | null
  settleTypeCode?: string | null
  statusCode?: string
  enabled?: boolean
  /** yyyy-MM-dd HH:mm:ss in the session time zone. */
  updateTime?: string
  deleted?: boolean
}

export async function insertResource(
  h: Harness,
  module: Module,
  r: ResourceFixture = {},
): Promise<string> {
  const [row] = await h.sql`
    INSERT INTO ${h.sql(MODULE_TABLES[module])}
      (name, cover_url, city, is_charged, settle_type_code, status_code, enabled, update_time, deleted_at)
    VALUES (${r.name ?? `${module} ${tag()}`},
            ${r.coverUrl === undefined ? 'https://storage.example.com/r/cover.jpg' : r.coverUrl},
            ${r.city === undefined ? '杭州' : r.city},
            ${r.isCharged === undefined ? true : r.isCharged},
            ${r.settleTypeCode === undefined ? 'MONTHLY' : r.settleTypeCode},
            ${r.statusCode ?? 'ON_SALE'}, ${r.enabled ?? true},
            COALESCE(${r.updateTime ?? null}::text::timestamptz, now()),
            ${r.deleted ? h.sql`now()` : null})
    RETURNING id::text AS id
  `
  return row.id
}

export async function insertTag(h: Harness, color: string | null = '#FF5722') {
  const name = `tag-${tag()}`
  const [row] = await h.sql`
    INSERT INTO resource_tag (tag_name, tag_color) VALUES (${name}, ${color})
    RETURNING tag_id::text AS id
  `
  return { tagId: row.id as string, tagName: name }
}

export async function linkTag(
  h: Harness,
  module: Module,
  resourceId: string,
  tagId: string,
  sortOrder: number,
) {
  await h.sql`
    INSERT INTO resource_tag_link (resource_module, resource_id, tag_id, sort_order)
    VALUES (${module}, ${resourceId}, ${tagId}, ${sortOrder})
  `
}

export async function linkSeason(
  h: Harness,
  module: Module,
  resourceId: string,
  seasonCode: string,
  sortOrder: number,
) {
  await h.sql`
    INSERT INTO resource_season_link (resource_module, resource_id, season_code, sort_order)
    VALUES (${module}, ${resourceId}, ${seasonCode}, ${sortOrder})
  `
}

export interface RelationFixture {
  supplierId: string
  module: Module
  resourceId: string
  requiredTypeCode?: string | null
  remark?: string | null
  /** yyyy-MM-dd HH:mm:ss; default now (to the second). */
  updateTime?: string
  deleted?: boolean
}

export async function insertRelation(h: Harness, r: RelationFixture): Promise<string> {
  const [row] = await h.sql`
    INSERT INTO supplier_resource_relation
      (supplier_id, resource_module, resource_id, required_type_code, remark, update_time,
       created_by, updated_by, deleted_at)
    VALUES (${r.supplierId}, ${r.module}, ${r.resourceId}, ${r.requiredTypeCode ?? null},
            ${r.remark ?? null},
            COALESCE(${r.updateTime ?? null}::text::timestamptz, date_trunc('second', now())),
            ${FIXTURE_ADMIN}, ${FIXTURE_ADMIN}, ${r.deleted ? h.sql`now()` : null})
    RETURNING relation_id::text AS id
  `
  return row.id
}

/** One vehicle as a well-behaved fleet service answers it. */
export const fleetVehicle = (vehicleId: string, overrides: Record<string, unknown> = {}) => ({
  vehicleId,
  vehicleName: `大巴车 ${vehicleId.slice(-4)}`,
  coverUrl: 'https://storage.example.com/fleet/bus.jpg',
  city: '杭州',
  isCharged: true,
  settleTypeCode: 'PER_ORDER',
  tags: [{ tagId: '9007199254740999', tagName: '热门', tagColor: '#FF5722' }],
  seasons: [{ seasonCode: 'SUMMER', seasonName: '夏季' }],
  statusCode: 'ON_SALE',
  enabled: true,
  deleted: false,
  updateTime: '2026-05-01 08:30:00',
  ...overrides,
})

export interface FleetRequest {
  path: string
  method: string
  headers: IncomingMessage['headers']
  body: unknown
}

/**
 * A fleet service on 127.0.0.1: `answer` decides each reply from the requested ids (status,
 * body text, delay). Every request is recorded.
 */
export async function startFleet() {
  const requests: FleetRequest[] = []
  let answer: (ids: string[]) => { status?: number; body: unknown; delayMs?: number } = (ids) => ({
    body: { code: 200, message: '成功', success: true, data: ids.map((id) => fleetVehicle(id)) },
  })
  const server: Server = createServer((req, res) => {
    let text = ''
    req.on('data', (chunk) => (text += chunk))
    req.on('end', () => {
      let body: any = null
      try {
        body = JSON.parse(text)
      } catch {
        // recorded as null
      }
      requests.push({ path: req.url ?? '', method: req.method ?? '', headers: req.headers, body })
      const reply = answer(Array.isArray(body?.vehicleIds) ? body.vehicleIds : [])
      const send = () => {
        if (res.destroyed) return
        res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' })
        res.end(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body))
      }
      if (reply.delayMs) setTimeout(send, reply.delayMs)
      else send()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    answer(fn: typeof answer) {
      answer = fn
    },
    reset() {
      requests.length = 0
      answer = (ids) => ({
        body: {
          code: 200,
          message: '成功',
          success: true,
          data: ids.map((id) => fleetVehicle(id)),
        },
      })
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
