import { z } from 'zod'
import { COMPLIANCE_STATES, MATCH_REASONS } from './vocabulary'

/**
 * `data` of a 395006 answer: how many live suppliers look like the same company, which and why
 * (for callers who may see suppliers), and the token that confirms them. The
 * domain code that fails with it is type-checked against this schema (see `fail`).
 */
export const NearDuplicateConfirmation = z
  .object({
    candidateCount: z.int().min(1).describe('how many live suppliers look like the same company'),
    candidates: z
      .array(
        z.object({
          supplierId: z.string(),
          supplierNo: z.string().nullable(),
          fullName: z.string(),
          status: z.string(),
          similarity: z
            .number()
            .describe('how likely the same company, 0..1 (compared with DUPLICATE_NAME_THRESHOLD)'),
          reason: z
            .enum(MATCH_REASONS)
            .describe('what matched: the trade name, with the region, or written differently'),
          explanation: z.string().describe('the reason in words, naming the parts that matched'),
        }),
      )
      .optional()
      .describe('strongest first, at most 20; only for callers holding supplier:view'),
    duplicateConfirmToken: z.string().describe('send it back to proceed despite the candidates'),
    expiresAt: z.string().describe('ISO 8601 instant after which the token is refused'),
  })
  .meta({ id: 'NearDuplicateConfirmation' })

/**
 * `data` of a 395008 answer: the required qualifications that are missing or expired (C-09).
 * Registration (submit, apply) lists each missing type with the supplier types requiring it;
 * the status guards (resume, unfreeze) list each offending type/qualification with its state.
 */
export const MissingQualifications = z
  .object({
    missing: z.array(
      z.union([
        z.object({
          qualType: z.string(),
          typeCodes: z.array(z.string()).describe('the supplier types that require it'),
        }),
        z.object({
          typeCode: z.string().describe('the supplier type that requires it'),
          qualType: z.string(),
          state: z.enum(COMPLIANCE_STATES),
        }),
      ]),
    ),
  })
  .meta({ id: 'MissingQualifications' })

/** `data` of a 500 answer: only the request id, to quote when reporting the fault. */
export const InternalErrorData = z
  .object({ requestId: z.string() })
  .meta({ id: 'InternalErrorData' })

/**
 * The one error catalog. Transport-free: the HTTP layer maps an AppError to the envelope.
 * Protocol codes (400, 401, 404, 405, 415, 500) mirror HTTP; business codes live in 395001..395039.
 */
export const PROTOCOL_ERRORS = {
  BAD_REQUEST: { code: 400, message: 'invalid parameter' },
  UNAUTHORIZED: { code: 401, message: 'not authenticated or login expired' },
  NOT_FOUND: { code: 404, message: 'no such route' },
  METHOD_NOT_ALLOWED: { code: 405, message: 'this path does not serve this method (see Allow)' },
  UNSUPPORTED_MEDIA_TYPE: {
    code: 415,
    message: 'the body must be JSON, sent with Content-Type: application/json',
  },
  INTERNAL: { code: 500, message: 'internal error', data: InternalErrorData },
} as const

