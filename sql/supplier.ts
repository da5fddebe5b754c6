import { z } from 'zod'
import { many, maybeOne, none, one, selectFields, type ColumnOf, type Sql, DATE_TIME } from './db'
import { SUPPLIER_STATUSES, type AccountStatus, type SupplierStatus } from '../src/vocabulary'
import { softDeleteDraftAccounts } from './account'
import { SupplierSubjectFields } from '../src/schemas/supplier'
import { SubjectView, type PlainSubjectField } from '../src/schemas/supplier-subject'
import { storeSearchRow, type SearchFields } from './supplier-search'

/** The row a write works on: the subject plus what only the server may see. */
export const SupplierRow = z.object({
  ...SupplierSubjectFields,
  taxNoEnc: z.string(),
  taxNoBidx: z.string(),
  contactPhoneEnc: z.string().nullable(),
  approveNoteEnc: z.string().nullable(),
  /** A note written before approveNote was encrypted and not yet moved (see approve-note.ts). */
  approveNoteLegacy: z.string().nullable(),
})
export type SupplierRow = z.output<typeof SupplierRow>

/**
 * The subject fields as the detail shows them (src/schemas/supplier-subject.ts), each from the
 * column named after it, of supplier `s`: the row below and the detail (supplier-read.ts) select
 * them so.
 */
export const subjectColumns = (sql: Sql) =>
  selectFields(sql, 's', SubjectView, {
    establishDate: sql`to_char(s.establish_date, 'YYYY-MM-DD')`,
  })

const supplierColumns = (sql: Sql) => sql`
  s.supplier_id::text AS "supplierId", s.supplier_no AS "supplierNo", s.status,
  ${subjectColumns(sql)},
  s.tax_no_enc AS "taxNoEnc", s.tax_no_bidx AS "taxNoBidx", s.contact_phone_enc AS "contactPhoneEnc",
  s.approve_note_enc AS "approveNoteEnc", s.approve_note AS "approveNoteLegacy",
  to_char(s.update_time, ${DATE_TIME}) AS "updateTime"
`

/** A live supplier, unlocked: the pre-checks of the write order (existence, status). */
export function findSupplier(sql: Sql, supplierId: string) {
  return maybeOne(
    sql`SELECT ${supplierColumns(sql)} FROM supplier s WHERE s.supplier_id = ${supplierId} AND s.deleted_at IS NULL`,
    SupplierRow,
  )
}

/**
 * The same row under the aggregate lock, which every write of the supplier takes before any
 * other lock (docs/architecture.md, "Lock order"). FOR NO KEY UPDATE is the mode an UPDATE of the
 * row takes anyway: it serializes the supplier's writers, yet lets a row that references the
 * supplier be inserted meanwhile (its foreign key takes KEY SHARE), so no writer waits for
 * another's child row while holding what that one needs.
 */
export function lockSupplier(sql: Sql, supplierId: string) {
  return maybeOne(
    sql`
      SELECT ${supplierColumns(sql)} FROM supplier s
      WHERE s.supplier_id = ${supplierId} AND s.deleted_at IS NULL
      FOR NO KEY UPDATE
    `,
    SupplierRow,
  )
}

/**
 * The aggregate lock of an approval's supplier, taken first by a transaction that decides,
 * applies or withdraws the approval: the approval row, the supplier's children and its audit
 * chain head are all locked after it, as every command of that supplier locks them.
 */
export function lockSupplierOfApproval(sql: Sql, approvalLogId: string) {
  return none(
    sql`
      SELECT 1 FROM supplier s
      WHERE s.supplier_id = (
          SELECT a.supplier_id FROM approval_log a WHERE a.approval_log_id = ${approvalLogId}
        )
        AND s.deleted_at IS NULL
      FOR NO KEY UPDATE OF s
    `,
  )
}

/**
 * Columns of `supplier` a write may set, in their SQL names: each plain subject field's, named
 * after it, and those of the fields kept apart (the name, the encrypted ones).
 */
