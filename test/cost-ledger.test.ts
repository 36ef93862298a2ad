import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { roundYuan, tokenCost } from "../src/catalog/prices.js";
import { CostLedger } from "../src/cost/cost-ledger.js";
import { costEntrySchema, type CostEntry } from "../src/cost/cost-entry.js";
import { BudgetExceededError, ConfigError, SvcFlowError } from "../src/errors.js";
import type { PlannedOperation } from "../src/gateway/usage-recorder.js";
import type { ChatRequest, Usage } from "../src/gateway/wire.js";

const SONNET_IN = 0.032;
const SONNET_OUT = 0.1598;

function chat(model: string, maxTokens?: number, text = "Write a haiku about tea."): PlannedOperation {
  const request: ChatRequest = { model, messages: [{ role: "user", content: text }] };
  if (maxTokens !== undefined) request.max_tokens = maxTokens;
  return { kind: "chat", request };
}

function usage(prompt: number, completion: number, reasoning?: number): Usage {
  const result: Usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  if (reasoning !== undefined) result.completion_tokens_details = { reasoning_tokens: reasoning };
  return result;
}

describe("CostLedger entries", () => {
  it("prices a published chat call from its reported usage, to 1e-8", () => {
    const ledger = new CostLedger();
    ledger.reserve(chat("alpha-sonnet-4-6", 100)).settle({
      status: "ok",
      usage: usage(1234, 87),
      servedModel: "alpha-sonnet-4-6-20260115",
      requestId: "req-1",
    });
    const [entry] = ledger.entries();
    expect(entry).toMatchObject({
      kind: "chat",
      modelRequested: "alpha-sonnet-4-6",
      modelServed: "alpha-sonnet-4-6-20260115",
      promptTokens: 1234,
      completionTokens: 87,
      priceSource: "published",
      status: "ok",
      requestId: "req-1",
    });
    expect(entry!.yuan).toBe(roundYuan(tokenCost(1234, SONNET_IN) + tokenCost(87, SONNET_OUT)));
    expect(ledger.spentYuan).toBe(entry!.yuan);
  });

  it("keeps the tokens of an unpriced model and never calls its cost 0", () => {
    const ledger = new CostLedger();
    ledger.reserve(chat("beta-4o", 50)).settle({ status: "ok", usage: usage(40, 50, 0) });
    const [entry] = ledger.entries();
    expect(entry!.yuan).toBeUndefined();
    expect(entry!.priceSource).toBe("unpriced");
    expect(entry!.promptTokens).toBe(40);
    const summary = ledger.summary();
    expect(summary.complete).toBe(false);
    expect(summary.byModel["beta-4o"]!.yuan).toBeNull();
    expect(summary.unpriced).toEqual({ calls: 1, promptTokens: 40, completionTokens: 50, models: ["beta-4o"] });
    expect(JSON.parse(JSON.stringify(summary)).byModel["beta-4o"].yuan).toBeNull();
  });

  it("prices an unpriced model once a price override names it", () => {
    const ledger = new CostLedger({ prices: { chat: { "beta-4o": { input: 0.01, output: 0.03 } } } });
    ledger.reserve(chat("beta-4o", 50)).settle({ status: "ok", usage: usage(1000, 1000) });
    expect(ledger.entries()[0]).toMatchObject({ yuan: 0.04, priceSource: "override" });
  });

  it("bills an image model per image and not per token", () => {
    const ledger = new CostLedger();
    const reservation = ledger.reserve(chat("gamma-2.5-flash-image", undefined, "A red kite"));
    reservation.settle({ status: "ok", usage: usage(20, 1300), images: 1 });
    expect(ledger.entries()[0]).toMatchObject({ kind: "image", images: 1, yuan: 0.42, priceSource: "published" });
  });

  it("records a failed attempt at no cost, with its error code", () => {
    const ledger = new CostLedger();
    ledger.reserve(chat("alpha-sonnet-4-6", 100)).settle({ status: "failed", errorCode: "upstream_error" });
    expect(ledger.entries()[0]).toMatchObject({ status: "failed", errorCode: "upstream_error", yuan: 0 });
    expect(ledger.summary().failedAttempts).toBe(1);
  });

  it("charges a failed attempt that the gateway billed (usage came back)", () => {
    const ledger = new CostLedger();
    ledger.reserve(chat("alpha-sonnet-4-6", 100)).settle({
      status: "failed",
      errorCode: "empty_output",
      usage: usage(10, 100, 100),
    });
    expect(ledger.entries()[0]!.yuan).toBe(roundYuan(tokenCost(10, SONNET_IN) + tokenCost(100, SONNET_OUT)));
    expect(ledger.entries()[0]!.reasoningTokens).toBe(100);
  });

  it("counts an answered call without usage at its reserved bound and flags it", () => {
    const ledger = new CostLedger();
    const reservation = ledger.reserve(chat("alpha-sonnet-4-6", 100));
    reservation.settle({ status: "ok" });
    const [entry] = ledger.entries();
    expect(entry!.usageMissing).toBe(true);
    expect(entry!.yuan).toBe(reservation.estimate.yuan);
    expect(ledger.summary().usageMissing).toBe(1);
  });

  it("prices music per call and refunds failed calls", () => {
    const ledger = new CostLedger();
    ledger.reserve({ kind: "music", operation: "generate" }).settle({ status: "ok" });
    ledger.reserve({ kind: "music", operation: "lyrics" }).settle({ status: "ok" });
    ledger.reserve({ kind: "music", operation: "stems" }).settle({ status: "failed", errorCode: "music_failed" });
    expect(ledger.spentYuan).toBe(2.2);
    expect(Object.keys(ledger.summary().byModel).sort()).toEqual(["music:generate", "music:lyrics", "music:stems"]);
  });

  it("takes a refunded music call back off, once", () => {
    const ledger = new CostLedger();
    ledger.reserve({ kind: "music", operation: "generate" }).settle({ status: "ok", requestId: "req-m" });
    expect(ledger.refund("req-m")).toMatchObject({ status: "refunded", yuan: -2, musicOperation: "generate" });
    expect(ledger.refund("req-m")).toBeUndefined();
    expect(ledger.refund("req-unknown")).toBeUndefined();
    expect(ledger.spentYuan).toBe(0);
    expect(ledger.summary()).toMatchObject({ entries: 1, refunds: 1, totalYuan: 0 });
    expect(ledger.formatSummaryTable()).toMatch(/over 1 call \(0 failed, 1 refunded\)/);
  });

  it("counts every entry in its totals while entries() keeps only what `keep` keeps", () => {
    const seen: CostEntry[] = [];
    const ledger = new CostLedger({
      keep: (entry) => entry.tags.step === "kept",
      onEntry: (entry) => seen.push(entry),
    });
    ledger
      .tagged({ step: "kept" })
      .reserve(chat("alpha-sonnet-4-6", 10))
      .settle({ status: "ok", usage: usage(5, 5) });
    ledger
      .tagged({ step: "dropped" })
      .reserve(chat("alpha-sonnet-4-6", 10))
      .settle({ status: "ok", usage: usage(7, 3) });
    expect(ledger.entries().map((entry) => entry.tags.step)).toEqual(["kept"]);
    expect(seen).toHaveLength(2);
    const summary = ledger.summary();
    expect(summary.entries).toBe(2);
    expect(summary.byTag.step?.dropped).toMatchObject({ calls: 1, promptTokens: 7, completionTokens: 3 });
    expect(ledger.spentYuan).toBe(summary.totalYuan);
  });

  it("refunds a music call that `keep` did not keep", () => {
    const ledger = new CostLedger({ keep: () => false });
    ledger.reserve({ kind: "music", operation: "generate" }).settle({ status: "ok", requestId: "req-m" });
    expect(ledger.refund("req-m")).toMatchObject({ status: "refunded", yuan: -2 });
    expect(ledger.refund("req-m")).toBeUndefined();
    expect(ledger.summary()).toMatchObject({ entries: 1, refunds: 1, totalYuan: 0 });
  });

  it("gives a summary that later entries leave as it was", () => {
    const ledger = new CostLedger();
    ledger
      .tagged({ step: "a" })
      .reserve(chat("alpha-sonnet-4-6", 10))
      .settle({ status: "ok", usage: usage(5, 5) });
    const before = ledger.summary();
    ledger
      .tagged({ step: "a" })
      .reserve(chat("alpha-sonnet-4-6", 10))
      .settle({ status: "ok", usage: usage(5, 5) });
    expect(before.byTag.step?.a?.calls).toBe(1);
    expect(before.byModel["alpha-sonnet-4-6"]?.calls).toBe(1);
    expect(ledger.summary().byTag.step?.a?.calls).toBe(2);
  });

  it("flags an entry whose cost came out above an assumed estimate", () => {
    const ledger = new CostLedger({ defaultOutputTokens: 10 });
    const reservation = ledger.reserve(chat("alpha-sonnet-4-6"));
    reservation.settle({ status: "ok", usage: usage(reservation.estimate.promptTokens, 500) });
    expect(ledger.entries()[0]!.exceededEstimate).toBe(true);
    expect(ledger.formatSummaryTable()).toMatch(/1 call cost more than the estimate reserved for them/);
  });

  it("merges ledger, scope and operation tags onto entries", () => {
    const ledger = new CostLedger({ tags: { run: "r1" } });
    const step = ledger.tagged({ step: "ideas" });
    step.reserve({ ...chat("alpha-sonnet-4-6", 10), tags: { item: "3" } }).settle({ status: "ok", usage: usage(5, 5) });
    expect(ledger.entries()[0]!.tags).toEqual({ run: "r1", step: "ideas", item: "3" });
    expect(ledger.summary().byTag.step!.ideas!.calls).toBe(1);
  });

  it("passes each new entry to onEntry, and entries survive a JSON round trip through the schema", () => {
    const seen: CostEntry[] = [];
    const ledger = new CostLedger({ onEntry: (entry) => seen.push(entry) });
    ledger.reserve(chat("alpha-sonnet-4-6", 10)).settle({ status: "ok", usage: usage(5, 5) });
    expect(seen).toHaveLength(1);
    expect(costEntrySchema.parse(JSON.parse(JSON.stringify(seen[0])))).toEqual(seen[0]);
  });

  it("refuses a second settle but lets release follow settle", () => {
    const ledger = new CostLedger();
    const reservation = ledger.reserve(chat("alpha-sonnet-4-6", 10));
    reservation.settle({ status: "ok", usage: usage(5, 5) });
    expect(() => reservation.release()).not.toThrow();
    expect(() => reservation.settle({ status: "ok" })).toThrowError(SvcFlowError);
    expect(ledger.entries()).toHaveLength(1);
  });

  it("rejects a negative cap at construction, naming the option", () => {
    expect(() => new CostLedger({ maxYuan: -1 })).toThrowError(ConfigError);
    expect(() => new CostLedger({ maxYuan: -1 })).toThrowError(/maxYuan/);
  });
});

