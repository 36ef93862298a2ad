import { afterEach, describe, expect, it, vi } from "vitest";
import { queueConnection } from "../src/workflow/distributed/item-queue.js";
import { RunStore } from "../src/workflow/distributed/run-store.js";
import { findRedisServer, startRedisServer } from "./redis-server.js";

const binary = findRedisServer();
if (binary === undefined && process.env.CI === "true")
  throw new Error("redis-server is not installed; CI must install it (apt-get install redis-server).");

afterEach(() => {
  vi.restoreAllMocks();
});

describe.skipIf(binary === undefined)("a distributed process whose Redis goes away", () => {
  it("says so once, as a process warning, instead of printing every failed reconnection", async () => {
    const server = await startRedisServer(binary!);
    const store = RunStore.connect(server.url);
    const queue = queueConnection(server.url);
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    const printed = vi.spyOn(console, "error");
    try {
      await Promise.all([store.redis.ping(), queue.ping()]);
      let reconnects = 0;
      store.redis.on("reconnecting", () => reconnects++);
      await server.stop();
      // Both connections fail again and again while Redis is gone.
      await vi.waitFor(() => expect(reconnects).toBeGreaterThanOrEqual(3), { timeout: 10_000, interval: 50 });
      const lost = warnings.filter((warning) => (warning as { code?: string }).code === "SVC_FLOW_REDIS_LOST");
      expect(lost).toHaveLength(1);
      expect(lost[0]!.message).toContain(server.url);
      expect(lost[0]!.message).toContain("ECONNREFUSED");
      expect(printed.mock.calls.flat().join(" ")).not.toContain("Unhandled error event");
    } finally {
      process.off("warning", onWarning);
      store.redis.disconnect();
      queue.disconnect();
    }
  });
});
