import { z } from 'zod'
import { many, maybeOne, none, one, type Sql } from './db'

const Exists = z.object({ exists: z.literal(true) })

export async function hasPermission(sql: Sql, adminId: string, code: string): Promise<boolean> {
  const row = await maybeOne(
    sql`
      SELECT true AS exists
      FROM admin_permission p
      WHERE p.admin_id = ${adminId} AND p.permission_code = ${code} AND p.deleted_at IS NULL
    `,
    Exists,
  )
  return row !== null
}

const RoleRow = z.object({ roleCode: z.string() })

export async function rolesOf(sql: Sql, adminId: string): Promise<string[]> {
  const rows = await many(
    sql`
      SELECT r.role_code AS "roleCode"
      FROM admin_role r
      WHERE r.admin_id = ${adminId} AND r.deleted_at IS NULL
      ORDER BY r.role_code
    `,
    RoleRow,
  )
  return rows.map((r) => r.roleCode)
}

const AccessRow = z.object({
  permissions: z.array(z.string()),
  roles: z.array(z.string()).nullable(),
})

/**
 * What a route's authorization needs, in one round trip: which of `codes` the administrator
 * holds and, only when `withRoles`, all their roles. Asked one by one, a route with two
 * permissions and a role would cost three statements, each on its own pooled connection.
 * Arrays travel as JSON and as one comma-joined text (no code has a comma): the edge's client does
 * not fetch array types, so it could neither send nor read a text[].
 */
export async function accessOf(
  sql: Sql,
  adminId: string,
  codes: readonly string[],
  withRoles: boolean,
): Promise<{ permissions: string[]; roles: string[] }> {
  const row = await one(
    sql`
      SELECT
        to_json(ARRAY(
          SELECT p.permission_code
          FROM admin_permission p
          WHERE p.admin_id = ${adminId}
            AND p.permission_code = ANY(string_to_array(${codes.join(',')}::text, ','))
            AND p.deleted_at IS NULL
        )) AS permissions,
        CASE WHEN ${withRoles}::boolean THEN to_json(ARRAY(
          SELECT r.role_code
          FROM admin_role r
          WHERE r.admin_id = ${adminId} AND r.deleted_at IS NULL
          ORDER BY r.role_code
        )) END AS roles
    `,
    AccessRow,
  )
  return { permissions: row.permissions, roles: row.roles ?? [] }
}

/**
 * Every permission code the service asks for (routes and in-route checks): what the demo
 * administrator holds (db/seed/demo.sql grants the same), the benchmark grants and tests use.
 */
export const PERMISSION_CODES = [
  'supplier:list',
  'supplier:view',
  'supplier:create',
  'supplier:update',
  'supplier:delete',
  'supplier:type:manage',
  'supplier:type:history',
  'supplier:approval:submit',
  'supplier:account:manage',
  'supplier:status:manage',
  'supplier:approval:opinion',
  'supplier:account:proof:read',
  'supplier:resource:view',
] as const

/** Grants permissions and roles (demo data, tests); granting twice changes nothing. */
export async function grant(
  sql: Sql,
  adminId: string,
  grants: { permissions?: readonly string[]; roles?: readonly string[] },
): Promise<void> {
  for (const code of grants.permissions ?? []) {
    await none(sql`
      INSERT INTO admin_permission (admin_id, permission_code) VALUES (${adminId}, ${code})
      ON CONFLICT (admin_id, permission_code) WHERE deleted_at IS NULL DO NOTHING
    `)
  }
  for (const code of grants.roles ?? []) {
    await none(sql`
      INSERT INTO admin_role (admin_id, role_code) VALUES (${adminId}, ${code})
      ON CONFLICT (admin_id, role_code) WHERE deleted_at IS NULL DO NOTHING
    `)
  }
}
