import { writeFile, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import type { TestProject } from 'vitest/node'
import { startEmbedded } from '../src/db/embedded'
import { migrate } from '../src/db/migrate'
import { loadReferenceData } from '../src/db/seed'
import { connect } from '../sql/db'

declare module 'vitest' {
  export interface ProvidedContext {
    database:
      | { kind: 'embedded'; dumpPath: string }
      | {
          kind: 'server'
          /** Where databases are made and dropped: PostgreSQL itself. */
          adminUrl: string
          /** Where the tests connect: the same server, or a pooler in front of it. */
          poolUrl: string
          template: string
          pooler: 'none' | 'transaction'
        }
  }
}

/**
 * Migrates one template database per run; every test file then gets its own copy: a PGlite
 * loaded from the template's dump, or `CREATE DATABASE … TEMPLATE` on a real server.
 */
export default async function setup(project: TestProject) {
  const poolUrl = process.env.DATABASE_URL
  // DATABASE_URL may be a pooler (PgBouncer; DATABASE_POOLER=transaction tells the service) in
  // front of DATABASE_DIRECT_URL: databases are made, migrated and dropped on the server itself,
  // since CREATE DATABASE … TEMPLATE needs a template that no pooled connection holds open.
  const pooler = process.env.DATABASE_POOLER === 'transaction' ? 'transaction' : 'none'
  const serverUrl = process.env.DATABASE_DIRECT_URL || poolUrl
  if (serverUrl && poolUrl) {
    const template = `supplier_test_template_${process.pid}`
    const admin = postgres(serverUrl, { max: 1, onnotice: () => {} })
    // Databases left by runs that were killed before their teardown (a day old or more).
    const stale = await admin<{ datname: string }[]>`
      SELECT datname FROM pg_database
      WHERE datname LIKE 'supplier\_test\_%' AND (pg_stat_file('base/' || oid || '/PG_VERSION')).modification < now() - interval '1 day'
    `.catch(() => [])
    for (const { datname } of stale)
      await admin.unsafe(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`)
    await admin.unsafe(`DROP DATABASE IF EXISTS ${template}`)
    await admin.unsafe(`CREATE DATABASE ${template}`)
    const url = new URL(serverUrl)
    url.pathname = `/${template}`
    await migrate(url.toString())
    const sql = connect({ url: url.toString(), max: 1, timezone: 'UTC' })
    await loadReferenceData(sql)
    await sql.end()
    project.provide('database', { kind: 'server', adminUrl: serverUrl, poolUrl, template, pooler })
    return async () => {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${template}`)
      await admin.end()
    }
  }
  const dir = await mkdtemp(join(tmpdir(), 'supplier-test-'))
  const db = await startEmbedded({})
  await migrate(db.url)
  const sql = connect({ url: db.url, max: 1, timezone: 'UTC' })
  await loadReferenceData(sql)
  await sql.end()
  const dumpPath = join(dir, 'template.tar.gz')
  await writeFile(dumpPath, Buffer.from(await (await db.dump()).arrayBuffer()))
  await db.stop()
  project.provide('database', { kind: 'embedded', dumpPath })
  return () => rm(dir, { recursive: true, force: true })
}
