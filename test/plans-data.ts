import type postgres from 'postgres'

/*
 * The data set of test/plans.test.ts: enough suppliers, children, approvals, change-log rows
 * and relations for the planner to prefer indexes where they pay, loaded with
 * INSERT … SELECT generate_series (one statement per table), some rows soft-deleted.
 */

export const SUPPLIERS = 20_000
/** Row number (1-based, in id order) of the supplier with thousands of relations and change-log rows. */
export const BUSY = 12_345
export const BUSY_RELATIONS = 5_000

/** Tables loaded in bulk: a sequential scan of one of them is a finding. */
export const LARGE = new Set([
  'supplier',
  'supplier_type',
  'supplier_contact',
  'supplier_qualification',
  'supplier_bank_account',
  'approval_log',
  'change_log',
  'supplier_resource_relation',
  'supplier_search',
  'supplier_term_count',
])

const TYPE_CODES = ['SCENIC', 'RESTAURANT', 'SUPPLIES', 'ACTIVITY', 'HOTEL', 'SERVICE', 'FLEET']
const SYLLABLES =
  'ling xiu tian hua jin yun feng shan he long an bao chen da fu guang hong jia kang lan ming ning ping qing rui sheng tai wei xin yang zhi hai bo cheng de heng hui kai li mei'.split(
    ' ',
  )
const CITIES =
  'Hangzhou Suzhou Ningbo Shaoxing Huzhou Jiaxing Wenzhou Taizhou Jinhua Lishui Nanjing Wuxi Changzhou Xiamen Fuzhou Hefei Huangshan Shanghai Qingdao Chengdu'.split(
    ' ',
  )
const KINDS =
  'Travel,Scenic Area Management,Hotel Management,Catering,Passenger Transport,Culture and Tourism,Outdoor Equipment,Tea Industry,Performing Arts,Property Services'.split(
    ',',
  )
const arrayLiteral = (xs: readonly string[]) => `(ARRAY[${xs.map((x) => `'${x}'`).join(', ')}])`

/**
 * The bulk load: INSERT … SELECT generate_series, one statement per table. Row `g` of the
 * supplier series has supplier_id = first id + g - 1 (a fresh database: the identity is unused).
 */
