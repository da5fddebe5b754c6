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

/** /asyncapi.json answers the document itself, not the envelope. */
export const AsyncApiDocument = z
  .looseObject({
    asyncapi: z.string(),
    info: z.looseObject({}),
    channels: z.looseObject({}),
    operations: z.looseObject({}),
  })
  .describe('AsyncAPI 3.0 document of the domain events')
  .meta({
    examples: [
      {
        asyncapi: '3.0.0',
        info: { title: 'Supplier administration events', version: '1.0.0' },
        channels: {
          SupplierActivated: { address: 'supplier.events.SUPPLIER.SupplierActivated' },
        },
        operations: { sendSupplierActivated: { action: 'send' } },
      },
    ],
  })
