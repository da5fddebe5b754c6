import { Hono } from 'hono'
import { z } from 'zod'
import { getSupplierAccount, listSupplierAccounts, PROOF_PERMISSION } from '../domain/account/reads'
import { authorize } from '../http/auth'
import { ok, resultSchema } from '../http/envelope'
import type { AppEnv, Deps } from '../http/types'
import { validate } from '../http/validate'
import { AccountParam, SupplierBankAccountVO } from '../schemas/account'
import { SupplierIdParam } from '../schemas/supplier'

const tags = ['bank account']

/** These reads take no query: a parameter (an account number, say) is refused, not ignored. */
const NoQuery = z.object({}).strict()

/** Bank accounts after registration: SUP-ADM-034 (reads). */
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

  return app
}
