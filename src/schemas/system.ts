import { z } from 'zod'

/** What /healthz and /readyz answer (inside the envelope) while the service is up. */
export const HealthVO = z.object({ status: z.literal('UP') })

/** /openapi.json answers the document itself, not the envelope. */
export const OpenApiDocument = z
  .looseObject({ openapi: z.string(), info: z.looseObject({}), paths: z.looseObject({}) })
  .describe('OpenAPI 3.1 document')
  .meta({
    examples: [
      {
        openapi: '3.1.0',
        info: { title: 'Supplier administration API', version: '2.1.0' },
        paths: { '/healthz': { get: { operationId: 'getHealth' } } },
      },
    ],
  })
