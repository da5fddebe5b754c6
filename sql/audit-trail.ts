import type postgres from 'postgres'
import { z } from 'zod'
import { many, maybeOne, none, one, type Query, type Sql } from './db'
import { insertEventsStep, type DomainEvent } from './outbox'

/*
 * The audit trail's statements (docs/audit-trail.md). A sealed row's hash covers its columns
 * as the database renders them as text: the lists below, in this order, are what a hash covers
 * (`src/crypto/audit.ts` encodes them); `test/audit-trail.test.ts` checks that they name every
 * column of their table but the audit columns themselves.
 */

/** The chain of a supplier's change-log and approval-log rows. */
export const supplierChain = (supplierId: string) => `supplier:${supplierId}`
/** The one chain of the qualification rules' change-log rows, which belong to no supplier. */
export const QUALIFICATION_RULES_CHAIN = 'qualification-rules'

/**
 * How a time is rendered for a hash: UTC, to the microsecond PostgreSQL keeps. The fragments
 * below write it out rather than pass it: the verifier's cursor (DECLARE) takes no parameters.
 */
const UTC_MICROSECONDS = 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'

/** The change-log columns a hash covers, in order (`changeLogFields` renders them). */
export const CHANGE_LOG_SEALED_COLUMNS = [
  'change_log_id',
  'supplier_id',
  'approval_log_id',
  'operation_type',
  'target_type',
  'target_id',
  'field_name',
  'old_value_masked',
  'new_value_masked',
  'change_reason',
  'status',
  'operator_id',
  'request_id',
  'create_time',
] as const

const changeLogFields = (sql: Sql) => sql`
  json_build_array(
    c.change_log_id::text, c.supplier_id::text, c.approval_log_id::text, c.operation_type,
    c.target_type, c.target_id::text, c.field_name, c.old_value_masked, c.new_value_masked,
    c.change_reason, c.status, c.operator_id::text, c.request_id,
    to_char(c.create_time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
  )
`

/**
 * The approval-log columns a hash covers, in order (`approvalFields` renders them), and then
 * audit_vacated. The generated risk_flags is left out: it is derived from candidate_snapshot.
 */
export const APPROVAL_LOG_SEALED_COLUMNS = [
  'approval_log_id',
  'request_no',
  'provider',
  'biz_type',
  'sub_type',
  'supplier_id',
  'target_type',
  'target_id',
  'applicant_admin_id',
  'candidate_snapshot',
  'levels',
  'status',
  'sync_status',
  'submitted_at',
  'finished_at',
  'applied_at',
  'apply_attempts',
  'failure_code',
  'failure_reason',
  'opinion_enc',
  'schema_version',
  'sp_no',
  'template_id',
  'sp_status',
  'source_revision',
  'detail_digest',
  'detail_sync_status',
  'level_details',
  'source_event_key',
  'create_time',
  'update_time',
  'submit_note_enc',
  'withdrawn_at',
] as const

const approvalFields = (sql: Sql) => sql`
  json_build_array(
    a.approval_log_id::text, a.request_no, a.provider, a.biz_type, a.sub_type,
    a.supplier_id::text, a.target_type, a.target_id::text, a.applicant_admin_id::text,
    a.candidate_snapshot::text, a.levels::text, a.status, a.sync_status,
    to_char(a.submitted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
    to_char(a.finished_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
    to_char(a.applied_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
    a.apply_attempts::text, a.failure_code::text, a.failure_reason, a.opinion_enc,
    a.schema_version::text, a.sp_no, a.template_id, a.sp_status, a.source_revision::text,
    a.detail_digest, a.detail_sync_status, a.level_details::text, a.source_event_key,
    to_char(a.create_time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
    to_char(a.update_time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
    a.submit_note_enc,
    to_char(a.withdrawn_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
  )
`

