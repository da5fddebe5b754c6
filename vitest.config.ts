import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file owns a database; two cores run two files at a time.
    pool: 'forks',
    maxWorkers: 2,
  },
})
