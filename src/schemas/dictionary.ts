import { z } from 'zod'

/** DictDataVO: one enabled dictionary item (labels are display only). */
export const DictItem = z
  .object({
    dictType: z.string(),
    dictLabel: z.string(),
    dictValue: z.string(),
    sortOrder: z.int(),
    status: z.literal('ACTIVE'),
  })
  .meta({ id: 'DictDataVO' })
