// The shipped agents on the README's tasks, offline: they call the tools the task needs and succeed.
import { readdir } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalGateway, type LocalGateway } from "../src/server/index.js";
import { gatewayEnv, runCli } from "./cli-harness.js";
import { tempDir } from "./workflow-harness.js";

const DATA = path.join(import.meta.dirname, "..", "workflows", "data");
let gateway: LocalGateway;
beforeAll(async () => {
  gateway = await startLocalGateway({ config: { music: { completeAfterMs: 30 } } });
});
afterAll(async () => gateway?.close());

async function agent(name: string, task: string, ...flags: string[]) {
  const cwd = await tempDir("svc-flow-agent-");
  const result = await runCli(["agent", name, task, "--out", "run", "--json", ...flags], {
    env: gatewayEnv(gateway.baseURL, "sk-local-demo"),
    cwd,
  });
  return {
    ...result,
    cwd,
    run: JSON.parse(result.stdout.text) as {
      status: string;
      toolCalls: Array<{ name: string; failed: boolean; arguments: Record<string, unknown> }>;
      structuredResponse?: { figures: Array<{ value: number }> };
    },
  };
}

describe("the shipped agents on their example tasks", () => {
  it("data-analyst reads the shipped sales.csv and adds the units up with the calculator", async () => {
    const { code, run } = await agent(
      "data-analyst",
      "What were total unit sales in sales.csv, and which month was best?",
      "--workspace",
      DATA,
    );
    expect(code).toBe(0);
    expect(run.toolCalls.map((call) => [call.name, call.failed])).toEqual([
      ["read_file", false],
      ["calculator", false],
    ]);
    expect(run.structuredResponse?.figures.map((figure) => figure.value)).toEqual([2783, 530]);
  });

  it("media-producer makes an image and a jingle for a brief that never says 'Generate an image'", async () => {
    const { code, run, cwd } = await agent(
      "media-producer",
      "A poster and a 15-second jingle for Lumo, a solar lantern",
    );
    expect(code).toBe(0);
    expect(run.toolCalls.map((call) => call.name).sort()).toEqual(["compose_music", "generate_image"]);
    expect(run.toolCalls.every((call) => !call.failed)).toBe(true);
    expect(await readdir(path.join(cwd, "run", "workspace", "images"))).toHaveLength(1);
  });

  it("research-assistant fetches no URL the task does not give", async () => {
    const { run } = await agent("research-assistant", "Read notes/*.md and write a one-page summary to summary.md");
    expect(run.toolCalls.map((call) => call.name)).not.toContain("fetch_url");
  });
});
