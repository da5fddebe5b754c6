import { Hono } from 'hono'
import { z } from 'zod'
import { changeAccount, createAccounts, setDefaultAccount } from '../domain/account/commands'
import { getSupplierAccount, listSupplierAccounts, PROOF_PERMISSION } from '../domain/account/reads'
import type { ErrorName } from '../errors'
import { authorize } from '../http/auth'
import { commandAccess } from '../domain/lifecycle/actions'
import { ok, resultSchema } from '../http/envelope'
import type { AppEnv } from '../http/types'
import type { Deps } from '../domain/deps'
import { KiB, MiB } from '../http/body-shape'
import { NoQuery, validate } from '../http/validate'
import { answerWrite } from '../http/write'
import {
  AccountParam,
  BankAccountChangeRequest,
  BankAccountSubmitResultVO,
  DefaultAccountRequest,
  SupplierBankAccountBatchCreateRequest,
  SupplierBankAccountVO,
} from '../schemas/account'
import { ApprovalCommandResult, SupplierIdParam } from '../schemas/supplier'

const tags = ['bank account']

/**
 * Business errors every account write can answer; the pipeline's own (duplicate submit,
 * Idempotency-Key) the document adds to every write (COMMON_ERRORS in http/openapi.ts).
 */
const WRITE_ERRORS = [
  'SUPPLIER_NOT_FOUND',
  'OPERATION_NOT_ALLOWED_IN_STATUS',
  'CONCURRENT_MODIFICATION',
] as const satisfies readonly ErrorName[]

/** The account rules C-03, C-19, settlement terms and storage URLs. */
const ACCOUNT_RULE_ERRORS = [
  'ACCOUNT_NO_INVALID',
  'ACCOUNT_DUPLICATED',
  'SETTLEMENT_TERMS_INVALID',
  'STORAGE_URL_UNAUTHORIZED',
] as const satisfies readonly ErrorName[]

/** Bank accounts after registration: SUP-ADM-034 (reads), 035, 036 and 041 (writes). */
export const accountRoutes = (deps: Deps) => {
  const { permissions, logger } = deps
  const app = new Hono<AppEnv>()

  app.get(
    '/items/:supplierId/accounts',
    authorize(permissions, logger, {
      operationId: 'listSupplierAccounts',
      summary: 'SUP-ADM-034: list the bank accounts of a supplier (masked, no proof files)',
      tags,
      permissions: ['supplier:view'],
      response: resultSchema(z.array(SupplierBankAccountVO)),
      errors: ['SUPPLIER_NOT_FOUND'],
    }),
    validate('param', SupplierIdParam),
    validate('query', NoQuery),
    async (c) => ok(c, await listSupplierAccounts(deps, c.req.valid('param').supplierId)),
  )

  app.get(
    '/items/:supplierId/accounts/:accountId',
    authorize(permissions, logger, {
      operationId: 'getSupplierAccount',
      summary: `SUP-ADM-034: one bank account of a supplier (masked; proofFileUrls only with ${PROOF_PERMISSION})`,
      tags,
      permissions: ['supplier:view'],
      response: resultSchema(SupplierBankAccountVO),
      errors: ['SUPPLIER_NOT_FOUND', 'ACCOUNT_NOT_FOUND'],
    }),
    validate('param', AccountParam),
    validate('query', NoQuery),
    async (c) => {
      const { supplierId, accountId } = c.req.valid('param')
      return ok(
        c,
        await getSupplierAccount(deps, supplierId, accountId, {
          adminId: c.get('adminId'),
          requestId: c.get('requestId') ?? null,
        }),
      )
    },
  )

  app.post(
    '/items/:supplierId/accounts/batch',
    authorize(permissions, logger, {
      ...commandAccess('createSupplierAccounts'),
      summary:
        'SUP-ADM-035: add 1..50 bank accounts, each with its own ACCOUNT_CREATE approval (LOCAL_AUTO)',
      tags,
      response: resultSchema(z.array(BankAccountSubmitResultVO)),
      errors: [...WRITE_ERRORS, ...ACCOUNT_RULE_ERRORS],
    }),
    validate('param', SupplierIdParam),
    // 50 accounts of bank name and branch 500 characters (3 KB each escaped), a number of 128
    // bytes and 20 proof URLs of 1,000 characters (120 KB escaped): under 130 KB each, 6.4 MB.
    validate('json', SupplierBankAccountBatchCreateRequest, { body: 8 * MiB }),
    async (c) => {
      const { supplierId } = c.req.valid('param')
      const body = c.req.valid('json')
      return answerWrite(c, deps, { target: supplierId, body }, (ctx) =>
        createAccounts(deps, ctx, supplierId, body),
      )
    },
  )

  app.post(
    '/items/:supplierId/accounts/:accountId/change',
    authorize(permissions, logger, {
      ...commandAccess('changeSupplierAccount'),
      summary:
        'SUP-ADM-036: change a bank account through an ACCOUNT_CHANGE approval (candidate encrypted)',
      tags,
      response: resultSchema(ApprovalCommandResult),
      errors: [
        ...WRITE_ERRORS,
        ...ACCOUNT_RULE_ERRORS,
        'ACCOUNT_NOT_FOUND',
        'VERSION_STALE',
        'NO_ACTUAL_CHANGE',
      ],
    }),
    validate('param', AccountParam),
    // One account's terms (under 130 KB escaped, see the batch) and a reason of 500 characters.
    validate('json', BankAccountChangeRequest, { body: 256 * KiB }),
    async (c) => {
      const { supplierId, accountId } = c.req.valid('param')
      const body = c.req.valid('json')
      return answerWrite(c, deps, { target: `${supplierId}/${accountId}`, body }, (ctx) =>
        changeAccount(deps, ctx, { supplierId, accountId, req: body }),
      )
    },
  )

  app.put(
    '/items/:supplierId/accounts/:accountId/default',
    authorize(permissions, logger, {
      ...commandAccess('setDefaultSupplierAccount'),
      summary: 'SUP-ADM-041: make an ACTIVE bank account the default (the previous one becomes NO)',
      tags,
      response: resultSchema(SupplierBankAccountVO),
      errors: [...WRITE_ERRORS, 'ACCOUNT_NOT_FOUND', 'VERSION_STALE', 'NO_ACTUAL_CHANGE'],
    }),
    validate('param', AccountParam),
    // A version.
    validate('json', DefaultAccountRequest, { body: 4 * KiB }),
    async (c) => {
      const { supplierId, accountId } = c.req.valid('param')
      const body = c.req.valid('json')
      return answerWrite(c, deps, { target: `${supplierId}/${accountId}`, body }, (ctx) =>
        setDefaultAccount(deps, ctx, { supplierId, accountId, req: body }),
      )
    },
  )

  return app
}
