import { z } from 'zod'
import { formatDateTime, many, maybeOne, none, one, type Sql } from './db'
import { RESOURCE_MODULES, type ResourceModule } from '../src/vocabulary'
import { SeasonVO, TagVO } from '../src/schemas/resource'

/*
 * Supplier-resource relations and the resources they point at. The nine local modules live in
 * one table each (`resource_<code>`), the embedded fleet in `fleet_vehicle`; all ten share one
 * column shape, and tags and seasons attach to any of them through (resource_module,
 * resource_id). Every table a query touches is filtered on `deleted_at IS NULL`; a resource that
 * is soft-deleted is simply not returned, which is how the caller learns it is unavailable.
 */

/** The table of each module: the nine local ones and the embedded fleet's vehicles. */
export const RESOURCE_TABLES: Record<ResourceModule, string> = {
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
}

/** Colour of a tag stored without one (the table's "NULL = default colour"). */
export const DEFAULT_TAG_COLOR = '#909399'

const RelationRef = z.object({
  relationId: z.string(),
  resourceModule: z.enum(RESOURCE_MODULES),
  resourceId: z.string(),
})

export const RelationPageRow = z.object({
  supplierFound: z.boolean(),
  total: z.number().int(),
  relations: z.array(RelationRef),
  /** resource_status: code → display name. */
  statusNames: z.record(z.string(), z.string()),
  /** resource_settle_type: code → display name. */
  settleTypeNames: z.record(z.string(), z.string()),
})
export type RelationPageRow = z.output<typeof RelationPageRow>

export interface RelationPageFilter {
  supplierId: string
  resourceModule?: ResourceModule
  limit: number
  offset: number
}

/**
 * One statement for the whole page frame: whether the supplier exists (any status), the number
 * of its valid relations, the relations of the page (relation update time DESC, relation id
 * DESC), and the two small dictionaries that name resource statuses and settlement types. The
 * order and the filter are served by supplier_resource_relation_supplier_module.
 */
export function relationPage(sql: Sql, f: RelationPageFilter) {
  const valid = sql`
    r.supplier_id = ${f.supplierId} AND r.deleted_at IS NULL
    ${f.resourceModule ? sql`AND r.resource_module = ${f.resourceModule}` : sql``}
  `
  return one(
    sql`
      SELECT
        EXISTS (
          SELECT 1 FROM supplier s WHERE s.supplier_id = ${f.supplierId} AND s.deleted_at IS NULL
        ) AS "supplierFound",
        (SELECT count(*)::int FROM supplier_resource_relation r WHERE ${valid}) AS total,
        COALESCE((
          SELECT json_agg(
                   json_build_object('relationId', p.relation_id::text,
                                     'resourceModule', p.resource_module,
                                     'resourceId', p.resource_id::text)
                   ORDER BY p.update_time DESC, p.relation_id DESC)
          FROM (
            SELECT r.relation_id, r.resource_module, r.resource_id, r.update_time
            FROM supplier_resource_relation r
            WHERE ${valid}
            ORDER BY r.update_time DESC, r.relation_id DESC
            LIMIT ${f.limit} OFFSET ${f.offset}
          ) p
        ), '[]'::json) AS relations,
        (SELECT COALESCE(json_object_agg(st.code, st.name), '{}'::json) FROM resource_status st)
          AS "statusNames",
        (SELECT COALESCE(json_object_agg(t.code, t.name), '{}'::json) FROM resource_settle_type t)
          AS "settleTypeNames"
    `,
    RelationPageRow,
  )
}

/** A live resource of any module, in the shape every module shares. */
export const ResourceRow = z.object({
  resourceId: z.string(),
  resourceName: z.string(),
  coverUrl: z.string().nullable(),
  city: z.string().nullable(),
  isCharged: z.boolean().nullable(),
  settleTypeCode: z.string().nullable(),
  statusCode: z.string(),
  enabled: z.boolean(),
  updateTime: z.string(),
  tags: z.array(TagVO),
  seasons: z.array(SeasonVO),
})
export type ResourceRow = z.output<typeof ResourceRow>

/** Live tags of resource `x` of `module`, by link order; a deleted tag or link is left out. */
const tagsOf = (sql: Sql, module: ResourceModule) => sql`
  COALESCE((
    SELECT json_agg(
             json_build_object('tagId', t.tag_id::text, 'tagName', t.tag_name,
                               'tagColor', COALESCE(t.tag_color, ${DEFAULT_TAG_COLOR}::text))
             ORDER BY l.sort_order, l.id)
    FROM resource_tag_link l
    JOIN resource_tag t ON t.tag_id = l.tag_id AND t.deleted_at IS NULL
    WHERE l.resource_module = ${module} AND l.resource_id = x.id AND l.deleted_at IS NULL
  ), '[]'::json)
`

