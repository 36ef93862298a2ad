// Shared by the suites that resume runs with music jobs: cutting a journal where a kill can leave it,
// and checking cost.json against what the local gateway billed.
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { expect, onTestFinished } from "vitest";
import { roundYuan } from "../src/catalog/prices.js";
import type { CostEntry } from "../src/cost/cost-entry.js";
import type { CostSummary } from "../src/cost/summarize-entries.js";
import type { GatewayConfigInput } from "../src/server/config.js";
import { startLocalGateway, type LocalGateway } from "../src/server/index.js";
import { readJson } from "./workflow-harness.js";

/** A local gateway with `config`, closed when the test ends. */
export async function gatewayWith(config: GatewayConfigInput): Promise<LocalGateway> {
  const gateway = await startLocalGateway({ config });
  onTestFinished(() => gateway.close());
  return gateway;
}

/** Faults seed 10 with failRate 0.5: the gateway's first music job fails (and is refunded), the second completes. */
export const FIRST_FAILS: GatewayConfigInput = {
  faults: { seed: 10 },
  music: { completeAfterMs: 30, failRate: 0.5, clipSeconds: 1 },
};

/** The gateway's music bills, in the order it made them. */
export const musicBills = (gateway: LocalGateway) =>
  gateway
    .stats()
    .keys.flatMap((key) => key.billed)
    .filter((bill) => bill.kind === "music");

/**
 * Leaves the journal as a kill right after the line that journals the music call's bill (or, with
 * `status` "refunded", the line of its refund) leaves it.
 * Lines are appended in order and a killed process loses only what follows, so this is a state a
 * kill can leave (the engine's own test of torn lines cuts journals the same way).
 */
export async function cutAfterMusicBill(runDir: string, status: "ok" | "refunded" = "ok"): Promise<void> {
  const file = path.join(runDir, "journal.jsonl");
  const lines = (await readFile(file, "utf8")).split("\n");
  const cut = lines.findIndex(
    (line) =>
      line.includes('"type":"cost"') && line.includes('"kind":"music"') && line.includes(`"status":"${status}"`),
  );
  expect(cut).toBeGreaterThan(0);
  await writeFile(file, `${lines.slice(0, cut + 1).join("\n")}\n`);
}

/** cost.json against the gateway: each bill counted once, net of refunds, request by request and in total. */
export async function expectCostMatchesGateway(gateway: LocalGateway, runDir: string): Promise<CostSummary> {
  const cost = (await readJson(runDir, "cost.json")) as CostSummary & { calls: CostEntry[] };
  const bills = gateway
    .stats()
    .keys.flatMap((key) => key.billed)
    .map((bill) => ({ requestId: bill.requestId, yuan: bill.refunded ? 0 : bill.yuan }));
  expect(byRequest(cost.calls)).toEqual(byRequest(bills));
  expect(cost.totalYuan).toBe(gateway.stats().billedYuan);
  return cost;
}

function byRequest(entries: readonly { requestId?: string; yuan?: number }[]): Record<string, number> {
  const totals: Record<string, number> = {};
  for (const entry of entries)
    if (entry.requestId !== undefined)
      totals[entry.requestId] = roundYuan((totals[entry.requestId] ?? 0) + (entry.yuan ?? 0));
  return totals;
}