/** The chain a row belongs to, by its columns: `supplierChain` and the rules' chain, in SQL. */
const changeLogChain = (sql: Sql) =>
  sql`CASE WHEN c.supplier_id IS NULL THEN 'qualification-rules' ELSE 'supplier:' || c.supplier_id END`
const approvalChain = (sql: Sql) => sql`'supplier:' || a.supplier_id`

const Fields = z.array(z.string().nullable())

export const ChainHead = z.object({
  seq: z.string(),
  hash: z.string(),
  /** The transaction's now(), as a hash renders times: the create_time of its change-log rows. */
  now: z.string(),
  /** Change-log ids taken for the rows about to be written. */
  ids: z.array(z.string()),
})
export type ChainHead = z.output<typeof ChainHead>

/**
 * `n` change-log ids from their sequence. `n` goes through a sub-select so that every execution
 * is priced alike: given the number, the planner estimates generate_series exactly, prices that
 * below the generic plan (1,000 rows) and would plan the statement afresh at every execution.
 */
const changeLogIds = (sql: Sql, n: number) =>
  sql`ARRAY(SELECT nextval('change_log_change_log_id_seq')::text FROM generate_series(1, (SELECT ${n}::int)))`

/**
 * Locks the chain's head until the transaction ends (creating it at seq 0): the one statement
 * that serializes the writers of one chain, so each takes the next seq. Takes `newIds`
 * change-log ids on the way.
 */
export function lockChainHead(sql: Sql, chain: string, newIds: number) {
  return one(
    sql`
      INSERT INTO audit_chain_head AS h (chain, seq, hash) VALUES (${chain}, 0, '')
      ON CONFLICT (chain) DO UPDATE SET seq = h.seq
      RETURNING h.seq::text AS seq, h.hash,
        to_char(now() AT TIME ZONE 'UTC', ${UTC_MICROSECONDS}) AS now,
        ${changeLogIds(sql, newIds)} AS ids
    `,
    ChainHead,
  )
}

/** A change-log row as inserted, sealed: create_time is the transaction's now() (the default). */
export interface SealedChangeLogRow {
  change_log_id: string
  supplier_id: string | null
  approval_log_id: string | null
  operation_type: string
  target_type: string
  target_id: string | null
  field_name: string
  old_value_masked: string | null
  new_value_masked: string | null
  change_reason: string | null
  status: string | null
  operator_id: string
  request_id: string
  audit_chain: string
  audit_seq: string
  audit_prev: string
  audit_hash: string
}

/**
 * Inserts sealed change-log rows of one chain and moves its head past them, in one statement,
 * with the pending events of the same write (`insertEventsStep`) if any.
 */
export function insertSealedChangeLogs(
  sql: Sql,
  rows: SealedChangeLogRow[],
  head: { chain: string; seq: string; hash: string },
  events: readonly DomainEvent[] = [],
) {
  const raised = events.length === 0 ? sql`` : sql`, raised AS (${insertEventsStep(sql, events)})`
  return none(sql`
    WITH logged AS (INSERT INTO change_log ${sql(rows)}) ${raised}
    UPDATE audit_chain_head SET seq = ${head.seq}, hash = ${head.hash} WHERE chain = ${head.chain}
  `)
}

/** What an approval write returns besides the row: all its seal needs. */
export const ApprovalToSeal = z.object({
  sealId: z.string(),
  sealChain: z.string(),
  sealHeadSeq: z.string(),
  sealHeadHash: z.string(),
  /** Its place and hash before this write (null for a new row): that place is now vacated. */
  sealOldSeq: z.string().nullable(),
  sealOldHash: z.string().nullable(),
  sealVacated: z.string().nullable(),
  /**
   * The row before this write, to check its seal first: re-sealing a row edited around the
   * service would launder the edit. Null for a new row, or when no earlier image was read.
   */
  sealOld: z
    .object({ chain: z.string().nullable(), prev: z.string().nullable(), fields: Fields })
    .nullable(),
  sealFields: Fields,
})
export type ApprovalToSeal = z.output<typeof ApprovalToSeal>

