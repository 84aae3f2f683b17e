import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['services/*/test/**/*.test.ts', 'shared/*/test/**/*.test.ts', 'scripts/test/**/*.test.ts'],
    globalSetup: ['scripts/testing/global-setup.ts'],
    pool: 'forks',
    // One module graph per worker, not per file: every file starts its own services and stores, so
    // nothing a test touches lives in shared module state; this saves re-importing ~140 modules per file.
    isolate: false,
    // Two cores: more workers only contend; suites start real processes of their own.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
