import { createHash } from "node:crypto";
import { mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AUDIO_TOKENS_PER_MINUTE } from "../src/catalog/tokens.js";
import { formatYuan } from "../src/cost/format-summary-table.js";
import { startLocalGateway, type LocalGateway } from "../src/server/start-local-gateway.js";
import { gatewayEnv, runCli, type CliResult } from "./cli-harness.js";
import { makePng, makeWav } from "./chat-media.js";

const KEY = "sk-cli-chat-secret-4d2e";
let gateway: LocalGateway;
let dir: string;
const env = () => gatewayEnv(gateway.baseURL, KEY);
const spent = () => gateway.stats().keys[0]!.spentYuan;
const billedCount = () => gateway.stats().keys[0]!.billed.length;
const noKey = (result: CliResult) => expect(result.stdout.text + result.stderr.text).not.toContain(KEY);

beforeAll(async () => {
  gateway = await startLocalGateway({ port: 0, config: { keys: [{ key: KEY, models: "*" }] } });
});
afterAll(async () => {
  await gateway.close();
});
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-flow-cli-chat-"));
  return () => rm(dir, { recursive: true, force: true });
});

describe("svc-flow chat", () => {
  it("streams the reply to stdout as it arrives and ends with the cost line on stderr", async () => {
    const before = spent();
    const result = await runCli(["chat", "Tell me about solar lanterns.", "--max-tokens", "60"], {
      env: env(),
      cwd: dir,
    });
    expect(result.code).toBe(0);
    // Streamed: the reply reached stdout in several writes, not as one block at the end.
    expect(result.stdout.chunks.length).toBeGreaterThan(3);
    expect(result.stdout.text.trim().length).toBeGreaterThan(20);
    const paid = spent() - before;
    expect(paid).toBeGreaterThan(0);
    const cost = result.stderr.text.split("\n").find((line) => line.startsWith("cost "));
    expect(cost).toMatch(
      new RegExp(`^cost ${formatYuan(paid).replace(/[.¥]/g, "\\$&")}; \\d+ prompt \\+ \\d+ completion tokens, 1 call$`),
    );
    noKey(result);
  });

  it("says unpriced, with the token counts, for a model without a published price", async () => {
    const result = await runCli(["chat", "Hello there", "--model", "beta-4o", "--max-tokens", "30"], {
      env: env(),
      cwd: dir,
    });
    expect(result.code).toBe(0);
    expect(result.stderr.text).toMatch(
      /^cost unpriced \(no published price for beta-4o\); \d+ prompt \+ \d+ completion tokens, 1 call$/m,
    );
    expect(result.stderr.text).not.toMatch(/¥0\.0000/);
  });

  it("writes an image model's PNG to ./image-<sha8>.png and prints its path", async () => {
    const result = await runCli(["chat", "A red paper lantern at dusk", "--model", "gamma-2.5-flash-image"], {
      env: env(),
      cwd: dir,
    });
    expect(result.code).toBe(0);
    const printed = result.stdout.text.trim();
    expect(printed).toMatch(/^image-[0-9a-f]{8}\.png$/);
    const bytes = await readFile(join(dir, printed));
    expect(bytes.subarray(1, 4).toString("latin1")).toBe("PNG");
    expect(printed).toBe(`image-${createHash("sha256").update(bytes).digest("hex").slice(0, 8)}.png`);
    expect(result.stderr.text).toMatch(/^cost ¥0\.4200; .*1 image, 1 call$/m);
  });

  it("downloads and writes the image when the gateway answers with a link", async () => {
    const linking = await startLocalGateway({
      port: 0,
      config: { keys: [{ key: KEY, models: "*" }], imageLinks: true },
    });
    try {
      const result = await runCli(["chat", "A red paper lantern at dusk", "--model", "gamma-2.5-flash-image"], {
        env: gatewayEnv(linking.baseURL, KEY),
        cwd: dir,
      });
      expect(result.code).toBe(0);
      const printed = result.stdout.text.trim();
      expect(printed).toMatch(/^image-[0-9a-f]{8}\.png$/);
      const bytes = await readFile(join(dir, printed));
      expect(bytes.subarray(1, 4).toString("latin1")).toBe("PNG");
    } finally {
      await linking.close();
    }
  });

  it("writes the image to --out FILE", async () => {
    const result = await runCli(
      ["chat", "A lantern poster", "--model", "gamma-2.5-flash-image", "--out", "poster.png"],
      { env: env(), cwd: dir },
    );
    expect(result.code).toBe(0);
    expect(result.stdout.text.trim()).toBe("poster.png");
    expect((await readFile(join(dir, "poster.png"))).subarray(1, 4).toString("latin1")).toBe("PNG");
  });

  it("sends an image file as a content block to a vision model", async () => {
    await writeFile(join(dir, "swatch.png"), makePng(64, 64));
    const plain = await runCli(["chat", "What is in this picture?", "--model", "beta-4o", "--max-tokens", "40"], {
      env: env(),
      cwd: dir,
    });
    const withImage = await runCli(
      ["chat", "What is in this picture?", "--model", "beta-4o", "--max-tokens", "40", "--image", "swatch.png"],
      { env: env(), cwd: dir },
    );
    expect(withImage.code).toBe(0);
    const promptTokens = (result: CliResult) => Number(/(\d+) prompt/.exec(result.stderr.text)?.[1]);
    // A 64x64 image costs 85 + 170 prompt tokens (one tile).
    expect(promptTokens(withImage) - promptTokens(plain)).toBe(255);
  });

  it("sends wav audio to a gamma-2.5 model, billed by its length", async () => {
    await writeFile(join(dir, "note.wav"), makeWav(30));
    const result = await runCli(
      ["chat", "Transcribe this.", "--model", "gamma-2.5-flash", "--audio", "note.wav", "--max-tokens", "40"],
      { env: env(), cwd: dir },
    );
    expect(result.code).toBe(0);
    const promptTokens = Number(/(\d+) prompt/.exec(result.stderr.text)?.[1]);
    expect(promptTokens).toBeGreaterThanOrEqual(AUDIO_TOKENS_PER_MINUTE / 2);
  });

  it("refuses audio that is not mp3 or wav with exit 2 and the command that converts it, before sending anything", async () => {
    await writeFile(join(dir, "memo.ogg"), Buffer.from("OggS\u0000\u0002 not really audio"));
    const before = billedCount();
    const result = await runCli(["chat", "Summarise", "--model", "gamma-2.5-flash", "--audio", "memo.ogg"], {
      env: env(),
      cwd: dir,
    });
    expect(result.code).toBe(2);
    expect(result.stderr.text).toMatch(/not mp3 or wav.*ffmpeg -i memo\.ogg memo\.mp3/);
    expect(billedCount()).toBe(before);
    expect(await readdir(dir)).toEqual(["memo.ogg"]);
  });

  it("names the flag and the current folder for a media file that is not there (exit 2)", async () => {
    const result = await runCli(["chat", "What is this?", "--model", "beta-4o", "--image", "photos/none.png"], {
      env: env(),
      cwd: dir,
    });
    expect(result.code).toBe(2);
    expect(result.stderr.text).toContain(`There is no file ${join(dir, "photos/none.png")} (--image).`);
    expect(result.stderr.text).toContain("relative to the current folder");
    expect(result.stderr.text).not.toContain("workflow file");
  });

  it("refuses audio for a model that cannot hear, naming the models that can (exit 2)", async () => {
    await writeFile(join(dir, "note.wav"), makeWav(1));
    const result = await runCli(["chat", "Listen", "--model", "alpha-sonnet-4-6", "--audio", "note.wav"], {
      env: env(),
      cwd: dir,
    });
    expect(result.code).toBe(2);
    expect(result.stderr.text).toMatch(
      /alpha-sonnet-4-6" has no audio input; models with it: gamma-2\.5-pro, gamma-2\.5-flash/,
    );
  });

  it("exits 2 with suggestions for an unknown model", async () => {
    const result = await runCli(["chat", "hi", "--model", "alpha-sonet-4-6"], { env: env(), cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr.text).toMatch(/Unknown model "alpha-sonet-4-6"\. Did you mean "alpha-sonnet-4-6"/);
    expect(result.stdout.text).toBe("");
  });

  it("reports a dropped parameter as a warning on stderr and still answers", async () => {
    const result = await runCli(
      ["chat", "Say hello", "--model", "alpha-opus-4-8", "--temperature", "0.3", "--max-tokens", "20"],
      { env: env(), cwd: dir },
    );
    expect(result.code).toBe(0);
    expect(result.stderr.text).toMatch(/^warning: temperature .*alpha-opus-4-8/m);
    expect(result.stdout.text.trim()).not.toBe("");
  });

  it("warns when the reply stops at --max-tokens", async () => {
    const result = await runCli(["chat", "Write a long essay about lanterns in history.", "--max-tokens", "5"], {
      env: env(),
      cwd: dir,
    });
    expect(result.code).toBe(0);
    expect(result.stderr.text).toMatch(/^warning: the reply stopped at the output limit \(--max-tokens 5\)/m);
  });

  it("gives programs JSON with the text, usage and cost", async () => {
    const result = await runCli(["chat", "Hello", "--max-tokens", "20", "--system", "Be brief.", "--json"], {
      env: env(),
      cwd: dir,
    });
    expect(result.code).toBe(0);
    const reply = JSON.parse(result.stdout.text) as {
      text: string;
      model: string;
      usage: { promptTokens: number; completionTokens: number };
      cost: { totalYuan: number; complete: boolean };
    };
    expect(reply.model).toBe("alpha-sonnet-4-6");
    expect(reply.text.length).toBeGreaterThan(0);
    expect(reply.usage.completionTokens).toBeLessThanOrEqual(20);
    expect(reply.cost.complete).toBe(true);
    expect(reply.cost.totalYuan).toBeGreaterThan(0);
  });

  it.each([
    [["chat"], /Give the message in quotes/],
    [["chat", "hi", "--temperature", "1.5"], /--temperature to be from 0 to 1/],
    [["chat", "hi", "--max-tokens", "2.5"], /--max-tokens to be a whole number/],
    [["chat", "hi", "--out", "x.png"], /--out is for image models/],
    [["chat", "hi", "--nope"], /Unknown option --nope\./],
  ])("rejects bad usage %j with exit 2", async (argv, message) => {
    const result = await runCli(argv, { env: env(), cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr.text).toMatch(message);
  });

  it("exits 2 for a wrong key and never prints it", async () => {
    const wrong = "sk-wrong-key-for-chat-0000";
    const result = await runCli(["chat", "hi"], { env: gatewayEnv(gateway.baseURL, wrong), cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr.text).toMatch(/invalid_api_key/);
    expect(result.stdout.text + result.stderr.text).not.toContain(wrong);
  });
});
