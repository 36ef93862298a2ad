// An agent step's turns are journaled as they complete: kill -9 a real `svc-flow run` after two paid
// model turns, resume, and the gateway's own bill shows every turn paid once. The gateway sits behind
// a relay that drops Idempotency-Key, so nothing is replayed by the gateway: the proof is the journal's.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalGateway, type LocalGateway } from "../src/server/index.js";
import { roundYuan } from "../src/catalog/prices.js";
import { formatYuan } from "../src/cost/format-summary-table.js";
import { readJournal } from "../src/workflow/index.js";
import { readJson, recordsOf, tempDir } from "./workflow-harness.js";

const BIN = path.join(import.meta.dirname, "..", "bin", "svc-flow.js");
const MODEL = "alpha-sonnet-4-6";
// The simulated model reads the file (turn 1), adds the column with the calculator (turn 2), then answers (turn 3).
const FLOW = `version: 1
defaults: { model: ${MODEL}, maxTokens: 300 }
steps:
  - id: tally
    uses: agent
    with: { tools: [read_file, calculator], prompt: "Read sales.csv and report its total units." }
`;

/** A relay in front of the gateway that forwards every request without its Idempotency-Key header. */
async function startKeyDroppingRelay(gateway: LocalGateway): Promise<{ baseURL: string; server: Server }> {
  const target = new URL(gateway.rootURL);
  const server = createServer((incoming, outgoing) => {
    const { "idempotency-key": _dropped, ...headers } = incoming.headers;
    const forward = httpRequest(
      { host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forward.on("error", () => outgoing.destroy());
    // A client that dies mid-call closes the upstream request too, as a relay does.
    outgoing.on("close", () => forward.destroy());
    incoming.pipe(forward);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, server };
}

let gateway: LocalGateway;
let relay: { baseURL: string; server: Server };
beforeAll(async () => {
  // Each call takes a while at the gateway, so the kill lands while the third turn is still unbilled.
  gateway = await startLocalGateway({ config: { faults: { seed: 1, latencyMs: 400, models: {} } } });
  relay = await startKeyDroppingRelay(gateway);
});
afterAll(async () => {
  relay?.server.closeAllConnections();
  relay?.server.close();
  await gateway?.close();
});

const modelBills = () => gateway.stats().keys[0]!.billed.filter((entry) => entry.model === MODEL);

async function journaledTurns(runDir: string): Promise<number> {
  const text = await readFile(path.join(runDir, "journal.jsonl"), "utf8").catch(() => "");
  return text.split("\n").filter((line) => line.includes('"type":"agent-turn"')).length;
}

/** Runs the CLI in a child process; with `killAfterTurns`, SIGKILLs it once the journal holds that many turns. */
async function cli(argv: string[], cwd: string, killAfterTurns?: { runDir: string; turns: number }) {
  const child = spawn(process.execPath, [BIN, ...argv], {
    cwd,
    env: { ...process.env, SVC_BASE_URL: relay.baseURL, SVC_API_KEY: "sk-local-demo" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  for (const stream of [child.stdout, child.stderr]) stream.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let finished = false;
  void exited.then(() => (finished = true));
  if (killAfterTurns !== undefined) {
    while (!finished) {
      if ((await journaledTurns(killAfterTurns.runDir)) >= killAfterTurns.turns) {
        child.kill("SIGKILL");
        await exited;
        return { killed: true, code: null, output };
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
  return { killed: false, code: await exited, output };
}

describe("a durable agent step killed with kill -9", () => {
  it("resumes from its journaled turns and pays for no turn twice", { timeout: 120_000 }, async () => {
    const folder = await tempDir("svc-flow-agent-kill-");
    await mkdir(path.join(folder, "data"));
    await writeFile(path.join(folder, "data", "sales.csv"), "region,units\nnorth,120\nsouth,80\neast,45\n");
    await writeFile(path.join(folder, "flow.yaml"), FLOW);
    const runDir = path.join(folder, "run");

    const killed = await cli(["run", "flow.yaml", "--out", runDir, "--workspace", "data"], folder, {
      runDir,
      turns: 2,
    });
    expect(killed.killed).toBe(true);
    expect(modelBills()).toHaveLength(2);

    const resumed = await cli(["resume", runDir], folder);
    expect(resumed.output).toContain("Done.");
    expect(resumed.code).toBe(0);

    // Three turns in all, each paid once: the two before the kill came from the journal on resume.
    expect(modelBills()).toHaveLength(3);
    expect(gateway.stats().keys[0]!.requests.replayed).toBe(0);
    const { records } = await readJournal(path.join(runDir, "journal.jsonl"));
    expect(recordsOf(records, "agent-turn").map((record) => record.turn)).toEqual([1, 2, 3]);
    const outputs = (await readJson(runDir, "outputs.json")) as {
      tally: { text: string; toolCalls: { name: string; result: string }[] };
    };
    expect(outputs.tally.toolCalls.map((call) => call.name)).toEqual(["read_file", "calculator"]);
    expect(outputs.tally.text).toContain("245");
    const cost = (await readJson(runDir, "cost.json")) as { totalYuan: number };
    expect(cost.totalYuan).toBeCloseTo(gateway.stats().billedYuan, 6);
  });

  it("counts every journaled turn in the resumed step's cost: its record, its line and the run's cost agree with the bill", {
    timeout: 120_000,
  }, async () => {
    const folder = await tempDir("svc-flow-agent-kill-cost-");
    await mkdir(path.join(folder, "data"));
    await writeFile(path.join(folder, "data", "sales.csv"), "region,units\nnorth,120\nsouth,80\neast,45\n");
    await writeFile(path.join(folder, "flow.yaml"), FLOW);
    const runDir = path.join(folder, "run");
    const before = modelBills().length;

    const killed = await cli(["run", "flow.yaml", "--out", runDir, "--workspace", "data"], folder, {
      runDir,
      turns: 2,
    });
    expect(killed.killed).toBe(true);
    const resumed = await cli(["resume", runDir], folder);
    expect(resumed.code).toBe(0);

    // Two turns paid before the kill, one after it: the step's cost is all three, each once.
    const bills = modelBills().slice(before);
    expect(bills).toHaveLength(3);
    const billed = roundYuan(bills.reduce((sum, bill) => sum + bill.yuan, 0));
    const { records } = await readJournal(path.join(runDir, "journal.jsonl"));
    const finished = recordsOf(records, "step-finished").find((record) => record.key === "tally");
    expect(finished?.costYuan).toBeCloseTo(billed, 6);
    expect(finished?.attempts).toBe(3);
    const cost = (await readJson(runDir, "cost.json")) as { totalYuan: number };
    expect(cost.totalYuan).toBeCloseTo(billed, 6);
    expect(resumed.output).toMatch(new RegExp(`✓ tally .*${formatYuan(billed).replace(/[.¥]/g, "\\$&")}`));
  });
});
