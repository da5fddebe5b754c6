import type postgres from 'postgres'
import { readTrail, type TrailEntry } from '../../../sql/audit-trail'
import type { AuditKey } from '../../crypto/audit'
import { sealInput } from './trail'

/*
 * `npm run audit:verify`: walks every chain of the audit trail and names, per broken chain, the
 * first row whose content, order or absence breaks it.
 */

export type FindingKind =
  /** The row's hash is not the keyed hash of what it holds: edited, or its hash forged. */
  | 'content'
  /** An intact row in the wrong place: moved, swapped, duplicated, in another chain. */
  | 'order'
  /** A place of the chain has no row: deleted (the last one too: the head says so). */
  | 'absence'
  /** The chain's head does not name the chain's last row. */
  | 'head'
  /** A row without a seal: written around the service. */
  | 'unsealed'

export interface Finding {
  kind: FindingKind
  chain: string | null
  seq: string | null
  /** The row named (`change_log` or `approval_log`), null for an absent one. */
  table: string | null
  id: string | null
  detail: string
}

export interface VerifyReport {
  /** Rows checked (sealed or not), chains walked. */
  rows: number
  chains: number
  /** The first finding of each broken chain, then every unsealed row (at most `keep`). */
  findings: Finding[]
  /** How many findings there were in all (findings may hold fewer). */
  problems: number
}

type Row = TrailEntry & { kind: 'change_log' | 'approval_log' }

const describe = (r: Row) => `${r.kind} ${r.id}`

/** Places vacated by an approval row's earlier versions: `seq:hash` items. */
function vacatedPlaces(r: Row): { seq: bigint; hash: string }[] {
  if (!r.vacated) return []
  return r.vacated.split(',').flatMap((item) => {
    const [seq, hash] = item.split(':')
    return /^[0-9]+$/.test(seq ?? '') && hash ? [{ seq: BigInt(seq), hash }] : []
  })
}

async function hashAt(
  key: AuditKey,
  r: Row,
  { chain, seq, prev }: { chain: string; seq: bigint; prev: string },
) {
  return key.seal(
    sealInput(r.kind, { chain, seq: seq.toString(), prev }, r.fields ?? [], r.vacated),
  )
}