export type SupplierColumns = {
  [F in PlainSubjectField as ColumnOf<F>]?: SupplierRow[F]
} & {
  full_name?: string
  tax_no_enc?: string
  tax_no_bidx?: string
  tax_no_mask?: string
  contact_phone_enc?: string | null
  contact_phone_mask?: string | null
  approve_note_enc?: string | null
  /** The retired plaintext column: a write of approveNote only ever empties it. */
  approve_note?: null
  /**
   * The company-name keys of full_name and short_name (src/domain/supplier/name-keys.ts): not a
   * column; the statement that writes the names stores them in supplier_name_key.
   */
  name_keys?: string[]
  /**
   * What the list's keyword finds the supplier by (src/domain/supplier/search.ts): not a column;
   * the statement that writes the names stores it in supplier_search.
   */
  name_search?: SearchFields
}

const Version = z.object({ supplierId: z.string(), updateTime: z.string() })

/**
 * The company-name keys of the row a statement writes (`written`, a CTE answering supplier_id),
 * stored in the same statement: a supplier is never found, or missed, under a name it no longer
 * has. A row is the supplier's whole key set; a rename replaces it.
 */
const storeNameKeys = (sql: Sql, keys: string[]) => sql`
  , keyed AS (
    INSERT INTO supplier_name_key (supplier_id, keys)
    SELECT w.supplier_id, ${keys}::text[] FROM written w
    ON CONFLICT (supplier_id) DO UPDATE SET keys = EXCLUDED.keys
  )
`

export function insertSupplier(sql: Sql, columns: Required<SupplierColumns>, adminId: string) {
  const { name_keys: keys, name_search: search, ...supplier } = columns
  const row = { ...supplier, status: 'DRAFT', created_by: adminId, updated_by: adminId }
  return one(
    sql`
      WITH written AS (
        INSERT INTO supplier ${sql(row)} RETURNING supplier_id, update_time
      ) ${storeNameKeys(sql, keys)} ${storeSearchRow(sql, search)}
      SELECT w.supplier_id::text AS "supplierId", to_char(w.update_time, ${DATE_TIME}) AS "updateTime"
      FROM written w
    `,
    Version,
  )
}

type SupplierGuard = {
  supplierId: string
  status: SupplierStatus
  expectedUpdateTime: string
  adminId: string
}

/**
 * The guarded write of the aggregate: succeeds only if the row is live, still in `status` and
 * still at version `expectedUpdateTime`; otherwise null (a compare-and-set miss). It cannot
 * write `status` (the type refuses it): a status changes only through `moveSupplier`.
 */
export function updateSupplier(
  sql: Sql,
  guard: SupplierGuard,
  columns: SupplierColumns & { supplier_no?: string | null; status?: never },
) {
  return guardedUpdate(sql, guard, columns)
}

/** What a move writes beside the status, in its statement: only if the supplier row moves. */
export interface MoveAlso {
  /** The supplier number is drawn from supplier_no_seq (a registration applied). */
  drawSupplierNo?: boolean
  /** The supplier's live accounts in `from` move to `to` (the registration moves them together). */
  accounts?: { from: AccountStatus; to: AccountStatus }
}

/**
 * The guarded write that also moves the status to `to`. Only the lifecycle's `applyMove` calls
 * it (the lint rule "status rule" refuses its import anywhere else), so every status change is a
 * move the transition table declares.
 */
export function moveSupplier(
  sql: Sql,
  {
    guard,
    to,
    columns,
    also = {},
  }: {
    guard: SupplierGuard
    to: SupplierStatus
    columns: SupplierColumns & { supplier_no?: string | null }
    also?: MoveAlso
  },
) {
  return guardedUpdate(sql, guard, { ...columns, status: to }, also)
}

/** Opaque, unique, server-made: SP + date + sequence. */
const nextSupplierNo = (sql: Sql) =>
  sql`'SP' || to_char(now(), 'YYYYMMDD') || nextval('supplier_no_seq')::text`

/**
 * The row as written, for the checks that follow in the transaction (the registration rules
 * check its licence image), and the ids of the accounts the same statement moved.
 */
const Written = Version.extend({
  supplierNo: z.string().nullable(),
  licenseImageUrl: z.string().nullable(),
  accountsMoved: z.array(z.string()),
})

