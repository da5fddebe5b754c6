import { describe, expect, it } from 'vitest'
import { createApp } from '../src/app'
import { loadConfig } from '../src/config'
import { ALL_PERMISSIONS, useHarness } from './harness'
import {
  insertAccount,
  insertSupplier,
  randomAccountNo,
  randomTaxNo,
  SAMPLE,
  tag,
  type InsertedSupplier,
} from './fixtures'

const h = useHarness()

const TWO_POW_53 = 2n ** 53n

const ids = (res: { body: any }) => res.body.data.records.map((r: any) => r.supplierId)
const byIdDesc = (a: string, b: string) => (BigInt(b) > BigInt(a) ? 1 : -1)
const list = (query: string) => h.call('GET', `/admin/supplier/items?${query}`)

describe('SUP-ADM-001 supplier list', () => {
  it('happy: default order is createTime DESC, then supplierId DESC on equal times', async () => {
    const t = tag()
    const same = '2026-03-01 10:00:00'
    const a = await insertSupplier(h, { fullName: `${t} Alpha`, createTime: same })
    const b = await insertSupplier(h, { fullName: `${t} Bravo`, createTime: same })
    const c = await insertSupplier(h, { fullName: `${t} Charlie`, createTime: same })
    const newer = await insertSupplier(h, {
      fullName: `${t} Delta`,
      createTime: '2026-03-02 09:00:00',
    })
    const older = await insertSupplier(h, {
      fullName: `${t} Echo`,
      createTime: '2026-02-01 09:00:00',
    })

    const res = await list(`keyword=${t}`)
    expect(res.body).toMatchObject({ code: 200, success: true })
    const sameIds = [a, b, c].map((s) => s.supplierId).sort(byIdDesc)
    expect(ids(res)).toEqual([newer.supplierId, ...sameIds, older.supplierId])
    expect(res.body.data).toMatchObject({ total: 5, page: 1, pageSize: 20 })
  })

  it('happy: suppliers shown with the same second are in id order, whatever their sub-seconds', async () => {
    // Each later insert (a larger id) gets an earlier fraction of the same second, so ordering by
    // the stored time would put them the other way round from the id tie-break.
    const t = tag()
    const inserted: InsertedSupplier[] = []
    for (const [i, fraction] of ['.900', '.600', '.300', '.000'].entries()) {
      inserted.push(
        await insertSupplier(h, {
          fullName: `${t} Second ${i}`,
          status: 'ACTIVE',
          types: [{ typeCode: 'HOTEL', isPrimary: true }],
          createTime: `2026-03-05 10:00:00${fraction}`,
        }),
      )
    }
    const byId = inserted.map((s) => s.supplierId).sort(byIdDesc)
    const desc = await list(`keyword=${t}`)
    expect(ids(desc)).toEqual(byId)
    expect(new Set(desc.body.data.records.map((r: any) => r.createTime))).toEqual(
      new Set(['2026-03-05 10:00:00']),
    )
    const asc = await list(`keyword=${t}&sortBy=createTime&sortDirection=ASC`)
    expect(ids(asc)).toEqual([...byId].reverse())
    // The same order without a keyword, where the page comes from the order index.
    const all = await list(`typeCode=HOTEL&status=ACTIVE&pageSize=100`)
    const ours = ids(all).filter((id: string) => byId.includes(id))
    expect(ours).toEqual(byId)
  })

  it('happy: a record has the list fields only, with ids as strings above 2^53', async () => {
    const t = tag()
    const s = await insertSupplier(h, {
      fullName: `${t} 杭州西溪酒店管理有限公司`,
      shortName: `${t} 西溪酒店`,
      taxNo: randomTaxNo(),
      status: 'ACTIVE',
      supplierNo: `SUP${t}`,
      creditLevel: 'A',
      totalScore: 87.5,
      createTime: '2026-04-01 08:30:00',
      types: [{ typeCode: 'HOTEL', isPrimary: true }, { typeCode: 'RESTAURANT' }],
    })
    const res = await list(`keyword=${t}`)
    expect(res.body.data.records).toEqual([
      {
        supplierId: s.supplierId,
        supplierNo: `SUP${t}`,
        fullName: `${t} 杭州西溪酒店管理有限公司`,
        shortName: `${t} 西溪酒店`,
        types: [
          { typeCode: 'HOTEL', typeName: '酒店', isPrimary: true },
          { typeCode: 'RESTAURANT', typeName: '餐饮', isPrimary: false },
        ],
        status: 'ACTIVE',
        creditLevel: 'A',
        totalScore: 87.5,
        activeAccountCount: 0,
        createTime: '2026-04-01 08:30:00',
        updateTime: '2026-04-01 08:30:00',
      },
    ])
    expect(typeof s.supplierId).toBe('string')
    expect(BigInt(s.supplierId) > TWO_POW_53).toBe(true)
  })

  it('happy: activeAccountCount counts only live ACTIVE accounts', async () => {
    const t = tag()
    const s = await insertSupplier(h, {
      fullName: `${t} Accounts`,
      accounts: [
        { status: 'ACTIVE', isDefault: 'YES' },
        { status: 'ACTIVE' },
        { status: 'PENDING' },
        { status: 'APPLY_FAILED' },
        { status: 'ACTIVE', deletedAt: 'now' },
      ],
    })
    const res = await list(`keyword=${t}`)
    expect(res.body.data.records).toHaveLength(1)
    expect(res.body.data.records[0]).toMatchObject({
      supplierId: s.supplierId,
      activeAccountCount: 2,
    })
  })

  it('happy: status filter', async () => {
    const t = tag()
    await insertSupplier(h, { fullName: `${t} draft` })
    const frozen = await insertSupplier(h, {
      fullName: `${t} frozen`,
      status: 'FROZEN',
      supplierNo: `F${t}`,
    })
    const res = await list(`keyword=${t}&status=FROZEN`)
    expect(ids(res)).toEqual([frozen.supplierId])
    expect(res.body.data.total).toBe(1)
    // An empty value means "no filter".
    expect((await list(`keyword=${t}&status=`)).body.data.total).toBe(2)
    expect((await list(`keyword=${t}&status=frozen`)).body.code).toBe(400)
  })

  it('happy: typeCode filter matches live types only', async () => {
    const t = tag()
    const fleet = await insertSupplier(h, {
      fullName: `${t} fleet`,
      types: [{ typeCode: 'SCENIC', isPrimary: true }, { typeCode: 'FLEET' }],
    })
    await insertSupplier(h, {
      fullName: `${t} former fleet`,
      types: [
        { typeCode: 'SCENIC', isPrimary: true },
        { typeCode: 'FLEET', deletedAt: 'now' },
      ],
    })
    await insertSupplier(h, { fullName: `${t} scenic` })
    const res = await list(`keyword=${t}&typeCode=FLEET`)
    expect(ids(res)).toEqual([fleet.supplierId])
    expect((await list(`keyword=${t}&typeCode=SCENIC`)).body.data.total).toBe(3)
    expect((await list(`keyword=${t}&typeCode=NO_SUCH_TYPE`)).body.data.total).toBe(0)
  })

  it("happy: a type's pages are the list's order restricted to the type, both ways, at any offset", async () => {
    // A type of this test's own, so the page holds only these suppliers. Its page is read from
    // supplier_type_list_order (the type's rows in the list's order): it must agree with the
    // order of the whole list, ties in one second included, and leave out deleted suppliers and
    // deleted types.
    const type = `T_${tag().toUpperCase()}`
    const of = (createTime: string, o: Parameters<typeof insertSupplier>[1] = {}) =>
      insertSupplier(h, { types: [{ typeCode: type, isPrimary: true }], createTime, ...o })
    const same = ['.900', '.600', '.300', '.000']
    const tied: InsertedSupplier[] = []
    for (const fraction of same) tied.push(await of(`2026-03-07 10:00:00${fraction}`))
    const newer = await of('2026-03-08 09:00:00', { status: 'ACTIVE' })
    const older = await of('2026-03-01 09:00:00', { status: 'ACTIVE' })
    await of('2026-03-09 09:00:00', { deletedAt: 'now' })
    await insertSupplier(h, {
      createTime: '2026-03-09 09:00:00',
      types: [
        { typeCode: 'SCENIC', isPrimary: true },
        { typeCode: type, deletedAt: 'now' },
      ],
    })

    const desc = [
      newer.supplierId,
      ...tied.map((t) => t.supplierId).sort(byIdDesc),
      older.supplierId,
    ]
    const all = await list(`typeCode=${type}`)
    expect(ids(all)).toEqual(desc)
    expect(all.body.data.total).toBe(6)
    expect(ids(await list(`typeCode=${type}&sortBy=createTime&sortDirection=ASC`))).toEqual(
      [...desc].reverse(),
    )
    for (const pageNo of [1, 2, 3]) {
      const res = await list(`typeCode=${type}&page=${pageNo}&pageSize=2`)
      expect(ids(res)).toEqual(desc.slice((pageNo - 1) * 2, pageNo * 2))
      expect(res.body.data.total).toBe(6)
    }
    const active = await list(`typeCode=${type}&status=ACTIVE`)
    expect(ids(active)).toEqual([newer.supplierId, older.supplierId])
    expect(active.body.data.total).toBe(2)
  })

  it("supplier_type keeps its supplier's create time whatever a writer sends, and it never changes", async () => {
    const s = await insertSupplier(h, { createTime: '2026-03-10 08:00:00.250' })
    const [added] = await h.sql`
      INSERT INTO supplier_type (supplier_id, type_code, supplier_create_time)
      VALUES (${s.supplierId}, 'FLEET', '2001-01-01T00:00:00Z')
      RETURNING (supplier_create_time = (SELECT create_time FROM supplier
                                        WHERE supplier_id = ${s.supplierId})) AS copied`
    expect(added.copied).toBe(true)
    await h.sql`UPDATE supplier_type SET supplier_create_time = now() WHERE supplier_id = ${s.supplierId}`
    const rows = await h.sql`
      SELECT count(*)::int AS n FROM supplier_type t JOIN supplier s USING (supplier_id)
      WHERE t.supplier_id = ${s.supplierId} AND t.supplier_create_time = s.create_time`
    expect(rows[0].n).toBe(2)
    await expect(
      h.sql`UPDATE supplier SET create_time = now() WHERE supplier_id = ${s.supplierId}`,
    ).rejects.toThrow(/create_time never changes/)
  })

  it('happy: keyword matches full name, short name or supplierNo by substring', async () => {
    const t = tag()
    const byFull = await insertSupplier(h, { fullName: `Full${t}Name Ltd` })
    const byShort = await insertSupplier(h, { fullName: 'Unrelated Co', shortName: `S${t}` })
    const byNo = await insertSupplier(h, {
      fullName: 'Another Co',
      status: 'ACTIVE',
      supplierNo: `NO-${t.toUpperCase()}-1`,
    })
    const res = await list(`keyword=${encodeURIComponent(`  ${t.toUpperCase()}  `)}`)
    expect(ids(res).sort()).toEqual([byFull.supplierId, byShort.supplierId, byNo.supplierId].sort())
  })

  it('happy: LIKE wildcards in the keyword are no wildcards: punctuation is ignored', async () => {
    // No a or b in the tag: a tag holding "ab" would make axb's name a match of a_b.
    const t = tag().replace(/[ab]/g, 'z')
    const pct = await insertSupplier(h, { fullName: `${t} 100% Natural` })
    const under = await insertSupplier(h, { fullName: `${t} a_b Trading` })
    const axb = await insertSupplier(h, { fullName: `${t} axb Trading` })
    // The keyword alone (the tag would make every row of this test trigram-similar).
    const percent = ids(await list(`keyword=${encodeURIComponent('100%')}`))
    expect(percent).toContain(pct.supplierId)
    const underscore = ids(await list(`keyword=${encodeURIComponent('a_b')}`))
    expect(underscore).toContain(under.supplierId)
    expect(underscore).not.toContain(axb.supplierId)
    // A keyword of punctuation only spells nothing: no supplier, not every one.
    for (const keyword of ['%', '_', '%%', '\\']) {
      const res = await list(`keyword=${encodeURIComponent(keyword)}`)
      expect(res.body.data).toMatchObject({ total: 0, records: [] })
    }
  })

  it('happy: keyword finds a similar name with a typo (trigram), Chinese and Latin', async () => {
    const cjk = await insertSupplier(h, { fullName: '杭州西湖旅游有限公司' })
    const latin = await insertSupplier(h, { fullName: 'Qingdao Haiyun Logistics' })
    const cjkRes = await list(`keyword=${encodeURIComponent('杭州西湖旅行有限公司')}`)
    expect(ids(cjkRes)).toContain(cjk.supplierId)
    const latinRes = await list(`keyword=${encodeURIComponent('Qingdao Haiyun Logistic')}`)
    expect(ids(latinRes)).toContain(latin.supplierId)
    const typo = await list(`keyword=${encodeURIComponent('Qingdoa Haiyun Logistics')}`)
    expect(ids(typo)).toContain(latin.supplierId)
    // Something unrelated is not "similar".
    expect(ids(await list(`keyword=${encodeURIComponent('Zhuhai Orchard Foods')}`))).not.toContain(
      latin.supplierId,
    )
  })

  it('keyword similarity: KEYWORD_SIMILARITY_THRESHOLD decides how far a typo may go, 0 turns it off', async () => {
    const t = tag()
    // Similarity with the keyword 长风锦程: 0.43 for a four-character short name with its last
    // character different, 0.57 for the ten-character full name with one character different.
    const shortTypo = await insertSupplier(h, {
      fullName: `${t} Unrelated Co`,
      shortName: '长风锦城',
    })
    const longTypo = await insertSupplier(h, { fullName: '杭州长风锦城旅游有限公司' })
    const contains = await insertSupplier(h, { fullName: `上海长风锦程国际旅行社 ${t}` })
    const listWith = async (threshold: string | undefined, keyword: string) => {
      const env = threshold === undefined ? {} : { KEYWORD_SIMILARITY_THRESHOLD: threshold }
      const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', ...env })
      const app = createApp({ ...h.deps, config })
      const admin = await h.admin()
      const res = await app.request(
        `/admin/supplier/items?keyword=${encodeURIComponent(keyword)}`,
        {
          headers: { authorization: `Bearer ${await h.token(admin)}`, 'x-admin-id': admin },
        },
      )
      const body = (await res.json()) as any
      expect(body.code).toBe(200)
      // The page and its total are read together: they agree.
      expect(body.data.total).toBe(body.data.records.length)
      return ids({ body })
    }
    // Default 0.5: the long name with a typo is found, the four-character one is not.
    const byDefault = await listWith(undefined, '杭州长风锦程旅游有限公司')
    expect(byDefault).toEqual(expect.arrayContaining([longTypo.supplierId]))
    expect(await listWith(undefined, '长风锦程')).not.toContain(shortTypo.supplierId)
    expect(await listWith(undefined, '长风锦程')).toContain(contains.supplierId)
    // 0.3 (pg_trgm's default) reaches the short name too (0.43 from 长风锦成, which no name
    // contains), but only when no name contains the keyword: names containing 长风锦程 exist, so
    // the answer is theirs alone.
    expect(await listWith('0.3', '长风锦成')).toContain(shortTypo.supplierId)
    expect(await listWith(undefined, '长风锦成')).not.toContain(shortTypo.supplierId)
    const containing = await listWith('0.3', '长风锦程')
    expect(containing).toContain(contains.supplierId)
    expect(containing).not.toContain(shortTypo.supplierId)
    // 0: substrings only.
    const off = await listWith('0', '杭州长风锦程旅游有限公司')
    expect(off).not.toContain(longTypo.supplierId)
    expect(await listWith('0', '长风锦程')).toEqual(expect.arrayContaining([contains.supplierId]))
    expect(await listWith('0', '长风锦程')).not.toContain(shortTypo.supplierId)
  })

  it('happy: sortBy whitelist with direction, supplierId as tiebreaker', async () => {
    const t = tag()
    const same = '2026-05-05 12:00:00'
    const c = await insertSupplier(h, {
      fullName: `${t} C`,
      status: 'ACTIVE',
      supplierNo: `${t}-3`,
      createTime: same,
    })
    const a = await insertSupplier(h, {
      fullName: `${t} A`,
      status: 'ACTIVE',
      supplierNo: `${t}-1`,
      createTime: same,
      updateTime: '2026-05-07 12:00:00',
    })
    const b = await insertSupplier(h, { fullName: `${t} B`, createTime: same })
    const asc = await list(`keyword=${t}&sortBy=fullName&sortDirection=ASC`)
    expect(ids(asc)).toEqual([a.supplierId, b.supplierId, c.supplierId])
    const desc = await list(`keyword=${t}&sortBy=fullName`)
    expect(ids(desc)).toEqual([c.supplierId, b.supplierId, a.supplierId])
    // No supplierNo yet sorts as the smallest value.
    const byNo = await list(`keyword=${t}&sortBy=supplierNo&sortDirection=ASC`)
    expect(ids(byNo)).toEqual([b.supplierId, a.supplierId, c.supplierId])
    const byUpdate = await list(`keyword=${t}&sortBy=updateTime&sortDirection=DESC`)
    const rest = [b, c].map((s) => s.supplierId).sort(byIdDesc)
    expect(ids(byUpdate)).toEqual([a.supplierId, ...rest])
    const byCreateAsc = await list(`keyword=${t}&sortBy=createTime&sortDirection=ASC`)
    expect(ids(byCreateAsc)).toEqual(
      [a, b, c]
        .map((s) => s.supplierId)
        .sort(byIdDesc)
        .reverse(),
    )
  })

  it('happy: paging slices the ordered set and reports the total', async () => {
    const t = tag()
    const made: InsertedSupplier[] = []
    for (let i = 0; i < 5; i++) made.push(await insertSupplier(h, { fullName: `${t} P${i}` }))
    const all = ids(await list(`keyword=${t}&pageSize=100`))
    expect(all).toHaveLength(5)
    const p2 = await list(`keyword=${t}&page=2&pageSize=2`)
    expect(p2.body.data).toMatchObject({ total: 5, page: 2, pageSize: 2 })
    expect(ids(p2)).toEqual(all.slice(2, 4))
    const beyond = await list(`keyword=${t}&page=9&pageSize=2`)
    expect(beyond.body.data).toMatchObject({ records: [], total: 5, page: 9 })
  })

  it('error: invalid paging, sort and keyword parameters are 400', async () => {
    for (const query of [
      'pageSize=101',
      'pageSize=0',
      'page=0',
      'page=-1',
      'page=abc',
      'pageSize=1.5',
      'sortBy=taxNo',
      'sortBy=create_time',
      'sortDirection=desc',
      `keyword=${'x'.repeat(101)}`,
      'status=DELETED',
    ]) {
      const res = await list(query)
      expect({ query, code: res.body.code, success: res.body.success }).toEqual({
        query,
        code: 400,
        success: false,
      })
    }
    expect((await list('pageSize=100')).body.code).toBe(200)
    expect((await list(`keyword=${'x'.repeat(100)}`)).body.code).toBe(200)
  })

  it('security: sensitive values in the query are refused (unknown parameters are 400)', async () => {
    const res = await list(`taxNo=${SAMPLE.taxNo}`)
    expect(res.body).toMatchObject({ code: 400, success: false, data: null })
    expect(res.body.message).toContain('taxNo')
    expect(JSON.stringify(res.body)).not.toContain(SAMPLE.taxNo)
    expect((await list('accountNo=6222021234567890123')).body.code).toBe(400)
    expect((await list('contactPhone=13812345678')).body.code).toBe(400)
  })

  it('security: a record never carries tax, phone or account values', async () => {
    const t = tag()
    const taxNo = randomTaxNo()
    const accountNo = randomAccountNo()
    await insertSupplier(h, {
      fullName: `${t} Sensitive`,
      taxNo,
      contactPhone: '13900001111',
      accounts: [{ accountNo, status: 'ACTIVE' }],
    })
    const res = await list(`keyword=${t}`)
    const text = JSON.stringify(res.body)
    expect(res.body.data.total).toBe(1)
    for (const forbidden of [taxNo, '13900001111', accountNo, 'Mask', '_enc', 'taxNo', 'phone']) {
      expect(text).not.toContain(forbidden)
    }
  })

  it('security: without supplier:list the answer is 395002', async () => {
    const admin = await h.admin(ALL_PERMISSIONS.filter((p) => p !== 'supplier:list'))
    const res = await h.call('GET', '/admin/supplier/items', { admin })
    expect(res.body).toMatchObject({ code: 395002, success: false, data: null })
    expect((await h.call('GET', '/admin/supplier/items', { admin: null })).body.code).toBe(401)
  })

  it('security: a soft-deleted supplier is never listed nor readable', async () => {
    const t = tag()
    const live = await insertSupplier(h, { fullName: `${t} live` })
    const gone = await insertSupplier(h, { fullName: `${t} gone`, deletedAt: 'now' })
    const res = await list(`keyword=${t}`)
    expect(ids(res)).toEqual([live.supplierId])
    expect(res.body.data.total).toBe(1)
    const detail = await h.call('GET', `/admin/supplier/items/${gone.supplierId}`)
    expect(detail.body).toMatchObject({ code: 395001, success: false, data: null })
    const accounts = await h.call('GET', `/admin/supplier/items/${gone.supplierId}/account-info`)
    expect(accounts.body).toMatchObject({ code: 395001, success: false, data: null })
  })

  it('happy: typeName comes from the dictionary and is null for a disabled item', async () => {
    const t = tag()
    await insertSupplier(h, {
      fullName: `${t} other`,
      types: [{ typeCode: 'OTHER', isPrimary: true }, { typeCode: 'TICKET' }],
    })
    await h.sql`
      UPDATE dict_data SET status = 'DISABLED' WHERE dict_type = 'supplier_type' AND dict_value = 'OTHER'
    `
    try {
      const res = await list(`keyword=${t}`)
      expect(res.body.data.records[0].types).toEqual([
        { typeCode: 'OTHER', typeName: null, isPrimary: true },
        { typeCode: 'TICKET', typeName: '票务', isPrimary: false },
      ])
    } finally {
      await h.sql`
        UPDATE dict_data SET status = 'ACTIVE' WHERE dict_type = 'supplier_type' AND dict_value = 'OTHER'
      `
    }
    const res = await list(`keyword=${t}`)
    expect(res.body.data.records[0].types[0]).toEqual({
      typeCode: 'OTHER',
      typeName: '其他',
      isPrimary: true,
    })
  })
})

