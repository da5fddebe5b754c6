import { z } from 'zod'
import { many, maybeOne, none, one, type Sql, DATE_TIME } from './db'

// Types ------------------------------------------------------------------------------------

export const TypeRow = z.object({ id: z.string(), typeCode: z.string(), isPrimary: z.boolean() })
export type TypeRow = z.output<typeof TypeRow>

export function liveTypes(sql: Sql, supplierId: string) {
  return many(
    sql`
      SELECT t.id::text AS id, t.type_code AS "typeCode", t.is_primary AS "isPrimary"
      FROM supplier_type t WHERE t.supplier_id = ${supplierId} AND t.deleted_at IS NULL
      ORDER BY t.id
    `,
    TypeRow,
  )
}

/** The id of a row just inserted: the change log names it as targetId. */
const Inserted = z.object({ id: z.string() })

export function insertType(sql: Sql, supplierId: string, typeCode: string, isPrimary: boolean) {
  return one(
    sql`
      INSERT INTO supplier_type (supplier_id, type_code, is_primary) VALUES (${supplierId}, ${typeCode}, ${isPrimary})
      RETURNING id::text AS id
    `,
    Inserted,
  )
}

export function setTypePrimary(sql: Sql, id: string, isPrimary: boolean) {
  return none(sql`
    UPDATE supplier_type SET is_primary = ${isPrimary}, update_time = now() WHERE id = ${id} AND deleted_at IS NULL
  `)
}

// Contacts ---------------------------------------------------------------------------------

export const ContactRow = z.object({
  id: z.string(),
  contactName: z.string(),
  contactPhoneEnc: z.string(),
  contactPhoneMask: z.string(),
  contactRole: z.string().nullable(),
  remark: z.string().nullable(),
  status: z.string(),
  updateTime: z.string(),
})
export type ContactRow = z.output<typeof ContactRow>

const contactColumns = (sql: Sql) => sql`
  c.contact_id::text AS id, c.contact_name AS "contactName", c.contact_phone_enc AS "contactPhoneEnc",
  c.contact_phone_mask AS "contactPhoneMask", c.contact_role AS "contactRole", c.remark, c.status,
  to_char(c.update_time, ${DATE_TIME}) AS "updateTime"
`

export function liveContacts(sql: Sql, supplierId: string) {
  return many(
    sql`
      SELECT ${contactColumns(sql)} FROM supplier_contact c
      WHERE c.supplier_id = ${supplierId} AND c.deleted_at IS NULL ORDER BY c.contact_id
    `,
    ContactRow,
  )
}

export interface ContactColumns {
  contact_name: string
  contact_phone_enc: string
  contact_phone_mask: string
  contact_role: string | null
  remark: string | null
}

export function insertContact(sql: Sql, supplierId: string, columns: ContactColumns) {
  return one(
    sql`
      INSERT INTO supplier_contact ${sql({ ...columns, supplier_id: supplierId })}
      RETURNING contact_id::text AS id
    `,
    Inserted,
  )
}

/** Guarded by the item's own version; null when someone else changed it meanwhile. */
export function updateContact(
  sql: Sql,
  id: string,
  expectedUpdateTime: string,
  columns: ContactColumns,
) {
  return maybeOne(
    sql`
      UPDATE supplier_contact c SET ${sql(columns as unknown as Record<string, unknown>)},
        update_time = next_version(c.update_time)
      WHERE c.contact_id = ${id} AND c.deleted_at IS NULL AND to_char(c.update_time, ${DATE_TIME}) = ${expectedUpdateTime}
      RETURNING c.contact_id::text AS id
    `,
    z.object({ id: z.string() }),
  )
}

// Qualifications ---------------------------------------------------------------------------

export const QualificationRow = z.object({
  id: z.string(),
  qualType: z.string(),
  certNoEnc: z.string().nullable(),
  certNoMask: z.string().nullable(),
  imageUrl: z.string().nullable(),
  expiryDate: z.string().nullable(),
  updateTime: z.string(),
})
export type QualificationRow = z.output<typeof QualificationRow>

export function liveQualifications(sql: Sql, supplierId: string) {
  return many(
    sql`
      SELECT q.qualification_id::text AS id, q.qual_type AS "qualType", q.cert_no_enc AS "certNoEnc",
             q.cert_no_mask AS "certNoMask", q.image_url AS "imageUrl",
             to_char(q.expiry_date, 'YYYY-MM-DD') AS "expiryDate", to_char(q.update_time, ${DATE_TIME}) AS "updateTime"
      FROM supplier_qualification q
      WHERE q.supplier_id = ${supplierId} AND q.deleted_at IS NULL ORDER BY q.qualification_id
    `,
    QualificationRow,
  )
}

export interface QualificationColumns {
  qual_type: string
  cert_no_enc: string | null
  cert_no_mask: string | null
  image_url: string | null
  expiry_date: string | null
}

export function insertQualification(sql: Sql, supplierId: string, columns: QualificationColumns) {
  return one(
    sql`
      INSERT INTO supplier_qualification ${sql({ ...columns, supplier_id: supplierId })}
      RETURNING qualification_id::text AS id
    `,
    Inserted,
  )
}

export function updateQualification(
  sql: Sql,
  id: string,
  expectedUpdateTime: string,
  columns: QualificationColumns,
) {
  return maybeOne(
    sql`
      UPDATE supplier_qualification q SET ${sql(columns as unknown as Record<string, unknown>)},
        update_time = next_version(q.update_time)
      WHERE q.qualification_id = ${id} AND q.deleted_at IS NULL
        AND to_char(q.update_time, ${DATE_TIME}) = ${expectedUpdateTime}
      RETURNING q.qualification_id::text AS id
    `,
    z.object({ id: z.string() }),
  )
}

// Contracts and evaluations (merge shape only) --------------------------------------------

export const BareChildRow = z.object({ id: z.string(), updateTime: z.string() })
export type BareChildRow = z.output<typeof BareChildRow>

type BareTable = 'supplier_contract' | 'supplier_evaluation'
const bareId = { supplier_contract: 'contract_id', supplier_evaluation: 'evaluation_id' } as const

export function liveBareChildren(sql: Sql, table: BareTable, supplierId: string) {
  return many(
    sql`
      SELECT x.${sql(bareId[table])}::text AS id, to_char(x.update_time, ${DATE_TIME}) AS "updateTime"
      FROM ${sql(table)} x WHERE x.supplier_id = ${supplierId} AND x.deleted_at IS NULL ORDER BY 1
    `,
    BareChildRow,
  )
}

export function insertBareChild(sql: Sql, table: BareTable, supplierId: string) {
  return one(
    sql`
      INSERT INTO ${sql(table)} (supplier_id) VALUES (${supplierId})
      RETURNING ${sql(bareId[table])}::text AS id
    `,
    Inserted,
  )
}

// Shared soft delete of child rows ------------------------------------------------------------

const childId = {
  supplier_type: 'id',
  supplier_contact: 'contact_id',
  supplier_qualification: 'qualification_id',
  supplier_contract: 'contract_id',
  supplier_evaluation: 'evaluation_id',
} as const
export type ChildTable = keyof typeof childId

/** Soft-deletes live rows of one child table that belong to this supplier. */
export function softDeleteChildren(sql: Sql, table: ChildTable, supplierId: string, ids: string[]) {
  if (ids.length === 0) return Promise.resolve(0)
  return none(sql`
    UPDATE ${sql(table)} SET deleted_at = now(), update_time = now()
    WHERE supplier_id = ${supplierId} AND deleted_at IS NULL AND ${sql(childId[table])} = ANY(${ids}::bigint[])
  `)
}