export const SUPPLIER_ERRORS = {
  SUPPLIER_NOT_FOUND: { code: 395001, message: 'supplier does not exist' },
  PERMISSION_DENIED: { code: 395002, message: 'permission denied' },
  VERSION_STALE: {
    code: 395003,
    message: 'the record was changed since you loaded it (expectedUpdateTime is stale)',
  },
  TAX_NO_DUPLICATE: {
    code: 395004,
    message: 'tax number is already used by another supplier (C-02)',
  },
  SUPPLIER_STATUS_TRANSITION_INVALID: {
    code: 395005,
    message: 'status transition not declared in the state machine',
  },
  NEAR_DUPLICATE_CONFIRM_REQUIRED: {
    code: 395006,
    message: 'similar suppliers exist: confirm with duplicateConfirmToken',
    data: NearDuplicateConfirmation,
  },
  LICENSE_IMAGE_REQUIRED: { code: 395007, message: 'licence image is required at submit (C-06)' },
  QUALIFICATIONS_MISSING: {
    code: 395008,
    message: 'required qualifications are missing or expired (C-09)',
    data: MissingQualifications,
  },
  FIELD_NOT_EDITABLE: { code: 395009, message: 'field cannot be changed in the current status' },
  SUPPLIER_TYPE_INVALID: { code: 395010, message: 'supplier type is unknown or disabled' },
  CHILD_NOT_OWNED: { code: 395011, message: 'referenced item does not belong to this supplier' },
  NO_ACTUAL_CHANGE: { code: 395012, message: 'nothing changed' },
  DUPLICATE_SUBMIT: { code: 395013, message: 'the same request was just submitted; wait a moment' },
  CONCURRENT_MODIFICATION: {
    code: 395014,
    message: 'concurrent change detected: reload and retry',
  },
  ACCOUNT_NO_INVALID: { code: 395015, message: 'account number is malformed (C-03)' },
  ACCOUNT_DUPLICATED: {
    code: 395016,
    message: 'account number is already a valid account of another supplier or repeated (C-19)',
  },
  SETTLEMENT_TERMS_INVALID: { code: 395017, message: 'settlement terms are inconsistent' },
  STORAGE_URL_UNAUTHORIZED: { code: 395018, message: 'URL is not on an authorized storage prefix' },
  APPROVAL_CONTROL_ID_MISSING: {
    code: 395019,
    message: 'a required approval control id is missing from configuration',
  },
  ACCOUNT_NOT_FOUND: { code: 395020, message: 'bank account does not exist' },
  OPERATION_NOT_ALLOWED_IN_STATUS: {
    code: 395021,
    message: 'operation not allowed in the current status',
  },
  RELATION_CONFLICT: { code: 395022, message: 'resource relation changed or conflicts' },
  RELATION_NOT_FOUND: { code: 395023, message: 'resource relation does not exist' },
  SUPPLIER_NOT_ELIGIBLE: {
    code: 395024,
    message: 'supplier is not eligible for a new resource relation',
  },
  APPROVAL_APPLY_FAILED: { code: 395025, message: 'approval result could not be applied' },
  APPROVAL_SCHEMA_UNSUPPORTED: {
    code: 395026,
    message: 'unsupported approval snapshot schema version',
  },
  IDEMPOTENCY_KEY_REUSED: {
    code: 395027,
    message: 'Idempotency-Key was already used with a different request',
  },
  IDEMPOTENCY_IN_PROGRESS: {
    code: 395028,
    message: 'a request with this Idempotency-Key is still being processed',
  },
  APPROVAL_NOT_FOUND: { code: 395029, message: 'approval record does not exist' },
  DATABASE_UNAVAILABLE: {
    code: 395030,
    message: 'the database is temporarily unavailable; retry later',
  },
  RESOURCE_NOT_FOUND: { code: 395031, message: 'resource does not exist or is deleted' },
  WRITE_OUTCOME_UNKNOWN: {
    code: 395033,
    message:
      'the outcome of this write is unknown: its commit was sent but not confirmed; a retry with the same Idempotency-Key is safe',
  },
  ARCHIVE_CLEARANCE_UNAVAILABLE: {
    code: 395032,
    message: 'archive refused: finance clearance provider is not connected',
  },
  RESOURCE_MODULE_UNSUPPORTED: { code: 395034, message: 'unsupported resource module' },
  ARCHIVE_NOT_CLEARED: {
    code: 395035,
    message: 'archive refused: finance clearance did not confirm that everything is settled',
  },
  DEPENDENCY_UNAVAILABLE: {
    code: 395039,
    message: 'a dependency is unavailable or answered incompletely; retry later',
  },
} as const

export const ERRORS = { ...PROTOCOL_ERRORS, ...SUPPLIER_ERRORS }
export type ErrorName = keyof typeof ERRORS
/**
 * A catalog entry: its code, its default message and, for the codes whose answers carry data,
 * the zod schema of that data (every other failure answers `data: null`).
 */
export interface CatalogEntry {
  readonly code: number
  readonly message: string
  readonly data?: z.ZodType
}
type Entries = typeof ERRORS
/** What `data` a failure with this name carries: null unless its entry declares a schema. */
export type ErrorData<N extends ErrorName> = Entries[N] extends { data: z.ZodType }
  ? z.input<Entries[N]['data']>
  : never

export const SUPPLIER_CODE_RANGE = { min: 395001, max: 395039 } as const

/** Fails fast (at start-up and in a test) when a supplier code repeats or leaves its range. */
export function assertCatalog(catalog: Record<string, { code: number }> = SUPPLIER_ERRORS): void {
  const seen = new Map<number, string>()
  for (const [name, { code }] of Object.entries(catalog)) {
    if (code < SUPPLIER_CODE_RANGE.min || code > SUPPLIER_CODE_RANGE.max) {
      throw new Error(
        `error ${name} has code ${code} outside ${SUPPLIER_CODE_RANGE.min}..${SUPPLIER_CODE_RANGE.max}`,
      )
    }
    const twin = seen.get(code)
    if (twin) throw new Error(`errors ${twin} and ${name} share code ${code}`)
    seen.set(code, name)
  }
}

/** A business failure: carries a catalog entry, an optional precise message and optional data. */
export class AppError extends Error {
  constructor(
    readonly entry: CatalogEntry,
    message?: string,
    readonly data: unknown = null,
  ) {
    super(message ?? entry.message)
    this.name = 'AppError'
  }

  get code(): number {
    return this.entry.code
  }
}

/**
 * Throws the catalog error `name`; `data` is allowed (and type-checked) only where the entry
 * declares its schema. A function declaration with a `never` return type, so that
 * `if (!row) fail('…')` narrows `row` for the code after it.
 */
export function fail<N extends ErrorName>(name: N, message?: string, data?: ErrorData<N>): never {
  throw new AppError(ERRORS[name], message, data ?? null)
}
