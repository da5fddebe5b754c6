import { Hono } from 'hono'
import { z } from 'zod'
import { dictionaryItems } from '../domain/dictionary'
import { readOnly } from '../domain/read-routing'
import { ok, resultSchema } from '../http/envelope'
import { doc } from '../http/openapi'
import type { AppEnv } from '../http/types'
import type { Deps } from '../domain/deps'
import { NoQuery, validate } from '../http/validate'
import { DictItem } from '../schemas/dictionary'

/** Dictionaries the supplier pages read; labels are display only, clients submit dictValue. */
export const DICT_TYPES = ['supplier_type', 'supplier_lifecycle_status'] as const

export const dictRoutes = (deps: Deps) => {
  const app = new Hono<AppEnv>()
  for (const dictType of DICT_TYPES) {
    app.get(
      `/${dictType}`,
      doc({
        operationId: `listDict${dictType.replace(/(^|_)(\w)/g, (_, __, c: string) => c.toUpperCase())}`,
        errors: [],
        summary: `Enabled items of dictionary ${dictType}, by sortOrder then dictDataId`,
        tags: ['dictionary'],
        response: resultSchema(z.array(DictItem)),
      }),
      validate('query', NoQuery),
      async (c) => {
        const items = await readOnly(deps, c.get('adminId'), (sql) =>
          dictionaryItems(sql, dictType),
        )
        return ok(
          c,
          items.map(({ dictType, dictLabel, dictValue, sortOrder, status }) => ({
            dictType,
            dictLabel,
            dictValue,
            sortOrder,
            status,
          })),
        )
      },
    )
  }
  return app
}