describe('SUP-ADM-002 basic information', () => {
  it('happy: public fields, masked values, live children only', async () => {
    const s = await insertSupplier(h, {
      fullName: '杭州西湖文旅发展有限公司',
      shortName: '西湖文旅',
      taxNo: SAMPLE.taxNo,
      contactPhone: SAMPLE.phone,
      legalRepresentative: '李四',
      establishDate: '2015-06-18',
      registeredCapital: '5000万元',
      businessScope: '旅游服务',
      address: '杭州市西湖区曙光路1号',
      staffScale: 'R50_200',
      mainCooperation: '景区门票分销',
      licenseImageUrl: 'https://files.example.com/license/1.png',
      approveNote: 'APPROVE-NOTE-SECRET',
      remark: '重点合作',
      isRelatedParty: true,
      status: 'ACTIVE',
      supplierNo: 'SUP-DETAIL-1',
      creditLevel: 'AA',
      totalScore: 92,
      createTime: '2026-01-02 03:04:05',
      types: [{ typeCode: 'SCENIC', isPrimary: true }],
      contacts: [
        { contactName: '王五', contactPhone: '13912345678', contactRole: 'SALES', remark: '白天' },
        { contactName: '已删除', contactPhone: '13700000000', deletedAt: 'now' },
      ],
      qualifications: [
        {
          qualType: 'BUSINESS_LICENSE',
          certNo: SAMPLE.certNo,
          imageUrl: 'https://files.example.com/q/1.png',
          expiryDate: '2030-12-31',
        },
        { qualType: 'GONE', certNo: '998877665544', deletedAt: 'now' },
      ],
      accounts: [{ accountNo: randomAccountNo(), status: 'ACTIVE', isDefault: 'YES' }],
    })
    const res = await h.call('GET', `/admin/supplier/items/${s.supplierId}`)
    expect(res.body).toMatchObject({ code: 200, success: true })
    const d = res.body.data
    expect(d).toEqual({
      supplierId: s.supplierId,
      supplierNo: 'SUP-DETAIL-1',
      fullName: '杭州西湖文旅发展有限公司',
      shortName: '西湖文旅',
      taxNoMask: '91************712Q',
      legalRepresentative: '李四',
      contactPhoneMask: '138****5678',
      establishDate: '2015-06-18',
      registeredCapital: '5000万元',
      businessScope: '旅游服务',
      address: '杭州市西湖区曙光路1号',
      staffScale: 'R50_200',
      mainCooperation: '景区门票分销',
      licenseImageUrl: 'https://files.example.com/license/1.png',
      remark: '重点合作',
      types: [{ typeCode: 'SCENIC', typeName: '景区', isPrimary: true }],
      contacts: [
        {
          contactId: s.contactIds[0],
          contactName: '王五',
          contactPhoneMask: '139****5678',
          contactRole: 'SALES',
          remark: '白天',
          status: 'ACTIVE',
          updateTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
        },
      ],
      qualifications: [
        {
          qualificationId: s.qualificationIds[0],
          qualType: 'BUSINESS_LICENSE',
          certNoMask: '33************1234',
          imageUrl: 'https://files.example.com/q/1.png',
          expiryDate: '2030-12-31',
          isRequired: false,
          status: 'ACTIVE',
          updateTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
        },
      ],
      // SCENIC has no required rule in this database: nothing to miss.
      compliance: [{ typeCode: 'SCENIC', state: 'OK', requiredQualifications: [] }],
      creditLevel: 'AA',
      totalScore: 92,
      status: 'ACTIVE',
      createTime: '2026-01-02 03:04:05',
      updateTime: '2026-01-02 03:04:05',
      // The caller holds every permission (test/allowed-actions.test.ts covers the rest).
      allowedActions: {
        statusTargets: ['SUSPENDED', 'FROZEN', 'BLACKLIST'],
        updateSupplier: true,
        replaceSupplierContacts: true,
        submitSupplierRegistration: false,
        deleteSupplierDraft: false,
        changeSupplierStatus: true,
        archiveSupplier: false,
        createSupplierAccounts: true,
        changeSupplierAccount: true,
        setDefaultSupplierAccount: true,
        setResourceRelation: true,
        unbindResourceRelation: true,
      },
    })
    for (const id of [d.supplierId, d.contacts[0].contactId, d.qualifications[0].qualificationId]) {
      expect(typeof id).toBe('string')
      expect(BigInt(id) > TWO_POW_53).toBe(true)
    }
  })

  it('security: the detail never carries plaintext, ciphertext, approveNote or isRelatedParty', async () => {
    const taxNo = randomTaxNo()
    const accountNo = randomAccountNo()
    const s = await insertSupplier(h, {
      taxNo,
      contactPhone: '13811112222',
      approveNote: 'internal-approve-note',
      isRelatedParty: true,
      contacts: [{ contactPhone: '13633334444' }],
      qualifications: [{ qualType: 'ROAD_TRANSPORT', certNo: 'CERT-55667788' }],
      accounts: [{ accountNo }],
    })
    const res = await h.call('GET', `/admin/supplier/items/${s.supplierId}`)
    expect(res.body.code).toBe(200)
    const text = JSON.stringify(res.body)
    for (const forbidden of [
      taxNo,
      '13811112222',
      '13633334444',
      'CERT-55667788',
      accountNo,
      'approveNote',
      'internal-approve-note',
      'isRelatedParty',
      '_enc',
      'bidx',
      'v1.',
    ]) {
      expect({ forbidden, found: text.includes(forbidden) }).toEqual({ forbidden, found: false })
    }
  })

  it('happy: isRequired is derived from live required rules of the live types', async () => {
    const t = tag().toUpperCase()
    const q = (n: string) => `Q_${t}_${n}`
    await h.sql`
      INSERT INTO qualification_rule (type_code, qual_type, is_required, warning_days, sort_order, deleted_at)
      VALUES ('HOTEL', ${q('REQ')}, true, 30, 1, NULL),
             ('HOTEL', ${q('OPT')}, false, 30, 2, NULL),
             ('RENTAL', ${q('OLDTYPE')}, true, 30, 1, NULL),
             ('HOTEL', ${q('RETIRED')}, true, 30, 3, now()),
             ('SERVICE', ${q('OTHERTYPE')}, true, 30, 1, NULL),
             ('SCENIC', ${q('OPT')}, true, 30, 1, NULL)
    `
    const s = await insertSupplier(h, {
      types: [
        { typeCode: 'HOTEL', isPrimary: true },
        { typeCode: 'SCENIC' },
        { typeCode: 'RENTAL', deletedAt: 'now' },
      ],
      qualifications: ['REQ', 'OPT', 'OLDTYPE', 'RETIRED', 'OTHERTYPE', 'NONE'].map((n) => ({
        qualType: q(n),
      })),
    })
    const res = await h.call('GET', `/admin/supplier/items/${s.supplierId}`)
    const required = Object.fromEntries(
      res.body.data.qualifications.map((x: any) => [x.qualType, x.isRequired]),
    )
    expect(required).toEqual({
      [q('REQ')]: true,
      // Optional for HOTEL but required for SCENIC, which the supplier also is.
      [q('OPT')]: true,
      [q('OLDTYPE')]: false,
      [q('RETIRED')]: false,
      [q('OTHERTYPE')]: false,
      [q('NONE')]: false,
    })
  })

  it('error: malformed ids are 400, unknown ids 395001', async () => {
    for (const id of ['abc', '0', '-5', '1.5', '99999999999999999999', '%20']) {
      const res = await h.call('GET', `/admin/supplier/items/${id}`)
      expect({ id, code: res.body.code }).toEqual({ id, code: 400 })
    }
    const res = await h.call('GET', '/admin/supplier/items/9223372036854775807')
    expect(res.body).toMatchObject({ code: 395001, success: false, data: null })
  })

  it('security: without supplier:view detail and account info are 395002', async () => {
    const s = await insertSupplier(h)
    const admin = await h.admin(['supplier:list'])
    for (const path of [
      `/admin/supplier/items/${s.supplierId}`,
      `/admin/supplier/items/${s.supplierId}/account-info`,
    ]) {
      const res = await h.call('GET', path, { admin })
      expect(res.body).toMatchObject({ code: 395002, success: false, data: null })
    }
  })
})

