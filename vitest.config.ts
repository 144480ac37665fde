import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    globalSetup: ['tests/globalSetup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    // Bounds for a machine loaded to several times its cores, where a test that takes 5 s
    // takes 30: a test that passes costs no more, one that hangs fails a little later.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    teardownTimeout: 10_000,
  },
});
