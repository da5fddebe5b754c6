import { mkdir, writeFile } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import postgres from 'postgres'
import { grant, PERMISSION_CODES } from '../../sql/admin'
import { RESOURCE_TABLES } from '../../sql/resource'
import { RESOURCE_MODULES, type ResourceModule } from '../../src/vocabulary'
import { loadConfig } from '../../src/config'
import { developmentByDefault } from '../../src/dotenv'
import {
  createCipher,
  maskAccountNo,
  maskCertNo,
  maskPhone,
  maskTaxNo,
} from '../../src/crypto/sensitive'
import { migrateWithLock, redactPasswords } from '../../src/db/migrate'
import { THREE_CHARACTER_TRADE_NAMES_IN_TEN, TRADE_ALPHABET } from './names'
import { USCC_ALPHABET, withCheckCharacter } from '../../src/domain/supplier/uscc'
import { loadDemoQualificationRules, loadReferenceData } from '../../src/db/seed'
import { embeddedFleetResources } from '../../src/ports/fleet'

/*
 * Benchmark data set: `npm run bench:seed [-- --suppliers N | --scale large] [--force] [--reset]`.
 *
 * Writes a realistic data set into DATABASE_URL with set-based SQL (generate_series): suppliers
 * of every status with types, contacts, qualifications, bank accounts and change-log rows;
 * resources of all ten modules with tags and seasons; one large supplier with many relations;
 * soft-deleted rows everywhere. Every value is deterministic (a hash of the row number), so two
 * runs at the same scale make the same data set (ids and times aside).
 *
 * Sensitive columns hold REAL ciphertexts under the configured keys (DATA_ENCRYPTION_KEYS): a
 * pool of 1,000 values per kind is encrypted here and rows pick one by a hash of their number,
 * with the mask of that very value. Blind indexes, on the other hand, are NOT the HMAC of the
 * value: they are `bench` + 59 hex digits of md5 of the row's number, unique per row as the
 * partial unique indexes want (a real HMAC is 64 lowercase hex digits and never contains `n`,
 * so they cannot collide with one). The prefix also tells bench suppliers from others: a
 * supplier whose tax_no_bidx does not start with `bench` was written by the service itself.
 * Consequence: looking a seeded tax or account number up by value (C-02, C-19) finds nothing,
 * and the service, re-saving a seeded number, sees a new blind index.
 */

const USAGE = `usage: DATABASE_URL=postgres://… npm run bench:seed -- [options]
  --suppliers N          suppliers to create (default 200000)
  --scale large          1,000,000 suppliers (same as --suppliers 1000000)
  --resources N          resources per local module (default 10000)
  --vehicles N           vehicles in fleet_vehicle (default 5000)
  --large-relations N    valid relations of the large supplier, over the ten modules (default 10000)
  --out FILE             what the benchmark needs (default .bench/seed.json)
  --fleet-out FILE       the vehicles in the fleet contract's shape (default .bench/fleet-vehicles.json)
  --force                seed even though the database holds suppliers the seeder did not write
  --reset                drop and re-create the public schema first (a database seeded before)`

function parseArgs(argv: string[]) {
  const flags = new Set(['--force', '--reset', '--help'])
  const values = new Map<string, string>()
  const set = new Set<string>()
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (flags.has(a)) set.add(a)
    else if (a.startsWith('--') && i + 1 < argv.length) values.set(a, argv[++i])
    else throw new Error(`unknown argument ${a}\n${USAGE}`)
  }
  const int = (name: string, fallback: number, min: number) => {
    const v = values.get(name)
    if (v === undefined) return fallback
    if (!/^\d+$/.test(v) || Number(v) < min) throw new Error(`${name} must be an integer ≥ ${min}`)
    return Number(v)
  }
  const scale = values.get('--scale')
  if (scale !== undefined && scale !== 'large' && scale !== 'default') {
    throw new Error('--scale is "default" or "large"')
  }
  return {
    help: set.has('--help'),
    force: set.has('--force'),
    reset: set.has('--reset'),
    suppliers: int('--suppliers', scale === 'large' ? 1_000_000 : 200_000, 10),
    resources: int('--resources', 10_000, 10),
    vehicles: int('--vehicles', 5_000, 10),
    largeRelations: int('--large-relations', 10_000, 10),
    out: values.get('--out') ?? '.bench/seed.json',
    fleetOut: values.get('--fleet-out') ?? '.bench/fleet-vehicles.json',
  }
}

const args = (() => {
  try {
    return parseArgs(process.argv.slice(2))
  } catch (err) {
    console.error((err as Error).message)
    process.exit(2)
  }
})()
if (args.help) {
  console.log(USAGE)
  process.exit(0)
}
if (!process.env.DATABASE_URL) {
  console.error('bench:seed refuses to run without DATABASE_URL (it writes a large data set)')
  console.error(USAGE)
  process.exit(2)
}
// Benchmark data, sealed and encrypted with the keys of the benchmark's development service.
developmentByDefault(process.env)
const config = loadConfig()
const url = config.databaseUrl as string
const shownUrl = redactPasswords(url, url)

/** How the resources of each module are named: `head` + a word of `kinds` (+ the row number). */
const NAMING: Record<ResourceModule, { kinds: string[]; withCity: boolean }> = {
  SCENIC: { kinds: ['景区', '风景区', '古镇', '森林公园', '博物馆', '湿地公园'], withCity: true },
  RESTAURANT: { kinds: ['酒家', '餐厅', '食府', '农家乐', '茶楼', '面馆'], withCity: true },
  SUPPLIES: { kinds: ['矿泉水', '雨衣', 'U型颈枕', '导游旗', '防晒霜', '充电宝'], withCity: false },
  SUPPLIES_COMBO: {
    kinds: ['防晒套装', '研学物料包', '保暖套装', '登山应急包', '亲子礼包'],
    withCity: false,
  },
  ACTIVITY: {
    kinds: ['夜游', '采茶体验', '非遗手作', '日出摄影团', '徒步', '漂流'],
    withCity: true,
  },
  HOTEL: { kinds: ['大酒店', '度假酒店', '精品民宿', '国际酒店', '商务酒店'], withCity: true },
  SERVICE: {
    kinds: ['导游讲解服务', '接送机服务', '行李寄存服务', '旅拍服务', '翻译服务'],
    withCity: true,
  },
  COST_ITEM: { kinds: ['门票代收', '停车费', '过路费', '住宿补贴', '餐费补贴'], withCity: false },
  STAFF: { kinds: ['导游', '司机', '领队', '讲解员', '安全员'], withCity: false },
  VEHICLE: { kinds: ['大巴车', '中巴车', '商务车', '考斯特', '轿车'], withCity: false },
}

/**
 * The business words of a company name, by primary type. Its keys are the supplier_type
 * dictionary of db/seed/reference.sql, in its order; the seed checks that against the database.
 */
