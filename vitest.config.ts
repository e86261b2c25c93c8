import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    globalSetup: ['./test/support/redis-global-setup.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    setupFiles: ['./test/support/fast-check-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
