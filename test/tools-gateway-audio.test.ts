import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CostLedger } from "../src/cost/cost-ledger.js";
import { wavDurationS } from "../src/media/probe.js";
import { createTools } from "../tools/index.js";
import { FAST_MUSIC, startAgentHarness, type AgentHarness } from "./agent-harness.js";
import { silentMp3, sineWav } from "./media-builders.js";

let harness: AgentHarness;
let failing: AgentHarness;
let slow: AgentHarness;

beforeAll(async () => {
  [harness, failing, slow] = await Promise.all([
    startAgentHarness(),
    startAgentHarness({ music: { ...FAST_MUSIC, failRate: 1 } }),
    startAgentHarness({ music: { ...FAST_MUSIC, completeAfterMs: 600_000 } }),
  ]);
});
afterAll(async () => {
  await Promise.all([harness.close(), failing.close(), slow.close()]);
});

async function tool(name: string, files: Record<string, string | Buffer> = {}, on: AgentHarness = harness) {
  const workspace = await on.workspace(files);
  const ledger = new CostLedger();
  const [created] = createTools([name], {
    workspace,
    gateway: on.connection,
    ledger,
    musicPollIntervalMs: 10,
    musicTimeoutMs: 300,
  });
  return { workspace, ledger, tool: created! };
}

describe("understand_audio", () => {
  it("lets a gamma-2.5 model listen to a workspace wav and answer", async () => {
    const { ledger, tool: listen } = await tool("understand_audio", {
      "clips/tone.wav": sineWav({ hz: 440, seconds: 1 }),
    });
    const answer = (await listen.invoke({ path: "clips/tone.wav", question: "What pitch is this tone?" })) as string;
    expect(answer).toMatch(/440 Hz/);
    expect(ledger.entries()).toHaveLength(1);
    // gamma-2.5-flash has no published price: the spend is recorded as unpriced, never as ¥0.
    expect(ledger.entries()[0]).toMatchObject({
      modelRequested: "gamma-2.5-flash",
      priceSource: "unpriced",
      tags: { tool: "understand_audio" },
    });
    expect(ledger.entries()[0]!.yuan).toBeUndefined();
    expect(ledger.entries()[0]!.promptTokens).toBeGreaterThan(0);
  });

  it("takes mp3 as well", async () => {
    const { tool: listen } = await tool("understand_audio", { "note.mp3": silentMp3({ frames: 40 }) });
    expect(await listen.invoke({ path: "note.mp3" })).toMatch(/mp3|MP3/);
  });

  it.each([
    [
      "voice.m4a",
      /m4a audio; the gateway takes mp3 or wav only. Convert it first, e.g. `ffmpeg -i voice.m4a voice.mp3`/,
    ],
    ["voice.ogg", /ogg audio; the gateway takes mp3 or wav only/],
    ["fake.mp3", /named .mp3 but its content is not mp3 audio/],
    ["../tone.wav", /climbs out of the workspace/],
    ["/etc/tone.wav", /absolute path outside the workspace/],
  ])("refuses %s before sending anything", async (requested, message) => {
    const files = { "voice.m4a": "m4a bytes", "voice.ogg": "ogg bytes", "fake.mp3": "not audio at all" };
    const { ledger, tool: listen } = await tool("understand_audio", files);
    const failure = listen.invoke({ path: requested });
    await expect(failure).rejects.toThrow(message);
    expect(ledger.entries()).toEqual([]);
  });

  it("names the error code so a caller can tell a format refusal apart", async () => {
    const { tool: listen } = await tool("understand_audio", { "voice.flac": "flac" });
    await expect(listen.invoke({ path: "voice.flac" })).rejects.toMatchObject({ code: "unsupported_audio_format" });
  });
});

describe("compose_music", () => {
  it("submits one job, waits for both clips and saves them in the workspace", async () => {
    const { workspace, ledger, tool: compose } = await tool("compose_music");
    const text = (await compose.invoke({ prompt: "a calm piano loop", instrumental: true, name: "loop" })) as string;
    const result = JSON.parse(text) as {
      clips: Array<{ id: string; path: string; bytes: number }>;
      instrumental: boolean;
    };
    expect(result.instrumental).toBe(true);
    expect(result.clips.map((clip) => clip.path)).toEqual(["music/loop-1.wav", "music/loop-2.wav"]);
    for (const clip of result.clips) {
      const audio = await readFile(path.join(workspace, clip.path));
      expect(audio.length).toBe(clip.bytes);
      expect(wavDurationS(audio)).toBeCloseTo(FAST_MUSIC.clipSeconds, 1);
    }
    expect(ledger.entries()).toHaveLength(1);
    expect(ledger.entries()[0]).toMatchObject({
      kind: "music",
      musicOperation: "generate",
      yuan: 2,
      tags: { tool: "compose_music" },
    });
  });

  it("names clips after the prompt and never replaces earlier ones", async () => {
    const { workspace, tool: compose } = await tool("compose_music");
    await compose.invoke({ prompt: "Upbeat ukulele jingle!" });
    await compose.invoke({ prompt: "Upbeat ukulele jingle!" });
    expect((await readdir(path.join(workspace, "music"))).sort()).toEqual([
      "upbeat-ukulele-jingle-1.wav",
      "upbeat-ukulele-jingle-2.wav",
      "upbeat-ukulele-jingle-3.wav",
      "upbeat-ukulele-jingle-4.wav",
    ]);
  });

  it("reports a failed job as refunded, and the ledger takes the ¥2 back", async () => {
    const { workspace, ledger, tool: compose } = await tool("compose_music", {}, failing);
    await expect(compose.invoke({ prompt: "a calm piano loop" })).rejects.toThrow(
      /failed upstream; the gateway refunds it/,
    );
    expect(ledger.entries().map((entry) => entry.status)).toEqual(["ok", "refunded"]);
    expect(ledger.summary().totalYuan).toBe(0);
    expect(await readdir(workspace)).toEqual([".keep"]);
  });

  it("tells the model that clips still pending after the wait stay billed, and that calling again pays again", async () => {
    const { workspace, ledger, tool: compose } = await tool("compose_music", {}, slow);
    await expect(compose.invoke({ prompt: "a calm piano loop" })).rejects.toThrow(
      /were not ready after 0.3 s; they may still finish and stay billed\. Calling compose_music again submits a new job, billed again/,
    );
    expect(ledger.entries().map((entry) => [entry.musicOperation, entry.status])).toEqual([["generate", "ok"]]);
    expect(await readdir(workspace)).toEqual([".keep"]);
  });
});