function guardedUpdate(
  sql: Sql,
  guard: SupplierGuard,
  columns: SupplierColumns & { supplier_no?: string | null; status?: SupplierStatus },
  { drawSupplierNo = false, accounts }: MoveAlso = {},
) {
  const { name_keys: keys, name_search: search, ...supplier } = columns
  const set = { ...supplier, updated_by: guard.adminId }
  // The accounts join `written`: a compare-and-set miss moves none of them.
  const moveAccounts = accounts
    ? sql`
      , moved AS (
        UPDATE supplier_bank_account a SET status = ${accounts.to}, update_time = next_version(a.update_time)
        FROM written w
        WHERE a.supplier_id = w.supplier_id AND a.deleted_at IS NULL AND a.status = ${accounts.from}
        RETURNING a.account_id
      )`
    : sql``
  return maybeOne(
    sql`
      WITH written AS (
        UPDATE supplier s SET ${sql(set as Record<string, unknown>)}, update_time = next_version(s.update_time)
          ${drawSupplierNo ? sql`, supplier_no = ${nextSupplierNo(sql)}` : sql``}
        WHERE s.supplier_id = ${guard.supplierId} AND s.deleted_at IS NULL AND s.status = ${guard.status}
          AND to_char(s.update_time, ${DATE_TIME}) = ${guard.expectedUpdateTime}
        RETURNING s.supplier_id, s.update_time, s.supplier_no, s.license_image_url
      ) ${keys ? storeNameKeys(sql, keys) : sql``} ${search ? storeSearchRow(sql, search) : sql``}
      ${moveAccounts}
      SELECT w.supplier_id::text AS "supplierId", to_char(w.update_time, ${DATE_TIME}) AS "updateTime",
        w.supplier_no AS "supplierNo", w.license_image_url AS "licenseImageUrl",
        ${accounts ? sql`ARRAY(SELECT m.account_id::text FROM moved m ORDER BY m.account_id)` : sql`'{}'::text[]`} AS "accountsMoved"
      FROM written w
    `,
    Written,
  )
}

/** Soft-deletes a DRAFT and every live child row, in one statement per table. */
export async function softDeleteDraft(sql: Sql, supplierId: string, adminId: string) {
  const deleted = await none(sql`
    UPDATE supplier s SET deleted_at = now(), updated_by = ${adminId}, update_time = next_version(s.update_time)
    WHERE s.supplier_id = ${supplierId} AND s.deleted_at IS NULL AND s.status = 'DRAFT'
  `)
  if (deleted !== 1) return false
  for (const table of [
    'supplier_type',
    'supplier_contact',
    'supplier_qualification',
    'supplier_contract',
    'supplier_evaluation',
  ]) {
    await none(
      sql`UPDATE ${sql(table)} SET deleted_at = now() WHERE supplier_id = ${supplierId} AND deleted_at IS NULL`,
    )
  }
  await softDeleteDraftAccounts(sql, supplierId)
  return true
}

// Rules looked up by the checks ----------------------------------------------------------

const Code = z.object({ code: z.string() })

/**
 * Which of these codes are enabled, live values of dictionary supplier_type. With `lock`, the
 * items are locked FOR UPDATE, so writes that depend on a type serialize with its disabling.
 */
export async function enabledTypeCodes(sql: Sql, codes: readonly string[], { lock = false } = {}) {
  const rows = await many(
    sql`
      SELECT d.dict_value AS code FROM dict_data d
      JOIN dict_type t ON t.dict_type = d.dict_type AND t.deleted_at IS NULL AND t.status = 'ACTIVE'
      WHERE d.dict_type = 'supplier_type' AND d.status = 'ACTIVE' AND d.deleted_at IS NULL
        AND d.dict_value = ANY(${codes as string[]})
      ${lock ? sql`FOR UPDATE OF d` : sql``}
    `,
    Code,
  )
  return new Set(rows.map((r) => r.code))
}

const Owner = z.object({ supplierId: z.string() })

