import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CostLedger } from "../src/cost/cost-ledger.js";
import { BudgetExceededError } from "../src/errors.js";
import type { PlannedOperation } from "../src/gateway/usage-recorder.js";
import { RunBudget } from "../src/workflow/distributed/run-budget.js";
import { RunGate } from "../src/workflow/distributed/run-gate.js";
import { RunStore } from "../src/workflow/distributed/run-store.js";
import { findRedisServer, startRedisServer, type RedisServer } from "./redis-server.js";

const binary = findRedisServer();
if (binary === undefined && process.env.CI === "true") throw new Error("redis-server is not installed; CI must install it (apt-get install redis-server).");

let redis: RedisServer;
let store: RunStore;

beforeAll(async () => {
  if (binary === undefined) return;
  redis = await startRedisServer(binary);
  store = RunStore.connect(redis.url);
});
afterAll(async () => {
  await store?.close();
  await redis?.stop();
});

function chat(model: string, maxTokens: number): PlannedOperation {
  return { kind: "chat", request: { model, messages: [{ role: "user", content: "Write a haiku about tea." }], max_tokens: maxTokens } };
}

describe.skipIf(binary === undefined)("a CostLedger on a distributed run's account", () => {
  it("holds each call on the shared cap through `ready`, refuses what does not fit, and settles the actual cost there", async () => {
    const runId = `ledger-${randomUUID()}`;
    const budget = new RunBudget(store, runId);
    await budget.setMax(0.01);
    const account = (await budget.open(0, randomUUID()))!;
    const ledger = new CostLedger({ account });

    const small = ledger.reserve(chat("alpha-sonnet-4-6", 8));
    await small.ready;
    expect((await budget.state())!.heldYuan).toBe(small.estimate.yuan);
    // Nothing local refuses it (the ledger has no cap of its own): the shared account does, asynchronously.
    const large = ledger.reserve(chat("alpha-sonnet-4-6", 200));
    await expect(large.ready).rejects.toThrow(/needs up to ¥0\.0324.*of a ¥0\.0100 cap\. Nothing was sent/);
    large.release();

    small.settle({ status: "ok", usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });
    await account.close();
    expect(await budget.state()).toEqual({ maxYuan: 0.01, spentYuan: ledger.spentYuan, heldYuan: 0 });
    expect(ledger.spentYuan).toBeGreaterThan(0);
  });

  it("refuses every call once the run was stopped by its budget, and unpriced calls at once", async () => {
    const runId = `stopped-${randomUUID()}`;
    const budget = new RunBudget(store, runId);
    await budget.setMax(5);
    await new RunGate(store).halt(runId, { reason: "budget", index: 3, error: { code: "budget_exceeded", message: "refused" }, at: new Date().toISOString() });
    const account = (await budget.open(0, randomUUID()))!;
    const ledger = new CostLedger({ account });

    const after = ledger.reserve(chat("alpha-sonnet-4-6", 8));
    await expect(after.ready).rejects.toThrow(/stopped by its ¥5\.0000 cap .* before this alpha-sonnet-4-6 call; nothing was sent/);
    after.release();
    // A shared cap cannot bound an unpriced call either.
    expect(() => ledger.reserve(chat("beta-4o-mini", 8))).toThrow(BudgetExceededError);
    expect(() => ledger.reserve(chat("beta-4o-mini", 8))).toThrow(/beta-4o-mini has no price, so the budget cannot bound this call/);
    expect(() => new CostLedger({ account, allowUnpriced: true }).reserve(chat("beta-4o-mini", 8)).release()).not.toThrow();
    await account.close();
    expect(await budget.state()).toEqual({ maxYuan: 5, spentYuan: 0, heldYuan: 0 });
  });
});
