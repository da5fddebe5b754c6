import js from '@eslint/js'
import tseslint from 'typescript-eslint'

/*
 * The layers' direction (docs/architecture.md): routes → domain → sql, with the rest below or
 * beside. Each folder lists what it may not import; an upward import fails `npm run check` with
 * the rule `no-restricted-imports` and the message below. Regexes match the import as written
 * (relative paths), so a folder's name anywhere in the path is what counts.
 */
const UP = {
  entries: '(^|/)(app|main|dev|dotenv|edge|metrics|tracing)$',
  db: '(^|/)db/',
  routes: '(^|/)routes/',
  http: '(^|/)http/',
  domain: '(^|/)domain/',
  ports: '(^|/)ports/',
  schemas: '(^|/)schemas/',
  sql: '(^|/)sql/',
}

/**
 * A supplier's status changes only through a move the transition table declares: the one write
 * that sets it (`moveSupplier`) is imported by `applyMove` (src/domain/lifecycle/move.ts) alone.
 */
const STATUS_RULE = {
  regex: '(^|/)sql/supplier$',
  importNames: ['moveSupplier'],
  message:
    'status rule: a status changes only through the transition table (applyMove in src/domain/lifecycle/move.ts).',
}

/** `no-restricted-imports` for a layer: `name` may not import from any of `forbidden`. */
const layer = (name, files, forbidden, { statusWrites = false } = {}) => ({
  files,
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          ...forbidden.map(([key, what = key]) => ({
            regex: UP[key] ?? key,
            message: `layer rule: ${name} may not import ${what} (docs/architecture.md: which layer may import which).`,
          })),
          ...(statusWrites ? [] : [STATUS_RULE]),
        ],
      },
    ],
  },
})

/** Inside the domain: the shared folders (write, approval core, lifecycle) know no command folder. */
const COMMAND_FOLDERS = ['(^|/)(supplier|account|resource)/', 'a command folder']
const ABOVE_DOMAIN = [['entries'], ['db'], ['routes'], ['http']]

const layers = [
  layer('src/vocabulary.ts (import-free)', ['src/vocabulary.ts'], [['.', 'anything']]),
  // Normalization needs Unicode's confusables, and nothing of the service.
  layer(
    'src/identity.ts (the confusables table only)',
    ['src/identity.ts'],
    [['^(?!unhomoglyph$)', 'anything but unhomoglyph']],
  ),
  // What the traced layers share through the OpenTelemetry API; logger.ts and sql/ read it.
  layer(
    'src/trace-context.ts (the OpenTelemetry API only)',
    ['src/trace-context.ts'],
    [['^\\.', 'any module of the service']],
  ),
  layer(
    'config, errors, logger, memory, crypto/',
    ['src/config.ts', 'src/errors.ts', 'src/logger.ts', 'src/memory.ts', 'src/crypto/**'],
    [...ABOVE_DOMAIN, ['domain'], ['ports'], ['schemas'], ['sql']],
  ),
  // The contract is declared in src/schemas; a row parser of sql/ that has a response's shape is
  // derived from it, never the other way round.
  layer('schemas/', ['src/schemas/**'], [...ABOVE_DOMAIN, ['domain'], ['ports'], ['sql']]),
  layer('sql/', ['sql/**'], [...ABOVE_DOMAIN, ['domain'], ['ports']]),
  layer('ports/', ['src/ports/**'], [...ABOVE_DOMAIN, ['domain']]),
  layer('domain/', ['src/domain/**'], ABOVE_DOMAIN),
  layer('domain/lifecycle', ['src/domain/lifecycle/**'], [...ABOVE_DOMAIN, COMMAND_FOLDERS]),
  layer('domain/lifecycle', ['src/domain/lifecycle/move.ts'], [...ABOVE_DOMAIN, COMMAND_FOLDERS], {
    statusWrites: true,
  }),
  // The write path's shared pieces read the lifecycle's tables (which status allows what), no verb.
  layer(
    'domain/write',
    ['src/domain/write/**'],
    [
      ...ABOVE_DOMAIN,
      COMMAND_FOLDERS,
      ['(^|/)lifecycle/(?!(policy|transitions)$)', 'lifecycle beyond its tables'],
    ],
  ),
  // Approval in one folder: the handler interface, the submit side (command.ts), the applier,
  // reconciliation and withdrawal know no command folder and of write/ only the pipeline, its
  // transaction, the constraint map and the change log; the registry alone knows the handlers,
  // which live beside the commands that open their approvals.
  layer(
    'domain/approval',
    ['src/domain/approval/**'],
    [
      ...ABOVE_DOMAIN,
      COMMAND_FOLDERS,
      [
        '(^|/)(lifecycle|write)/(?!(pipeline|constraints|transaction|change-log)$)',
        'lifecycle, or write beyond its pipeline, transaction and change log',
      ],
    ],
  ),
  layer('domain/approval/registry.ts', ['src/domain/approval/registry.ts'], ABOVE_DOMAIN),
  // The frame may classify a database fault (sql/db); queries are the domain's.
  layer(
    'http/',
    ['src/http/**'],
    [['entries'], ['db'], ['routes'], ['(^|/)sql/(?!db$)', 'sql (but sql/db)']],
  ),
  layer('routes/', ['src/routes/**'], [['entries'], ['db'], ['sql']]),
]

export default tseslint.config(
  { ignores: ['node_modules', '.data', '.bench', 'coverage', 'dist'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-console': ['error', { allow: ['error'] }],
      // One import statement per module and file (types with values: `import { a, type B }`).
      'no-duplicate-imports': 'error',
    },
  },
  ...layers,
  {
    // More than four arguments read as an order to remember: the service's functions take the
    // rest as one options object, so a call names what it passes.
    files: ['src/**', 'sql/**'],
    rules: { 'max-params': ['error', 4] },
  },
  {
    files: ['scripts/**'],
    rules: { 'no-console': 'off' },
  },
  {
    // Test bodies are arbitrary JSON under inspection.
    files: ['test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
)