/** C-02: another live supplier holding this tax number (by blind index). */
export function taxNoHolder(sql: Sql, taxNoBidx: string, exceptSupplierId: string | null) {
  return maybeOne(
    sql`
      SELECT s.supplier_id::text AS "supplierId" FROM supplier s
      WHERE s.tax_no_bidx = ${taxNoBidx} AND s.deleted_at IS NULL
        AND s.supplier_id IS DISTINCT FROM ${exceptSupplierId}::bigint
      LIMIT 1
    `,
    Owner,
  )
}

export const NameKeyCandidate = z.object({
  supplierId: z.string(),
  supplierNo: z.string().nullable(),
  fullName: z.string(),
  shortName: z.string().nullable(),
  status: z.enum(SUPPLIER_STATUSES),
})
export type NameKeyCandidate = z.output<typeof NameKeyCandidate>

/**
 * Live suppliers that share at least one company-name key with `keys`: a probe of the GIN index
 * supplier_name_key_keys, which reads the entries of these keys only (each key holds a trade
 * name, so suppliers that share just a region, an industry or a legal form are never read). The
 * ids are read first, into an array, and each is looked up by supplier's primary key: the GIN
 * estimate for `&&` over some twenty keys is thousands of rows, and joined on that estimate the
 * planner merged the hits with all of supplier's ids (0.13 s a probe at 1,000,000 suppliers,
 * where the keys found 26). Suppliers not keyed yet (no row, before the backfill reaches them)
 * are not seen. The keys go through a sub-select, as the planner cannot read them: read, their
 * statistics price each probe's own plan below the generic one, and the statement was planned
 * afresh at every execution (0.1 ms, twice a registration; test/plans.test.ts).
 */
export function suppliersSharingNameKeys(
  sql: Sql,
  keys: string[],
  exceptSupplierId: string | null,
  limit: number,
) {
  return many(sharingNameKeys(sql, keys, exceptSupplierId, limit), NameKeyCandidate)
}

const sharingNameKeys = (
  sql: Sql,
  keys: string[],
  exceptSupplierId: string | null,
  limit: number,
) => sql`
  SELECT s.supplier_id::text AS "supplierId", s.supplier_no AS "supplierNo",
         s.full_name AS "fullName", s.short_name AS "shortName", s.status
  FROM supplier s
  WHERE s.supplier_id = ANY (ARRAY(
          SELECT k.supplier_id FROM supplier_name_key k WHERE k.keys && (SELECT ${keys}::text[])))
    AND s.deleted_at IS NULL AND s.supplier_id IS DISTINCT FROM ${exceptSupplierId}::bigint
  ORDER BY s.supplier_id DESC
  LIMIT ${limit}
`

const IdentityProbe = z.object({
  taxNoHolder: z.string().nullable(),
  candidates: z.array(NameKeyCandidate),
})

/**
 * A form's two identity pre-checks in one statement: `taxNoHolder`, C-02 (`taxNoHolder`), when
 * `taxNoBidx` is given, and `candidates`, the near-duplicate probe (`suppliersSharingNameKeys`),
 * when there are `keys`; the caller judges them in that order.
 */
export function probeIdentity(
  sql: Sql,
  probe: { taxNoBidx?: string; keys: string[]; exceptSupplierId: string | null; limit: number },
) {
  const { taxNoBidx, keys, exceptSupplierId, limit } = probe
  return one(
    sql`
      SELECT
        ${
          taxNoBidx === undefined
            ? sql`NULL::text`
            : sql`(SELECT s.supplier_id::text FROM supplier s
                   WHERE s.tax_no_bidx = ${taxNoBidx} AND s.deleted_at IS NULL
                     AND s.supplier_id IS DISTINCT FROM ${exceptSupplierId}::bigint
                   LIMIT 1)`
        } AS "taxNoHolder",
        ${
          keys.length === 0
            ? sql`'[]'::json`
            : sql`coalesce((SELECT json_agg(c ORDER BY c."supplierId"::bigint DESC)
                            FROM (${sharingNameKeys(sql, keys, exceptSupplierId, limit)}) c), '[]'::json)`
        } AS candidates
    `,
    IdentityProbe,
  )
}

const Unkeyed = z.object({
  supplierId: z.string(),
  fullName: z.string(),
  shortName: z.string().nullable(),
})