/** Seasons of resource `x` of `module`, by link order then the seasons' canonical order. */
const seasonsOf = (sql: Sql, module: ResourceModule) => sql`
  COALESCE((
    SELECT json_agg(
             json_build_object('seasonCode', se.season_code, 'seasonName', se.season_name)
             ORDER BY l.sort_order, se.sort_order)
    FROM resource_season_link l
    JOIN resource_season se ON se.season_code = l.season_code
    WHERE l.resource_module = ${module} AND l.resource_id = x.id AND l.deleted_at IS NULL
  ), '[]'::json)
`

/**
 * The live resources of one module among `ids` (one statement for all of them, by primary key;
 * the ids travel as one text, since array parameters need the type lookup that the edge's
 * client skips),
 * with their tags and seasons; soft-deleted and unknown ids are absent from the answer.
 * `updateTime` is the resource's own, in `timezone`.
 */
export function liveResources(
  sql: Sql,
  module: ResourceModule,
  ids: readonly string[],
  timezone: string,
) {
  return many(
    sql`
      SELECT x.id::text AS "resourceId", x.name AS "resourceName", x.cover_url AS "coverUrl",
             x.city, x.is_charged AS "isCharged", x.settle_type_code AS "settleTypeCode",
             x.status_code AS "statusCode", x.enabled,
             ${formatDateTime(sql, sql`x.update_time`, timezone)} AS "updateTime",
             ${tagsOf(sql, module)} AS tags,
             ${seasonsOf(sql, module)} AS seasons
      FROM ${sql(RESOURCE_TABLES[module])} x
      WHERE x.id = ANY(string_to_array(${ids.join(',')}::text, ',')::bigint[])
        AND x.deleted_at IS NULL
    `,
    ResourceRow,
  )
}

/** Whether a live resource of `module` has this id (binding needs one). */
export async function resourceExists(sql: Sql, module: ResourceModule, id: string) {
  const row = await maybeOne(
    sql`
      SELECT true AS found FROM ${sql(RESOURCE_TABLES[module])} x
      WHERE x.id = ${id} AND x.deleted_at IS NULL
    `,
    z.object({ found: z.literal(true) }),
  )
  return row !== null
}

export const RelationRow = z.object({
  relationId: z.string(),
  supplierId: z.string(),
  supplierNo: z.string().nullable(),
  supplierName: z.string(),
  supplierStatus: z.string(),
  resourceModule: z.enum(RESOURCE_MODULES),
  resourceId: z.string(),
  requiredTypeCode: z.string().nullable(),
  requiredTypeName: z.string().nullable(),
  /** Whether the supplier still holds requiredTypeCode as a live type (true when none is set). */
  requiredTypeHeld: z.boolean(),
  remark: z.string().nullable(),
  createTime: z.string(),
  updateTime: z.string(),
})
export type RelationRow = z.output<typeof RelationRow>

/**
 * The valid relation of a resource, if any, with its supplier (live) and the label of the
 * required type (a live, enabled supplier_type item of a live, enabled dictionary, else null).
 */
export function currentRelation(
  sql: Sql,
  module: ResourceModule,
  resourceId: string,
  timezone: string,
) {
  return maybeOne(
    sql`
      SELECT r.relation_id::text AS "relationId", r.supplier_id::text AS "supplierId",
             s.supplier_no AS "supplierNo", s.full_name AS "supplierName",
             s.status AS "supplierStatus", r.resource_module AS "resourceModule",
             r.resource_id::text AS "resourceId", r.required_type_code AS "requiredTypeCode",
             d.dict_label AS "requiredTypeName",
             (r.required_type_code IS NULL OR EXISTS (
               SELECT 1 FROM supplier_type t
               WHERE t.supplier_id = r.supplier_id AND t.type_code = r.required_type_code
                 AND t.deleted_at IS NULL
             )) AS "requiredTypeHeld",
             r.remark,
             ${formatDateTime(sql, sql`r.create_time`, timezone)} AS "createTime",
             ${formatDateTime(sql, sql`r.update_time`, timezone)} AS "updateTime"
      FROM supplier_resource_relation r
      JOIN supplier s ON s.supplier_id = r.supplier_id AND s.deleted_at IS NULL
      LEFT JOIN (
        dict_data d
        JOIN dict_type dt ON dt.dict_type = d.dict_type AND dt.status = 'ACTIVE' AND dt.deleted_at IS NULL
      ) ON d.dict_type = 'supplier_type' AND d.dict_value = r.required_type_code
           AND d.status = 'ACTIVE' AND d.deleted_at IS NULL
      WHERE r.resource_module = ${module} AND r.resource_id = ${resourceId}
        AND r.deleted_at IS NULL
    `,
    RelationRow,
  )
}

