import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The CLI tests spawn bin/svc-flow.js, which runs dist/: rebuild it when a source is newer.
    globalSetup: ["test/build-dist.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores: a few forks keep suites that start real servers from starving each other.
    pool: "forks",
    maxWorkers: 2,
  },
});
