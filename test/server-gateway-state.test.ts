// A local gateway started on a state folder carries on where the last one on that folder stopped:
// its music jobs, the responses it stored for Idempotency-Keys, and its bills.
import { describe, expect, it } from "vitest";
import { startLocalGateway, type LocalGateway } from "../src/server/index.js";
import { tempDir } from "./workflow-harness.js";

const KEY = "sk-local-demo";
const headers = (extra: Record<string, string> = {}) => ({
  authorization: `Bearer ${KEY}`,
  "content-type": "application/json",
  ...extra,
});

async function generate(gateway: LocalGateway): Promise<string[]> {
  const response = await fetch(`${gateway.rootURL}/musicapi/api/generate`, {
    method: "POST",
    headers: headers(),
    body: JSON.stringify({ prompt: "A lantern jingle" }),
  });
  const clips = (await response.json()) as Array<{ id: string }>;
  return clips.map((clip) => clip.id);
}

async function chat(gateway: LocalGateway, idempotencyKey: string): Promise<{ id: string; text: string }> {
  const response = await fetch(`${gateway.baseURL}/chat/completions`, {
    method: "POST",
    headers: headers({ "idempotency-key": idempotencyKey }),
    body: JSON.stringify({
      model: "alpha-sonnet-4-6",
      messages: [{ role: "user", content: "One line about lanterns." }],
    }),
  });
  const body = (await response.json()) as { id: string; choices: Array<{ message: { content: string } }> };
  return { id: body.id, text: body.choices[0]!.message.content };
}

describe("a local gateway with a state folder", () => {
  it("knows the music jobs of the gateway that ran before it on the folder, and finishes them", async () => {
    const stateDir = await tempDir("svc-flow-state-");
    const first = await startLocalGateway({ stateDir, config: { music: { completeAfterMs: 50 } } });
    const ids = await generate(first);
    await first.close();
    const second = await startLocalGateway({ stateDir, config: { music: { completeAfterMs: 50 } } });
    try {
      await new Promise((resolve) => setTimeout(resolve, 80));
      const response = await fetch(`${second.rootURL}/musicapi/api/get?ids=${ids.join(",")}`, { headers: headers() });
      expect(response.status).toBe(200);
      const clips = (await response.json()) as Array<{ id: string; status: string; audio_url: string }>;
      expect(clips.map((clip) => clip.status)).toEqual(["complete", "complete"]);
      expect((await fetch(clips[0]!.audio_url)).status).toBe(200);
    } finally {
      await second.close();
    }
  });

  it("replays a response the earlier gateway billed for an Idempotency-Key, and carries its bills", async () => {
    const stateDir = await tempDir("svc-flow-state-");
    const first = await startLocalGateway({ stateDir });
    const original = await chat(first, "run-1-step-line");
    const billedYuan = first.stats().billedYuan;
    await first.close();
    const second = await startLocalGateway({ stateDir });
    try {
      expect(second.stats().billedYuan).toBe(billedYuan);
      expect(await chat(second, "run-1-step-line")).toEqual(original);
      expect(second.stats().billedYuan).toBe(billedYuan);
      expect(second.stats().keys[0]!.requests.replayed).toBe(1);
    } finally {
      await second.close();
    }
  });

  it("keeps the folder free of the API key", async () => {
    const stateDir = await tempDir("svc-flow-state-");
    const gateway = await startLocalGateway({ stateDir });
    await chat(gateway, "a-key");
    await generate(gateway);
    await gateway.close();
    const { readFile } = await import("node:fs/promises");
    const text = await readFile(`${stateDir}/gateway-state.jsonl`, "utf8");
    expect(text).toContain("music-job");
    expect(text).not.toContain(KEY);
  });
});
