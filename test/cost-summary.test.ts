import { describe, expect, it } from "vitest";
import { roundYuan, tokenCost } from "../src/catalog/prices.js";
import { CostLedger } from "../src/cost/cost-ledger.js";
import type { ChatRequest } from "../src/gateway/wire.js";

function request(model: string): ChatRequest {
  return { model, messages: [{ role: "user", content: "hi" }], max_tokens: 100 };
}

function runSample(ledger: CostLedger): void {
  const ideas = ledger.tagged({ step: "ideas" });
  const posters = ledger.tagged({ step: "posters" });
  ideas
    .reserve({ kind: "chat", request: request("alpha-sonnet-4-6") })
    .settle({ status: "failed", errorCode: "upstream_error" });
  ideas.reserve({ kind: "chat", request: request("alpha-sonnet-4-6") }).settle({
    status: "ok",
    usage: { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 },
  });
  ideas.reserve({ kind: "chat", request: request("beta-4o") }).settle({
    status: "ok",
    usage: { prompt_tokens: 300, completion_tokens: 20, total_tokens: 320 },
  });
  posters.reserve({ kind: "chat", request: request("gamma-2.5-flash-image") }).settle({
    status: "ok",
    images: 1,
    usage: { prompt_tokens: 10, completion_tokens: 1290, total_tokens: 1300 },
  });
  ledger.reserve({ kind: "music", operation: "generate" }).settle({ status: "ok" });
}

const sonnet = roundYuan(tokenCost(1000, 0.032) + tokenCost(100, 0.1598));

describe("summary", () => {
  it("totals by model and by step in yuan, with unpriced usage apart", () => {
    const ledger = new CostLedger({ maxYuan: 10, allowUnpriced: true });
    runSample(ledger);
    const summary = ledger.summary();
    expect(summary.totalYuan).toBe(roundYuan(sonnet + 0.42 + 2));
    expect(summary.complete).toBe(false);
    expect(summary.entries).toBe(5);
    expect(summary.failedAttempts).toBe(1);
    expect(summary.byModel["alpha-sonnet-4-6"]).toMatchObject({
      calls: 2,
      failed: 1,
      yuan: sonnet,
      promptTokens: 1000,
    });
    expect(summary.byModel["beta-4o"]).toMatchObject({ yuan: null, unpricedCalls: 1, unpricedTokens: 320 });
    expect(summary.byModel["music:generate"]?.yuan).toBe(2);
    expect(summary.byTag.step?.ideas).toMatchObject({ calls: 3, yuan: sonnet, unpricedCalls: 1 });
    expect(summary.byTag.step?.posters).toMatchObject({ images: 1, yuan: 0.42 });
    expect(summary.budget).toEqual({
      maxYuan: 10,
      spentYuan: summary.totalYuan,
      heldYuan: 0,
      remainingYuan: roundYuan(10 - summary.totalYuan),
    });
  });

  it("prints an aligned table that says unpriced where there is no price", () => {
    const ledger = new CostLedger({ allowUnpriced: true, maxYuan: 10 });
    runSample(ledger);
    const table = ledger.formatSummaryTable();
    const lines = table.split("\n");
    const header = lines[0]!;
    expect(header).toMatch(/^model\s+calls\s+failed\s+prompt\s+completion\s+images\s+yuan$/);
    const modelRows = lines.slice(2, 6);
    // Every row of a section ends in the same column.
    expect(new Set(modelRows.map((line) => line.length)).size).toBe(1);
    expect(table).toMatch(/beta-4o .* unpriced$/m);
    expect(table).toMatch(/^ideas .* ¥0\.0480 \+ unpriced$/m);
    expect(table).toMatch(/music:generate .* ¥2\.0000$/m);
    expect(table).toMatch(/^total ¥2\.4680 \+ unpriced usage over 5 calls \(1 failed\)$/m);
    expect(table).toMatch(/^unpriced: beta-4o \(1 call, 320 tokens\); add their prices/m);
    expect(table).toMatch(/^budget ¥2\.4680 of ¥10\.0000 spent, ¥7\.5320 left$/m);
  });

  it("prints an empty ledger as a zero total", () => {
    expect(new CostLedger().formatSummaryTable()).toBe("total ¥0.0000 over 0 calls (0 failed)");
  });
});
