import { describe, expect, it } from 'vitest'
import {
  create,
  createDraft,
  detail,
  newDraft,
  ok,
  refused,
  submit,
  submitBodyFrom,
  update,
  versionOf,
} from './client'
import { insertSupplier } from './fixtures'
import { useHarness } from './harness'
import { supplierRow } from './supplier-submit-data'
import { draftBody, fullWidth } from './supplier-data'
import { unchanged } from './unchanged'

/*
 * A tax number of the unified social credit code's shape (18 characters of its alphabet, after
 * normalisation) must carry the right check character (GB 32100-2015): a typo there would make
 * a second spelling of one company's code that C-02 cannot see. Create, update and submit refuse
 * it and write nothing; other shapes keep the free-text rules. The check itself, over every
 * position and character: uscc.test.ts.
 */

const h = useHarness()

const MESSAGE = 'taxNo: check character of the unified social credit code is wrong'

/** Published codes of real organisations (see uscc.test.ts), each used once in this file. */
const REAL = {
  enterprise: '91110000600037341L',
  maCode: '91310115MA1K3BTP2B',
  oldOrganisationCode: '9144030071526726XG',
  individualBusiness: '92340621MA2UK3PJXE',
  publicInstitution: '121200004013590816',
  forTypos: '91340600MA2PBM9HXD',
  forCase: '91620105L015101280',
  forUpdate: '91310110666007217T',
  forSubmit: '913101127033980359',
  forShape: '9131012056010553X5',
}

/** `code` with the character at `position` (1-based) replaced by the next one of the alphabet. */
const typo = (code: string, position: number) => {
  const alphabet = '0123456789ABCDEFGHJKLMNPQRTUWXY'
  const next = alphabet[(alphabet.indexOf(code[position - 1]) + 1) % alphabet.length]
  return code.slice(0, position - 1) + next + code.slice(position)
}

/** A refusal for the check character: 400, the message, and the number nowhere in the answer. */
function refusedForCheck(res: { status: number; body: any }, sent: string) {
  refused(res, 400)
  expect(res.body.message).toBe(MESSAGE)
  const answer = JSON.stringify(res.body)
  expect(answer).not.toContain(sent)
  expect(answer).not.toContain(sent.slice(0, 17))
}

