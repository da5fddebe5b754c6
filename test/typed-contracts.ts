import { Hono } from 'hono'
import type { Logger } from 'pino'
import { z } from 'zod'
import { authorize } from '../src/http/auth'
import { ok, resultSchema } from '../src/http/envelope'
import { doc } from '../src/http/openapi'
import type { AppEnv } from '../src/http/types'
import { answerWrite } from '../src/http/write'
import type { PermissionLookup } from '../src/ports/permission'

/*
 * A type-level test, run by `tsc --noEmit` in `npm run check` (never executed): a route's declared
 * response types what its handler may answer. Each `@ts-expect-error` marks an answer that must
 * not compile; should the declaration stop typing the answer, the directive itself is unused and
 * tsc fails. Extra properties of a value that is not a literal are structural typing's blind spot;
 * the suite's contract check (test/contract.ts) catches them at run time against /openapi.json.
 */

const Supplier = z.object({ supplierId: z.string(), fullName: z.string() })
declare const lookup: PermissionLookup
declare const logger: Logger
declare const deps: Parameters<typeof answerWrite>[1]

export const routes = new Hono<AppEnv>()

routes.get(
  '/declared',
  authorize(lookup, logger, { permissions: ['supplier:view'], response: resultSchema(Supplier) }),
  (c) => {
    if (c.req.query('right')) return ok(c, { supplierId: '9007199254740993', fullName: '云栖' })
    // @ts-expect-error an id must be a string in JSON, as the declared schema says
    if (c.req.query('number')) return ok(c, { supplierId: 42, fullName: '云栖' })
    // @ts-expect-error a declared field is missing
    if (c.req.query('missing')) return ok(c, { supplierId: '9007199254740993' })
    // @ts-expect-error a field the declaration does not publish (a tax number, say)
    if (c.req.query('extra')) return ok(c, { supplierId: '1', fullName: '云栖', taxNo: 'x' })
    // @ts-expect-error a list where one record is declared
    return ok(c, [{ supplierId: '9007199254740993', fullName: '云栖' }])
  },
)

routes.post(
  '/write',
  authorize(lookup, logger, { permissions: ['supplier:create'], response: resultSchema(Supplier) }),
  (c) =>
    // @ts-expect-error a write's verb answers what the route declares, through answerWrite too
    answerWrite(c, deps, { operation: 'x', target: 'y', body: {} }, async () => ({ id: '1' })),
)

routes.get(
  '/undeclared',
  doc({ summary: 'a route that declares no envelope' }),
  // @ts-expect-error no declared response: no envelope can be answered
  (c) => ok(c, { anything: true }),
)

routes.get('/public', doc({ response: resultSchema(z.object({ status: z.literal('UP') })) }), (c) =>
  ok(c, { status: 'UP' }),
)