/** The first thing that breaks one chain, or null when it is whole. */
async function checkChain(
  key: AuditKey,
  chain: string,
  head: TrailEntry | undefined,
  rows: Row[],
): Promise<Finding | null> {
  const finding = (
    kind: FindingKind,
    seq: bigint | string | null,
    r: Row | null,
    detail: string,
  ) => ({
    kind,
    chain,
    seq: seq === null ? null : seq.toString(),
    table: r?.kind ?? null,
    id: r?.id ?? null,
    detail,
  })
  // Each row's own hash, checked at the place it claims, against the link it stores.
  const intact = new Map<Row, boolean>()
  for (const r of rows) {
    const ok =
      r.seq !== null &&
      r.prev !== null &&
      r.hash !== null &&
      (await hashAt(key, r, { chain, seq: BigInt(r.seq), prev: r.prev })) === r.hash
    intact.set(r, ok)
  }
  const broken = (r: Row) =>
    finding('content', r.seq, r, 'its hash does not match its content (edited, or its hash forged)')
  const unplaced = rows.find((r) => r.seq === null || r.prev === null || r.hash === null)
  if (unplaced) return broken(unplaced)

  const at = new Map<bigint, Row[]>()
  const vacated = new Map<bigint, { hash: string; by: Row }>()
  for (const r of rows) {
    const seq = BigInt(r.seq!)
    at.set(seq, [...(at.get(seq) ?? []), r])
    for (const v of vacatedPlaces(r)) {
      vacated.set(v.seq, { hash: v.hash, by: r })
    }
  }
  if (!head) {
    return finding('head', null, rows[0] ?? null, 'the chain has rows but no head')
  }
  const last = BigInt(head.seq ?? '0')
  const end = [...at.keys(), ...vacated.keys(), last].reduce((a, b) => (a > b ? a : b), 0n)
  let expected = ''
  let before: Row | null = null
  for (let seq = 1n; seq <= end; seq++) {
    const here = at.get(seq) ?? []
    const claim = vacated.get(seq)
    if (seq > last) {
      const r = here[0] ?? claim?.by
      if (r && !intact.get(r)) return broken(r)
      return finding('order', seq, r ?? null, `it lies after the chain's head (seq ${last})`)
    }
    if (here.length === 0) {
      if (claim) {
        if (!intact.get(claim.by)) return broken(claim.by)
        expected = claim.hash
        continue
      }
      const after = before ? ` (after ${describe(before)})` : ' (the first row)'
      return finding('absence', seq, null, `no row holds this place${after}: deleted`)
    }
    const forged = here.find((r) => !intact.get(r))
    if (forged) {
      // An intact row moved elsewhere fails here only because its place is part of its hash:
      // a place where it does hash right is where it was sealed.
      for (let from = 1n; from <= end; from++) {
        if (
          from !== seq &&
          (await hashAt(key, forged, { chain, seq: from, prev: forged.prev! })) === forged.hash
        ) {
          return finding('order', seq, forged, `it was sealed at seq ${from} and moved here`)
        }
      }
      return broken(forged)
    }
    if (here.length > 1) return finding('order', seq, here[1], `two rows hold this place`)
    const r = here[0]
    if (claim) return finding('order', seq, r, `${describe(claim.by)} says it left this place`)
    if (r.belongs !== chain) return finding('order', seq, r, `its columns put it in ${r.belongs}`)
    if (r.prev !== expected) {
      return finding('order', seq, r, `it does not follow the row before it`)
    }
    expected = r.hash!
    before = r
  }
  if (head.hash !== expected) {
    return finding('head', last, null, `the head's hash is not the hash of the row at seq ${last}`)
  }
  return null
}

/**
 * Walks the whole trail (one chain in memory at a time) and reports what it checked and, per
 * broken chain, the first row that breaks it; unsealed rows are findings too.
 */
export async function verifyAuditTrail(
  sql: postgres.Sql,
  key: AuditKey,
  options: { keep?: number } = {},
): Promise<VerifyReport> {
  const keep = options.keep ?? 100
  const report: VerifyReport = { rows: 0, chains: 0, findings: [], problems: 0 }
  const found = (f: Finding) => {
    report.problems++
    if (report.findings.length < keep) report.findings.push(f)
  }
  let chain: string | null = null
  let head: TrailEntry | undefined
  let rows: Row[] = []
  const flush = async () => {
    if (chain === null) return
    report.chains++
    const f = await checkChain(key, chain, head, rows)
    if (f) found(f)
  }
  await readTrail(sql, async (entries) => {
    for (const e of entries) {
      if (e.kind !== 'head') report.rows++
      if (e.chain === null) {
        const r = e as Row
        found({
          kind: e.hash === null ? 'unsealed' : 'content',
          chain: null,
          seq: e.seq,
          table: r.kind,
          id: r.id,
          detail:
            e.hash === null
              ? `it has no seal (it belongs in ${e.belongs}): written around the service, or before the audit trail and not sealed yet`
              : 'its seal names no chain',
        })
        continue
      }
      if (e.chain !== chain) {
        await flush()
        chain = e.chain
        head = undefined
        rows = []
      }
      if (e.kind === 'head') head = e
      else rows.push(e as Row)
    }
  })
  await flush()
  return report
}

/** One line per finding, as `npm run audit:verify` prints them. */
export function describeFinding(f: Finding): string {
  const row = f.table ? `${f.table} ${f.id}` : 'missing row'
  const place = f.chain ? ` in ${f.chain}${f.seq ? ` at seq ${f.seq}` : ''}` : ''
  return `${f.kind}: ${row}${place}: ${f.detail}`
}
