import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import {
  decryptApproveNotesForRollback,
  encryptPlaintextApproveNotes,
} from '../src/domain/supplier/approve-note'
import { createLogger } from '../src/logger'
import { useHarness } from './harness'
import { insertSupplier } from './fixtures'
import { ITEMS, ok } from './client'
import { STORAGE, draftBody } from './supplier-data'

/*
 * approveNote is sensitive free text: stored encrypted (approve_note_enc), never in plaintext at
 * rest, logged only as a mask. Notes written before migration 20261123000100 are moved by the
 * service at start-up (and by `npm run approve-notes`), and the migration's down step refuses to
 * lose the encrypted ones.
 */

const MIGRATION = new URL(
  '../db/migrations/20261123000100_approve_note_encrypted.sql',
  import.meta.url,
)

type Body = Record<string, any>

const h = useHarness()

/** Every table and column of the database where this text appears (text, json and arrays). */
async function wherePlaintext(text: string) {
  const columns = await h.sql<{ table_name: string; column_name: string }[]>`
    SELECT c.table_name, c.column_name FROM information_schema.columns c
    JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
    WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'
      AND c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY')
  `
  expect(columns.length).toBeGreaterThan(50)
  // One statement: a probe per column, each stopping at its first hit.
  const probes = columns.map(
    ({ table_name, column_name }) => h.sql`
      (SELECT ${`${table_name}.${column_name}`}::text AS at FROM ${h.sql(table_name)}
       WHERE strpos(${h.sql(column_name)}::text, ${text}) > 0 LIMIT 1)
    `,
  )
  const union = probes.reduce((all, probe) => h.sql`${all} UNION ALL ${probe}`)
  const rows = await h.sql`${union}`
  return rows.map((r) => r.at as string).sort()
}

const stored = async (supplierId: string) => {
  const [row] = await h.sql`
    SELECT approve_note, approve_note_enc, to_char(update_time, 'YYYY-MM-DD HH24:MI:SS.US') AS v
    FROM supplier WHERE supplier_id = ${supplierId}
  `
  return row as { approve_note: string | null; approve_note_enc: string | null; v: string }
}

const noteLogs = async (supplierId: string) =>
  (await h.sql`
    SELECT old_value_masked, new_value_masked FROM change_log
    WHERE supplier_id = ${supplierId} AND field_name = 'approveNote' ORDER BY change_log_id
  `) as unknown as Body[]

describe('approveNote is encrypted at rest', () => {
  it('security: create, update and registration leave no plaintext note anywhere in the database', async () => {
    const first = `Checked by Zhang on site ${Date.now()}, call back before signing`
    const second = `Second visit ${Date.now()}: the licence copy is blurred`
    const body = draftBody({ approveNote: first, licenseImageUrl: `${STORAGE}license.png` })
    const draft = ok(await h.call('POST', ITEMS, { body }))
    const id = draft.supplierId as string
    const created = await stored(id)
    expect(created.approve_note).toBeNull()
    expect(created.approve_note_enc).toMatch(/^v1\./)
    expect(await h.cipher.decrypt(created.approve_note_enc!)).toBe(first)

    const updated = ok(
      await h.call('PUT', `${ITEMS}/${id}`, {
        body: {
          approveNote: second,
          changeReason: 'second visit',
          expectedUpdateTime: draft.updateTime,
        },
      }),
    )
    expect(await h.cipher.decrypt((await stored(id)).approve_note_enc!)).toBe(second)
    const { approveNote: _n, ...subject } = body
    const submitted = ok(
      await h.call('POST', `${ITEMS}/${id}/submit`, {
        body: { ...subject, approveNote: second, expectedUpdateTime: updated.updateTime },
      }),
    )
    expect(submitted.approvalStatus).toBe('APPLIED')

    expect(await wherePlaintext(first)).toEqual([])
    expect(await wherePlaintext(second)).toEqual([])
    // A probe that is at rest in plaintext is found, so the scan itself works.
    expect(await wherePlaintext(body.mainCooperation)).toContain('supplier.main_cooperation')
    expect(await noteLogs(id)).toEqual([
      { old_value_masked: null, new_value_masked: '******' },
      { old_value_masked: '******', new_value_masked: '******' },
    ])
    const detail = ok(await h.call('GET', `${ITEMS}/${id}`))
    expect(JSON.stringify(detail)).not.toContain(second)
  })

  it('happy: clearing the note empties the ciphertext; the same note again is no change (395012)', async () => {
    const note = 'keep an eye on the deposit'
    const draft = ok(await h.call('POST', ITEMS, { body: draftBody({ approveNote: note }) }))
    const id = draft.supplierId as string
    const same = await h.call('PUT', `${ITEMS}/${id}`, {
      body: { approveNote: note, changeReason: 'same', expectedUpdateTime: draft.updateTime },
    })
    expect(same.body).toMatchObject({ code: 395012, success: false })
    ok(
      await h.call('PUT', `${ITEMS}/${id}`, {
        body: { approveNote: null, changeReason: 'resolved', expectedUpdateTime: draft.updateTime },
      }),
    )
    expect(await stored(id)).toMatchObject({ approve_note: null, approve_note_enc: null })
    expect((await noteLogs(id)).at(-1)).toEqual({
      old_value_masked: '******',
      new_value_masked: null,
    })
  })
})

describe('approveNote in logs', () => {
  it('security: the logger redacts approveNote wherever it appears', () => {
    const lines: string[] = []
    const logger = createLogger({ level: 'info', destination: { write: (l) => lines.push(l) } })
    const note = 'APPROVE-NOTE-IN-A-LOG'
    logger.info({ approveNote: note, req: { body: { approveNote: note } } }, 'probe')
    expect(lines).toHaveLength(1)
    expect(lines[0]).not.toContain(note)
    expect(JSON.parse(lines[0])).toMatchObject({
      approveNote: '[REDACTED]',
      req: { body: { approveNote: '[REDACTED]' } },
    })
  })
})