describe("CostLedger budgets", () => {
  const operation = chat("alpha-sonnet-4-6", 200);
  const bound = new CostLedger().estimate(operation).yuan!;

  it("refuses the call that would pass the cap, with spent, held, cap and the fix", () => {
    const ledger = new CostLedger({ maxYuan: roundYuan(bound * 2) });
    ledger.reserve(operation);
    ledger.reserve(operation);
    expect(() => ledger.reserve(operation)).toThrowError(BudgetExceededError);
    expect(() => ledger.reserve(operation)).toThrowError(/held by calls in flight.*Raise --budget or budget\.maxYuan/);
    expect(ledger.heldYuan).toBe(roundYuan(bound * 2));
  });

  it("frees the difference when a call settles below its estimate", () => {
    const ledger = new CostLedger({ maxYuan: bound });
    const first = ledger.reserve(operation);
    expect(() => ledger.reserve(chat("alpha-sonnet-4-6", 1))).toThrowError(BudgetExceededError);
    first.settle({ status: "ok", usage: usage(first.estimate.promptTokens, 10) });
    expect(() => ledger.reserve(chat("alpha-sonnet-4-6", 1)).release()).not.toThrow();
    expect(ledger.heldYuan).toBe(0);
  });

  it("gives the whole hold back on release", () => {
    const ledger = new CostLedger({ maxYuan: bound });
    ledger.reserve(operation).release();
    expect(ledger.remainingYuan).toBe(bound);
    expect(ledger.entries()).toHaveLength(0);
  });

  it("refuses an unpriced call under a cap unless allowUnpriced is set", () => {
    expect(() => new CostLedger({ maxYuan: 10 }).reserve(chat("beta-4o", 10))).toThrowError(
      /beta-4o has no price.*price file.*allowUnpriced/,
    );
    expect(() => new CostLedger({ maxYuan: 10, allowUnpriced: true }).reserve(chat("beta-4o", 10))).not.toThrow();
  });

  it("counts a resumed run's entries toward the cap", () => {
    const first = new CostLedger();
    first.reserve({ kind: "music", operation: "generate" }).settle({ status: "ok" });
    const resumed = new CostLedger({ maxYuan: 3, entries: first.entries() });
    expect(resumed.spentYuan).toBe(2);
    expect(() => resumed.reserve({ kind: "music", operation: "generate" })).toThrowError(BudgetExceededError);
    expect(() =>
      new CostLedger({ maxYuan: 4, entries: first.entries() }).reserve({ kind: "music", operation: "generate" }),
    ).not.toThrow();
  });

  it("never lets spent plus held pass the cap, whatever the order of reserves and settles", () => {
    const step = fc.oneof(
      fc.record({ type: fc.constant("reserve" as const), maxTokens: fc.integer({ min: 1, max: 4000 }) }),
      fc.record({
        type: fc.constant("settle" as const),
        pick: fc.nat(),
        share: fc.double({ min: 0, max: 1, noNaN: true }),
      }),
      fc.record({ type: fc.constant("release" as const), pick: fc.nat() }),
    );
    fc.assert(
      fc.property(fc.double({ min: 0, max: 2, noNaN: true }), fc.array(step, { maxLength: 60 }), (cap, steps) => {
        const ledger = new CostLedger({ maxYuan: cap });
        const open: ReturnType<CostLedger["reserve"]>[] = [];
        for (const action of steps) {
          if (action.type === "reserve") {
            try {
              open.push(ledger.reserve(chat("alpha-sonnet-4-6", action.maxTokens)));
            } catch (error) {
              if (!(error instanceof BudgetExceededError)) throw error;
            }
          } else if (open.length > 0) {
            const [reservation] = open.splice(action.pick % open.length, 1);
            if (action.type === "release") reservation!.release();
            else {
              const completion = Math.floor(reservation!.estimate.maxOutputTokens * action.share);
              reservation!.settle({ status: "ok", usage: usage(reservation!.estimate.promptTokens, completion) });
            }
          }
          expect(roundYuan(ledger.spentYuan + ledger.heldYuan)).toBeLessThanOrEqual(cap);
        }
      }),
    );
  });
});

