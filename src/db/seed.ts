import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import type postgres from 'postgres'

// Two folders below the repository root, like the production bundle `dist/node/main.js`, so the
// same relative path holds from both (npm run build).
const seedFile = (name: string) =>
  fileURLToPath(new URL(`../../db/seed/${name}.sql`, import.meta.url))

/** Dictionary items and resource labels every deployment needs; idempotent, run at start-up. */
export async function loadReferenceData(sql: postgres.Sql): Promise<void> {
  await sql.unsafe(await readFile(seedFile('reference'), 'utf8'))
}

/** The demo's qualification rules (db/seed/demo-qualification-rules.sql); idempotent. */
export async function loadDemoQualificationRules(sql: postgres.Sql | postgres.TransactionSql) {
  await sql.unsafe(await readFile(seedFile('demo-qualification-rules'), 'utf8'))
}

/**
 * Loads db/seed/demo.sql, after the demo's qualification rules, once per database (the files
 * themselves are idempotent too).
 */
export async function loadDemoData(sql: postgres.Sql, demoAdminId: string): Promise<boolean> {
  const text = await readFile(seedFile('demo'), 'utf8')
  return sql.begin(async (tx) => {
    const claimed = await tx`
      INSERT INTO seed_run (seed_name) VALUES ('demo') ON CONFLICT (seed_name) DO NOTHING RETURNING seed_name
    `
    if (claimed.length === 0) return false
    await tx`SELECT set_config('app.demo_admin_id', ${demoAdminId}, true)`
    await loadDemoQualificationRules(tx)
    await tx.unsafe(text)
    return true
  })
}