/** The next live suppliers without name keys, in id order after `afterId` (the backfill's walk). */
export function unkeyedSuppliers(sql: Sql, afterId: string, limit: number) {
  return many(
    sql`
      SELECT s.supplier_id::text AS "supplierId", s.full_name AS "fullName", s.short_name AS "shortName"
      FROM supplier s
      WHERE s.deleted_at IS NULL AND s.supplier_id > ${afterId}::bigint
        AND NOT EXISTS (SELECT 1 FROM supplier_name_key k WHERE k.supplier_id = s.supplier_id)
      ORDER BY s.supplier_id
      LIMIT ${limit}
    `,
    Unkeyed,
  )
}

const Count = z.object({ count: z.number().int() })

/**
 * Live suppliers not keyed yet. An anti-join of two primary keys: a full pass (about a second at
 * 1,000,000 suppliers), so the metric asks it only until it answers 0 (see src/metrics.ts).
 */
export async function countUnkeyedSuppliers(sql: Sql): Promise<number> {
  const row = await one(
    sql`
      SELECT count(*)::int AS count FROM supplier s
      WHERE s.deleted_at IS NULL
        AND NOT EXISTS (SELECT 1 FROM supplier_name_key k WHERE k.supplier_id = s.supplier_id)
    `,
    Count,
  )
  return row.count
}

/**
 * Writes the keys the backfill computed, each only if the supplier is still unkeyed and its names
 * are those the keys were computed from: a write that renamed it meanwhile has keyed it itself
 * (ON CONFLICT waits for that write's commit, then leaves its keys). Nothing of supplier is
 * written: no new row version, no version bump; keys are derived data, not a change any
 * administrator made.
 */
export async function setNameKeys(
  sql: Sql,
  rows: { supplierId: string; fullName: string; shortName: string | null; keys: string[] }[],
) {
  if (!rows.length) return 0
  const pairs = rows.flatMap((r) => r.keys.map((key) => [r.supplierId, key] as const))
  return none(sql`
    WITH k AS (
      SELECT p.supplier_id, array_agg(p.key ORDER BY p.n) AS keys
      FROM unnest(${pairs.map((p) => p[0])}::bigint[], ${pairs.map((p) => p[1])}::text[])
           WITH ORDINALITY AS p(supplier_id, key, n)
      GROUP BY p.supplier_id
    )
    INSERT INTO supplier_name_key (supplier_id, keys)
    SELECT s.supplier_id, coalesce(k.keys, '{}')
    FROM unnest(${rows.map((r) => r.supplierId)}::bigint[], ${rows.map((r) => r.fullName)}::text[],
                ${rows.map((r) => r.shortName)}::text[]) AS v(supplier_id, full_name, short_name)
         JOIN supplier s ON s.supplier_id = v.supplier_id
         LEFT JOIN k ON k.supplier_id = v.supplier_id
    WHERE s.deleted_at IS NULL
      AND s.full_name = v.full_name AND s.short_name IS NOT DISTINCT FROM v.short_name
    ORDER BY s.supplier_id
    ON CONFLICT (supplier_id) DO NOTHING
  `)
}

const Requirement = z.object({ qualType: z.string(), typeCodes: z.array(z.string()) })

const RegistrationClashes = z.object({
  missing: z.array(Requirement),
  heldElsewhere: z.array(z.string()),
})

/**
 * The registration rules' reads of other rows, in one statement (the caller holds the supplier's
 * lock): `missing`, C-09, the required qualification types of these supplier types that the
 * supplier does not hold live and unexpired on `today` (EXPIRING still counts), each with the
 * types requiring it; `heldElsewhere`, C-19, which of these account numbers (blind indexes) are
 * valid (ACTIVE) accounts of another live supplier.
 *
 * The codes and numbers go as IN lists, a parameter each (an empty list is `IN (null)`, which
 * matches nothing), not as one array: PostgreSQL estimates `= ANY($array)` at ten elements, so
 * the generic plan looked dearer than a custom one and the statement was planned afresh at every
 * execution, 0.5 to 0.7 ms of planning for 0.07 ms of work, twice a registration. Each list length
 * is now a statement of its own (a few: LIMITS bound both lists) whose generic plan is taken.
 */