export const LOAD = [
  // Suppliers: 10% DRAFT (a third of them soft-deleted), 5% VETTING, a few suspended, frozen,
  // blacklisted, 5% archived, the rest ACTIVE. Names such as "Hangzhou Lingxiu Travel Co., Ltd.":
  // 1 600 brands, each in about a dozen suppliers.
  `INSERT INTO supplier (supplier_no, full_name, short_name, tax_no_enc, tax_no_bidx, tax_no_mask,
                         contact_phone_enc, contact_phone_mask, main_cooperation, status,
                         credit_level, total_score, create_time, update_time, created_by,
                         updated_by, deleted_at)
   SELECT CASE WHEN x.status IN ('DRAFT', 'VETTING') THEN NULL ELSE 'SP' || (100000 + x.g) END,
          x.city || ' ' || x.brand || ' ' || x.kind || ' Co., Ltd.',
          CASE WHEN x.g % 10 < 7 THEN x.brand || ' ' || split_part(x.kind, ' ', 1) END,
          'v1.k1.iv.ct' || x.g, 'bidx-' || x.g, '9133********' || lpad((x.g % 10000)::text, 4, '0'),
          'v1.k1.iv.ph' || x.g, '138****' || lpad((x.g % 10000)::text, 4, '0'),
          'Tickets and guided tours', x.status,
          (ARRAY['A', 'B', 'C', NULL])[1 + x.g % 4], (x.g % 10000) / 100.0,
          x.created, x.created + ((x.g * 37) % 5000) * interval '1 minute', 1, 1,
          CASE WHEN x.status = 'DRAFT' AND x.g % 3 = 0 THEN x.created + interval '1 day' END
   FROM (
     SELECT g,
            initcap(${arrayLiteral(SYLLABLES)}[1 + g % 40] || ${arrayLiteral(SYLLABLES)}[1 + (g / 40) % 40]) AS brand,
            ${arrayLiteral(CITIES)}[1 + (g * 7) % 20] AS city,
            ${arrayLiteral(KINDS)}[1 + (g * 3) % 10] AS kind,
            CASE WHEN g % 100 < 10 THEN 'DRAFT' WHEN g % 100 < 15 THEN 'VETTING'
                 WHEN g % 100 < 18 THEN 'SUSPENDED' WHEN g % 100 < 19 THEN 'FROZEN'
                 WHEN g % 100 < 20 THEN 'BLACKLIST' WHEN g % 100 < 25 THEN 'ARCHIVED'
                 ELSE 'ACTIVE' END AS status,
            date_trunc('second', now()) - (${SUPPLIERS} - g) * interval '7 minutes' AS created
     FROM generate_series(1, ${SUPPLIERS}) g
   ) x`,
  // Types: a primary one each, a second for a third of them, a deleted one for a tenth.
  `INSERT INTO supplier_type (supplier_id, type_code, is_primary, deleted_at)
   SELECT s.supplier_id, t.code, t.k = 1, CASE WHEN t.k = 3 THEN now() END
   FROM (SELECT supplier_id, (supplier_id - min(supplier_id) OVER () + 1)::int AS g FROM supplier) s
   CROSS JOIN LATERAL (
     SELECT k, ${arrayLiteral(TYPE_CODES)}[1 + (s.g + k - 1) % 7] AS code
     FROM generate_series(1, 3) k
     WHERE k = 1 OR (k = 2 AND s.g % 3 = 0) OR (k = 3 AND s.g % 10 = 0)
   ) t`,
  // Contacts: two live ones each, a deleted one for a fifth.
  `INSERT INTO supplier_contact (supplier_id, contact_name, contact_phone_enc, contact_phone_mask,
                                 contact_role, deleted_at)
   SELECT s.supplier_id, 'Contact ' || k, 'v1.k1.iv.c' || s.supplier_id || k, '139****0000',
          (ARRAY['Sales', 'Finance', 'Operations'])[k], CASE WHEN k = 3 THEN now() END
   FROM (SELECT supplier_id, (supplier_id - min(supplier_id) OVER () + 1)::int AS g FROM supplier) s
   CROSS JOIN generate_series(1, 3) k
   WHERE k < 3 OR s.g % 5 = 0`,
  // Qualifications: a business licence expiring anywhere from 100 days ago to 4 years ahead, a
  // type-specific permit for half of them, a deleted one for a seventh.
  `INSERT INTO supplier_qualification (supplier_id, qual_type, cert_no_enc, cert_no_mask,
                                       expiry_date, deleted_at)
   SELECT s.supplier_id, (ARRAY['BUSINESS_LICENSE', 'OPERATING_PERMIT', 'BUSINESS_LICENSE'])[k],
          'v1.k1.iv.q' || s.g, '3301**********1234',
          CASE WHEN k = 2 AND s.g % 4 = 1 THEN NULL
               ELSE current_date + ((s.g * 37 + k * 11) % 1560 - 100) END,
          CASE WHEN k = 3 THEN now() END
   FROM (SELECT supplier_id, (supplier_id - min(supplier_id) OVER () + 1)::int AS g FROM supplier) s
   CROSS JOIN generate_series(1, 3) k
   WHERE k = 1 OR (k = 2 AND s.g % 2 = 0) OR (k = 3 AND s.g % 7 = 0)`,
  // Bank accounts: a default ACTIVE one each, a second ACTIVE one for a fifth, a deleted one for
  // a ninth.
  `INSERT INTO supplier_bank_account (supplier_id, account_name, account_type, bank_name,
                                      account_no_enc, account_no_bidx, account_no_mask, status,
                                      is_default, created_by, deleted_at)
   SELECT s.supplier_id, 'Account ' || s.g, 'CORPORATE', 'ICBC', 'v1.k1.iv.a' || s.g || k,
          'acct-' || s.g || '-' || k, '**** **** ' || lpad((s.g % 10000)::text, 4, '0'),
          'ACTIVE', CASE WHEN k = 1 THEN 'YES' ELSE 'NO' END, 1, CASE WHEN k = 3 THEN now() END
   FROM (SELECT supplier_id, (supplier_id - min(supplier_id) OVER () + 1)::int AS g FROM supplier) s
   CROSS JOIN generate_series(1, 3) k
   WHERE k = 1 OR (k = 2 AND s.g % 5 = 0) OR (k = 3 AND s.g % 9 = 0)`,
  // One registration approval per supplier, half of them with an opinion.
  `INSERT INTO approval_log (request_no, provider, biz_type, supplier_id, target_type, target_id,
                             applicant_admin_id, candidate_snapshot, levels, status, sync_status,
                             opinion_enc, submitted_at)
   SELECT 'REQ-' || supplier_id, 'LOCAL_AUTO', 'PROFILE_CREATE', supplier_id, 'SUPPLIER',
          supplier_id, 1, '{}'::jsonb, 1, 'APPLIED', 'NOT_REQUIRED',
          CASE WHEN supplier_id % 2 = 0 THEN 'v1.k1.iv.op' END, create_time + interval '1 hour'
   FROM supplier`,
  // Change log: three rows per supplier (the last linked to its approval), and 3 000 more
  // for the busy supplier.
  `INSERT INTO change_log (supplier_id, approval_log_id, operation_type, target_type, target_id,
                           field_name, old_value_masked, new_value_masked, status, operator_id,
                           create_time)
   SELECT s.supplier_id, CASE WHEN k = 3 THEN a.approval_log_id END,
          (ARRAY['DRAFT_CREATE', 'DRAFT_UPDATE', 'REGISTRATION_SUBMIT', 'REGISTRATION_APPLY',
                 'ACCOUNT_CREATE'])[1 + (k - 1) % 5],
          'SUPPLIER', s.supplier_id, (ARRAY['fullName', 'address', 'status', 'status', 'bankAccount'])[1 + (k - 1) % 5],
          'old ' || k, 'new ' || k, CASE WHEN k >= 3 THEN 'APPLIED' END, 1,
          s.create_time + k * interval '3 minutes'
   FROM (SELECT supplier_id, create_time, (supplier_id - min(supplier_id) OVER () + 1)::int AS g
         FROM supplier) s
   JOIN approval_log a ON a.supplier_id = s.supplier_id
   CROSS JOIN LATERAL generate_series(1, CASE WHEN s.g = ${BUSY} THEN 3003 ELSE 3 END) k`,
  // Relations: the busy supplier has 5 000 over all ten modules (a seventh of them ended), every
  // other ACTIVE supplier with an even row number one.
  `INSERT INTO supplier_resource_relation (supplier_id, resource_module, resource_id, update_time,
                                           created_by, updated_by, deleted_at)
   SELECT s.supplier_id,
          (ARRAY['SCENIC', 'RESTAURANT', 'SUPPLIES', 'SUPPLIES_COMBO', 'ACTIVITY', 'HOTEL',
                 'SERVICE', 'COST_ITEM', 'STAFF', 'VEHICLE'])[1 + (s.g + k) % 10],
          9007199254740993 + s.g * 10000 + k,
          date_trunc('second', now()) - (s.g + k) * interval '1 minute', 1, 1,
          CASE WHEN s.g = ${BUSY} AND k % 7 = 0 THEN now() END
   FROM (SELECT supplier_id, status, (supplier_id - min(supplier_id) OVER () + 1)::int AS g
         FROM supplier) s
   CROSS JOIN LATERAL generate_series(1, CASE WHEN s.g = ${BUSY} THEN ${BUSY_RELATIONS} ELSE 1 END) k
   WHERE (s.status = 'ACTIVE' AND s.g % 2 = 0) OR s.g = ${BUSY}`,
  // Rules (small): every type requires a business licence, hotels and fleets a permit.
  `INSERT INTO qualification_rule (type_code, qual_type, is_required, warning_days, sort_order)
   SELECT code, 'BUSINESS_LICENSE', true, 30, 1 FROM unnest(${arrayLiteral(TYPE_CODES)}) code
   UNION ALL
   SELECT code, 'OPERATING_PERMIT', true, 60, 2 FROM unnest(ARRAY['HOTEL', 'FLEET']) code`,
]

/** Loads the data set into a fresh (migrated, seeded) database and analyzes it. */
export async function loadPlanData(sql: postgres.Sql) {
  for (const statement of LOAD) await sql.unsafe(statement)
  // VACUUM sets the visibility map as autovacuum would in production (index-only scans need
  // it); ANALYZE gives the planner the row counts and distributions.
  await sql.unsafe(`VACUUM ANALYZE ${[...LARGE].join(', ')}`)
  await sql.unsafe('ANALYZE qualification_rule')
  const [first] = await sql`SELECT min(supplier_id)::text AS id FROM supplier`
  /** The id of the supplier of row number `g`. */
  return (g: number) => (BigInt(first.id as string) + BigInt(g - 1)).toString()
}