/**
 * The tail of an approval write `WITH a AS (<INSERT or UPDATE approval_log> RETURNING *)`: locks
 * the supplier's chain head in the same statement and returns the row as a hash renders it,
 * with `columns` (the caller's own row shape, over alias `a`). For an UPDATE of row
 * `updatedId`, the row as it was before (the statement's snapshot) comes along too.
 */
export const approvalWriteToSeal = (sql: Sql, columns: Query, updatedId: string | null) => sql`
  , old AS (
    SELECT json_build_object('chain', a.audit_chain, 'prev', a.audit_prev, 'fields', ${approvalFields(sql)}) AS image
    FROM approval_log a
    WHERE a.approval_log_id = ${updatedId}
  ), head AS (
    INSERT INTO audit_chain_head AS h (chain, seq, hash)
    SELECT ${approvalChain(sql)}, 0, '' FROM a
    ON CONFLICT (chain) DO UPDATE SET seq = h.seq
    RETURNING h.chain, h.seq, h.hash
  )
  SELECT ${columns},
    a.approval_log_id::text AS "sealId", head.chain AS "sealChain", head.seq::text AS "sealHeadSeq",
    head.hash AS "sealHeadHash", a.audit_seq::text AS "sealOldSeq", a.audit_hash AS "sealOldHash",
    a.audit_vacated AS "sealVacated", old.image AS "sealOld", ${approvalFields(sql)} AS "sealFields"
  FROM a JOIN head ON head.chain = ${approvalChain(sql)} LEFT JOIN old ON true
`

/**
 * An approval row as it stands, locked head and all, ready to be sealed again without a check
 * of its earlier seal: for a test that sets a row's state by hand, as the service would have.
 */
export function approvalAsItStands(sql: Sql, approvalLogId: string) {
  return one(
    sql`
      WITH a AS (SELECT * FROM approval_log WHERE approval_log_id = ${approvalLogId})
      ${approvalWriteToSeal(sql, sql`a.approval_log_id`, null)}
    `,
    ApprovalToSeal,
  )
}

/** Seals an approval row at the end of its chain and moves the head there, in one statement. */
export function sealApprovalRow(
  sql: Sql,
  s: { id: string; chain: string; seq: string; prev: string; hash: string; vacated: string | null },
) {
  return none(sql`
    WITH sealed AS (
      UPDATE approval_log
      SET audit_chain = ${s.chain}, audit_seq = ${s.seq}, audit_prev = ${s.prev},
          audit_hash = ${s.hash}, audit_vacated = ${s.vacated}
      WHERE approval_log_id = ${s.id}
    )
    UPDATE audit_chain_head SET seq = ${s.seq}, hash = ${s.hash} WHERE chain = ${s.chain}
  `)
}

/**
 * `sealApprovalRow` for a write that goes on to log changes to the same chain in its transaction:
 * the head, locked since the approval's write, answers what `lockChainHead` would (its place, the
 * transaction's time, `newIds` change-log ids), so the change log needs no statement to lock it.
 */
export function sealApprovalRowTakingIds(
  sql: Sql,
  s: { id: string; chain: string; seq: string; prev: string; hash: string; vacated: string | null },
  newIds: number,
) {
  return one(
    sql`
      WITH sealed AS (
        UPDATE approval_log
        SET audit_chain = ${s.chain}, audit_seq = ${s.seq}, audit_prev = ${s.prev},
            audit_hash = ${s.hash}, audit_vacated = ${s.vacated}
        WHERE approval_log_id = ${s.id}
      )
      UPDATE audit_chain_head AS h SET seq = ${s.seq}, hash = ${s.hash} WHERE chain = ${s.chain}
      RETURNING h.seq::text AS seq, h.hash,
        to_char(now() AT TIME ZONE 'UTC', ${UTC_MICROSECONDS}) AS now,
        ${changeLogIds(sql, newIds)} AS ids
    `,
    ChainHead,
  )
}

