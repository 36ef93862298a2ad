// What `svc-flow runs` says about a run answered with `approve --no-resume`, through the real CLI.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startLocalGateway, type LocalGateway } from "../src/server/index.js";
import { spawnCli } from "./cli-process.js";
import { POSTER_CHECKS, tempDir } from "./workflow-harness.js";

vi.setConfig({ testTimeout: 90_000 });

const FLOW = `version: 1
name: sign-off-flow
steps:
  - id: sign-off
    uses: approval
    with: { prompt: "Publish?" }
  - id: publish
    if: \${{ steps.sign-off.output.approved }}
    uses: tool
    with: { tool: calculator, input: { expression: "1 + 1" } }
`;

let gateway: LocalGateway;
beforeAll(async () => {
  gateway = await startLocalGateway({});
});
afterAll(async () => gateway?.close());

async function cli(argv: string[], cwd: string) {
  const running = spawnCli(argv, { cwd, env: { SVC_BASE_URL: gateway.baseURL, SVC_API_KEY: "sk-local-demo" } });
  const { code } = await running.exit;
  return { code, stdout: running.stdout(), stderr: running.stderr() };
}

async function folderWith(flow: string): Promise<string> {
  // A space in the folder: the resume command printed must still paste as one word.
  const folder = path.join(await tempDir("svc-flow-runs-state-"), "my runs");
  await mkdir(folder);
  await writeFile(path.join(folder, "flow.yaml"), flow);
  return folder;
}

describe("svc-flow runs after approve --no-resume", () => {
  it("lists the run as answered with the resume command that finishes it, not as interrupted", async () => {
    const folder = await folderWith(FLOW);
    expect((await cli(["run", "flow.yaml", "--out", "runs/one"], folder)).code).toBe(3);
    expect((await cli(["approve", "runs/one", "sign-off", "--no-resume"], folder)).code).toBe(0);

    const listed = await cli(["runs"], folder);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/sign-off-flow +answered /);
    expect(listed.stdout).not.toContain("interrupted");
    const runDir = path.join(folder, "runs", "one");
    expect(listed.stdout).toContain(`sign-off-flow is answered: go on with svc-flow resume '${runDir}'`);
    const json = JSON.parse((await cli(["runs", "--json"], folder)).stdout) as { state: string }[];
    expect(json.map((run) => run.state)).toEqual(["answered"]);

    expect((await cli(["resume", runDir], folder)).code).toBe(0);
    expect((await cli(["runs"], folder)).stdout).toMatch(/sign-off-flow +done /);
  });

  it("keeps a run with a question still open as waiting for that question", async () => {
    const folder = await folderWith(POSTER_CHECKS);
    expect((await cli(["run", "flow.yaml", "--out", "runs/one"], folder)).code).toBe(3);
    expect((await cli(["approve", "runs/one", "check", "--item", "0", "--no-resume"], folder)).code).toBe(0);

    const listed = await cli(["runs"], folder);
    expect(listed.stdout).toContain("waiting for posters[1].check");
    expect(listed.stdout).not.toContain("answered");
  });
});