describe('SUP-ADM-002 account information', () => {
  it('happy: masked live accounts, default first then by id, with the supplier version', async () => {
    const s = await insertSupplier(h, {
      fullName: '宁波海港物流有限公司',
      createTime: '2026-02-03 04:05:06',
    })
    const first = await insertAccount(h, s.supplierId, {
      accountName: '宁波海港物流有限公司',
      bankName: '招商银行',
      bankBranch: '宁波分行',
      accountNo: '6225 8812 3456 7890',
      proofFileUrls: ['https://files.example.com/proof/1.pdf'],
      settleMode: 'MONTHLY',
      accountPeriod: 30,
      invoiceType: 'SPECIAL',
      taxRate: 6,
      status: 'ACTIVE',
    })
    const deleted = await insertAccount(h, s.supplierId, { status: 'ACTIVE', deletedAt: 'now' })
    const def = await insertAccount(h, s.supplierId, {
      accountName: '宁波海港物流有限公司',
      accountNo: SAMPLE.accountNo,
      invoiceType: 'NONE',
      status: 'ACTIVE',
      isDefault: 'YES',
    })
    const pending = await insertAccount(h, s.supplierId, {
      accountType: 'PERSONAL',
      accountName: '赵六',
      status: 'PENDING',
      // PER_ORDER would trip supplier_bank_account_period_check (NULL period AND false = false).
      settleMode: null,
      invoiceType: 'NORMAL',
      taxRate: 3.5,
    })
    const res = await h.call('GET', `/admin/supplier/items/${s.supplierId}/account-info`)
    expect(res.body).toMatchObject({ code: 200, success: true })
    const data = res.body.data
    expect(data.supplierId).toBe(s.supplierId)
    expect(data.updateTime).toBe('2026-02-03 04:05:06')
    expect(data.bankAccounts.map((a: any) => a.accountId)).toEqual([def, first, pending])
    expect(data.bankAccounts.map((a: any) => a.accountId)).not.toContain(deleted)
    expect(data.bankAccounts[1]).toEqual({
      accountId: first,
      accountName: '宁波海港物流有限公司',
      accountType: 'CORPORATE',
      bankName: '招商银行',
      bankBranch: '宁波分行',
      accountNoMask: '**** **** 7890',
      settleMode: 'MONTHLY',
      accountPeriod: 30,
      invoiceType: 'SPECIAL',
      taxRate: 6,
      status: 'ACTIVE',
      isDefault: 'NO',
      riskFlags: [], // the same SupplierBankAccountVO as the account endpoints answer
      updateTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
    })
    expect(data.bankAccounts[0]).toMatchObject({
      isDefault: 'YES',
      accountNoMask: '**** **** 0123',
      taxRate: null,
      invoiceType: 'NONE',
      settleMode: null,
      accountPeriod: null,
    })
    expect(data.bankAccounts[2]).toMatchObject({
      accountType: 'PERSONAL',
      status: 'PENDING',
      taxRate: 3.5,
    })
    for (const a of data.bankAccounts) expect(BigInt(a.accountId) > TWO_POW_53).toBe(true)
    const text = JSON.stringify(res.body)
    for (const forbidden of [SAMPLE.accountNo, '6225881234567890', 'proof', '_enc', 'v1.']) {
      expect({ forbidden, found: text.includes(forbidden) }).toEqual({ forbidden, found: false })
    }
  })

  it('happy: a supplier without accounts has an empty list', async () => {
    const s = await insertSupplier(h)
    const res = await h.call('GET', `/admin/supplier/items/${s.supplierId}/account-info`)
    expect(res.body.data).toMatchObject({ supplierId: s.supplierId, bankAccounts: [] })
  })

  it('error: unknown supplier is 395001, malformed id 400', async () => {
    const res = await h.call('GET', '/admin/supplier/items/9223372036854775806/account-info')
    expect(res.body).toMatchObject({ code: 395001, success: false })
    expect((await h.call('GET', '/admin/supplier/items/x1/account-info')).body.code).toBe(400)
  })
})
