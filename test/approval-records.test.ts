import { describe, expect, it } from 'vitest'
import { createApp } from '../src/app'
import { createLogger } from '../src/logger'
import { sqlPermissionLookup } from '../src/ports/permission'
import { ALL_PERMISSIONS, useHarness } from './harness'
import { insertApprovalLog, insertChangeLog, insertSupplier } from './fixtures'

const h = useHarness()

const PATH = '/admin/supplier/approval-records'
const WITHOUT_OPINION = ALL_PERMISSIONS.filter((p) => p !== 'supplier:approval:opinion')

const records = (query: string, admin?: string) =>
  h.call('GET', `${PATH}?${query}`, admin === undefined ? {} : { admin })
const ids = (res: { body: any }) => res.body.data.records.map((r: any) => r.changeLogId)

const auditRows = async (adminId: string) => {
  const rows = await h.sql`
    SELECT subject, subject_id::text AS "subjectId", field_name AS "fieldName", request_id AS "requestId"
    FROM sensitive_read_audit WHERE admin_id = ${adminId} ORDER BY id
  `
  return rows.map((r) => ({ ...r }))
}

describe('SUP-ADM-012 approval records', () => {
  it('happy: one record per change-log row, newest first, changeLogId DESC on ties', async () => {
    const { supplierId } = await insertSupplier(h)
    const approvalLogId = await insertApprovalLog(h, supplierId)
    const same = '2026-06-01 09:00:00'
    const a = await insertChangeLog(h, supplierId, { createTime: same, fieldName: 'fullName' })
    const b = await insertChangeLog(h, supplierId, { createTime: same, fieldName: 'shortName' })
    const newest = await insertChangeLog(h, supplierId, {
      createTime: '2026-06-02 09:00:00',
      approvalLogId,
      operationType: 'REGISTRATION_APPLY',
      fieldName: 'status',
      oldValueMasked: 'VETTING',
      newValueMasked: 'ACTIVE',
      changeReason: '注册审批通过',
      status: 'APPLIED',
    })
    const oldest = await insertChangeLog(h, supplierId, { createTime: '2026-05-01 09:00:00' })

    const res = await records(`supplierId=${supplierId}`)
    expect(res.body).toMatchObject({ code: 200, success: true })
    const tie = [a, b].sort((x, y) => (BigInt(y) > BigInt(x) ? 1 : -1))
    expect(ids(res)).toEqual([newest, ...tie, oldest])
    expect(res.body.data).toMatchObject({ total: 4, page: 1, pageSize: 20 })
    expect(res.body.data.records[0]).toEqual({
      changeLogId: newest,
      supplierId,
      approvalLogId,
      operationType: 'REGISTRATION_APPLY',
      targetType: 'SUPPLIER',
      targetId: supplierId,
      fieldName: 'status',
      oldValueMasked: 'VETTING',
      newValueMasked: 'ACTIVE',
      changeReason: '注册审批通过',
      status: 'APPLIED',
      operatorId: '9007199254740993',
      createTime: '2026-06-02 09:00:00',
      hasOpinion: false,
    })
    expect(res.body.data.records[1]).toMatchObject({
      approvalLogId: null,
      status: null,
      hasOpinion: false,
    })
    for (const r of res.body.data.records) {
      expect(BigInt(r.changeLogId) > 2n ** 53n).toBe(true)
      expect(typeof r.supplierId).toBe('string')
    }
  })

  it('happy: every filter narrows the records', async () => {
    const { supplierId } = await insertSupplier(h)
    const other = await insertSupplier(h)
    const approvalLogId = await insertApprovalLog(h, supplierId)
    const submit = await insertChangeLog(h, supplierId, {
      approvalLogId,
      operationType: 'REGISTRATION_SUBMIT',
      fieldName: 'status',
      status: 'SUBMITTED',
    })
    const contact = await insertChangeLog(h, supplierId, {
      operationType: 'CONTACT_REPLACE',
      targetType: 'CONTACT',
      targetId: '9007199254749999',
      fieldName: 'contactPhone',
      oldValueMasked: '138****5678',
      newValueMasked: '139****5678',
    })
    const elsewhere = await insertChangeLog(h, other.supplierId, { fieldName: 'status' })

    const scoped = `supplierId=${supplierId}`
    expect(ids(await records(scoped)).sort()).toEqual([submit, contact].sort())
    expect(ids(await records(`approvalLogId=${approvalLogId}`))).toEqual([submit])
    expect(ids(await records(`${scoped}&operationType=CONTACT_REPLACE`))).toEqual([contact])
    expect(ids(await records(`${scoped}&targetType=CONTACT`))).toEqual([contact])
    expect(ids(await records(`${scoped}&fieldName=status`))).toEqual([submit])
    expect(ids(await records(`${scoped}&status=SUBMITTED`))).toEqual([submit])
    expect(ids(await records(`${scoped}&status=APPLIED`))).toEqual([])
    expect(ids(await records(`supplierId=${other.supplierId}`))).toEqual([elsewhere])
    // Empty values mean "no filter".
    expect(ids(await records(`${scoped}&operationType=&fieldName=`)).sort()).toEqual(
      [submit, contact].sort(),
    )
    const combined = await records(
      `${scoped}&operationType=REGISTRATION_SUBMIT&targetType=SUPPLIER&fieldName=status`,
    )
    expect(ids(combined)).toEqual([submit])
    expect(combined.body.data.total).toBe(1)
  })

  it('happy: rows shown with the same second are in changeLogId order, whatever their sub-seconds', async () => {
    // Later rows (larger ids) get earlier fractions of the same second: ordered by the stored
    // time they would come back the other way round from the id tie-break.
    const { supplierId } = await insertSupplier(h)
    const rows: string[] = []
    for (const fraction of ['.900', '.600', '.300', '.000']) {
      rows.push(
        await insertChangeLog(h, supplierId, { createTime: `2026-08-01 10:00:00${fraction}` }),
      )
    }
    const byIdDesc = [...rows].sort((x, y) => (BigInt(y) > BigInt(x) ? 1 : -1))
    const scoped = await records(`supplierId=${supplierId}`)
    expect(ids(scoped)).toEqual(byIdDesc)
    expect(new Set(scoped.body.data.records.map((r: any) => r.createTime))).toEqual(
      new Set(['2026-08-01 10:00:00']),
    )
    // All suppliers' rows (the other order index) and a range of that one second.
    const all = await records('pageSize=100')
    expect(ids(all).filter((id: string) => rows.includes(id))).toEqual(byIdDesc)
    const second = await records(
      `createTimeFrom=${encodeURIComponent('2026-08-01 10:00:00')}&createTimeTo=${encodeURIComponent('2026-08-01 10:00:00')}`,
    )
    expect(ids(second)).toEqual(byIdDesc)
  })

  it('happy: the time range is inclusive at both ends, to the second', async () => {
    const { supplierId } = await insertSupplier(h)
    const before = await insertChangeLog(h, supplierId, { createTime: '2026-07-01 09:59:59' })
    const start = await insertChangeLog(h, supplierId, { createTime: '2026-07-01 10:00:00' })
    const end = await insertChangeLog(h, supplierId, { createTime: '2026-07-01 11:00:00' })
    const late = await insertChangeLog(h, supplierId, { createTime: '2026-07-01 11:00:00.750' })
    const after = await insertChangeLog(h, supplierId, { createTime: '2026-07-01 11:00:01' })
    const range = (from?: string, to?: string) =>
      records(
        [
          `supplierId=${supplierId}`,
          from ? `createTimeFrom=${encodeURIComponent(from)}` : '',
          to ? `createTimeTo=${encodeURIComponent(to)}` : '',
        ]
          .filter(Boolean)
          .join('&'),
      )
    // The upper bound covers its whole second (createTime is shown to the second).
    const both = await range('2026-07-01 10:00:00', '2026-07-01 11:00:00')
    expect(ids(both)).toEqual([late, end, start])
    expect(both.body.data.records[0].createTime).toBe('2026-07-01 11:00:00')
    expect(ids(await range('2026-07-01 10:00:00'))).toEqual([after, late, end, start])
    expect(ids(await range(undefined, '2026-07-01 10:00:00'))).toEqual([start, before])
    expect(ids(await range('2026-07-01 11:00:00', '2026-07-01 11:00:00'))).toEqual([late, end])
  })

  it('error: malformed or inverted time ranges and bad filters are 400', async () => {
    for (const query of [
      'createTimeFrom=2026-07-01',
      'createTimeFrom=2026-07-01T10:00:00',
      'createTimeFrom=2026-02-30%2010:00:00',
      'createTimeTo=2026-07-01%2024:00:00',
      'createTimeFrom=2026-07-02%2000:00:00&createTimeTo=2026-07-01%2023:59:59',
      'supplierId=abc',
      'supplierId=0',
      'approvalLogId=1.5',
      'operationType=SOMETHING',
      'targetType=supplier',
      `fieldName=${'f'.repeat(65)}`,
      'pageSize=101',
      'page=0',
      'opinion=x',
    ]) {
      const res = await records(query)
      expect({ query, code: res.body.code }).toEqual({ query, code: 400 })
    }
    const inverted = await records(
      'createTimeFrom=2026-07-02%2000:00:00&createTimeTo=2026-07-01%2023:59:59',
    )
    expect(inverted.body.message).toContain('createTimeTo')
    expect((await records('pageSize=100')).body.code).toBe(200)
  })

  it('security: without supplier:approval:opinion only hasOpinion, and nothing is audited', async () => {
    const { supplierId } = await insertSupplier(h)
    const approvalLogId = await insertApprovalLog(h, supplierId, { opinion: '同意，资料齐全' })
    await insertChangeLog(h, supplierId, { approvalLogId, operationType: 'REGISTRATION_APPLY' })
    const admin = await h.admin(WITHOUT_OPINION)
    const res = await records(`supplierId=${supplierId}`, admin)
    expect(res.body.code).toBe(200)
    const [record] = res.body.data.records
    expect(record.hasOpinion).toBe(true)
    expect('opinion' in record).toBe(false)
    expect(JSON.stringify(res.body)).not.toContain('同意')
    expect(await auditRows(admin)).toEqual([])
  })

  it('security: with the permission the opinion is decrypted and each read audited', async () => {
    const { supplierId } = await insertSupplier(h)
    const first = await insertApprovalLog(h, supplierId, { opinion: '同意，资料齐全' })
    const second = await insertApprovalLog(h, supplierId, {
      bizType: 'STATUS_CHANGE',
      subType: 'STATUS_SUSPEND',
      opinion: 'pause for review',
    })
    const silent = await insertApprovalLog(h, supplierId, { bizType: 'ACCOUNT_CREATE' })
    // Two rows of the first approval: its opinion is decrypted (and audited) once per request.
    await insertChangeLog(h, supplierId, { approvalLogId: first, fieldName: 'status' })
    await insertChangeLog(h, supplierId, { approvalLogId: first, fieldName: 'supplierNo' })
    await insertChangeLog(h, supplierId, { approvalLogId: second, operationType: 'STATUS_CHANGE' })
    await insertChangeLog(h, supplierId, { approvalLogId: silent, operationType: 'ACCOUNT_CREATE' })
    await insertChangeLog(h, supplierId, { operationType: 'PROFILE_UPDATE' })

    const admin = await h.admin(ALL_PERMISSIONS)
    const res = await records(`supplierId=${supplierId}`, admin)
    expect(res.body.code).toBe(200)
    const byApproval = (id: string | null) =>
      res.body.data.records.filter((r: any) => r.approvalLogId === id)
    for (const r of byApproval(first))
      expect(r).toMatchObject({ hasOpinion: true, opinion: '同意，资料齐全' })
    expect(byApproval(second)).toMatchObject([{ hasOpinion: true, opinion: 'pause for review' }])
    for (const r of [...byApproval(silent), ...byApproval(null)]) {
      expect(r.hasOpinion).toBe(false)
      expect('opinion' in r).toBe(false)
    }

    const audit = await auditRows(admin)
    expect(audit).toHaveLength(2)
    expect(audit.map((a) => a.subjectId).sort()).toEqual([first, second].sort())
    for (const a of audit) {
      expect(a).toMatchObject({ subject: 'approval_log', fieldName: 'opinion' })
      expect(a.requestId).toEqual(expect.any(String))
    }
    expect(new Set(audit.map((a) => a.requestId)).size).toBe(1)

    // Another read is another audited disclosure; a page without opinions audits nothing.
    await records(`supplierId=${supplierId}&approvalLogId=${second}`, admin)
    expect(await auditRows(admin)).toHaveLength(3)
    await records(`supplierId=${supplierId}&approvalLogId=${silent}`, admin)
    expect(await auditRows(admin)).toHaveLength(3)
    // The opinion never reaches a log line.
    expect(h.logs.join('\n')).not.toContain('pause for review')
  })

  it('security: a failing permission lookup for the opinion means "no"', async () => {
    const { supplierId } = await insertSupplier(h)
    const approvalLogId = await insertApprovalLog(h, supplierId, { opinion: 'secret opinion' })
    await insertChangeLog(h, supplierId, { approvalLogId })
    // The administrator holds the permission, but its lookup throws in this app.
    const admin = await h.admin(ALL_PERMISSIONS)
    const base = sqlPermissionLookup(h.sql)
    const app = createApp({
      config: h.config,
      sql: h.sql,
      logger: createLogger({ level: 'silent' }),
      cipher: h.cipher,
      permissions: {
        roles: base.roles,
        has: (adminId, code) =>
          code === 'supplier:approval:opinion'
            ? Promise.reject(new Error('permission service down'))
            : base.has(adminId, code),
      },
    })
    const res = await app.request(`${PATH}?supplierId=${supplierId}`, {
      headers: { authorization: `Bearer ${await h.token(admin)}`, 'x-admin-id': admin },
    })
    const body = (await res.json()) as any
    expect(body.code).toBe(200)
    expect(body.data.records[0].hasOpinion).toBe(true)
    expect('opinion' in body.data.records[0]).toBe(false)
    expect(await auditRows(admin)).toEqual([])
  })

  it('happy: records of a soft-deleted draft remain readable evidence', async () => {
    const { supplierId } = await insertSupplier(h)
    const created = await insertChangeLog(h, supplierId, { operationType: 'DRAFT_CREATE' })
    await h.sql`UPDATE supplier SET deleted_at = now() WHERE supplier_id = ${supplierId}`
    const deleted = await insertChangeLog(h, supplierId, { operationType: 'DRAFT_DELETE' })
    const res = await records(`supplierId=${supplierId}`)
    expect(ids(res).sort()).toEqual([created, deleted].sort())
    expect((await h.call('GET', `/admin/supplier/items/${supplierId}`)).body.code).toBe(395001)
  })

  it('security: without supplier:view the answer is 395002', async () => {
    const admin = await h.admin(['supplier:list', 'supplier:approval:opinion'])
    const res = await records('', admin)
    expect(res.body).toMatchObject({ code: 395002, success: false, data: null })
  })
})
