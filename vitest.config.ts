import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['services/*/test/**/*.test.ts', 'shared/*/test/**/*.test.ts', 'scripts/test/**/*.test.ts'],
    globalSetup: ['scripts/testing/global-setup.ts'],
    pool: 'forks',
    // Two cores: more workers only contend; suites start real processes of their own.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
