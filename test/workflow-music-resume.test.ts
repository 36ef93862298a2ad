import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { roundYuan } from "../src/catalog/prices.js";
import type { CostEntry } from "../src/cost/cost-entry.js";
import type { CostSummary } from "../src/cost/summarize-entries.js";
import type { GatewayConfigInput } from "../src/server/config.js";
import { startLocalGateway, type LocalGateway } from "../src/server/index.js";
import { resumeWorkflow } from "../src/workflow/index.js";
import { gatewayOptions, readJson, runText } from "./workflow-harness.js";

// Faults seed 10 with failRate 0.5: the gateway's first music job fails (and is refunded), the second completes.
const FIRST_FAILS = { faults: { seed: 10 }, music: { completeAfterMs: 30, failRate: 0.5, clipSeconds: 1 } };

const JINGLE = `version: 1
steps:
  - id: jingle
    uses: music
    with: { prompt: "Upbeat jingle", instrumental: true }
`;

let opened: LocalGateway | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

async function gatewayWith(config: GatewayConfigInput): Promise<LocalGateway> {
  opened = await startLocalGateway({ config });
  return opened;
}

const musicBills = (gateway: LocalGateway) => gateway.stats().keys.flatMap((key) => key.billed).filter((bill) => bill.kind === "music");

/**
 * Leaves the journal as a kill right after the line that journals the music call's bill leaves it.
 * Lines are appended in order and a killed process loses only what follows, so this is a state a
 * kill can leave (the engine's own test of torn lines cuts journals the same way).
 */
async function cutAfterMusicBill(runDir: string): Promise<void> {
  const file = path.join(runDir, "journal.jsonl");
  const lines = (await readFile(file, "utf8")).split("\n");
  const cut = lines.findIndex((line) => line.includes('"type":"cost"') && line.includes('"kind":"music"') && line.includes('"status":"ok"'));
  expect(cut).toBeGreaterThan(0);
  await writeFile(file, `${lines.slice(0, cut + 1).join("\n")}\n`);
}

/** cost.json against the gateway: each bill counted once, net of refunds, request by request and in total. */
async function expectCostMatchesGateway(gateway: LocalGateway, runDir: string): Promise<CostSummary> {
  const cost = (await readJson(runDir, "cost.json")) as CostSummary & { calls: CostEntry[] };
  const bills = gateway.stats().keys.flatMap((key) => key.billed).map((bill) => ({ requestId: bill.requestId, yuan: bill.refunded ? 0 : bill.yuan }));
  expect(byRequest(cost.calls)).toEqual(byRequest(bills));
  expect(cost.totalYuan).toBe(gateway.stats().billedYuan);
  return cost;
}

function byRequest(entries: readonly { requestId?: string; yuan?: number }[]): Record<string, number> {
  const totals: Record<string, number> = {};
  for (const entry of entries) if (entry.requestId !== undefined) totals[entry.requestId] = roundYuan((totals[entry.requestId] ?? 0) + (entry.yuan ?? 0));
  return totals;
}

describe("resuming a music step", () => {
  it("refunds once, then submits anew, a job that failed after a kill right behind its journaled bill", async () => {
    const gateway = await gatewayWith(FIRST_FAILS);
    const first = await runText(gateway, JINGLE);
    expect(first.result).toMatchObject({ status: "failed", error: { code: "music_failed" } });
    await cutAfterMusicBill(first.result.runDir);
    // The job the journal paid for failed upstream and the gateway refunded it (and forgot its key).
    expect(musicBills(gateway)).toMatchObject([{ refunded: true }]);

    const resumed = await resumeWorkflow(first.result.runDir, gatewayOptions(gateway));

    expect(resumed.status).toBe("done");
    expect((resumed.outputs?.jingle as { clips: unknown[] }).clips).toHaveLength(2);
    expect(musicBills(gateway)).toMatchObject([{ refunded: true }, { refunded: false, yuan: 2 }]);
    const cost = await expectCostMatchesGateway(gateway, first.result.runDir);
    expect(cost).toMatchObject({ totalYuan: 2, refunds: 1 });
  });

  it("uses a job that completed after a kill right behind its journaled bill, sending nothing billable", async () => {
    const gateway = await gatewayWith({ music: { completeAfterMs: 30, clipSeconds: 1 } });
    const first = await runText(gateway, JINGLE);
    expect(first.result.status).toBe("done");
    await cutAfterMusicBill(first.result.runDir);
    const requests = gateway.stats().keys[0]!.requests;

    const resumed = await resumeWorkflow(first.result.runDir, gatewayOptions(gateway));

    expect(resumed.status).toBe("done");
    const ids = (output: unknown) => (output as { jingle: { clips: { id: string }[] } }).jingle.clips.map((clip) => clip.id);
    expect(ids(resumed.outputs)).toEqual(ids(first.result.outputs));
    // Not even a replayed generate: the journaled clip ids were looked up.
    expect(gateway.stats().keys[0]!.requests.replayed).toBe(requests.replayed);
    expect(musicBills(gateway)).toHaveLength(1);
    await expectCostMatchesGateway(gateway, first.result.runDir);
  });

  it("submits a music step whose job failed anew when the run is resumed, its first bill refunded once", async () => {
    const gateway = await gatewayWith(FIRST_FAILS);
    const first = await runText(gateway, JINGLE);
    expect(first.result).toMatchObject({ status: "failed", error: { code: "music_failed" } });

    const resumed = await resumeWorkflow(first.result.runDir, gatewayOptions(gateway));

    expect(resumed.status).toBe("done");
    expect(musicBills(gateway)).toMatchObject([{ refunded: true }, { refunded: false }]);
    const cost = await expectCostMatchesGateway(gateway, first.result.runDir);
    expect(cost).toMatchObject({ totalYuan: 2, refunds: 1 });
  });
});
