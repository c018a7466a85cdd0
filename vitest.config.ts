import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Timing tests (lateness) need a quiet machine: files run one at a time on 2 cores.
    fileParallelism: false,
    // Says once whether the PostgreSQL suites run (PUNCTUAL_TEST_DATABASE_URL), and checks the server.
    globalSetup: ['test/support/global-setup.ts'],
  },
});
