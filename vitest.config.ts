import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // Node loads graphql's CommonJS build for yoga and Pothos; Vite would otherwise give the
    // project's own files the ESM build, and GraphQLError from one fails `instanceof` in the
    // other (the dual-package hazard). One copy for everyone, as in production.
    alias: { graphql: require.resolve('graphql') },
  },
  test: {
    include: ['test/**/*.test.ts'],
    // Migrated and seeded template databases, built once; each test file copies one.
    globalSetup: ['test/global-setup.ts'],
    // Each file opens its own database (a PGlite instance or a fresh server database):
    // two cores fit two at a time without starving Postgres.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});
