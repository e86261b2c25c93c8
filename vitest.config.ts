import { defineConfig } from 'vitest/config';

// Three tiers, one folder each (docs/development.md, "Tests"). `npm test` runs them all; `npm run test:unit` needs
// nothing running. Only the tiers that talk to Redis start one (the global setup provides its URL).
const withRedis = ['./test/support/redis-global-setup.ts'];

export default defineConfig({
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    setupFiles: ['./test/support/fast-check-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        // One process, no Redis, no child processes, no browser (an in-process HTTP server on loopback is allowed).
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'packages/canton/test/**/*.test.ts'],
          // Pure tests can share one module graph per worker: the tier runs in half the time.
          isolate: false,
        },
      },
      {
        extends: true,
        // A real Redis, the sandbox over real HTTP, a SoftHSM token: still one process.
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'packages/sandbox/test/**/*.test.ts'],
          globalSetup: withRedis,
          isolate: false,
        },
      },
      {
        extends: true,
        // Child processes (the CLI, roles that are killed), chaos, Sentinel and Cluster, Chromium.
        test: { name: 'system', include: ['test/system/**/*.test.ts'], globalSetup: withRedis },
      },
    ],
  },
});
