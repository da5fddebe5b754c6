import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { insertSupplier } from './fixtures'
import { useHarness } from './harness'
import { unchanged } from './unchanged'
import { fleetVehicle, insertRelation, startFleet } from './resource-data'

/**
 * The fleet's answer is checked for what it says, not only for its shape: date-times must be
 * real calendar seconds, names within their bound, the whole answer within
 * MAX_FLEET_ANSWER_BYTES. Anything else fails the page (and a bind) with 395039, never a
 * success carrying it. Driven through the API against a real local fleet server.
 */

const FLEET_TOKEN = 'fleet-internal-token-0123456789'

let fleet: Awaited<ReturnType<typeof startFleet>>
beforeAll(async () => {
  fleet = await startFleet()
})
afterAll(async () => {
  await fleet?.close()
})
afterEach(() => fleet.reset())

const h = useHarness({
  env: () => ({
    FLEET_BASE_URL: fleet.url,
    FLEET_INTERNAL_TOKEN: FLEET_TOKEN,
    FLEET_TIMEOUT_MS: '5000',
  }),
})

const ok = (data: unknown) => ({ body: { code: 200, message: 'ok', success: true, data } })

describe('the fleet answer on the resource-information page', () => {
  let admin: string
  let supplierId: string
  /** 100 vehicles: the largest page, so that the size bound is shown to fit a real one. */
  const vehicleIds = Array.from({ length: 100 }, (_, i) => String(9007199254900001n + BigInt(i)))

  beforeAll(async () => {
    admin = await h.admin()
    ;({ supplierId } = await insertSupplier(h, { status: 'ACTIVE', supplierNo: 'SPFV1' }))
    for (const resourceId of vehicleIds) {
      await insertRelation(h, { supplierId, module: 'VEHICLE', resourceId })
    }
  })

  const page = () =>
    h.call('GET', `/admin/supplier/items/${supplierId}/resource-info/page?pageSize=100`, { admin })

  const HOSTILE: [string, (ids: string[]) => { body: unknown }][] = [
    [
      'an updateTime that is no calendar time (2026-02-30 99:99:99)',
      (ids) => ok(ids.map((id) => fleetVehicle(id, { updateTime: '2026-02-30 99:99:99' }))),
    ],
    [
      'February 29 of a common year',
      (ids) => ok(ids.map((id) => fleetVehicle(id, { updateTime: '2027-02-29 10:00:00' }))),
    ],
    [
      'the year 0000',
      (ids) => ok(ids.map((id) => fleetVehicle(id, { updateTime: '0000-01-01 00:00:00' }))),
    ],
    [
      'the hour 24',
      (ids) => ok(ids.map((id) => fleetVehicle(id, { updateTime: '2026-05-01 24:00:00' }))),
    ],
    [
      'one bad updateTime among 100 vehicles',
      (ids) =>
        ok(
          ids.map((id, i) =>
            fleetVehicle(id, i === 57 ? { updateTime: '2026-13-01 00:00:00' } : {}),
          ),
        ),
    ],
    [
      'a vehicle name of 5,000,000 characters',
      (ids) =>
        ok(ids.map((id, i) => fleetVehicle(id, i === 0 ? { vehicleName: 'x'.repeat(5e6) } : {}))),
    ],
    [
      'a vehicle name of 501 characters',
      (ids) => ok(ids.map((id) => fleetVehicle(id, { vehicleName: '车'.repeat(501) }))),
    ],
    [
      'a 10 MB page (padding in a field the contract ignores)',
      (ids) => ok(ids.map((id) => ({ ...fleetVehicle(id), padding: 'x'.repeat(100_000) }))),
    ],
  ]

  for (const [what, answer] of HOSTILE) {
    it(`395039 for ${what}`, async () => {
      fleet.answer(answer)
      const { status, body } = await page()
      expect(status).toBe(200)
      expect(body).toMatchObject({ code: 395039, success: false, data: null })
      expect(fleet.requests).toHaveLength(1)
    })
  }

  it('control: a full page of vehicles with 500-character names, leap day and last second, fits', async () => {
    fleet.answer((ids) =>
      ok(
        ids.map((id, i) =>
          fleetVehicle(id, {
            vehicleName: '车'.repeat(500),
            updateTime: i % 2 ? '2028-02-29 23:59:59' : '2000-02-29 00:00:00',
          }),
        ),
      ),
    )
    const { body } = await page()
    expect(body, body.message).toMatchObject({ code: 200, success: true, data: { total: 100 } })
    expect(body.data.records).toHaveLength(100)
    expect(body.data.records[0].resourceName).toHaveLength(500)
    // Such an answer stays far below the bound (MAX_FLEET_ANSWER_BYTES, 1 MiB): about a fifth.
    const answerBytes = Buffer.byteLength(
      JSON.stringify(
        ok(vehicleIds.map((id) => fleetVehicle(id, { vehicleName: '车'.repeat(500) }))).body,
      ),
    )
    expect(answerBytes).toBeLessThan((1024 * 1024) / 4)
  })

  it('binding a vehicle the fleet describes with an impossible date is 395039, nothing written', async () => {
    const writer = await h.admin(['supplier:update', 'supplier:view'], [])
    const { supplierId: owner } = await insertSupplier(h, {
      status: 'ACTIVE',
      supplierNo: 'SPFV2',
      types: [{ typeCode: 'FLEET', isPrimary: true }],
    })
    fleet.answer((ids) =>
      ok(ids.map((id) => fleetVehicle(id, { updateTime: '2026-02-30 99:99:99' }))),
    )
    const res = await unchanged(h, () =>
      h.call('PUT', '/admin/supplier/resource-relations/VEHICLE/9007199254910001', {
        admin: writer,
        body: { supplierId: owner, requiredTypeCode: 'FLEET', changeReason: '车辆签约' },
      }),
    )
    expect(res.body).toMatchObject({ code: 395039, success: false })
  })
})