// ---------------------------------------------------------------------------------------------
// Rows not sealed yet: those written before the audit trail, sealed once by the service.
// ---------------------------------------------------------------------------------------------

const LegacyState = z.object({ pending: z.boolean() })

/** Whether the rows written before the audit trail still wait for their seal. */
export async function legacyRowsPending(sql: Sql) {
  const row = await maybeOne(
    sql`SELECT legacy_sealed_at IS NULL AS pending FROM audit_trail_state`,
    LegacyState,
  )
  return row?.pending ?? false
}

export function markLegacyRowsSealed(sql: Sql) {
  return none(sql`
    UPDATE audit_trail_state SET legacy_sealed_at = now() WHERE legacy_sealed_at IS NULL
  `)
}

export const UnsealedRow = z.object({
  chain: z.string(),
  table: z.enum(['change_log', 'approval_log']),
  id: z.string(),
  fields: Fields,
})
export type UnsealedRow = z.output<typeof UnsealedRow>

const UNSEALED_BATCH = 2000

/**
 * Every unsealed row, by chain and, within a chain, in the order it was written (by time, an
 * approval before the change-log rows of its transaction, then by id), fetched 2,000 rows at a
 * time from one cursor of the caller's transaction: one pass over the unsealed rows (the partial
 * indexes *_unsealed find them), whatever the number of chains.
 */
export async function readUnsealedRows(
  tx: Sql,
  onBatch: (rows: UnsealedRow[]) => Promise<void>,
): Promise<void> {
  await none(tx`
    DECLARE unsealed_rows NO SCROLL CURSOR FOR
    SELECT t.chain, t.table, t.id, t.fields FROM (
      SELECT ${approvalChain(tx)} AS chain, 'approval_log' AS table, a.approval_log_id AS n,
             a.approval_log_id::text AS id, a.create_time AS at, 0 AS rank,
             ${approvalFields(tx)} AS fields
      FROM approval_log a
      WHERE a.audit_hash IS NULL
      UNION ALL
      SELECT ${changeLogChain(tx)}, 'change_log', c.change_log_id, c.change_log_id::text,
             c.create_time, 1, ${changeLogFields(tx)}
      FROM change_log c
      WHERE c.audit_hash IS NULL
    ) t
    ORDER BY t.chain, t.at, t.rank, t.n
  `)
  for (;;) {
    const rows = await many(tx`FETCH FORWARD 2000 FROM unsealed_rows`, UnsealedRow)
    if (rows.length) await onBatch(rows)
    if (rows.length < UNSEALED_BATCH) break
  }
  await none(tx`CLOSE unsealed_rows`)
}

const Head = z.object({ chain: z.string(), seq: z.string(), hash: z.string() })

/** Locks the heads of `chains` until the transaction ends, creating the missing ones at seq 0. */
export function lockChainHeads(sql: Sql, chains: string[]) {
  return many(
    sql`
      INSERT INTO audit_chain_head AS h (chain, seq, hash)
      SELECT c.chain, 0, '' FROM unnest(${chains}::text[]) AS c (chain)
      ON CONFLICT (chain) DO UPDATE SET seq = h.seq
      RETURNING h.chain, h.seq::text AS seq, h.hash
    `,
    Head,
  )
}

/** Moves each chain's head to its new last seq and hash. */
export function moveChainHeads(sql: Sql, heads: { chain: string; seq: string; hash: string }[]) {
  if (heads.length === 0) return Promise.resolve()
  return none(sql`
    UPDATE audit_chain_head h SET seq = v.seq::bigint, hash = v.hash
    FROM (VALUES ${sql(heads.map((x) => [x.chain, x.seq, x.hash]))}) AS v (chain, seq, hash)
    WHERE h.chain = v.chain
  `)
}