const INDUSTRY_BY_TYPE: Record<string, string> = {
  SCENIC: '景区管理',
  RESTAURANT: '餐饮管理',
  SUPPLIES: '旅游用品',
  ACTIVITY: '文化旅游',
  HOTEL: '酒店管理',
  SERVICE: '旅游服务',
  FLEET: '旅游客运',
  RENTAL: '设备租赁',
  PERFORMANCE: '文化演艺',
  INSURANCE: '保险代理',
  CHANNEL: '国际旅行社',
  PROFESSIONAL_SERVICE: '企业管理咨询',
  PROPERTY: '物业管理',
  TICKET: '票务代理',
  OTHER: '商贸',
}
const SUPPLIER_TYPES = Object.keys(INDUSTRY_BY_TYPE)
const INDUSTRY = Object.values(INDUSTRY_BY_TYPE)
const CITIES = [
  '杭州',
  '苏州',
  '上海',
  '北京',
  '黄山',
  '南京',
  '成都',
  '西安',
  '厦门',
  '桂林',
  '三亚',
  '丽江',
  '青岛',
  '大理',
  '张家界',
  '宁波',
  '绍兴',
  '无锡',
  '重庆',
  '昆明',
]
/*
 * A full name is composed as real ones are (企业名称登记管理规定): a city, a trade name (字号) of two
 * or three characters drawn as scripts/bench/names.ts draws them, the line of business of the
 * supplier's type and a legal form. Region, industry and form are shared by tens
 * of thousands of suppliers, the trade name by few. Short names are two of WORDS, so a keyword
 * drawn from them finds more suppliers the larger the data set.
 */
const WORDS = [
  '湖畔',
  '云端',
  '山水',
  '锦程',
  '华夏',
  '东方',
  '远航',
  '星辰',
  '明珠',
  '金桥',
  '瑞丰',
  '恒信',
  '天成',
  '新纪元',
  '长风',
  '海棠',
  '翠竹',
  '青松',
  '祥和',
  '万象',
  '鼎盛',
  '嘉禾',
  '悦途',
  '畅游',
  '逸景',
  '乐行',
  '安达',
  '宏图',
  '和美',
  '盛世',
]
const SURNAMES = [
  '王',
  '李',
  '张',
  '刘',
  '陈',
  '杨',
  '赵',
  '黄',
  '周',
  '吴',
  '徐',
  '孙',
  '胡',
  '朱',
  '高',
  '林',
]
const GIVEN = [
  '伟',
  '芳',
  '娜',
  '敏',
  '静',
  '强',
  '磊',
  '洋',
  '艳',
  '勇',
  '军',
  '杰',
  '娟',
  '涛',
  '明',
  '超',
  '秀英',
  '建华',
  '志强',
  '丽华',
]

const BENCH_SEED = 'bench'
const POOL = 1000

/** SQL array literal of text values (constants of this file only, never input). */
const arr = (values: readonly string[]) =>
  `ARRAY[${values.map((v) => `'${v.replace(/'/g, "''")}'`).join(',')}]::text[]`

const sql = postgres(url, {
  max: 1,
  onnotice: () => {},
  // One session for the whole run: the pool and the helper functions live in pg_temp.
  idle_timeout: 0,
  max_lifetime: 0,
  connect_timeout: 10,
  connection: { TimeZone: config.timezone, application_name: 'supplier-admin bench:seed' },
})

const started = Date.now()
const timings: { step: string; seconds: number; rows?: number }[] = []
const fmt = (ms: number) => `${(ms / 1000).toFixed(1)} s`

async function step<T>(name: string, work: () => Promise<T>, count?: (r: T) => number) {
  process.stdout.write(`  ${name} … `)
  const t0 = Date.now()
  const result = await work()
  const ms = Date.now() - t0
  const rows = count ? count(result) : undefined
  timings.push({ step: name, seconds: Math.round(ms) / 1000, rows })
  console.log(`${rows !== undefined ? `${rows.toLocaleString('en')} rows, ` : ''}${fmt(ms)}`)
  return result
}

/** Rows affected by one statement. */
const rowsOf = (r: { count: number }) => r.count

/** Reserves `count` consecutive ids of an identity sequence and returns the first. */
async function reserveIds(table: string, column: string, count: number): Promise<bigint> {
  const [{ first }] = await sql<{ first: string }[]>`
    WITH seq AS (SELECT pg_get_serial_sequence(${`public.${table}`}, ${column}) AS name)
    SELECT nextval((SELECT name FROM seq))::text AS first
  `
  const start = BigInt(first)
  await sql`SELECT setval(pg_get_serial_sequence(${`public.${table}`}, ${column}), ${String(start + BigInt(count) - 1n)}::bigint, true)`
  return start
}

// Plain values of the pools: shaped like the real thing, and valid for the service's checks.
const digits = (i: number, salt: number, len: number) => {
  let x = BigInt(i + 1) * 6364136223846793005n + BigInt(salt) * 1442695040888963407n
  let out = ''
  while (out.length < len) {
    x = (x * 6364136223846793005n + 1442695040888963407n) & 0xffffffffffffffffn
    out += String(Number(x >> 33n) % 10)
  }
  return out
}
const taxNo = (i: number) => {
  const tail = digits(i, 7, 9)
    .split('')
    .map((d, k) => USCC_ALPHABET[(Number(d) * 3 + k + i) % USCC_ALPHABET.length])
    .join('')
  return withCheckCharacter(`91${digits(i, 1, 6)}${tail}`)
}
const phone = (i: number) => `1${'3456789'[i % 7]}${digits(i, 2, 9)}`
const accountNo = (i: number) => `62${digits(i, 3, 14 + (i % 4))}`
const certNo = (i: number) => `${['JY', 'WS', 'JT', 'ZZ'][i % 4]}${digits(i, 4, 14)}`

