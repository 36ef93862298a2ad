import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores: a few forks keep suites that start real servers from starving each other.
    pool: "forks",
    maxWorkers: 2,
  },
});
