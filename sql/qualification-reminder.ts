import { z } from 'zod'
import { many, type Sql } from './db'

const DueReminder = z.object({
  supplierId: z.string(),
  qualificationId: z.string(),
  qualificationType: z.string(),
  expiryDate: z.string(),
  kind: z.enum(['EXPIRING', 'EXPIRED']),
  warningDays: z.number().nullable(),
})
export type DueReminder = z.output<typeof DueReminder>

/** Where a sweep's previous batch ended, in the order reminders are claimed. */
export interface ReminderCursor {
  expiryDate: string
  qualificationId: string
}

/**
 * Claims up to `limit` reminders due on `today` and not recorded yet, and returns them: EXPIRED
 * for a qualification whose expiry date has passed, EXPIRING for one within its rules' largest
 * warningDays (the live rules of the supplier's live types naming its type). Live qualifications
 * with a date, of live suppliers that are not archived. The key (qualification, expiry date, kind)
 * is unique: a reminder another sweep claimed is skipped here (ON CONFLICT), so whoever inserted
 * the key records its event, in the same transaction, and nobody else ever does.
 *
 * Claimed in order of (expiry date, qualification), after `after` (a sweep's previous batch):
 * the index walk passes over the reminders recorded by earlier sweeps (before reading the
 * supplier and its rules, which cost most) and ends at the widest warning window. At 1,000,000
 * seeded suppliers a batch that re-read every due qualification and stopped at none takes 4.3 s,
 * and the last batch of a backlog times out (docs/events.md).
 */
export function claimDueReminders(
  sql: Sql,
  today: string,
  limit: number,
  after: ReminderCursor | null = null,
) {
  return many(
    sql`
      WITH open AS (
        SELECT q.qualification_id, q.supplier_id, q.qual_type, q.expiry_date, k.kind
        FROM supplier_qualification q
        CROSS JOIN LATERAL (
          SELECT CASE WHEN q.expiry_date < ${today}::date THEN 'EXPIRED' ELSE 'EXPIRING' END AS kind
        ) k
        WHERE q.deleted_at IS NULL AND q.expiry_date IS NOT NULL
          AND q.expiry_date <= ${today}::date + (
            SELECT greatest(coalesce(max(r.warning_days), 0), 0) FROM qualification_rule r
            WHERE r.deleted_at IS NULL)
          AND (q.expiry_date, q.qualification_id)
              > (${after?.expiryDate ?? '-infinity'}::text::date, ${after?.qualificationId ?? '0'}::bigint)
          AND NOT EXISTS (
            SELECT 1 FROM qualification_reminder m
            WHERE m.qualification_id = q.qualification_id AND m.expiry_date = q.expiry_date
              AND m.kind = k.kind)
        ORDER BY q.expiry_date, q.qualification_id
        -- A fence: the planner would otherwise test "recorded" last, after the costly joins.
        OFFSET 0
      ),
      fresh AS (
        SELECT o.qualification_id, o.supplier_id, o.qual_type, o.expiry_date, o.kind, g.warning_days
        FROM open o
        JOIN supplier s ON s.supplier_id = o.supplier_id AND s.deleted_at IS NULL
                       AND s.status <> 'ARCHIVED'
        LEFT JOIN LATERAL (
          SELECT max(r.warning_days) AS warning_days
          FROM qualification_rule r
          JOIN supplier_type t ON t.supplier_id = s.supplier_id AND t.type_code = r.type_code
                              AND t.deleted_at IS NULL
          WHERE r.qual_type = o.qual_type AND r.deleted_at IS NULL
        ) g ON true
        WHERE o.expiry_date < ${today}::date OR o.expiry_date <= ${today}::date + g.warning_days
        ORDER BY o.expiry_date, o.qualification_id
        LIMIT ${limit}
      ),
      claimed AS (
        INSERT INTO qualification_reminder (qualification_id, expiry_date, kind)
        SELECT qualification_id, expiry_date, kind FROM fresh
        ON CONFLICT DO NOTHING
        RETURNING qualification_id, expiry_date, kind
      )
      SELECT f.supplier_id::text AS "supplierId", f.qualification_id::text AS "qualificationId",
             f.qual_type AS "qualificationType", to_char(f.expiry_date, 'YYYY-MM-DD') AS "expiryDate",
             f.kind, f.warning_days AS "warningDays"
      FROM claimed c
      JOIN fresh f ON f.qualification_id = c.qualification_id AND f.expiry_date = c.expiry_date
                  AND f.kind = c.kind
      ORDER BY f.supplier_id, f.expiry_date, f.qualification_id
    `,
    DueReminder,
  )
}