async function main() {
  console.log(`bench:seed into ${shownUrl}`)
  console.log(
    `  suppliers ${args.suppliers.toLocaleString('en')}, resources ${args.resources.toLocaleString('en')} per local module, vehicles ${args.vehicles.toLocaleString('en')}, large supplier relations ${args.largeRelations.toLocaleString('en')}`,
  )

  // Guards: never write over data the seeder did not make.
  const [state] = await sql<{ hasSchema: boolean; foreign: number; seeded: boolean }[]>`
    SELECT to_regclass('public.supplier') IS NOT NULL AS "hasSchema", 0 AS foreign, false AS seeded
  `
  if (state.hasSchema) {
    const [s] = await sql<{ foreign: number; seeded: boolean }[]>`
      SELECT (SELECT count(*)::int FROM supplier WHERE tax_no_bidx NOT LIKE 'bench%') AS foreign,
             EXISTS (SELECT 1 FROM seed_run WHERE seed_name = ${BENCH_SEED}) AS seeded
    `
    state.foreign = s.foreign
    state.seeded = s.seeded
  }
  if (state.foreign > 0 && !args.force) {
    console.error(
      `refused: the database holds ${state.foreign} supplier(s) that bench:seed did not write. ` +
        'Use a database of its own, or pass --force (with --reset: drops them all).',
    )
    process.exit(3)
  }
  if (state.seeded && !args.reset) {
    console.error(
      'refused: this database was seeded already (seed_run "bench"). Pass --reset to drop the ' +
        'public schema and seed again, or use another database.',
    )
    process.exit(3)
  }

  console.log('steps:')
  if (args.reset && state.hasSchema) {
    await step('reset: drop and re-create schema public', async () => {
      await sql.unsafe('DROP SCHEMA public CASCADE; CREATE SCHEMA public')
    })
  }
  await step('migrations (dbmate, under the migration lock)', () => migrateWithLock(url))
  await step('reference data (db/seed/reference.sql)', async () => {
    await loadReferenceData(sql)
    const dictionary = await sql`
      SELECT dict_value FROM dict_data
      WHERE dict_type = 'supplier_type' AND status = 'ACTIVE' AND deleted_at IS NULL
      ORDER BY sort_order, dict_value`
    const codes = dictionary.map((r) => r.dict_value as string)
    if (codes.join() !== SUPPLIER_TYPES.join()) {
      throw new Error(
        `the supplier_type dictionary (${codes.join()}) differs from INDUSTRY_BY_TYPE: update the seed`,
      )
    }
  })
  await sql`INSERT INTO seed_run (seed_name) VALUES (${BENCH_SEED})`
  await sql.unsafe(
    `SET synchronous_commit = off; SET work_mem = '64MB'; SET maintenance_work_mem = '256MB'`,
  )
  // The list totals' triggers (list_count) would hold every inserted row in a transition table
  // and lock every supplier a type is inserted for: for this session they are off (a superuser's
  // session_replication_role, which the seed's consistent data does not need the foreign key
  // checks of either), and the totals are recounted at the end. Without the right, they run.
  const triggersOff = await sql`SET session_replication_role = replica`.then(
    () => true,
    () => false,
  )

  const adminId = config.demoAdminId
  await step('administrator grants and qualification rules', async () => {
    // The demo administrator (`npm run token`) with every permission and the ADMIN role, as
    // db/seed/demo.sql grants them; and the demo's qualification rules (the expiring list and
    // the compliance of the detail read need rules).
    await grant(sql, adminId, {
      permissions: PERMISSION_CODES,
      roles: ['ADMIN'],
    })
    await loadDemoQualificationRules(sql)
  })

  await step(
    `encrypt pools (${POOL} values per kind, key ${config.crypto.activeKeyId})`,
    async () => {
      const cipher = await createCipher(config.crypto)
      const kinds: [string, (i: number) => string, (v: string) => string | null][] = [
        ['tax', taxNo, maskTaxNo],
        ['phone', phone, maskPhone],
        ['account', accountNo, maskAccountNo],
        ['cert', certNo, maskCertNo],
      ]
      const rows: { kind: string; i: number; enc: string; mask: string }[] = []
      for (const [kind, make, mask] of kinds) {
        for (let i = 0; i < POOL; i++) {
          const v = make(i)
          rows.push({ kind, i, enc: await cipher.encrypt(v), mask: mask(v) as string })
        }
      }
      await sql`CREATE TEMP TABLE bench_pool (kind text, i int, enc text, mask text, PRIMARY KEY (kind, i))`
      for (let k = 0; k < rows.length; k += 2000) {
        await sql`INSERT INTO bench_pool ${sql(rows.slice(k, k + 2000))}`
      }
      // rnd(n, salt, m): a deterministic "random" integer in [0, m) for row n.
      await sql`
      CREATE FUNCTION pg_temp.rnd(n bigint, salt bigint, m bigint) RETURNS bigint
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS 'SELECT abs(hashint8extended(n, salt) % m)'
    `
      // A bench blind index: unique per (purpose, key), 64 characters like an HMAC in hex.
      await sql`
      CREATE FUNCTION pg_temp.bidx(purpose text, key text) RETURNS text
      LANGUAGE sql IMMUTABLE PARALLEL SAFE
      AS 'SELECT ''bench'' || left(md5(purpose || '':'' || key) || md5(key || '':'' || purpose), 59)'
    `
    },
  )

  const N = args.suppliers
  const sBase = await reserveIds('supplier', 'supplier_id', N)
  const largeId = String(sBase)
  const types = arr(SUPPLIER_TYPES)
  // Primary type of supplier n (0-based index into SUPPLIER_TYPES); the large one is SCENIC.
  await sql.unsafe(`
    CREATE FUNCTION pg_temp.ptype(n bigint) RETURNS int LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS 'SELECT CASE WHEN n = 1 THEN 0 ELSE pg_temp.rnd(n, 8, ${SUPPLIER_TYPES.length})::int END'
  `)
  // Status of supplier n: ACTIVE 60 %, DRAFT 10 %, VETTING 5 %, SUSPENDED 8 %, FROZEN 5 %,
  // BLACKLIST 4 %, ARCHIVED 8 %; the large supplier (n = 1) is ACTIVE.
  await sql.unsafe(`
    CREATE FUNCTION pg_temp.status(n bigint) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT CASE WHEN n = 1 THEN 'ACTIVE' ELSE (
      SELECT CASE WHEN b < 60 THEN 'ACTIVE' WHEN b < 70 THEN 'DRAFT' WHEN b < 75 THEN 'VETTING'
                  WHEN b < 83 THEN 'SUSPENDED' WHEN b < 88 THEN 'FROZEN' WHEN b < 92 THEN 'BLACKLIST'
                  ELSE 'ARCHIVED' END
      FROM (SELECT pg_temp.rnd(n, 1, 100) AS b) x) END $$
  `)

  await step(
    'suppliers',
    () =>
      sql.unsafe(
        `
      WITH g AS (
        SELECT n, pg_temp.status(n) AS status, pg_temp.ptype(n) AS t,
               date_trunc('second', now() - make_interval(secs => 7200 + pg_temp.rnd(n, 3, 3 * 365 * 86400))) AS ct
        FROM generate_series(1, $2::bigint) n
      )
      INSERT INTO supplier (
        supplier_id, supplier_no, full_name, short_name, tax_no_enc, tax_no_bidx, tax_no_mask,
        legal_representative, contact_phone_enc, contact_phone_mask, establish_date,
        registered_capital, business_scope, address, staff_scale, main_cooperation,
        license_image_url, remark, status, credit_level, total_score, is_related_party,
        create_time, update_time, created_by, updated_by, deleted_at
      ) OVERRIDING SYSTEM VALUE
      SELECT $1::bigint + g.n - 1,
             CASE WHEN g.status NOT IN ('DRAFT', 'VETTING')
                  THEN 'SP' || to_char(g.ct + interval '61 minutes', 'YYYYMMDD') || nextval('supplier_no_seq') END,
             CASE WHEN g.n = 1 THEN '杭州基准大型旅游集团有限公司'
                  ELSE (${arr(CITIES)})[1 + pg_temp.rnd(g.n, 5, ${CITIES.length})]
                       || (${arr(TRADE_ALPHABET)})[1 + pg_temp.rnd(g.n, 120, ${TRADE_ALPHABET.length})]
                       || (${arr(TRADE_ALPHABET)})[1 + pg_temp.rnd(g.n, 121, ${TRADE_ALPHABET.length})]
                       || CASE WHEN pg_temp.rnd(g.n, 122, 10) < ${THREE_CHARACTER_TRADE_NAMES_IN_TEN}
                               THEN (${arr(TRADE_ALPHABET)})[1 + pg_temp.rnd(g.n, 123, ${TRADE_ALPHABET.length})]
                               ELSE '' END
                       || (${arr(INDUSTRY)})[1 + g.t]
                       || CASE WHEN pg_temp.rnd(g.n, 9, 10) = 0 THEN '股份有限公司' ELSE '有限公司' END END,
             CASE WHEN g.n = 1 THEN '基准集团' WHEN pg_temp.rnd(g.n, 10, 10) < 7
                  THEN (${arr(WORDS)})[1 + pg_temp.rnd(g.n, 6, ${WORDS.length})]
                       || (${arr(WORDS)})[1 + pg_temp.rnd(g.n, 7, ${WORDS.length})] END,
             tp.enc, pg_temp.bidx('taxNo', g.n::text), tp.mask,
             (${arr(SURNAMES)})[1 + pg_temp.rnd(g.n, 11, ${SURNAMES.length})]
               || (${arr(GIVEN)})[1 + pg_temp.rnd(g.n, 12, ${GIVEN.length})],
             pp.enc, pp.mask,
             (g.ct - make_interval(days => 30 + pg_temp.rnd(g.n, 13, 7000)::int))::date,
             ((1 + pg_temp.rnd(g.n, 14, 50)) * 100)::text || '万元',
             '旅游服务、票务代理、会务会展、' || (${arr(INDUSTRY)})[1 + g.t],
             (${arr(CITIES)})[1 + pg_temp.rnd(g.n, 5, ${CITIES.length})] || '市'
               || (${arr(WORDS)})[1 + pg_temp.rnd(g.n, 15, ${WORDS.length})] || '路'
               || (1 + pg_temp.rnd(g.n, 16, 999))::text || '号',
             (ARRAY['LT50', 'R50_200', 'R200_500', 'GT500'])[1 + pg_temp.rnd(g.n, 17, 4)],
             (${arr(INDUSTRY)})[1 + g.t] || '合作，年度框架协议',
             CASE WHEN g.status <> 'DRAFT' OR pg_temp.rnd(g.n, 18, 2) = 0
                  THEN 'https://storage.example.com/supplier/license/' || g.n || '.png' END,
             CASE WHEN pg_temp.rnd(g.n, 19, 20) = 0 THEN '重点合作伙伴' END,
             g.status,
             CASE WHEN g.status IN ('DRAFT', 'VETTING') THEN NULL
                  ELSE (ARRAY['AAA', 'AA', 'A', 'B', 'C', NULL])[1 + pg_temp.rnd(g.n, 20, 6)] END,
             CASE WHEN g.status IN ('DRAFT', 'VETTING') THEN NULL
                  ELSE 60 + pg_temp.rnd(g.n, 21, 4000) / 100.0 END,
             pg_temp.rnd(g.n, 22, 33) = 0,
             g.ct,
             least(date_trunc('second', now()), g.ct + make_interval(secs => pg_temp.rnd(g.n, 23, 180 * 86400))),
             $3::bigint, $3::bigint,
             -- Only a draft can be deleted: a fifth of the drafts are.
             CASE WHEN g.status = 'DRAFT' AND g.n <> 1 AND pg_temp.rnd(g.n, 24, 5) = 0
                  THEN least(now(), g.ct + interval '2 days') END
      FROM g
      JOIN bench_pool tp ON tp.kind = 'tax' AND tp.i = pg_temp.rnd(g.n, 25, ${POOL})
      LEFT JOIN bench_pool pp ON pp.kind = 'phone' AND pp.i = pg_temp.rnd(g.n, 26, ${POOL})
                             AND pg_temp.rnd(g.n, 27, 5) > 0
      `,
        [String(sBase), N, adminId],
      ),
    rowsOf,
  )

  // Supplier n of this run, in SQL: its id minus the first id plus one.
  const sN = `(s.supplier_id - ${sBase}::bigint + 1)`
  const ours = `s.supplier_id BETWEEN ${sBase}::bigint AND ${sBase + BigInt(N) - 1n}::bigint`

  await step(
    'supplier types (primary, 30 % a second, 5 % a removed one)',
    () =>
      sql.unsafe(`
      INSERT INTO supplier_type (
        supplier_id, type_code, is_primary, create_time, update_time, deleted_at,
        supplier_create_time -- the trigger that copies it is off with the others (above)
      )
      SELECT s.supplier_id, (${types})[1 + x.t], x.primary_, s.create_time, s.create_time,
             x.deleted_at, s.create_time
      FROM supplier s
      CROSS JOIN LATERAL (
        SELECT pg_temp.ptype(${sN}) AS t, true AS primary_, NULL::timestamptz AS deleted_at
        UNION ALL
        SELECT (pg_temp.ptype(${sN}) + 1 + pg_temp.rnd(${sN}, 30, 14))::int % 15, false, NULL
        WHERE ${sN} <> 1 AND pg_temp.rnd(${sN}, 31, 10) < 3
        UNION ALL
        SELECT (pg_temp.ptype(${sN}) + 1 + pg_temp.rnd(${sN}, 32, 14))::int % 15, false,
               s.create_time + interval '30 days'
        WHERE ${sN} <> 1 AND pg_temp.rnd(${sN}, 33, 20) = 0
        UNION ALL
        SELECT t, false, NULL FROM unnest(ARRAY[4, 1, 6]) t WHERE ${sN} = 1
      ) x
      WHERE ${ours}
    `),
    rowsOf,
  )

  await step(
    'contacts (1-3 each, 10 % with a removed one)',
    () =>
      sql.unsafe(`
      INSERT INTO supplier_contact (supplier_id, contact_name, contact_phone_enc, contact_phone_mask,
                                    contact_role, remark, create_time, update_time, deleted_at)
      SELECT s.supplier_id,
             (${arr(SURNAMES)})[1 + pg_temp.rnd(${sN} * 8 + k, 40, ${SURNAMES.length})]
               || (${arr(GIVEN)})[1 + pg_temp.rnd(${sN} * 8 + k, 41, ${GIVEN.length})],
             p.enc, p.mask,
             (ARRAY['业务负责人', '财务', '运营', '销售经理', '客服', NULL])[1 + pg_temp.rnd(${sN} * 8 + k, 42, 6)],
             CASE WHEN pg_temp.rnd(${sN} * 8 + k, 43, 10) = 0 THEN '工作日 9:00-18:00' END,
             s.create_time, s.create_time,
             CASE WHEN k = 4 THEN s.create_time + interval '10 days' END
      FROM supplier s
      CROSS JOIN LATERAL generate_series(1, 4) k
      JOIN bench_pool p ON p.kind = 'phone' AND p.i = pg_temp.rnd(${sN} * 8 + k, 44, ${POOL})
      WHERE ${ours}
        AND (k <= 1 + CASE WHEN ${sN} = 1 THEN 2 ELSE pg_temp.rnd(${sN}, 45, 3) END
             OR (k = 4 AND pg_temp.rnd(${sN}, 46, 10) = 0))
    `),
    rowsOf,
  )

  // Expiry of qualification key q: 10 % expired, 10 % within 30 days, 70 % later, 10 % none.
  const expiry = (q: string) => `
    CASE WHEN pg_temp.rnd(${q}, 50, 100) < 10 THEN current_date - (1 + pg_temp.rnd(${q}, 51, 365))::int
         WHEN pg_temp.rnd(${q}, 50, 100) < 20 THEN current_date + pg_temp.rnd(${q}, 52, 31)::int
         WHEN pg_temp.rnd(${q}, 50, 100) < 90 THEN current_date + (60 + pg_temp.rnd(${q}, 53, 1800))::int
    END`
  await step(
    'qualifications (licence, permits of the held types, expiries past/near/far)',
    () =>
      sql.unsafe(`
      INSERT INTO supplier_qualification (supplier_id, qual_type, cert_no_enc, cert_no_mask, image_url,
                                          expiry_date, create_time, update_time, deleted_at)
      SELECT x.supplier_id, x.qual_type, c.enc, c.mask,
             'https://storage.example.com/supplier/qualification/' || x.q || '.jpg',
             ${expiry('x.q')}, x.ct, x.ct, x.deleted_at
      FROM (
        -- every supplier: a business licence; 5 % also an old, removed one
        SELECT s.supplier_id, 'BUSINESS_LICENSE' AS qual_type, ${sN} * 16 AS q, s.create_time AS ct,
               NULL::timestamptz AS deleted_at
        FROM supplier s WHERE ${ours}
        UNION ALL
        SELECT s.supplier_id, 'BUSINESS_LICENSE', ${sN} * 16 + 1, s.create_time,
               s.create_time + interval '100 days'
        FROM supplier s WHERE ${ours} AND pg_temp.rnd(${sN}, 54, 20) = 0
        UNION ALL
        -- the permit each held type requires (tax registration for scenic: optional, half)
        SELECT s.supplier_id, r.qual_type, ${sN} * 16 + 2 + r.slot, s.create_time, NULL
        FROM supplier s
        JOIN supplier_type t ON t.supplier_id = s.supplier_id AND t.deleted_at IS NULL
        JOIN (VALUES ('HOTEL', 'PUBLIC_HEALTH_PERMIT', 0), ('RESTAURANT', 'FOOD_OPERATION_PERMIT', 1),
                     ('FLEET', 'ROAD_TRANSPORT_PERMIT', 2), ('SCENIC', 'TAX_REGISTRATION', 3))
             AS r (type_code, qual_type, slot) ON r.type_code = t.type_code
        WHERE ${ours} AND (r.slot < 3 OR pg_temp.rnd(${sN}, 55, 2) = 0)
        UNION ALL
        -- a fifth also hold an ISO 9001 certificate
        SELECT s.supplier_id, 'ISO9001', ${sN} * 16 + 8, s.create_time, NULL
        FROM supplier s WHERE ${ours} AND pg_temp.rnd(${sN}, 56, 5) = 0
      ) x
      LEFT JOIN bench_pool c ON c.kind = 'cert' AND c.i = pg_temp.rnd(x.q, 57, ${POOL})
                            AND pg_temp.rnd(x.q, 58, 10) > 0
    `),
    rowsOf,
  )

  await step(
    'bank accounts (0-2 each, one default, 5 % with a removed one)',
    () =>
      sql.unsafe(`
      INSERT INTO supplier_bank_account (
        supplier_id, account_name, account_type, bank_name, bank_branch, account_no_enc,
        account_no_bidx, account_no_mask, proof_file_urls, settle_mode, account_period,
        invoice_type, tax_rate, status, is_default, create_time, update_time, created_by, deleted_at)
      SELECT s.supplier_id, s.full_name,
             CASE WHEN pg_temp.rnd(${sN} * 4 + k, 60, 10) = 0 THEN 'PERSONAL' ELSE 'CORPORATE' END,
             (ARRAY['中国工商银行', '中国建设银行', '中国农业银行', '中国银行', '交通银行', '招商银行', '浙商银行', '杭州银行'])[1 + pg_temp.rnd(${sN} * 4 + k, 61, 8)],
             CASE WHEN pg_temp.rnd(${sN} * 4 + k, 62, 5) > 0
                  THEN (${arr(CITIES)})[1 + pg_temp.rnd(${sN}, 5, ${CITIES.length})] || '分行营业部' END,
             p.enc, pg_temp.bidx('accountNo', ${sN} || ':' || k), p.mask,
             CASE WHEN pg_temp.rnd(${sN} * 4 + k, 63, 3) = 0
                  THEN jsonb_build_array('https://storage.example.com/supplier/proof/' || ${sN} || '-' || k || '.pdf')
                  ELSE '[]'::jsonb END,
             (ARRAY['MONTHLY', 'PER_ORDER', 'WEEKLY', 'PREPAID'])[1 + m.mode],
             CASE WHEN m.mode = 0 THEN (ARRAY[15, 30, 45, 60])[1 + pg_temp.rnd(${sN} * 4 + k, 64, 4)] END,
             (ARRAY['SPECIAL', 'NORMAL', 'NONE', 'SPECIAL'])[1 + m.mode],
             (ARRAY[6, 3, NULL, 13])[1 + m.mode],
             CASE WHEN k = 9 THEN 'ACTIVE'
                  WHEN s.status = 'DRAFT' THEN 'DRAFT'
                  WHEN s.status = 'VETTING' THEN 'PENDING'
                  WHEN k = 2 AND pg_temp.rnd(${sN}, 65, 10) = 0 THEN 'REJECTED'
                  ELSE 'ACTIVE' END,
             CASE WHEN k = 1 AND s.status NOT IN ('DRAFT', 'VETTING')
                       AND (${sN} = 1 OR pg_temp.rnd(${sN}, 66, 5) > 0) THEN 'YES' ELSE 'NO' END,
             s.create_time, s.update_time, ${adminId}::bigint,
             CASE WHEN k = 9 THEN s.create_time + interval '20 days' END
      FROM supplier s
      CROSS JOIN LATERAL (VALUES (1), (2), (9)) ks (k)
      CROSS JOIN LATERAL (SELECT pg_temp.rnd(${sN} * 4 + k, 67, 4)::int AS mode) m
      JOIN bench_pool p ON p.kind = 'account' AND p.i = pg_temp.rnd(${sN} * 4 + k, 68, ${POOL})
      WHERE ${ours}
        AND ((k <= CASE WHEN ${sN} = 1 THEN 2 ELSE pg_temp.rnd(${sN}, 69, 3) END)
             OR (k = 9 AND pg_temp.rnd(${sN}, 70, 20) = 0))
    `),
    rowsOf,
  )

  await step(
    'change log (created, submitted, applied, status changes)',
    () =>
      sql.unsafe(`
      INSERT INTO change_log (supplier_id, operation_type, target_type, target_id, field_name,
                              old_value_masked, new_value_masked, change_reason, status, operator_id,
                              request_id, create_time)
      SELECT s.supplier_id, x.op, 'SUPPLIER', s.supplier_id, x.field, x.old, x.new, x.reason, x.status,
             ${adminId}::bigint, 'bench-' || ${sN} || '-' || x.k, x.at
      FROM supplier s
      CROSS JOIN LATERAL (
        SELECT 1 AS k, 'DRAFT_CREATE' AS op, 'fullName' AS field, NULL AS old, s.full_name AS new,
               NULL AS reason, NULL AS status, s.create_time AS at
        UNION ALL
        SELECT 2, 'REGISTRATION_SUBMIT', 'status', 'DRAFT', 'VETTING', NULL, 'SUBMITTED',
               s.create_time + interval '1 hour'
        WHERE s.status <> 'DRAFT'
        UNION ALL
        SELECT 3, 'REGISTRATION_APPLY', 'supplierNo', NULL, s.supplier_no, NULL, 'APPLIED',
               s.create_time + interval '1 hour 1 minute'
        WHERE s.supplier_no IS NOT NULL
        UNION ALL
        SELECT 5, 'REGISTRATION_APPLY', 'status', 'VETTING', 'ACTIVE', NULL, 'APPLIED',
               s.create_time + interval '1 hour 1 minute'
        WHERE s.supplier_no IS NOT NULL
        UNION ALL
        SELECT 4, 'STATUS_CHANGE', 'status', 'ACTIVE', s.status, '合作评估调整', 'APPLIED', s.update_time
        WHERE s.status IN ('SUSPENDED', 'FROZEN', 'BLACKLIST', 'ARCHIVED')
      ) x
      WHERE ${ours}
    `),
    rowsOf,
  )

  // Resources --------------------------------------------------------------------------------
  const counts: Record<ResourceModule, number> = Object.fromEntries(
    RESOURCE_MODULES.map((m) => [m, m === 'VEHICLE' ? args.vehicles : args.resources]),
  ) as Record<ResourceModule, number>
  const bases = {} as Record<ResourceModule, bigint>
  let resourceRows = 0
  await step(
    `resources (${RESOURCE_MODULES.length} modules, 3 % soft-deleted)`,
    async () => {
      for (const [mi, m] of RESOURCE_MODULES.entries()) {
        const table = RESOURCE_TABLES[m]
        const base = await reserveIds(table, 'id', counts[m])
        bases[m] = base
        const { kinds, withCity } = NAMING[m]
        const head =
          m === 'STAFF'
            ? `(${arr(kinds)})[1 + pg_temp.rnd(n, 81, ${kinds.length})] || ' ' || (${arr(SURNAMES)})[1 + pg_temp.rnd(n, 82, ${SURNAMES.length})] || (${arr(GIVEN)})[1 + pg_temp.rnd(n, 83, ${GIVEN.length})]`
            : m === 'VEHICLE'
              ? `(${arr(kinds)})[1 + pg_temp.rnd(n, 81, ${kinds.length})] || ' ' || (ARRAY['浙A', '浙B', '苏E', '沪C', '皖J'])[1 + pg_temp.rnd(n, 84, 5)] || lpad(n::text, 5, '0')`
              : `${withCity ? `(${arr(CITIES)})[1 + pg_temp.rnd(n, 85, ${CITIES.length})] || ` : ''}(${arr(WORDS)})[1 + pg_temp.rnd(n, 86, ${WORDS.length})] || (${arr(kinds)})[1 + pg_temp.rnd(n, 81, ${kinds.length})] || ' ' || n`
        const r = await sql.unsafe(`
          WITH g AS (
            SELECT n, pg_temp.rnd(n * 16 + ${mi}, 87, 100) AS st,
                   date_trunc('second', now() - make_interval(secs => 86400 + pg_temp.rnd(n * 16 + ${mi}, 88, 2 * 365 * 86400))) AS ct
            FROM generate_series(1, ${counts[m]}::bigint) n
          )
          INSERT INTO ${table} (id, name, cover_url, city, is_charged, settle_type_code, status_code,
                                enabled, create_time, update_time, deleted_at)
          OVERRIDING SYSTEM VALUE
          SELECT ${base}::bigint + n - 1, ${head},
                 CASE WHEN pg_temp.rnd(n * 16 + ${mi}, 89, 5) > 0
                      THEN 'https://storage.example.com/resources/${m.toLowerCase()}/' || n || '.jpg' END,
                 CASE WHEN pg_temp.rnd(n * 16 + ${mi}, 90, 10) > 0
                      THEN (${arr(CITIES)})[1 + pg_temp.rnd(n, 85, ${CITIES.length})] END,
                 (ARRAY[true, true, true, true, true, true, true, false, false, NULL])[1 + pg_temp.rnd(n * 16 + ${mi}, 91, 10)],
                 (ARRAY['PREPAID', 'POSTPAID', 'MONTHLY', 'PER_ORDER', 'MONTHLY', 'PER_ORDER', NULL])[1 + pg_temp.rnd(n * 16 + ${mi}, 92, 7)],
                 CASE WHEN st < 70 THEN 'ON_SALE' WHEN st < 85 THEN 'OFF_SALE' WHEN st < 95 THEN 'DRAFT' ELSE 'DISABLED' END,
                 st < 95 AND pg_temp.rnd(n * 16 + ${mi}, 93, 20) > 0,
                 ct, least(date_trunc('second', now()), ct + make_interval(secs => pg_temp.rnd(n * 16 + ${mi}, 94, 200 * 86400))),
                 CASE WHEN pg_temp.rnd(n * 16 + ${mi}, 95, 100) < 3
                      THEN least(now(), ct + interval '150 days') END
          FROM g
        `)
        resourceRows += r.count
      }
      return resourceRows
    },
    (n) => n,
  )

  const TAGS: [string, string | null][] = [
    ['热门', '#FF5722'],
    ['亲子', '#4CAF50'],
    ['新品', '#2196F3'],
    ['精品', '#9C27B0'],
    ['网红打卡', '#E91E63'],
    ['性价比', '#FF9800'],
    ['团建', '#795548'],
    ['研学', '#3F51B5'],
    ['康养', '#009688'],
    ['夜游', '#673AB7'],
    ['非遗', '#8BC34A'],
    ['自驾', '#607D8B'],
    ['海岛', '#03A9F4'],
    ['古镇', '#CDDC39'],
    ['户外', '#FFC107'],
    ['美食', null],
    ['摄影', null],
    ['节庆', '#F44336'],
  ]
  await step(
    'tags and season links (0-3 tags, 0-2 seasons per resource; some removed)',
    async () => {
      await sql`
        INSERT INTO resource_tag (tag_name, tag_color)
        SELECT t.name, NULLIF(t.color, '') FROM unnest(${sql.array(TAGS.map((t) => t[0]))}::text[], ${sql.array(TAGS.map((t) => t[1] ?? ''))}::text[]) t (name, color)
        ON CONFLICT (tag_name) WHERE deleted_at IS NULL DO NOTHING
      `
      // Two tags an operator removed; links to them must not show.
      await sql`
        INSERT INTO resource_tag (tag_name, tag_color, deleted_at)
        VALUES ('旧版标签', '#9E9E9E', now() - interval '60 days'), ('已下线活动', '#9E9E9E', now() - interval '30 days')
      `
      let rows = 0
      for (const [mi, m] of RESOURCE_MODULES.entries()) {
        const id = `(${bases[m]}::bigint + n - 1)`
        const tags = await sql.unsafe(`
          WITH tags AS (
            SELECT array_agg(tag_id ORDER BY tag_id) AS ids, count(*)::int AS c FROM resource_tag
            WHERE tag_name = ANY (${arr(TAGS.map((t) => t[0]))}) AND deleted_at IS NULL
          ), removed AS (
            SELECT array_agg(tag_id ORDER BY tag_id) AS ids FROM resource_tag
            WHERE tag_name IN ('旧版标签', '已下线活动') AND deleted_at IS NOT NULL
          )
          INSERT INTO resource_tag_link (resource_module, resource_id, tag_id, sort_order, deleted_at)
          SELECT '${m}', ${id},
                 CASE WHEN k = 5 THEN removed.ids[1 + pg_temp.rnd(n, 100, 2)]
                      ELSE tags.ids[1 + (pg_temp.rnd(n * 16 + ${mi}, 101, tags.c) + k) % tags.c] END,
                 k - 1,
                 CASE WHEN k = 4 THEN now() - interval '20 days' END
          FROM generate_series(1, ${counts[m]}::bigint) n
          CROSS JOIN generate_series(1, 5) k
          CROSS JOIN tags CROSS JOIN removed
          WHERE k <= pg_temp.rnd(n * 16 + ${mi}, 102, 4)
             OR (k = 4 AND pg_temp.rnd(n * 16 + ${mi}, 103, 20) = 0)
             OR (k = 5 AND pg_temp.rnd(n * 16 + ${mi}, 104, 50) = 0)
        `)
        const seasons = await sql.unsafe(`
          INSERT INTO resource_season_link (resource_module, resource_id, season_code, sort_order, deleted_at)
          SELECT '${m}', ${id},
                 (ARRAY['SPRING', 'SUMMER', 'AUTUMN', 'WINTER', 'ALL_YEAR'])[1 + (pg_temp.rnd(n * 16 + ${mi}, 105, 5) + k) % 5],
                 k - 1,
                 CASE WHEN k = 3 THEN now() - interval '40 days' END
          FROM generate_series(1, ${counts[m]}::bigint) n
          CROSS JOIN generate_series(1, 3) k
          WHERE k <= pg_temp.rnd(n * 16 + ${mi}, 106, 3)
             OR (k = 3 AND pg_temp.rnd(n * 16 + ${mi}, 107, 20) = 0)
        `)
        rows += tags.count + seasons.count
      }
      return rows
    },
    (n) => n,
  )

  // Relations --------------------------------------------------------------------------------
  const perModule = Math.ceil(args.largeRelations / RESOURCE_MODULES.length)
  const largeCount = Object.fromEntries(
    RESOURCE_MODULES.map((m) => [m, Math.min(perModule, counts[m])]),
  ) as Record<ResourceModule, number>
  const held = arr(['SCENIC', 'HOTEL', 'RESTAURANT', 'FLEET'])
  await step(
    'relations (large supplier, ordinary suppliers, ended ones)',
    async () => {
      let rows = 0
      for (const [mi, m] of RESOURCE_MODULES.entries()) {
        const id = `(${bases[m]}::bigint + n - 1)`
        const L = largeCount[m]
        const key = `(n * 16 + ${mi})`
        const times = (salt: number) => `
          date_trunc('second', now() - make_interval(secs => 3600 + pg_temp.rnd(${key}, ${salt}, 365 * 86400)))`
        // The large supplier: resources 1..L of every module (those soft-deleted included), a
        // fifth with a required type it holds, 2 % with one it does not hold.
        const large = await sql.unsafe(`
          INSERT INTO supplier_resource_relation (supplier_id, resource_module, resource_id,
            required_type_code, remark, create_time, update_time, created_by, updated_by)
          SELECT ${largeId}::bigint, '${m}', ${id},
                 CASE WHEN pg_temp.rnd(${key}, 110, 100) < 20 THEN (${held})[1 + pg_temp.rnd(${key}, 111, 4)]
                      WHEN pg_temp.rnd(${key}, 110, 100) < 22 THEN 'INSURANCE' END,
                 CASE WHEN pg_temp.rnd(${key}, 112, 10) = 0 THEN '年度框架协议资源' END,
                 t.at, t.at, ${adminId}::bigint, ${adminId}::bigint
          FROM generate_series(1, ${L}::bigint) n
          CROSS JOIN LATERAL (SELECT ${times(113)} AS at) t
        `)
        // Other resources: 70 % bound to an ordinary supplier that has been approved (a
        // draft or vetting pick leaves the resource free).
        const ordinary = await sql.unsafe(`
          INSERT INTO supplier_resource_relation (supplier_id, resource_module, resource_id,
            required_type_code, remark, create_time, update_time, created_by, updated_by)
          SELECT s.supplier_id, '${m}', ${id}, NULL, NULL, t.at, t.at, ${adminId}::bigint, ${adminId}::bigint
          FROM generate_series(${L + 1}::bigint, ${counts[m]}::bigint) n
          CROSS JOIN LATERAL (SELECT ${times(114)} AS at) t
          JOIN supplier s ON s.supplier_id = ${sBase}::bigint + 1 + pg_temp.rnd(${key}, 115, ${N - 1})
                         AND s.deleted_at IS NULL AND s.status NOT IN ('DRAFT', 'VETTING')
          WHERE pg_temp.rnd(${key}, 116, 10) < 7
        `)
        // Ended relations (history, soft-deleted): the large supplier let go of resources
        // L+1..L+L/5, and a tenth of all resources had an earlier (approved) ordinary supplier.
        const ended = await sql.unsafe(`
          INSERT INTO supplier_resource_relation (supplier_id, resource_module, resource_id,
            required_type_code, remark, create_time, update_time, created_by, updated_by, deleted_at)
          SELECT s.supplier_id, '${m}', ${id}, NULL, '已解除', t.at - interval '400 days',
                 t.at - interval '10 days', ${adminId}::bigint, ${adminId}::bigint, t.at - interval '10 days'
          FROM generate_series(1, ${counts[m]}::bigint) n
          CROSS JOIN LATERAL (SELECT ${times(117)} AS at) t
          CROSS JOIN LATERAL (
            SELECT ${largeId}::bigint AS supplier_id WHERE n > ${L} AND n <= ${L + Math.ceil(L / 5)}
            UNION ALL
            SELECT ${sBase}::bigint + 1 + pg_temp.rnd(${key}, 118, ${N - 1}) WHERE pg_temp.rnd(${key}, 119, 10) = 0
          ) x
          JOIN supplier s ON s.supplier_id = x.supplier_id AND s.deleted_at IS NULL
                         AND s.status NOT IN ('DRAFT', 'VETTING')
        `)
        rows += large.count + ordinary.count + ended.count
      }
      return rows
    },
    (n) => n,
  )

  await step(
    'change log of the large supplier relations',
    () =>
      sql.unsafe(`
      INSERT INTO change_log (supplier_id, operation_type, target_type, target_id, field_name,
                              old_value_masked, new_value_masked, status, operator_id, request_id, create_time)
      SELECT r.supplier_id, CASE WHEN x.unbind THEN 'RELATION_UNBIND' ELSE 'RELATION_SET' END, 'RELATION',
             r.relation_id, 'resource',
             CASE WHEN x.unbind THEN r.resource_module || ':' || r.resource_id END,
             CASE WHEN NOT x.unbind THEN r.resource_module || ':' || r.resource_id END,
             NULL, ${adminId}::bigint, 'bench-relation-' || r.relation_id,
             CASE WHEN x.unbind THEN r.deleted_at ELSE r.create_time END
      FROM supplier_resource_relation r
      CROSS JOIN LATERAL (SELECT false AS unbind UNION ALL SELECT true WHERE r.deleted_at IS NOT NULL) x
      WHERE r.supplier_id = ${largeId}::bigint
    `),
    rowsOf,
  )

  await step('list totals (list_count_rebuild)', async () => {
    if (triggersOff) await sql`SET session_replication_role = origin`
    await sql`SELECT list_count_rebuild()`
    await sql`SELECT change_log_count_rebuild()`
    await sql`SELECT change_log_day_count_rebuild()`
  })

  await step('VACUUM ANALYZE (statistics and visibility map, as autovacuum would leave them)', () =>
    sql.unsafe('VACUUM (ANALYZE)'),
  )

  // What the benchmark needs -----------------------------------------------------------------
  const summary = await step('summary and files', async () => {
    const tables = [
      'supplier',
      'supplier_type',
      'supplier_contact',
      'supplier_qualification',
      'supplier_bank_account',
      'supplier_resource_relation',
      ...RESOURCE_MODULES.map((m) => RESOURCE_TABLES[m]),
      'resource_tag',
      'resource_tag_link',
      'resource_season_link',
    ]
    const tableCounts: Record<string, { total: number; live: number }> = {}
    for (const t of tables) {
      const [c] = await sql.unsafe<{ total: number; live: number }[]>(
        `SELECT count(*)::int AS total, count(*) FILTER (WHERE deleted_at IS NULL)::int AS live FROM ${t}`,
      )
      tableCounts[t] = c
    }
    const [{ changeLog }] = await sql<
      { changeLog: number }[]
    >`SELECT count(*)::int AS "changeLog" FROM change_log`
    const byStatus = await sql<{ status: string; count: number }[]>`
      SELECT status, count(*)::int AS count FROM supplier WHERE deleted_at IS NULL GROUP BY status ORDER BY status
    `
    const samples = await sql<{ status: string; ids: string[] }[]>`
      SELECT status, (array_agg(supplier_id::text ORDER BY supplier_id))[1:50] AS ids
      FROM (
        SELECT supplier_id, status FROM supplier
        WHERE deleted_at IS NULL AND supplier_id > ${largeId}::bigint
          AND supplier_id BETWEEN ${String(sBase)}::bigint AND ${String(sBase + BigInt(N) - 1n)}::bigint
          AND pg_temp.rnd(supplier_id, 200, 97) = 0
      ) x GROUP BY status
    `
    const [large] = await sql<
      {
        supplierNo: string
        fullName: string
        valid: number
        ended: number
        unavailable: number
        byModule: Record<string, number>
      }[]
    >`
      SELECT s.supplier_no AS "supplierNo", s.full_name AS "fullName",
             (SELECT count(*)::int FROM supplier_resource_relation r WHERE r.supplier_id = s.supplier_id AND r.deleted_at IS NULL) AS valid,
             (SELECT count(*)::int FROM supplier_resource_relation r WHERE r.supplier_id = s.supplier_id AND r.deleted_at IS NOT NULL) AS ended,
             (SELECT json_object_agg(m, c) FROM (
                SELECT resource_module AS m, count(*)::int AS c FROM supplier_resource_relation r
                WHERE r.supplier_id = s.supplier_id AND r.deleted_at IS NULL GROUP BY 1) x) AS "byModule",
             0 AS unavailable
      FROM supplier s WHERE s.supplier_id = ${largeId}::bigint
    `
    let unavailable = 0
    for (const m of RESOURCE_MODULES) {
      const [u] = await sql.unsafe<{ c: number }[]>(`
        SELECT count(*)::int AS c FROM supplier_resource_relation r
        JOIN ${RESOURCE_TABLES[m]} x ON x.id = r.resource_id AND x.deleted_at IS NOT NULL
        WHERE r.supplier_id = ${largeId}::bigint AND r.deleted_at IS NULL AND r.resource_module = '${m}'
      `)
      unavailable += u.c
    }
    const [expiring] = await sql<{ within30: number; expired: number }[]>`
      SELECT count(*) FILTER (WHERE expiry_date BETWEEN current_date AND current_date + 30)::int AS within30,
             count(*) FILTER (WHERE expiry_date < current_date)::int AS expired
      FROM supplier_qualification WHERE deleted_at IS NULL
    `
    const vehicleIds = Array.from({ length: counts.VEHICLE }, (_, i) =>
      String(bases.VEHICLE + BigInt(i)),
    )
    const sampleVehicles = vehicleIds.filter((_, i) => i % 50 === 0)

    const seed = {
      createdAt: new Date().toISOString(),
      database: shownUrl,
      timezone: config.timezone,
      adminId,
      auth: 'npm run -s token (administrator adminId, all permissions and the ADMIN role); send X-Admin-Id: adminId',
      scale: {
        suppliers: N,
        resourcesPerLocalModule: args.resources,
        vehicles: args.vehicles,
        largeRelations: args.largeRelations,
      },
      largeSupplier: {
        supplierId: largeId,
        supplierNo: large.supplierNo,
        fullName: large.fullName,
        validRelations: large.valid,
        endedRelations: large.ended,
        validRelationsOnDeletedResources: unavailable,
        validRelationsByModule: large.byModule,
        resourceInfoPath: `/admin/supplier/items/${largeId}/resource-info/page`,
      },
      supplierIdRange: { first: String(sBase), last: String(sBase + BigInt(N) - 1n) },
      sampleSupplierIds: Object.fromEntries(samples.map((s) => [s.status, s.ids])),
      liveSuppliersByStatus: Object.fromEntries(byStatus.map((s) => [s.status, s.count])),
      resourceIdRanges: Object.fromEntries(
        RESOURCE_MODULES.map((m) => [
          m,
          { first: String(bases[m]), last: String(bases[m] + BigInt(counts[m]) - 1n) },
        ]),
      ),
      sampleVehicleIds: sampleVehicles,
      fleetVehiclesFile: args.fleetOut,
      counts: { ...tableCounts, change_log: { total: changeLog, live: changeLog } },
      qualifications: { expiringWithin30Days: expiring.within30, expired: expiring.expired },
      timings,
    }

    // The vehicles as the fleet service answers them (deleted ones as `deleted: true`), read
    // with the embedded adapter itself, so that a fleet stub serving this file answers exactly
    // what the embedded fleet would.
    const fleet = embeddedFleetResources({ timezone: config.timezone })
    const vehicles = []
    for (let i = 0; i < vehicleIds.length; i += 1000) {
      vehicles.push(...(await fleet.supplierResourceInfo(vehicleIds.slice(i, i + 1000), sql)))
    }
    for (const [file, body] of [
      [args.out, seed],
      [args.fleetOut, vehicles],
    ] as const) {
      await mkdir(dirname(resolve(file)), { recursive: true })
      await writeFile(file, `${JSON.stringify(body, null, 2)}\n`)
    }
    return seed
  })

  console.log(`done in ${fmt(Date.now() - started)}`)
  console.log(
    `large supplier ${summary.largeSupplier.supplierId} (${summary.largeSupplier.supplierNo}): ` +
      `${summary.largeSupplier.validRelations} valid relations, ` +
      `${summary.largeSupplier.validRelationsOnDeletedResources} on deleted resources`,
  )
  console.log(`wrote ${args.out} and ${args.fleetOut}`)
  // Rewrite the file with the last step's timing included.
  await writeFile(args.out, `${JSON.stringify({ ...summary, timings }, null, 2)}\n`)
}

try {
  await main()
} catch (err) {
  console.error(
    `\nbench:seed failed: ${redactPasswords((err as Error).message ?? String(err), url)}`,
  )
  process.exitCode = 1
} finally {
  await sql.end({ timeout: 5 })
}