describe('taxNo: the check character of a unified social credit code', () => {
  it.each(Object.entries(REAL).slice(0, 5))(
    'a published code (%s, %s) is accepted',
    async (_kind, code) => {
      const created = await createDraft(h, draftBody({ taxNo: code }))
      const view = ok(await detail(h, created.supplierId))
      expect(view.taxNoMask).toBe(`${code.slice(0, 2)}${'*'.repeat(12)}${code.slice(-4)}`)
    },
  )

  it('create: a one-character typo at positions 1, 3, 9, 12, 17 and 18 → 400, nothing written', async () => {
    const code = REAL.forTypos
    for (const position of [1, 3, 9, 12, 17, 18]) {
      const sent = typo(code, position)
      const res = await unchanged(h, () => create(h, draftBody({ taxNo: sent })), {
        message: `nothing written for a typo at ${position}`,
      })
      refusedForCheck(res, sent)
    }
    // The code itself is accepted: the refusals were for the typos alone.
    await createDraft(h, draftBody({ taxNo: code }))
  })

  it('create: lower case, full width and spaces are the same code, so C-02 finds the repeat', async () => {
    const code = REAL.forCase
    const first = await createDraft(h, draftBody({ taxNo: ` ${fullWidth(code.toLowerCase())} ` }))
    expect(ok(await detail(h, first.supplierId)).taxNoMask).toBe('91************1280')
    for (const variant of [
      code,
      code.toLowerCase(),
      fullWidth(code),
      `${code.slice(0, 8)} ${code.slice(8)}`,
    ]) {
      const res = await unchanged(h, () => create(h, draftBody({ taxNo: variant })))
      refused(res, 395004)
    }
    // A typo in lower case is refused as one in upper case.
    refusedForCheck(
      await create(h, draftBody({ taxNo: typo(code, 5).toLowerCase() })),
      typo(code, 5).toLowerCase(),
    )
  })

  it('the refused number appears in no log line', async () => {
    const sent = typo(REAL.forTypos, 14)
    const before = h.logs.length
    refusedForCheck(await create(h, draftBody({ taxNo: sent })), sent)
    const logs = h.logs.slice(before).join('\n')
    expect(logs).not.toContain(sent)
    expect(logs).not.toContain(sent.slice(0, 17))
  })

  it('update: a draft changed to a mistyped code → 400, nothing written; the right code is taken', async () => {
    const draft = await createDraft(h, draftBody())
    const sent = typo(REAL.forUpdate, 10)
    const res = await unchanged(h, () =>
      update(h, draft.supplierId, {
        taxNo: sent,
        changeReason: 'typo in the tax number',
        expectedUpdateTime: draft.version,
      }),
    )
    refusedForCheck(res, sent)
    ok(
      await update(h, draft.supplierId, {
        taxNo: REAL.forUpdate.toLowerCase(),
        changeReason: 'the tax number as the licence shows it',
        expectedUpdateTime: draft.version,
      }),
    )
    expect(ok(await detail(h, draft.supplierId)).taxNoMask).toBe('91************217T')
  })

  it('submit: a final form with a mistyped code → 400, the draft stays as it was', async () => {
    const draft = await newDraft(h)
    const sent = typo(REAL.forSubmit, 2)
    const before = await supplierRow(h, draft.supplierId)
    const res = await unchanged(h, () =>
      submit(h, draft.supplierId, submitBodyFrom(draft.body, draft.version, { taxNo: sent })),
    )
    refusedForCheck(res, sent)
    expect(await supplierRow(h, draft.supplierId)).toEqual(before)
    const accepted = ok(
      await submit(
        h,
        draft.supplierId,
        submitBodyFrom(draft.body, draft.version, { taxNo: REAL.forSubmit }),
      ),
    )
    expect(accepted.approvalStatus).toBe('APPLIED')
  })

  it('other shapes keep the free-text rules: 17 or 19 characters, three letters outside the alphabet, an undefined authority', async () => {
    const code = REAL.forShape
    // One or two of I, O, S, V, Z in a code are typos (tax-number-lookalikes.test.ts); these are not.
    for (const other of [
      `${code.slice(0, 9)}OIS${code.slice(12)}`,
      `B1${code.slice(2, 9)}O${code.slice(10)}`,
      code.slice(0, 17),
      `${code.slice(0, 17)}00`,
    ]) {
      await createDraft(h, draftBody({ taxNo: other }))
    }
  })

  it('a stored code that misses the check (older data) does not block edits that send it back unchanged; submit refuses it', async () => {
    // Rows written before the rule (fixtures): codes of the early pilot regions, published, whose
    // check characters the standard computes as 3 and 1.
    const active = await insertSupplier(h, {
      status: 'ACTIVE',
      supplierNo: `SPU${Date.now()}`,
      taxNo: '91350211M00013FA1N',
    })
    ok(
      await update(h, active.supplierId, {
        taxNo: '91350211m00013fa1n',
        remark: 'sent back with the whole form',
        changeReason: 'remark',
        expectedUpdateTime: await versionOf(h, active.supplierId),
      }),
    )
    const legacy = '91350100M0001TGQXM'
    const draft = await insertSupplier(h, { taxNo: legacy })
    ok(
      await update(h, draft.supplierId, {
        taxNo: legacy,
        remark: 'unchanged tax number',
        changeReason: 'remark',
        expectedUpdateTime: await versionOf(h, draft.supplierId),
      }),
    )
    // The registration is what is approved: every identity check runs again, this one included.
    const version = await versionOf(h, draft.supplierId)
    const res = await unchanged(h, () =>
      submit(h, draft.supplierId, submitBodyFrom(draftBody({ taxNo: legacy }), version)),
    )
    refusedForCheck(res, legacy)
  })
})
