import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CostLedger } from "../src/cost/cost-ledger.js";
import { AbortedError, BudgetExceededError, SvcFlowError, TimeoutError, UpstreamError } from "../src/errors.js";
import { MusicClient } from "../src/gateway/music-client.js";
import type { Clip } from "../src/gateway/wire.js";
import { startLocalGateway, type LocalGateway } from "../src/server/index.js";

const KEY = "sk-music-main";
const SLOW_KEY = "sk-music-slow";

let gateway: LocalGateway;
let failing: LocalGateway;
let slow: LocalGateway;
let directory: string;
const clients: MusicClient[] = [];

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "svc-flow-music-"));
  [gateway, failing, slow] = await Promise.all([
    startLocalGateway({ config: { keys: [{ key: KEY, quota: 100 }], music: { completeAfterMs: 30, clipSeconds: 1 } } }),
    startLocalGateway({
      config: { keys: [{ key: KEY }], music: { completeAfterMs: 20, failRate: 1, clipSeconds: 1 } },
    }),
    startLocalGateway({ config: { keys: [{ key: SLOW_KEY }], music: { completeAfterMs: 600_000, clipSeconds: 1 } } }),
  ]);
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await Promise.all([gateway.close(), failing.close(), slow.close()]);
  await rm(directory, { recursive: true, force: true });
});

function music(options: { on?: LocalGateway; apiKey?: string; recorder?: CostLedger } = {}): MusicClient {
  const target = options.on ?? gateway;
  const created = new MusicClient({
    apiKey: options.apiKey ?? KEY,
    baseURL: target.baseURL,
    ...(options.recorder === undefined ? {} : { recorder: options.recorder }),
  });
  clients.push(created);
  return created;
}

const poll = { pollIntervalMs: 10, maxPollIntervalMs: 40, timeoutMs: 20_000 };

async function finishedClips(client: MusicClient): Promise<Clip[]> {
  const { clips } = await client.generate({ prompt: "a calm piano loop", instrumental: true });
  return (
    await client.waitForClips(
      clips.map((clip) => clip.id),
      poll,
    )
  ).clips;
}

function billedRequestIds(target: LocalGateway): string[] {
  return target.stats().keys.flatMap((key) => key.billed.map((entry) => entry.requestId));
}

