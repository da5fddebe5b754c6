import { spawnSync } from 'node:child_process'
import { rmSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { build } from 'esbuild'

/*
 * node --import tsx scripts/bench/company-name.ts: what the company-name module
 * (src/domain/supplier/company-name.ts) costs the Node service.
 *   - load: the module bundled as `npm run build` bundles the service (packages external), imported
 *     by a fresh `node` process: time to import, heap and resident set it adds, and the same again
 *     after the first Latin name, which builds the Latin vocabulary on first use;
 *   - parse + keys per name (companyKeys) and compare per pair (compareCompanies), over names the
 *     way real ones are drawn (a region, a trade name, industry wording, a form; a tenth Latin),
 *     so many that the module's parse cache (a few hundred names) does not help; the median of
 *     `--runs` passes is reported.
 * Take the figures on a quiet machine: all of it is CPU-bound.
 */

const { values: opts } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    names: { type: 'string', default: '20000' },
    child: { type: 'string' },
  },
})

if (opts.child) {
  await child(opts.child, Number(opts.names), Number(opts.runs))
} else {
  // Both the module and this script's child half run as plain bundles (the module as `npm run
  // build` bundles the service, packages external), not through the tsx loader, and next to this
  // file, where node_modules is found.
  const here = (name: string) => fileURLToPath(new URL(name, import.meta.url))
  const moduleBundle = here('./.company-name.bench-module.mjs')
  const runner = here('./.company-name.bench-runner.mjs')
  const common = {
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  } as const
  try {
    await build({
      ...common,
      entryPoints: [here('../../src/domain/supplier/company-name.ts')],
      outfile: moduleBundle,
    })
    await build({ ...common, entryPoints: [fileURLToPath(import.meta.url)], outfile: runner })
    const r = spawnSync(
      process.execPath,
      ['--expose-gc', runner, '--child', moduleBundle, '--names', opts.names, '--runs', opts.runs],
      { stdio: 'inherit' },
    )
    process.exitCode = r.status ?? 1
  } finally {
    rmSync(moduleBundle, { force: true })
    rmSync(runner, { force: true })
  }
}

async function child(bundle: string, count: number, runs: number) {
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => {})
  gc()
  const before = process.memoryUsage()
  const t0 = performance.now()
  const mod = (await import(
    pathToFileURL(bundle).href
  )) as typeof import('../../src/domain/supplier/company-name')
  const loadMs = performance.now() - t0
  gc()
  const loaded = process.memoryUsage()
  const t1 = performance.now()
  mod.companyKeys('Suzhou Yunqi Travel Service Co., Ltd.')
  const latinMs = performance.now() - t1
  gc()
  const withLatin = process.memoryUsage()
  const mib = (a: number, b: number) => ((a - b) / 2 ** 20).toFixed(1)
  console.log(
    `load: ${loadMs.toFixed(0)} ms; heap +${mib(loaded.heapUsed, before.heapUsed)} MiB, rss +${mib(loaded.rss, before.rss)} MiB`,
  )
  console.log(
    `first Latin name (builds the Latin vocabulary): ${latinMs.toFixed(0)} ms; heap +${mib(withLatin.heapUsed, loaded.heapUsed)} MiB, rss +${mib(withLatin.rss, loaded.rss)} MiB`,
  )

  const regions = [
    '苏州',
    '苏州市',
    '江苏省苏州市',
    '杭州市西湖区',
    '桂林',
    '广西壮族自治区桂林市',
    '婺源县',
    '北京',
    '上海市',
    '',
  ]
  const syllables = '云栖金桥华美达春秋东方明珠锦江星辰海天宏达鸿运瑞祥龙腾嘉禾盛世'
  const industries = [
    '旅游服务',
    '国际旅行社',
    '旅行社',
    '酒店管理',
    '文化传媒',
    '网络科技',
    '汽车租赁',
    '商贸',
    '',
  ]
  const forms = ['有限公司', '有限责任公司', '股份有限公司', '集团有限公司', '']
  const latinWords = [
    'Horizon',
    'Evergreen',
    'Lantern',
    'Yunqi',
    'Jincheng',
    'Maple',
    'Harbour',
    'Golden',
  ]
  let seed = 42
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff
    return seed % n
  }
  const names: string[] = []
  for (let i = 0; i < count; i++) {
    if (i % 10 === 9) {
      names.push(
        `${['Suzhou ', 'Hangzhou ', ''][rand(3)]}${latinWords[rand(8)]} ${latinWords[rand(8)]}${latinWords[rand(8)].toLowerCase()} Travel Service Co., Ltd.`,
      )
      continue
    }
    const trade = Array.from({ length: 2 + rand(3) }, () => syllables[rand(syllables.length)]).join(
      '',
    )
    names.push(
      `${regions[rand(regions.length)]}${trade}${industries[rand(industries.length)]}${forms[rand(forms.length)]}`,
    )
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const keysUs: number[] = []
  const compareUs: number[] = []
  // CPU time besides wall time: on a shared machine it is the steadier of the two.
  const keysCpu: number[] = []
  const compareCpu: number[] = []
  const cpuUs = (since: NodeJS.CpuUsage) => {
    const u = process.cpuUsage(since)
    return u.user + u.system
  }
  let keyCount = 0
  for (let r = 0; r < runs; r++) {
    const t = performance.now()
    const tc = process.cpuUsage()
    for (const n of names) keyCount += mod.companyKeys(n).length
    keysUs.push(((performance.now() - t) * 1000) / names.length)
    keysCpu.push(cpuUs(tc) / names.length)
    // One new name against each candidate, as the service checks a name against its probe's rows.
    const probe = '苏州云栖旅游服务有限公司'
    const c = performance.now()
    const cc = process.cpuUsage()
    for (const n of names) mod.compareCompanies(probe, n)
    compareUs.push(((performance.now() - c) * 1000) / names.length)
    compareCpu.push(cpuUs(cc) / names.length)
  }
  console.log(
    `names: ${names.length} (a tenth Latin), ${(keyCount / names.length / runs).toFixed(1)} keys a name`,
  )
  console.log(
    `parse + keys: ${median(keysUs).toFixed(1)} µs a name, ${median(keysCpu).toFixed(1)} µs CPU (median of ${runs} passes)`,
  )
  console.log(
    `compare: ${median(compareUs).toFixed(1)} µs a pair, ${median(compareCpu).toFixed(1)} µs CPU, the candidate parsed each time (median of ${runs} passes)`,
  )
  gc()
  console.log(`heap after the passes: +${mib(process.memoryUsage().heapUsed, before.heapUsed)} MiB`)
}
