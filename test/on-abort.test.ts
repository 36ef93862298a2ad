import { spawn } from "node:child_process";
import { getEventListeners } from "node:events";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { onAbort } from "../src/gateway/on-abort.js";
import { RequestWatchdog } from "../src/gateway/request-watchdog.js";
import { tempDir } from "./workflow-harness.js";

const BIN = path.join(import.meta.dirname, "..", "bin", "svc-flow.js");

describe("onAbort", () => {
  it("gives a signal one listener however many subscribe, and removes it when the last leaves", () => {
    const controller = new AbortController();
    const unsubscribes = Array.from({ length: 50 }, () => onAbort(controller.signal, () => undefined));
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(1);
    for (const unsubscribe of unsubscribes) unsubscribe();
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("calls every subscriber still subscribed when the signal aborts, once each", () => {
    const controller = new AbortController();
    const calls: number[] = [];
    const unsubscribes = [0, 1, 2].map((index) => onAbort(controller.signal, () => calls.push(index)));
    unsubscribes[1]!();
    controller.abort();
    controller.abort();
    expect(calls).toEqual([0, 2]);
  });

  it("keeps the same function subscribed twice as two subscriptions", () => {
    const controller = new AbortController();
    let calls = 0;
    const callback = () => calls++;
    const first = onAbort(controller.signal, callback);
    onAbort(controller.signal, callback);
    first();
    controller.abort();
    expect(calls).toBe(1);
  });

  it("lets fifty requests in flight share the caller's signal through one listener", () => {
    const controller = new AbortController();
    const watchdogs = Array.from({ length: 50 }, () => new RequestWatchdog(controller.signal));
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(1);
    controller.abort();
    expect(watchdogs.every((watchdog) => watchdog.signal?.aborted)).toBe(true);
  });
});

describe("a 60-row batch with 16 rows in flight", () => {
  it("prints no MaxListenersExceededWarning", { timeout: 120_000 }, async () => {
    const folder = await tempDir("svc-flow-listeners-");
    const items = path.join(folder, "rows.csv");
    await writeFile(
      items,
      ["sku,title", ...Array.from({ length: 60 }, (_, index) => `SL-${index},Lantern ${index}`)].join("\n"),
    );
    const workflow = path.join(import.meta.dirname, "..", "workflows", "blurbs.yaml");
    const child = spawn(
      process.execPath,
      [BIN, "run", workflow, "--items", items, "--concurrency", "16", "--out", path.join(folder, "run")],
      {
        env: { ...process.env, SVC_BASE_URL: "", SVC_API_KEY: "" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(stderr).toContain("60/60 done");
    expect(code).toBe(0);
    expect(stderr).not.toContain("MaxListenersExceededWarning");
  });
});
