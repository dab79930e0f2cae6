import { defineConfig } from 'vitest/config';

/**
 * Unit and server tests run through Vitest projects. The server project runs once per database
 * backend: `TEST_DB=pglite` (default) or `TEST_DB=postgres` with `TEST_DATABASE_URL` set; the
 * test command (`scripts/test.sh`) runs both. Browser tests use @web/test-runner instead.
 */
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'core',
          include: ['packages/core/src/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          // The benchmark's own rules (bench/support.ts), not its figures.
          name: 'bench',
          include: ['bench/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'server',
          include: ['packages/server/src/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['packages/server/src/testing/global-setup.ts'],
          setupFiles: ['packages/server/src/testing/driver-warnings.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          pool: 'forks',
        },
      },
      {
        test: {
          name: 'system',
          include: ['test/**/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 120_000,
          pool: 'forks',
          fileParallelism: false,
        },
      },
    ],
  },
});
