import { describe, expect, it } from "vitest";
import { resumeWorkflow } from "../src/workflow/index.js";
import {
  cutAfterMusicBill,
  expectCostMatchesGateway,
  FIRST_FAILS,
  gatewayWith,
  musicBills,
} from "./music-resume-harness.js";
import { gatewayOptions, runText } from "./workflow-harness.js";

const JINGLE = `version: 1
steps:
  - id: jingle
    uses: music
    with: { prompt: "Upbeat jingle", instrumental: true }
`;

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
    const ids = (output: unknown) =>
      (output as { jingle: { clips: { id: string }[] } }).jingle.clips.map((clip) => clip.id);
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
