import { randomUUID } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { grant } from '../sql/admin'
import { ALL_PERMISSIONS, expectWholeAuditTrail } from './harness'
import { postgresBinaries, startReplicaSet, type ReplicaSet } from './replicas'
import { devHeaders, request, startService, type Service } from './service'
import { draftBody } from './supplier-data'

/**
 * A primary failover under a write load, through the real service process: DATABASE_URL names
 * the primary and its standby with target_session_attrs=read-write; the primary is stopped as a
 * crash (pg_ctl stop -m immediate) and the standby promoted (pg_promote()). Clusters of the
 * test's own (test/replicas.ts), never the machine's PostgreSQL.
 *
 * Figures are printed as `failover:` lines; docs/replicas.md quotes them.
 */

const embedded = inject('database').kind === 'embedded'
const ON_EMBEDDED =
  'streaming replication needs PostgreSQL servers (initdb, pg_basebackup); the embedded engine has neither'

/** Writes resume within this long after the promotion (the documented bound, generous). */
const RESUME_BOUND_MS = 15_000
/** A failed write answers one of these: unavailable, outcome unknown, dependency unavailable. */
const HONEST_FAILURES = [395030, 395033, 395039]

interface Answer {
  key: string
  fullName: string
  sentAt: number
  answeredAt: number
  status: number
  code: number | undefined
  supplierId: string | undefined
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

function failoverSuite(mode: 'synchronous' | 'asynchronous') {
  describe(`failover with ${mode} replication`, () => {
    let set: ReplicaSet
    let service: Service
    let url: string
    const adminId = '9007199254742001'

    beforeAll(async () => {
      if (embedded) return
      if (!postgresBinaries()) throw new Error('PostgreSQL server binaries not found (PG_BINDIR)')
      set = await startReplicaSet()
      // Commits wait for the standby's flush (synchronous_commit=on) when synchronous.
      if (mode === 'synchronous') await set.synchronous('standby1', 'on')
      url = `postgres://postgres@${set.hosts}/test?sslmode=disable&target_session_attrs=read-write`
      service = await startService({ DATABASE_URL: url, REQUEST_TIMEOUT_MS: '5000' })
      await service.ready
      await grant(set.primary.admin('test'), adminId, {
        permissions: ALL_PERMISSIONS,
        roles: ['ADMIN'],
      })
    }, 120_000)

    afterAll(async () => {
      await service?.stop()
      await set?.stop()
    })

    it('resumes writes on the promoted standby; no success for a write that is not there', async (ctx) => {
      if (embedded) ctx.skip(ON_EMBEDDED)
      const headers = await devHeaders(adminId)
      const answers: Answer[] = []
      const write = async (key: string = randomUUID(), body = draftBody()) => {
        const sentAt = performance.now()
        const res = await request(`${service.base}/admin/supplier/items`, {
          method: 'POST',
          headers: { ...headers, 'idempotency-key': key },
          body: JSON.stringify(body),
        })
        const answer: Answer = {
          key,
          fullName: body.fullName,
          sentAt,
          answeredAt: performance.now(),
          status: res.status,
          code: res.body?.code,
          supplierId: res.body?.data?.supplierId,
        }
        return { answer, body }
      }
      const bodies = new Map<string, Record<string, unknown>>()
      let stop = false
      const writers = Array.from({ length: 4 }, async () => {
        while (!stop && !service.hasExited()) {
          const { answer, body } = await write()
          bodies.set(answer.key, body)
          answers.push(answer)
        }
      })

      // Load first, then the crash.
      while (answers.filter((a) => a.code === 200).length < 20) await sleep(50)
      const stoppedAt = performance.now()
      await set.primary.stop('immediate')
      const ackedBefore = answers.filter((a) => a.code === 200 && a.answeredAt <= stoppedAt)
      // An operator or a failover manager notices, then promotes.
      await sleep(1_000)
      const promoter = set.standbys[0].admin('test')
      await promoter`SELECT pg_promote(true, 60)`
      const promotedAt = performance.now()
      await promoter.end()

      // Until writes sent after the promotion have succeeded for a while, or the bound passes.
      const firstSuccess = () =>
        answers.find((a) => a.code === 200 && a.sentAt > stoppedAt && a.answeredAt > promotedAt)
      while (!firstSuccess() && performance.now() - promotedAt < RESUME_BOUND_MS) await sleep(50)
      const resumed = firstSuccess()
      if (resumed) await sleep(2_000)
      stop = true
      await Promise.all(writers)

      expect(service.hasExited(), service.output().slice(-2000)).toBe(false)
      expect(resumed, 'no write succeeded after the promotion').toBeDefined()
      const resumeMs = resumed!.answeredAt - promotedAt
      const outageMs = resumed!.answeredAt - stoppedAt
      expect(resumeMs).toBeLessThan(RESUME_BOUND_MS)

      // Every answer is an envelope: success, or an honest failure.
      const codes = new Map<number | undefined, number>()
      for (const a of answers) codes.set(a.code, (codes.get(a.code) ?? 0) + 1)
      for (const a of answers) expect([200, ...HONEST_FAILURES]).toContain(a.code)

      // The new primary: which acknowledged suppliers it has.
      const survivor = set.standbys[0].admin('test')
      const acked = answers.filter((a) => a.code === 200)
      const present = new Set(
        (
          await survivor<{ id: string }[]>`
            SELECT supplier_id::text AS id FROM supplier
            WHERE supplier_id = ANY(${acked.map((a) => a.supplierId!)}::bigint[]) AND deleted_at IS NULL`
        ).map((r) => r.id),
      )
      const lost = acked.filter((a) => !present.has(a.supplierId!))
      const lostBefore = ackedBefore.filter((a) => !present.has(a.supplierId!))

      // A write whose outcome was unknown, retried with its key, is there exactly once.
      const unknown = answers.filter((a) => a.code === 395033)
      for (const a of unknown) {
        const { answer } = await write(a.key, bodies.get(a.key)!)
        expect(answer.code, `retry of ${a.key}`).toBe(200)
        const rows = await survivor`
          SELECT 1 FROM supplier WHERE full_name = ${a.fullName} AND deleted_at IS NULL`
        expect(rows.length).toBe(1)
      }

      // No statement reached a read-only server: the standby refused nothing before promotion.
      const standbyLog = await readFile(`${set.standbys[0].dataDir}.log`, 'utf8').catch(() => '')
      expect(standbyLog).not.toMatch(/read-only transaction/)
      expect(service.output()).not.toMatch(/read-only transaction|25006/)

      // Time to answer an acknowledged write before the crash: the cost of waiting for the standby.
      const times = ackedBefore.map((a) => a.answeredAt - a.sentAt).sort((x, y) => x - y)
      const median = times[Math.floor(times.length / 2)]
      process.stdout.write(
        `failover: ${mode}: ${answers.length} writes (median ${Math.round(median)} ms before the crash), answers ${JSON.stringify(Object.fromEntries(codes))}; ` +
          `primary stopped → first success ${Math.round(outageMs)} ms (promotion → first success ` +
          `${Math.round(resumeMs)} ms); acknowledged ${acked.length} (${ackedBefore.length} before ` +
          `the stop), missing after failover ${lost.length} (${lostBefore.length} of those before ` +
          `the stop); outcome unknown ${unknown.length}, each present once after a retry\n`,
      )
      if (mode === 'synchronous') {
        // Every commit waited for the standby's flush: nothing acknowledged is gone.
        expect(lost.map((a) => a.supplierId)).toEqual([])
        await expectWholeAuditTrail(survivor, undefined, 'the audit trail on the new primary')
      } else {
        // Asynchronous: what is lost is at most what was acknowledged just before the crash.
        for (const a of lost) expect(a.sentAt).toBeLessThan(stoppedAt)
      }
      await survivor.end()

      // The crashed primary comes back demoted: a standby of the new primary, first in the URL.
      // A fresh service (its pool's connections all try the first host first) writes, and every
      // write lands on the new primary.
      await set.demote(set.primary, set.standbys[0])
      await service.stop()
      service = await startService({ DATABASE_URL: url, REQUEST_TIMEOUT_MS: '5000' })
      await service.ready
      const after = await Promise.all(Array.from({ length: 8 }, () => write()))
      expect(after.map(({ answer }) => answer.code)).toEqual(Array(8).fill(200))
      const demotedLog = await readFile(`${set.primary.dataDir}.log`, 'utf8')
      const tried = demotedLog
        .split('\n')
        .filter((l) => /connection authorized.*supplier-admin/.test(l))
      expect(tried.length, 'the pool never tried the demoted server').toBeGreaterThan(0)
      expect(demotedLog).not.toMatch(/read-only transaction/)
      expect(service.output()).not.toMatch(/read-only transaction|25006/)
    }, 180_000)
  })
}

failoverSuite('synchronous')
failoverSuite('asynchronous')
