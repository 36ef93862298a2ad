import { describe, expect, it, vi } from "vitest";
import type { LocalGateway } from "../src/server/index.js";
import { resumeWorkflow } from "../src/workflow/index.js";
import {
  cutAfterMusicBill,
  expectCostMatchesGateway,
  FIRST_FAILS,
  gatewayWith,
  musicBills,
} from "./music-resume-harness.js";
import { gatewayOptions, recordsOf, runText, type TestRun } from "./workflow-harness.js";

// The simulated model calls compose_music once for this task, and answers with what the tool said.
const COMPOSER = `version: 1
defaults:
  model: alpha-sonnet-4-6
  maxTokens: 300
steps:
  - id: score
    uses: agent
    with: { tools: [compose_music], prompt: "Compose calm instrumental music for a lantern festival." }
`;

interface AgentOutput {
  toolCalls: { name: string; failed: boolean; result: string }[];
}

/**
 * Runs the workflow and stops it as a kill would right after the music bill's journal line (or its
 * refund's): the run is aborted as that entry is counted, so the agent sends nothing after it, and
 * the journal is cut behind it.
 */
async function runKilledAfterMusicBill(gateway: LocalGateway, status: "ok" | "refunded" = "ok"): Promise<TestRun> {
  const kill = new AbortController();
  let billed = false;
  const run = await runText(gateway, COMPOSER, {
    signal: kill.signal,
    onEvent: (event) => {
      if (event.type !== "cost") return;
      if (status === "ok" ? event.spentYuan >= 2 : billed && event.spentYuan < 2) kill.abort();
      billed ||= event.spentYuan >= 2;
    },
  });
  expect(run.result.status).not.toBe("done");
  await cutAfterMusicBill(run.result.runDir, status);
  return run;
}

const composed = (output: unknown) =>
  (output as { score: AgentOutput }).score.toolCalls.filter((call) => call.name === "compose_music");
const clipIds = (output: unknown) =>
  composed(output).flatMap((call) =>
    (JSON.parse(call.result) as { clips: { id: string }[] }).clips.map((clip) => clip.id),
  );

describe("resuming an agent step whose compose_music started a music job", () => {
  it("journals the job's clip ids in the line of the generate call's bill", async () => {
    const gateway = await gatewayWith({ music: { completeAfterMs: 30, clipSeconds: 1 } });
    const first = await runText(gateway, COMPOSER);

    expect(first.result.status).toBe("done");
    const bill = recordsOf(first.journal, "cost").find((record) => record.entry.kind === "music");
    expect(bill?.musicJob).toMatchObject({
      key: "score",
      operation: "generate",
      call: expect.stringMatching(/^generate:/),
      clipIds: clipIds(first.result.outputs),
    });
  });

  it("refunds once, then composes anew, a job that failed after a kill right behind its journaled bill", async () => {
    const gateway = await gatewayWith(FIRST_FAILS);
    const first = await runKilledAfterMusicBill(gateway);
    // The job the journal paid for fails upstream and the gateway refunds it (and forgets its key).
    await vi.waitFor(() => expect(musicBills(gateway)).toMatchObject([{ refunded: true }]));

    const resumed = await resumeWorkflow(first.result.runDir, gatewayOptions(gateway));

    expect(resumed.status).toBe("done");
    expect(composed(resumed.outputs)).toMatchObject([{ failed: false }]);
    expect(clipIds(resumed.outputs)).toHaveLength(2);
    expect(musicBills(gateway)).toMatchObject([{ refunded: true }, { refunded: false, yuan: 2 }]);
    const cost = await expectCostMatchesGateway(gateway, first.result.runDir);
    expect(cost).toMatchObject({ refunds: 1 });
    expect(cost.byModel["music:generate"]?.yuan).toBe(2);
  });

  it("records the refund of a journaled failed job only once when the killed execution had recorded it already", async () => {
    const gateway = await gatewayWith(FIRST_FAILS);
    const first = await runKilledAfterMusicBill(gateway, "refunded");
    expect(recordsOf(first.journal, "cost").filter((record) => record.entry.status === "refunded")).toHaveLength(1);

    const resumed = await resumeWorkflow(first.result.runDir, gatewayOptions(gateway));

    expect(resumed.status).toBe("done");
    expect(composed(resumed.outputs)).toMatchObject([{ failed: false }]);
    expect(musicBills(gateway)).toMatchObject([{ refunded: true }, { refunded: false, yuan: 2 }]);
    const cost = await expectCostMatchesGateway(gateway, first.result.runDir);
    expect(cost).toMatchObject({ refunds: 1 });
  });

  it("uses a job that completed after a kill right behind its journaled bill, sending no generate", async () => {
    const gateway = await gatewayWith({ music: { completeAfterMs: 30, clipSeconds: 1 } });
    const first = await runKilledAfterMusicBill(gateway);
    const [bill] = recordsOf(first.journal, "cost").filter((record) => record.entry.kind === "music");
    const replayed = gateway.stats().keys[0]!.requests.replayed;

    const resumed = await resumeWorkflow(first.result.runDir, gatewayOptions(gateway));

    expect(resumed.status).toBe("done");
    expect(clipIds(resumed.outputs)).toEqual(bill?.musicJob?.clipIds);
    expect(musicBills(gateway)).toHaveLength(1);
    await expectCostMatchesGateway(gateway, first.result.runDir);
    // Nothing is answered from the gateway's idempotency record: the agent's first turn comes from the
    // journal (an agent-turn line), and the job is looked up by its journaled clip ids, not generated
    // again (the gateway would replay that generate unbilled too, but a job that failed it would bill anew).
    expect(recordsOf(first.journal, "agent-turn").map((record) => record.turn)).toEqual([1]);
    expect(gateway.stats().keys[0]!.requests.replayed).toBe(replayed);
  });
});
