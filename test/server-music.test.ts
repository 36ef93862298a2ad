import { describe, expect, it } from "vitest";
import { clipSchema, quotaReportSchema, type Clip } from "../src/gateway/wire.js";
import { wavDurationS } from "../src/media/probe.js";
import { errorOf, getWithKey, postJson, useGateway } from "./server-helpers.js";

const COMPLETE_AFTER_MS = 60;
const CLIP_SECONDS = 2;
const gateway = useGateway({
  config: {
    keys: [{ key: "sk-test-music", name: "music", quota: 100 }],
    music: { completeAfterMs: COMPLETE_AFTER_MS, clipSeconds: CLIP_SECONDS, credits: 1000 },
  },
});
const api = (path: string) => `${gateway().rootURL}/musicapi/api/${path}`;
const post = (path: string, body: unknown) => postJson(api(path), body, "sk-test-music");
const get = (path: string) => getWithKey(api(path), "sk-test-music");
const stats = () => gateway().stats().keys[0]!;

async function clipsOf(response: Response): Promise<Clip[]> {
  expect(response.status).toBe(200);
  return ((await response.json()) as unknown[]).map((clip) => clipSchema.parse(clip));
}

async function waitForAudio(ids: string[]): Promise<Clip[]> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const clips = await clipsOf(await get(`get?ids=${ids.join(",")}`));
    if (clips.every((clip) => clip.audio_url || clip.status === "error")) return clips;
    await new Promise((resolve) => setTimeout(resolve, COMPLETE_AFTER_MS / 2));
  }
  throw new Error("Clips never completed.");
}

async function download(clip: Clip): Promise<Buffer> {
  const response = await fetch(clip.audio_url!);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("audio/wav");
  return Buffer.from(await response.arrayBuffer());
}

describe("local gateway music", () => {
  it("generates two clips, completes them after completeAfterMs, and serves playable WAV audio", async () => {
    const clips = await clipsOf(
      await post("generate", { prompt: "A calm piano piece for a rainy morning", make_instrumental: true }),
    );
    expect(clips).toHaveLength(2);
    expect(clips[0]!.id).not.toBe(clips[1]!.id);
    expect(clips.every((clip) => !clip.audio_url)).toBe(true);
    const done = await waitForAudio(clips.map((clip) => clip.id));
    expect(done.map((clip) => clip.id)).toEqual(clips.map((clip) => clip.id));
    for (const clip of done) {
      const audio = await download(clip);
      expect(audio.toString("latin1", 0, 4)).toBe("RIFF");
      expect(wavDurationS(audio)).toBeCloseTo(CLIP_SECONDS, 1);
      expect(clip.duration).toBeCloseTo(CLIP_SECONDS, 1);
    }
  });

  it("serves byte ranges of a clip's audio, as players seek", async () => {
    const [clip] = await waitForAudio(
      (await clipsOf(await post("generate", { prompt: "ranges" }))).map((clip) => clip.id),
    );
    const whole = await download(clip!);
    const response = await fetch(clip!.audio_url!, { headers: { range: "bytes=0-99" } });
    expect(response.status).toBe(206);
    expect(response.headers.get("content-range")).toBe(`bytes 0-99/${whole.length}`);
    expect(Buffer.from(await response.arrayBuffer())).toEqual(whole.subarray(0, 100));
  });

  it("bills generate ¥2 and leaves get and get_limit free", async () => {
    const before = stats().spentYuan;
    const clips = await clipsOf(await post("generate", { prompt: "Upbeat jingle" }));
    expect(stats().spentYuan).toBe(before + 2);
    await (await get(`get?ids=${clips[0]!.id}`)).arrayBuffer();
    const report = quotaReportSchema.parse(await (await get("get_limit")).json());
    expect(stats().spentYuan).toBe(before + 2);
    expect(report.svc_key_quota).toBe(stats().remainingYuan);
    expect(report.credits_left).toBeLessThan(1000);
  });

  it("prices continuation and stems ¥1, lyrics ¥0.2 and concatenation ¥0.5", async () => {
    const [clip] = await waitForAudio(
      (await clipsOf(await post("generate", { prompt: "Folk song about a river" }))).map((clip) => clip.id),
    );
    const spent = () => stats().spentYuan;
    let before = spent();
    const [extension] = await clipsOf(
      await post("extend_audio", { audio_id: clip!.id, prompt: "second verse", continue_at: 1 }),
    );
    expect(spent()).toBe(before + 1);
    before = spent();
    const stems = await clipsOf(await post("generate_stems", { audio_id: clip!.id }));
    expect(stems).toHaveLength(2);
    expect(spent()).toBe(before + 1);
    before = spent();
    const lyrics = (await (await post("generate_lyrics", { prompt: "a river at night" })).json()) as { text: string };
    expect(lyrics.text.length).toBeGreaterThan(0);
    expect(spent()).toBeCloseTo(before + 0.2, 8);
    await waitForAudio([extension!.id]);
    before = spent();
    const [full] = await clipsOf(await post("concat", { clip_id: extension!.id }));
    expect(spent()).toBeCloseTo(before + 0.5, 8);
    const [song] = await waitForAudio([full!.id]);
    // The full song is the first second of the original followed by the whole continuation.
    expect(wavDurationS(await download(song!))).toBeCloseTo(1 + CLIP_SECONDS, 1);
  });

  it("refuses continuation of a clip that is not complete", async () => {
    const [clip] = await clipsOf(await post("generate", { prompt: "not yet" }));
    const response = await post("extend_audio", { audio_id: clip!.id });
    expect(response.status).toBe(400);
    expect((await errorOf(response)).param).toBe("audio_id");
  });

  it("answers 404 for clip ids it does not know, and 400 without ids", async () => {
    expect((await get("get?ids=nope")).status).toBe(404);
    expect((await get("get")).status).toBe(400);
  });

  it("answers 400 for a generate body without a prompt, unbilled", async () => {
    const before = stats().spentYuan;
    const response = await post("generate", { make_instrumental: true });
    expect(response.status).toBe(400);
    expect((await errorOf(response)).param).toBe("prompt");
    expect(stats().spentYuan).toBe(before);
  });
});

describe("local gateway music failures", () => {
  const failing = useGateway({
    config: { keys: [{ key: "sk-test-fail", quota: 10 }], music: { completeAfterMs: 20, failRate: 1 } },
  });

  it("refunds a music job that fails", async () => {
    const response = await postJson(`${failing().rootURL}/musicapi/api/generate`, { prompt: "doomed" }, "sk-test-fail");
    const clips = (await response.json()) as Clip[];
    expect(failing().stats().keys[0]!.spentYuan).toBe(2);
    let polled: Clip[] = [];
    for (
      let attempt = 0;
      attempt < 50 && (polled.length === 0 || !polled.every((clip) => clip.status === "error"));
      attempt++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      polled = (await (
        await getWithKey(
          `${failing().rootURL}/musicapi/api/get?ids=${clips.map((clip) => clip.id).join(",")}`,
          "sk-test-fail",
        )
      ).json()) as Clip[];
    }
    expect(polled.map((clip) => clip.status)).toEqual(["error", "error"]);
    expect(polled.every((clip) => !clip.audio_url)).toBe(true);
    const key = failing().stats().keys[0]!;
    expect(key.spentYuan).toBe(0);
    expect(key.billed[0]).toMatchObject({ operation: "generate", yuan: 2, refunded: true });
  });
});