/** The valid relation of a resource as the write side sees it: its owner and its version. */
export const RelationVersionRow = z.object({
  relationId: z.string(),
  supplierId: z.string(),
  requiredTypeCode: z.string().nullable(),
  remark: z.string().nullable(),
  updateTime: z.string(),
})
export type RelationVersionRow = z.output<typeof RelationVersionRow>

/**
 * The valid relation of a resource, or null; with `lock`, the row is locked until the end of
 * the transaction (a concurrent rebind or unbind of the same resource waits, then re-reads).
 */
export function relationVersion(
  sql: Sql,
  {
    module,
    resourceId,
    timezone,
    lock = false,
  }: { module: ResourceModule; resourceId: string; timezone: string; lock?: boolean },
) {
  return maybeOne(
    sql`
      SELECT r.relation_id::text AS "relationId", r.supplier_id::text AS "supplierId",
             r.required_type_code AS "requiredTypeCode", r.remark,
             ${formatDateTime(sql, sql`r.update_time`, timezone)} AS "updateTime"
      FROM supplier_resource_relation r
      WHERE r.resource_module = ${module} AND r.resource_id = ${resourceId}
        AND r.deleted_at IS NULL
      ${lock ? sql`FOR UPDATE` : sql``}
    `,
    RelationVersionRow,
  )
}

export const RelationSupplierRow = z.object({
  supplierId: z.string(),
  status: z.string(),
  typeCodes: z.array(z.string()),
})

/**
 * A live supplier's status and live type codes, for the eligibility of a new relation; with
 * `lock`, shared-locked so that a status change waits for the binding (and vice versa).
 */
export function relationSupplier(sql: Sql, supplierId: string, lock = false) {
  return maybeOne(
    sql`
      SELECT s.supplier_id::text AS "supplierId", s.status,
             COALESCE((
               SELECT array_agg(t.type_code ORDER BY t.type_code) FROM supplier_type t
               WHERE t.supplier_id = s.supplier_id AND t.deleted_at IS NULL
             ), '{}') AS "typeCodes"
      FROM supplier s
      WHERE s.supplier_id = ${supplierId} AND s.deleted_at IS NULL
      ${lock ? sql`FOR SHARE OF s` : sql``}
    `,
    RelationSupplierRow,
  )
}

export interface NewRelation {
  supplierId: string
  resourceModule: ResourceModule
  resourceId: string
  requiredTypeCode: string | null
  remark: string | null
  adminId: string
}

/**
 * Inserts the valid relation of a resource. Its version is a later second than that of the
 * relation it `replaces` (ended in the same transaction), so a rebind always moves the
 * resource's version. The partial unique index supplier_resource_relation_one_valid refuses a
 * second valid relation.
 */
export async function insertRelation(sql: Sql, r: NewRelation, replaces: string | null) {
  const row = await one(
    sql`
      INSERT INTO supplier_resource_relation
        (supplier_id, resource_module, resource_id, required_type_code, remark, update_time,
         created_by, updated_by)
      VALUES (${r.supplierId}, ${r.resourceModule}, ${r.resourceId}, ${r.requiredTypeCode},
              ${r.remark},
              ${
                replaces === null
                  ? sql`date_trunc('second', now())`
                  : sql`next_version((SELECT p.update_time FROM supplier_resource_relation p
                                      WHERE p.relation_id = ${replaces}))`
              },
              ${r.adminId}, ${r.adminId})
      RETURNING relation_id::text AS "relationId"
    `,
    z.object({ relationId: z.string() }),
  )
  return row.relationId
}

/** Changes the required type and remark of a valid relation in place; moves its version. */
export function updateRelation(
  sql: Sql,
  relationId: string,
  change: { requiredTypeCode: string | null; remark: string | null; adminId: string },
) {
  return none(sql`
    UPDATE supplier_resource_relation
    SET required_type_code = ${change.requiredTypeCode}, remark = ${change.remark},
        update_time = next_version(update_time), updated_by = ${change.adminId}
    WHERE relation_id = ${relationId} AND deleted_at IS NULL
  `)
}

/** Ends a valid relation (soft delete): the resource has no supplier through it any more. */
export function endRelation(sql: Sql, relationId: string, adminId: string) {
  return none(sql`
    UPDATE supplier_resource_relation
    SET deleted_at = now(), update_time = next_version(update_time), updated_by = ${adminId}
    WHERE relation_id = ${relationId} AND deleted_at IS NULL
  `)
}