export function registrationClashes(
  sql: Sql,
  supplierId: string,
  check: { typeCodes: string[]; today: string; accountNoBidxs: string[] },
) {
  return one(
    sql`
      SELECT
        coalesce((
          SELECT json_agg(m ORDER BY m."qualType") FROM (
            SELECT r.qual_type AS "qualType", array_agg(r.type_code ORDER BY r.type_code) AS "typeCodes"
            FROM qualification_rule r
            WHERE r.type_code IN ${sql(check.typeCodes)} AND r.is_required AND r.deleted_at IS NULL
              AND NOT EXISTS (
                SELECT 1 FROM supplier_qualification q
                WHERE q.supplier_id = ${supplierId} AND q.qual_type = r.qual_type AND q.deleted_at IS NULL
                  AND (q.expiry_date IS NULL OR q.expiry_date >= ${check.today}::date)
              )
            GROUP BY r.qual_type
          ) m
        ), '[]'::json) AS missing,
        ARRAY(
          SELECT DISTINCT a.account_no_bidx
          FROM supplier_bank_account a
          JOIN supplier s ON s.supplier_id = a.supplier_id AND s.deleted_at IS NULL
          WHERE a.account_no_bidx IN ${sql(check.accountNoBidxs)} AND a.deleted_at IS NULL
            AND a.status = 'ACTIVE' AND a.supplier_id <> ${supplierId}
        ) AS "heldElsewhere"
    `,
    RegistrationClashes,
  )
}

const RegistrationFacts = z.object({ licenseImageUrl: z.string().nullable() })

/** What the registration checks read from the supplier row itself. */
export function registrationFacts(sql: Sql, supplierId: string) {
  return maybeOne(
    sql`
      SELECT s.license_image_url AS "licenseImageUrl"
      FROM supplier s WHERE s.supplier_id = ${supplierId} AND s.deleted_at IS NULL
    `,
    RegistrationFacts,
  )
}

// approveNote at rest --------------------------------------------------------------------------

const StoredNote = z.object({ supplierId: z.string(), note: z.string() })

/*
 * The two queries below span soft-deleted rows on purpose: no plaintext note may stay at rest,
 * whether its draft was deleted or not. They never move the version (update_time): this is not a
 * change of the supplier, only of how one of its values is stored.
 */

/**
 * Locks up to `limit` rows still holding a plaintext approveNote (written before 20261123000100);
 * rows another session holds are skipped, so replicas starting together share the work.
 */
export function lockPlaintextApproveNotes(sql: Sql, limit: number) {
  return many(
    sql`
      SELECT s.supplier_id::text AS "supplierId", s.approve_note AS note FROM supplier s
      WHERE s.approve_note IS NOT NULL
      ORDER BY s.supplier_id LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    `,
    StoredNote,
  )
}

/** Stores a plaintext note's ciphertext and empties the plaintext column, in one statement. */
export function storeApproveNoteEncrypted(sql: Sql, supplierId: string, ciphertext: string) {
  return none(sql`
    UPDATE supplier s SET approve_note_enc = ${ciphertext}, approve_note = NULL
    WHERE s.supplier_id = ${supplierId} AND s.approve_note IS NOT NULL
  `)
}

/** For a rollback only: up to `limit` rows whose note exists only as ciphertext. */
export function lockEncryptedApproveNotes(sql: Sql, limit: number) {
  return many(
    sql`
      SELECT s.supplier_id::text AS "supplierId", s.approve_note_enc AS note FROM supplier s
      WHERE s.approve_note_enc IS NOT NULL
      ORDER BY s.supplier_id LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    `,
    StoredNote,
  )
}

/** For a rollback only: the note back in the plaintext column that the older release reads. */
export function storeApproveNotePlaintext(sql: Sql, supplierId: string, note: string) {
  return none(sql`
    UPDATE supplier s SET approve_note = ${note}, approve_note_enc = NULL
    WHERE s.supplier_id = ${supplierId} AND s.approve_note_enc IS NOT NULL
  `)
}
