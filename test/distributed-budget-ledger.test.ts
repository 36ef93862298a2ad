import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mergePrices, roundYuan } from "../src/catalog/prices.js";
import { CostLedger } from "../src/cost/cost-ledger.js";
import { BudgetExceededError } from "../src/errors.js";
import type { PlannedOperation } from "../src/gateway/usage-recorder.js";
import { createItemLedger } from "../src/workflow/distributed/item-ledger.js";
import { RunBudget } from "../src/workflow/distributed/run-budget.js";
import { RunGate } from "../src/workflow/distributed/run-gate.js";
import { RunStore } from "../src/workflow/distributed/run-store.js";
import { CostJournal } from "../src/workflow/run/cost-journal.js";
import { findRedisServer, startRedisServer, type RedisServer } from "./redis-server.js";

const binary = findRedisServer();
if (binary === undefined && process.env.CI === "true")
  throw new Error("redis-server is not installed; CI must install it (apt-get install redis-server).");

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
  return {
    kind: "chat",
    request: { model, messages: [{ role: "user", content: "Write a haiku about tea." }], max_tokens: maxTokens },
  };
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

  it("takes a refunded music call back off the shared spent, once, so spent is what was billed net of refunds", async () => {
    const runId = `refund-${randomUUID()}`;
    const budget = new RunBudget(store, runId);
    await budget.setMax(10);
    const account = (await budget.open(0, randomUUID()))!;
    const ledger = new CostLedger({ account });
    const kept = ledger.reserve({ kind: "music", operation: "generate" });
    await kept.ready;
    kept.settle({ status: "ok", requestId: "req-kept" });
    const failed = ledger.reserve({ kind: "music", operation: "generate" });
    await failed.ready;
    failed.settle({ status: "ok", requestId: "req-failed" });
    expect(ledger.refund("req-failed")).toMatchObject({ status: "refunded", yuan: -2 });
    // A second report of the same refund changes nothing, here or in Redis.
    expect(ledger.refund("req-failed")).toBeUndefined();
    await account.close();
    expect(await budget.state()).toEqual({ maxYuan: 10, spentYuan: 2, heldYuan: 0 });
    expect(ledger.spentYuan).toBe(2);
  });

  it("leaves the shared spent alone when the refunded bill came from restored entries, which never reached it", async () => {
    const runId = `restored-${randomUUID()}`;
    const budget = new RunBudget(store, runId);
    await budget.setMax(10);
    const account = (await budget.open(0, randomUUID()))!;
    const paid = {
      time: new Date().toISOString(),
      kind: "music",
      musicOperation: "generate",
      promptTokens: 0,
      completionTokens: 0,
      reasoningTokens: 0,
      images: 0,
      yuan: 2,
      priceSource: "published",
      status: "ok",
      requestId: "req-old",
      tags: {},
    } as const;
    const ledger = new CostLedger({ account, entries: [paid] });
    const call = ledger.reserve(chat("alpha-sonnet-4-6", 8));
    await call.ready;
    call.settle({ status: "ok", usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });
    expect(ledger.refund("req-old")).toMatchObject({ yuan: -2 });
    await account.close();
    expect((await budget.state())!.spentYuan).toBe(roundYuan(ledger.spentYuan));
    expect((await budget.state())!.spentYuan).toBeGreaterThan(0);
  });

  it("takes a bill settled by an execution that died off the shared spent once, however many later executions refund it", async () => {
    const runId = `takeover-${randomUUID()}`;
    const budget = new RunBudget(store, runId);
    await budget.setMax(10);
    const dead = (await budget.open(0, randomUUID()))!;
    const paying = new CostLedger({ account: dead });
    for (const requestId of ["req-kept", "req-dead"]) {
      const call = paying.reserve({ kind: "music", operation: "generate" });
      await call.ready;
      call.settle({ status: "ok", requestId });
    }
    await dead.close();
    // Two later executions restore the dead one's journaled entries, and both see one job fail.
    for (let execution = 0; execution < 2; execution++) {
      const account = (await budget.open(0, randomUUID()))!;
      const ledger = new CostLedger({ account, entries: paying.entries() });
      expect(ledger.refund("req-dead")).toMatchObject({ status: "refunded", yuan: -2 });
      expect(ledger.spentYuan).toBe(2);
      await account.close();
    }
    expect(await budget.state()).toEqual({ maxYuan: 10, spentYuan: 2, heldYuan: 0 });
  });

  it("lands a refund the dead execution journaled but never wrote to Redis when the item is taken over, and only once", async () => {
    const runId = `lost-refund-${randomUUID()}`;
    const budget = new RunBudget(store, runId);
    await budget.setMax(10);
    const dead = (await budget.open(0, randomUUID()))!;
    const paying = new CostLedger({ account: dead });
    for (const requestId of ["req-kept", "req-lost"]) {
      const call = paying.reserve({ kind: "music", operation: "generate" });
      await call.ready;
      call.settle({ status: "ok", requestId });
    }
    await dead.close();
    // The refund entry as the dead execution journaled it, its Redis write lost with the process.
    const refund = new CostLedger({ entries: paying.entries() }).refund("req-lost")!;
    const journaled: unknown[] = [];
    for (let execution = 0; execution < 2; execution++) {
      const account = (await budget.open(0, randomUUID()))!;
      createItemLedger({
        pricing: { priceTable: mergePrices() },
        account,
        allowUnpriced: undefined,
        restored: [...paying.entries(), refund],
        costs: new CostJournal({ append: async (record) => void journaled.push(record) }),
        onEntry: () => undefined,
      });
      await account.close();
    }
    expect(await budget.state()).toEqual({ maxYuan: 10, spentYuan: 2, heldYuan: 0 });
    // Restored entries are in the journal already.
    expect(journaled).toEqual([]);
  });

  it("refuses every call once the run was stopped by its budget, and unpriced calls at once", async () => {
    const runId = `stopped-${randomUUID()}`;
    const budget = new RunBudget(store, runId);
    await budget.setMax(5);
    await new RunGate(store).halt(runId, {
      reason: "budget",
      index: 3,
      error: { code: "budget_exceeded", message: "refused" },
      at: new Date().toISOString(),
    });
    const account = (await budget.open(0, randomUUID()))!;
    const ledger = new CostLedger({ account });

    const after = ledger.reserve(chat("alpha-sonnet-4-6", 8));
    await expect(after.ready).rejects.toThrow(
      /stopped by its ¥5\.0000 cap .* before this alpha-sonnet-4-6 call; nothing was sent/,
    );
    after.release();
    // A shared cap cannot bound an unpriced call either.
    expect(() => ledger.reserve(chat("beta-4o-mini", 8))).toThrow(BudgetExceededError);
    expect(() => ledger.reserve(chat("beta-4o-mini", 8))).toThrow(
      /beta-4o-mini has no price, so the budget cannot bound this call/,
    );
    expect(() =>
      new CostLedger({ account, allowUnpriced: true }).reserve(chat("beta-4o-mini", 8)).release(),
    ).not.toThrow();
    await account.close();
    expect(await budget.state()).toEqual({ maxYuan: 5, spentYuan: 0, heldYuan: 0 });
  });
});