describe("MusicClient against the local gateway", () => {
  it("takes the music root from the base URL", () => {
    expect(music().rootURL).toBe(gateway.rootURL);
  });

  it("generates two clips and records the call on the recorder with the gateway's request id", async () => {
    const ledger = new CostLedger();
    const { clips, ids } = await music({ recorder: ledger }).generate({ prompt: "upbeat jingle", instrumental: true });
    expect(clips).toHaveLength(2);
    expect(clips.every((clip) => clip.id !== "" && !clip.audio_url)).toBe(true);
    expect(ledger.entries()).toMatchObject([
      { kind: "music", musicOperation: "generate", status: "ok", yuan: 2, requestId: ids.requestId },
    ]);
    expect(billedRequestIds(gateway)).toContain(ids.requestId);
  });

  it("polls until every clip has its audio_url", async () => {
    const clips = await finishedClips(music());
    expect(clips).toHaveLength(2);
    for (const clip of clips) expect(clip.audio_url).toMatch(/^http/);
  });

  it("downloads a clip's audio into memory", async () => {
    const client = music();
    const [clip] = await finishedClips(client);
    const audio = await client.download(clip as Clip);
    expect(audio.bytes.subarray(0, 4).toString("latin1")).toBe("RIFF");
    expect(audio.contentType).toBe("audio/wav");
  });

  it("downloads a clip's audio to a file, leaving no partial file behind", async () => {
    const client = music();
    const [clip] = await finishedClips(client);
    const path = join(directory, "clip.wav");
    const saved = await client.download(clip as Clip, { path });
    const bytes = await readFile(path);
    expect(saved).toMatchObject({ path, size: bytes.length });
    expect(bytes.subarray(0, 4).toString("latin1")).toBe("RIFF");
    expect((await readdir(directory)).filter((name) => name.endsWith(".part"))).toEqual([]);
  });

  it("refuses to download a clip that has no audio yet", async () => {
    const client = music();
    const { clips } = await client.generate({ prompt: "not yet" });
    await expect(client.download(clips[0] as Clip)).rejects.toMatchObject({ code: "clip_not_ready" });
  });

  it("continues, splits into stems and concatenates, each billed once", async () => {
    const ledger = new CostLedger();
    const client = music({ recorder: ledger });
    const [clip] = await finishedClips(client);
    const continued = await client.continuation({ clipId: (clip as Clip).id, continueAtS: 0.5 });
    const [extension] = (
      await client.waitForClips(
        continued.clips.map((item) => item.id),
        poll,
      )
    ).clips;
    const stems = await client.stems({ clipId: (clip as Clip).id });
    const joined = await client.concatenation({ clipId: (extension as Clip).id });
    expect(stems.clips.length).toBeGreaterThan(0);
    expect(joined.clips).toHaveLength(1);
    const operations = ledger.entries().map((entry) => [entry.musicOperation, entry.yuan]);
    expect(operations).toEqual([
      ["generate", 2],
      ["continuation", 1],
      ["stems", 1],
      ["concatenation", 0.5],
    ]);
  });

  it("writes lyrics for ¥0.2", async () => {
    const ledger = new CostLedger();
    const { lyrics } = await music({ recorder: ledger }).lyrics({ prompt: "a song about lanterns" });
    expect(lyrics.text.length).toBeGreaterThan(0);
    expect(ledger.entries()).toMatchObject([{ musicOperation: "lyrics", yuan: 0.2 }]);
  });

  it("reads the quota report without billing it", async () => {
    const ledger = new CostLedger();
    const { report } = await music({ recorder: ledger }).getLimit();
    expect(typeof report.credits_left).toBe("number");
    expect(typeof report.svc_key_quota).toBe("number");
    expect(ledger.entries()).toEqual([]);
  });

  it("refuses a call over the run's budget before anything is sent", async () => {
    const ledger = new CostLedger({ maxYuan: 1 });
    const before = billedRequestIds(gateway).length;
    await expect(music({ recorder: ledger }).generate({ prompt: "too expensive" })).rejects.toBeInstanceOf(
      BudgetExceededError,
    );
    expect(billedRequestIds(gateway)).toHaveLength(before);
    expect(ledger.heldYuan).toBe(0);
  });

  it("settles a refused call as failed on the recorder", async () => {
    const ledger = new CostLedger();
    const client = music({ recorder: ledger });
    await expect(client.stems({ clipId: "no-such-clip" })).rejects.toBeInstanceOf(SvcFlowError);
    expect(ledger.entries()).toMatchObject([{ musicOperation: "stems", status: "failed", errorCode: "not_found" }]);
    expect(ledger.spentYuan).toBe(0);
  });

  it("reports a failed music job as a non-retryable music_failed error", async () => {
    const client = music({ on: failing });
    const { clips } = await client.generate({ prompt: "doomed" });
    const error = await client
      .waitForClips(
        clips.map((clip) => clip.id),
        poll,
      )
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ code: "music_failed", retryable: false });
  });

  it("gives up with TimeoutError naming the clip ids", async () => {
    const client = music({ on: slow, apiKey: SLOW_KEY });
    const { clips } = await client.generate({ prompt: "takes forever" });
    const error = await client
      .waitForClips(
        clips.map((clip) => clip.id),
        { pollIntervalMs: 10, timeoutMs: 80 },
      )
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as Error).message).toContain((clips[0] as Clip).id);
  });

  it("stops polling with AbortedError when the signal aborts", async () => {
    const client = music({ on: slow, apiKey: SLOW_KEY });
    const { clips } = await client.generate({ prompt: "cancel me" });
    const controller = new AbortController();
    const waiting = client.waitForClips(
      clips.map((clip) => clip.id),
      { pollIntervalMs: 10, signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 30);
    await expect(waiting).rejects.toBeInstanceOf(AbortedError);
  });
});