describe("CostLedger.endStep", () => {
  const bill = (ledger: CostLedger, step: string, replayed = false) =>
    ledger
      .tagged({ step })
      .reserve(chat("alpha-sonnet-4-6", 100))
      .settle({ status: "ok", usage: usage(100, 20), requestId: `req-${step}`, ...(replayed ? { replayed } : {}) });

  it("counts a replayed bill of a step still going once, at 0", () => {
    const ledger = new CostLedger();
    bill(ledger, "a");
    bill(ledger, "a", true);
    expect(ledger.entries().map((entry) => entry.alreadyRecorded ?? false)).toEqual([false, true]);
    expect(ledger.summary().byTag.step!.a).toMatchObject({ calls: 2, promptTokens: 100 });
  });

  it("forgets an ended step's request ids, leaving every other step's replays counted once", () => {
    const ledger = new CostLedger();
    bill(ledger, "a");
    bill(ledger, "b");
    ledger.endStep("a");
    bill(ledger, "b", true);
    expect(ledger.entries().at(-1)!.alreadyRecorded).toBe(true);
    // No call of an ended step can replay its bill; were one to, it would be the only record left of it.
    bill(ledger, "a", true);
    expect(ledger.entries().at(-1)!.alreadyRecorded).toBeUndefined();
  });

  it("releases an ended step's totals from the summary when asked, returning them, while the run's totals stay", () => {
    const ledger = new CostLedger();
    bill(ledger, "a");
    bill(ledger, "b");
    const before = ledger.summary();
    expect(ledger.endStep("b")).toBeUndefined();
    expect(ledger.summary().byTag.step!.b).toEqual(before.byTag.step!.b);
    const released = ledger.endStep("a", { release: true });
    expect(released).toEqual(before.byTag.step!.a);
    const after = ledger.summary();
    expect(Object.keys(after.byTag.step!)).toEqual(["b"]);
    expect([after.totalYuan, after.entries]).toEqual([before.totalYuan, 2]);
  });
});
