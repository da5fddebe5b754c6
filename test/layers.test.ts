import { fileURLToPath } from 'node:url'
import { ESLint } from 'eslint'
import { describe, expect, it } from 'vitest'

/*
 * The layers' direction is the `no-restricted-imports` configuration in eslint.config.js, which
 * `npm run check` (and so `npm test`) runs on the tree. These cases lint a synthetic file placed in
 * each folder, so that an upward import is proven to fail with the rule's message and a downward
 * one proven to pass: a rule that matched nothing would fail here, not silently.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const eslint = new ESLint({ cwd: ROOT })

async function layerErrors(filePath: string, specifier: string) {
  const code = `import type { X } from '${specifier}'\nexport type Y = X\n`
  const [result] = await eslint.lintText(code, { filePath })
  return result.messages.filter((m) => m.ruleId === 'no-restricted-imports')
}

const UPWARD: [file: string, specifier: string][] = [
  ['src/vocabulary.ts', 'zod'],
  ['src/identity.ts', './errors'],
  ['src/crypto/probe.ts', '../domain/context'],
  ['src/errors.ts', './http/envelope'],
  ['sql/probe.ts', '../src/domain/context'],
  ['src/schemas/account-terms.ts', '../../sql/db'],
  ['src/schemas/probe.ts', '../../sql/supplier-read'],
  ['src/schemas/probe.ts', '../../sql/db'],
  ['sql/probe.ts', '../src/ports/permission'],
  ['src/schemas/probe.ts', '../domain/context'],
  ['src/schemas/probe.ts', '../http/validate'],
  ['src/ports/probe.ts', '../domain/deps'],
  ['src/domain/probe.ts', '../http/envelope'],
  ['src/domain/supplier/probe.ts', '../../http/types'],
  ['src/domain/supplier/probe.ts', '../../routes/system'],
  ['src/domain/supplier/probe.ts', '../../app'],
  ['src/domain/supplier/probe.ts', '../../dotenv'],
  ['src/http/probe.ts', '../dev'],
  ['src/domain/lifecycle/probe.ts', '../supplier/profile'],
  ['src/domain/write/probe.ts', '../account/rules'],
  ['src/domain/write/probe.ts', '../lifecycle/status-change'],
  ['src/domain/approval/probe.ts', '../account/handlers'],
  ['src/domain/approval/probe.ts', '../write/target'],
  ['src/domain/approval/probe.ts', '../lifecycle/move'],
  ['src/http/probe.ts', '../routes/system'],
  ['src/http/probe.ts', '../../sql/supplier'],
  ['src/routes/probe.ts', '../../sql/dict'],
  ['src/routes/probe.ts', '../db/embedded'],
  ['src/trace-context.ts', './config'],
  // The tracing SDK is started by the entry points only.
  ['src/http/probe.ts', '../tracing'],
  ['sql/probe.ts', '../src/tracing'],
]

const DOWNWARD: [file: string, specifier: string][] = [
  ['src/crypto/probe.ts', '../identity'],
  ['sql/probe.ts', '../src/vocabulary'],
  ['sql/probe.ts', '../src/schemas/account-terms'],
  ['sql/probe.ts', '../src/schemas/supplier'],
  ['src/schemas/account-terms.ts', '../vocabulary'],
  ['src/schemas/probe.ts', './calendar'],
  ['src/ports/probe.ts', '../../sql/admin'],
  ['src/domain/supplier/probe.ts', '../../../sql/supplier'],
  ['src/domain/supplier/probe.ts', '../../schemas/supplier'],
  ['src/domain/supplier/probe.ts', '../lifecycle/move'],
  ['src/domain/lifecycle/probe.ts', '../write/change-log'],
  ['src/domain/write/probe.ts', '../lifecycle/policy'],
  ['src/domain/approval/probe.ts', '../write/pipeline'],
  ['src/domain/approval/probe.ts', '../write/change-log'],
  ['src/domain/approval/registry.ts', '../account/handlers'],
  ['src/http/probe.ts', '../domain/context'],
  ['src/http/probe.ts', '../../sql/db'],
  ['src/routes/probe.ts', '../domain/dictionary'],
  ['src/app.ts', './routes/system'],
  ['src/trace-context.ts', '@opentelemetry/api'],
  ['sql/probe.ts', '../src/trace-context'],
  ['src/logger.ts', './trace-context'],
  ['src/main.ts', './tracing'],
]

describe('layers: an upward import fails the lint with the layer rule', () => {
  it.each(UPWARD)('%s may not import %s', async (file, specifier) => {
    const errors = await layerErrors(file, specifier)
    expect(errors).toHaveLength(1)
    expect(errors[0].severity).toBe(2)
    expect(errors[0].message).toMatch(/layer rule: .* may not import /)
  })

  it.each([
    'src/domain/supplier/probe.ts',
    'src/domain/lifecycle/status-change.ts',
    'src/domain/write/probe.ts',
    'src/ports/probe.ts',
  ])('status rule: %s may not import moveSupplier', async (file) => {
    const depth = file.split('/').length - 1
    const code = `import { moveSupplier } from '${'../'.repeat(depth)}sql/supplier'\nexport { moveSupplier }\n`
    const [result] = await eslint.lintText(code, { filePath: file })
    const errors = result.messages.filter((m) => m.ruleId === 'no-restricted-imports')
    expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/^.*status rule: /)])
  })

  it('status rule: applyMove (lifecycle/move.ts) is the one importer of moveSupplier', async () => {
    const code = `import { moveSupplier } from '../../../sql/supplier'\nexport { moveSupplier }\n`
    const [result] = await eslint.lintText(code, { filePath: 'src/domain/lifecycle/move.ts' })
    expect(result.messages.filter((m) => m.ruleId === 'no-restricted-imports')).toEqual([])
  })

  it.each(DOWNWARD)('%s may import %s', async (file, specifier) => {
    expect(await layerErrors(file, specifier)).toEqual([])
  })
})

describe('imports: a file imports each module once', () => {
  it('a second import of the same module fails the lint, a type import included', async () => {
    const code =
      "import { fail } from '../errors'\nimport type { ErrorName } from '../errors'\n" +
      'export const f = (e: ErrorName) => fail(e)\n'
    const [result] = await eslint.lintText(code, { filePath: 'src/domain/probe.ts' })
    expect(result.messages.map((m) => m.ruleId)).toEqual(['no-duplicate-imports'])
  })

  it('one import with values and types passes', async () => {
    const code =
      "import { fail, type ErrorName } from '../errors'\n" +
      'export const f = (e: ErrorName) => fail(e)\n'
    const [result] = await eslint.lintText(code, { filePath: 'src/domain/probe.ts' })
    expect(result.messages).toEqual([])
  })
})