describe('notes written in plaintext before migration 20261123000100', () => {
  /** A supplier as the older release left it: the note in the plaintext column. */
  async function legacySupplier(note: string, extra: { deletedAt?: string } = {}) {
    const s = await insertSupplier(h, { status: 'DRAFT', ...extra })
    await h.sql`UPDATE supplier SET approve_note = ${note} WHERE supplier_id = ${s.supplierId}`
    return s.supplierId
  }

  it('happy: the start-up pass encrypts every plaintext note (soft-deleted drafts too), keeps versions, and is idempotent', async () => {
    // More than one batch (200), one of them a soft-deleted draft.
    const first = await legacySupplier(`legacy note 0 ${Date.now()}`, { deletedAt: 'now' })
    const clones = await h.sql`
      INSERT INTO supplier (full_name, tax_no_enc, tax_no_bidx, tax_no_mask, main_cooperation,
                            approve_note, status, created_by, updated_by)
      SELECT s.full_name || ' ' || n, s.tax_no_enc, md5(random()::text), s.tax_no_mask,
             s.main_cooperation, 'legacy note ' || n || ' ' || ${Date.now()}, 'DRAFT',
             s.created_by, s.updated_by
      FROM supplier s, generate_series(1, 204) AS n
      WHERE s.supplier_id = ${first}
      RETURNING supplier_id::text AS id, approve_note AS note
    `
    const ids = [first, ...clones.map((c) => c.id as string)]
    const notes = [(await stored(first)).approve_note!, ...clones.map((c) => c.note as string)]
    const versions = await Promise.all(ids.map(async (id) => (await stored(id)).v))

    const moved = await encryptPlaintextApproveNotes(h.sql, h.cipher)
    expect(moved).toBeGreaterThanOrEqual(ids.length)
    for (const [i, id] of ids.entries()) {
      const row = await stored(id)
      expect(row.approve_note).toBeNull()
      expect(await h.cipher.decrypt(row.approve_note_enc!)).toBe(notes[i])
      expect(row.v).toBe(versions[i])
    }
    const [left] =
      await h.sql`SELECT count(*)::int AS n FROM supplier WHERE approve_note IS NOT NULL`
    expect(left.n).toBe(0)
    expect(await wherePlaintext(notes[0])).toEqual([])
    expect(await wherePlaintext(notes[204])).toEqual([])
    expect(await encryptPlaintextApproveNotes(h.sql, h.cipher)).toBe(0)
  })

  it('happy: a note not yet moved is compared in plain, and an update moves it out of the plaintext column', async () => {
    const note = `old plaintext note ${Date.now()}`
    const id = await legacySupplier(note)
    const view = ok(await h.call('GET', `${ITEMS}/${id}`))
    const same = await h.call('PUT', `${ITEMS}/${id}`, {
      body: { approveNote: note, changeReason: 'same', expectedUpdateTime: view.updateTime },
    })
    expect(same.body).toMatchObject({ code: 395012 })
    ok(
      await h.call('PUT', `${ITEMS}/${id}`, {
        body: {
          approveNote: 'rewritten',
          changeReason: 'new',
          expectedUpdateTime: view.updateTime,
        },
      }),
    )
    const row = await stored(id)
    expect(row.approve_note).toBeNull()
    expect(await h.cipher.decrypt(row.approve_note_enc!)).toBe('rewritten')
    expect(await noteLogs(id)).toEqual([{ old_value_masked: '******', new_value_masked: '******' }])
    expect(await wherePlaintext(note)).toEqual([])
  })

  it("error: the migration's down step refuses while notes are encrypted; after the rollback pass it runs", async () => {
    const note = `rollback note ${Date.now()}`
    const draft = ok(await h.call('POST', ITEMS, { body: draftBody({ approveNote: note }) }))
    const [up, down] = (await readFile(MIGRATION, 'utf8'))
      .split('-- migrate:down')
      .map((s) => s.replace('-- migrate:up', ''))
    const rolledBack = new Error('rolled back on purpose')
    /** Runs the down step in a transaction that is always rolled back; returns its error. */
    const tryDown = () =>
      h.sql
        .begin(async (tx) => {
          await tx.unsafe(down)
          const [cols] = await tx`
            SELECT count(*)::int AS n FROM information_schema.columns
            WHERE table_name = 'supplier' AND column_name = 'approve_note_enc'
          `
          expect(cols.n).toBe(0)
          // Up again, in the same transaction: the pair is reversible.
          await tx.unsafe(up)
          throw rolledBack
        })
        .catch((e: unknown) => e as Error)

    const refused = await tryDown()
    expect(refused.message).toContain('npm run approve-notes -- decrypt')

    expect(await decryptApproveNotesForRollback(h.sql, h.cipher)).toBeGreaterThanOrEqual(1)
    expect(await stored(draft.supplierId)).toMatchObject({
      approve_note: note,
      approve_note_enc: null,
    })
    expect(await tryDown()).toBe(rolledBack)

    // Forward again: the start-up pass encrypts what the rollback pass put back.
    expect(await encryptPlaintextApproveNotes(h.sql, h.cipher)).toBeGreaterThanOrEqual(1)
    const row = await stored(draft.supplierId)
    expect(row.approve_note).toBeNull()
    expect(await h.cipher.decrypt(row.approve_note_enc!)).toBe(note)
  })
})
