import { z } from 'zod'
import { dateTimeString } from '../schemas/calendar'
import { readLimited, UnreadableAnswer } from './bounded-answer'
import { outboundCall, type CallTrace } from './outbound'

/** What archive asks finance: is everything of this supplier settled? */
export interface ClearanceRequest {
  supplierId: string
  supplierNo: string | null
  /** Our request id, for correlation on the finance side. */
  requestId: string
}

/**
 * Finance's answer, reduced to what archive may act on. Only CLEARED lets a supplier be archived;
 * an unclear or ambiguous answer is NOT_CLEARED (spec rule 3), no answer at all is UNAVAILABLE.
 */
export type ClearanceAnswer =
  | {
      outcome: 'CLEARED'
      clearanceRequestId: string
      /** yyyy-MM-dd HH:mm:ss, as finance stated it. */
      checkedAt: string
      ledgerRevision: string
    }
  | { outcome: 'NOT_CLEARED'; reason: string }
  | { outcome: 'UNAVAILABLE'; reason: string }
  | { outcome: 'NOT_CONNECTED' }

/**
 * The finance clearance port. `check` is a question without side effects on either side, and it
 * never throws: every failure is one of the answers above.
 */
export interface FinanceClearance {
  readonly name: string
  check(request: ClearanceRequest): Promise<ClearanceAnswer>
}

/** The default of this phase: no finance system is connected, so nothing can be cleared. */
export const notConnectedClearance: FinanceClearance = {
  name: 'NOT_CONNECTED',
  check: async () => ({ outcome: 'NOT_CONNECTED' }),
}

/** The largest answer body read; anything longer is not an answer we can trust. */
const MAX_ANSWER_BYTES = 64 * 1024

/**
 * The answer we accept (our contract with finance, the spec being silent):
 * `Result<{ supplierId, cleared, clearanceRequestId, checkedAt, ledgerRevision }>`.
 */
const ClearanceEnvelope = z.object({
  code: z.literal(200),
  success: z.literal(true),
  data: z.object({
    supplierId: z.string(),
    cleared: z.boolean(),
    clearanceRequestId: z.string().min(1).max(128).optional(),
    checkedAt: dateTimeString.optional(),
    ledgerRevision: z.string().min(1).max(64).optional(),
  }),
})

/**
 * HTTP adapter: `POST {url}` with `{ supplierId, supplierNo, requestId }` (bearer token when
 * configured), no redirects, one deadline for the whole exchange. Cleared only on an HTTP 200
 * success envelope about this very supplier with `cleared: true` (the boolean) and all three
 * evidence fields; everything else is refused: 5xx, timeouts and network errors as UNAVAILABLE
 * (retry later), any other answer as NOT_CLEARED.
 */
export function httpFinanceClearance(options: {
  url: string
  token?: string
  timeoutMs: number
  fetch?: typeof fetch
}): FinanceClearance {
  const doFetch = options.fetch ?? fetch
  const ask = async (request: ClearanceRequest, trace: CallTrace): Promise<ClearanceAnswer> => {
    let res: Response
    try {
      res = await doFetch(options.url, {
        method: 'POST',
        redirect: 'error',
        headers: {
          ...trace.headers,
          accept: 'application/json',
          'content-type': 'application/json',
          ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        },
        body: JSON.stringify(request),
        signal: AbortSignal.timeout(options.timeoutMs),
      })
    } catch (err) {
      trace.failed(err instanceof Error ? err.name : 'unknown')
      return { outcome: 'UNAVAILABLE', reason: `finance clearance did not answer: ${message(err)}` }
    }
    const status = res.status
    trace.answered(status)
    let text: string
    try {
      text = await readLimited(res, MAX_ANSWER_BYTES)
    } catch (err) {
      // Cut off or timed out mid-answer: no answer. Too long or not UTF-8: an unclear one.
      trace.failed(err instanceof UnreadableAnswer ? 'unreadable_answer' : 'answer_cut_off')
      if (err instanceof UnreadableAnswer) return notCleared(err.message)
      return { outcome: 'UNAVAILABLE', reason: `finance clearance answer cut off: ${message(err)}` }
    }
    if (status >= 500) {
      return { outcome: 'UNAVAILABLE', reason: `finance clearance answered HTTP ${status}` }
    }
    if (status !== 200) return notCleared(`HTTP ${status}`)
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      return notCleared('the answer is not JSON')
    }
    const parsed = ClearanceEnvelope.safeParse(body)
    if (!parsed.success) return notCleared('the answer is not a success envelope of the contract')
    const { supplierId, cleared, clearanceRequestId, checkedAt, ledgerRevision } = parsed.data.data
    if (supplierId !== request.supplierId) return notCleared('the answer is about another supplier')
    if (!cleared) return notCleared('finance reports unsettled items')
    if (!clearanceRequestId || !checkedAt || !ledgerRevision) {
      return notCleared('cleared without clearanceRequestId, checkedAt and ledgerRevision')
    }
    return { outcome: 'CLEARED', clearanceRequestId, checkedAt, ledgerRevision }
  }
  const call = {
    peer: 'finance-clearance',
    method: 'POST',
    url: options.url,
    template: URL.canParse(options.url) ? new URL(options.url).pathname : '/',
  }
  return {
    name: 'HTTP',
    check: (request) =>
      outboundCall(call, async (trace) => {
        try {
          return await ask(request, trace)
        } catch (err) {
          trace.failed('unreadable_answer')
          return { outcome: 'NOT_CLEARED', reason: `unreadable answer: ${message(err)}` }
        }
      }),
  }
}

const notCleared = (why: string): ClearanceAnswer => ({
  outcome: 'NOT_CLEARED',
  reason: `finance clearance is not confirmed: ${why}`,
})

const message = (err: unknown) =>
  err instanceof Error ? `${err.name}: ${err.message}` : String(err)

/** The adapter the configuration selects: HTTP when a URL is set, else not connected. */
export function financeClearanceFrom(config: {
  financeClearance: { url?: string; token?: string; timeoutMs: number }
}): FinanceClearance {
  const { url, token, timeoutMs } = config.financeClearance
  return url ? httpFinanceClearance({ url, token, timeoutMs }) : notConnectedClearance
}
