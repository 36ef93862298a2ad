// Ctrl-C and SIGTERM as a shell user sends them to the real CLI (bin/svc-flow.js in a child process).
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startLocalGateway, type LocalGateway } from "../src/server/index.js";
import { spawnCli } from "./cli-process.js";
import { tempDir } from "./workflow-harness.js";

vi.setConfig({ testTimeout: 90_000 });

let gateway: LocalGateway;
let folder: string;
beforeAll(async () => {
  // Every call hangs long enough for the signal to land while it is in flight.
  gateway = await startLocalGateway({ config: { faults: { seed: 1, latencyMs: 20_000, models: {} } } });
  folder = await tempDir("svc-flow-signals-");
});
afterAll(async () => gateway?.close());

const env = () => ({ SVC_BASE_URL: gateway.baseURL, SVC_API_KEY: "sk-local-demo" });

const occurrences = (text: string, part: string) => text.split(part).length - 1;

describe("svc-flow agent interrupted", () => {
  it("prints the interruption once and exits 1 on Ctrl-C", async () => {
    const cli = spawnCli(["agent", "research-assistant", "What is 2 + 2?", "--workspace", "."], {
      cwd: folder,
      env: env(),
    });
    await cli.waitFor("agent research-assistant model");
    cli.child.kill("SIGINT");
    const { code } = await cli.exit;
    expect(occurrences(cli.stderr(), "Received SIGINT"), cli.stderr()).toBe(1);
    expect(cli.stderr()).toContain("[aborted]");
    expect(code).toBe(1);
  });
});
