import { expect } from 'vitest'

/** Helpers shared by the guarantee suite (races, faults, hostile input, authorization, leaks). */

/** Asserts that a body is the service's envelope and never a fault. */
export function expectEnvelope(status: number, body: any, context = '') {
  expect(status, `${context} ${JSON.stringify(body)}`.slice(0, 2000)).not.toBe(500)
  expect(body, context).toMatchObject({
    code: expect.any(Number),
    message: expect.any(String),
    success: expect.any(Boolean),
  })
  expect(Object.keys(body).sort(), context).toEqual(['code', 'data', 'message', 'success'])
}

/** Tallies answers by business code. */
export const tally = (answers: { body: any }[]) =>
  answers.reduce<Record<number, number>>((acc, a) => {
    const code = a.body?.code ?? 0
    acc[code] = (acc[code] ?? 0) + 1
    return acc
  }, {})
