import type postgres from 'postgres'
import {
  lockEncryptedApproveNotes,
  lockPlaintextApproveNotes,
  storeApproveNoteEncrypted,
  storeApproveNotePlaintext,
} from '../../../sql/supplier'
import type { SensitiveCipher } from '../../crypto/sensitive'

/** Rows per transaction: small, so a replica serving requests meanwhile never waits long. */
const BATCH = 200

/**
 * Moves every approveNote still stored in plaintext (written before migration 20261123000100)
 * into approve_note_enc, emptying the plaintext column; returns how many it moved. Idempotent,
 * safe to run while the service serves and from several replicas at once (each batch locks its
 * rows and skips the ones another session holds). Runs at every start before serving, and as
 * `npm run approve-notes`.
 */
export async function encryptPlaintextApproveNotes(
  sql: postgres.Sql,
  cipher: Pick<SensitiveCipher, 'encrypt'>,
): Promise<number> {
  let moved = 0
  for (;;) {
    const done = await sql.begin(async (tx) => {
      const rows = await lockPlaintextApproveNotes(tx, BATCH)
      for (const row of rows) {
        moved += await storeApproveNoteEncrypted(tx, row.supplierId, await cipher.encrypt(row.note))
      }
      return rows.length < BATCH
    })
    if (done) return moved
  }
}

/**
 * The way back for a rollback of migration 20261123000100 (whose down step refuses while any
 * note is encrypted): every note back in the plaintext column the older release reads.
 */
export async function decryptApproveNotesForRollback(
  sql: postgres.Sql,
  cipher: Pick<SensitiveCipher, 'decrypt'>,
): Promise<number> {
  let moved = 0
  for (;;) {
    const done = await sql.begin(async (tx) => {
      const rows = await lockEncryptedApproveNotes(tx, BATCH)
      for (const row of rows) {
        moved += await storeApproveNotePlaintext(tx, row.supplierId, await cipher.decrypt(row.note))
      }
      return rows.length < BATCH
    })
    if (done) return moved
  }
}