/** Seals rows written without a seal (the service's own rows are sealed as they are written). */
export async function sealRows(
  sql: Sql,
  table: 'change_log' | 'approval_log',
  rows: { id: string; chain: string; seq: string; prev: string; hash: string }[],
) {
  if (rows.length === 0) return 0
  const values = rows.map((r) => [r.id, r.chain, r.seq, r.prev, r.hash])
  return table === 'change_log'
    ? none(sql`
        UPDATE change_log c
        SET audit_chain = v.chain, audit_seq = v.seq::bigint, audit_prev = v.prev, audit_hash = v.hash
        FROM (VALUES ${sql(values)}) AS v (id, chain, seq, prev, hash)
        WHERE c.change_log_id = v.id::bigint AND c.audit_hash IS NULL
      `)
    : none(sql`
        UPDATE approval_log a
        SET audit_chain = v.chain, audit_seq = v.seq::bigint, audit_prev = v.prev, audit_hash = v.hash
        FROM (VALUES ${sql(values)}) AS v (id, chain, seq, prev, hash)
        WHERE a.approval_log_id = v.id::bigint AND a.audit_hash IS NULL
      `)
}

// ---------------------------------------------------------------------------------------------
// The verifier's one read.
// ---------------------------------------------------------------------------------------------

export const TrailEntry = z.object({
  /** `head` for a chain's head, else the row's table. */
  kind: z.enum(['head', 'change_log', 'approval_log']),
  /** The chain the row is sealed in (null: not sealed). */
  chain: z.string().nullable(),
  /** The chain its columns say it belongs to (a head: its own). */
  belongs: z.string(),
  seq: z.string().nullable(),
  id: z.string().nullable(),
  prev: z.string().nullable(),
  hash: z.string().nullable(),
  vacated: z.string().nullable(),
  fields: Fields.nullable(),
})
export type TrailEntry = z.output<typeof TrailEntry>

/**
 * Every head and every sealed or unsealed row of the trail, by chain (in byte order) and seq,
 * unsealed rows first, fetched 1,000 rows at a time from one cursor in one read-only snapshot:
 * memory holds one batch, not the trail, and writes meanwhile cannot look like tampering.
 */
export function readTrail(sql: postgres.Sql, onBatch: (entries: TrailEntry[]) => Promise<void>) {
  return sql.begin('ISOLATION LEVEL REPEATABLE READ READ ONLY', async (tx) => {
    await tx`
      DECLARE audit_trail NO SCROLL CURSOR FOR
      SELECT t.kind, t.chain, t.belongs, t.seq::text AS seq, t.id, t.prev, t.hash, t.vacated, t.fields
      FROM (
        SELECT 'head' AS kind, h.chain, h.chain AS belongs, h.seq, NULL::text AS id, NULL::text AS prev,
               h.hash, NULL::text AS vacated, NULL::json AS fields, 0 AS rank
        FROM audit_chain_head h
        UNION ALL
        SELECT 'change_log', c.audit_chain, ${changeLogChain(tx)}, c.audit_seq, c.change_log_id::text,
               c.audit_prev, c.audit_hash, NULL, ${changeLogFields(tx)}, 1
        FROM change_log c
        UNION ALL
        SELECT 'approval_log', a.audit_chain, ${approvalChain(tx)}, a.audit_seq,
               a.approval_log_id::text, a.audit_prev, a.audit_hash, a.audit_vacated,
               ${approvalFields(tx)}, 1
        FROM approval_log a
      ) t
      ORDER BY t.chain COLLATE "C" NULLS FIRST, t.rank, t.seq, t.id
    `
    for (;;) {
      const rows = await many(tx`FETCH FORWARD 1000 FROM audit_trail`, TrailEntry)
      if (rows.length) await onBatch(rows)
      if (rows.length < 1000) return
    }
  })
}
