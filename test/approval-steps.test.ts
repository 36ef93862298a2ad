// Approval steps in-process: map items waiting one decision each, a rejection an `if:` reads, the
// timeout's decision, what `svc-flow runs` and the report show, and the schema's checks at load.
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseWorkflow } from "../src/workflow/index.js";
import { gatewayEnv, runCli } from "./cli-harness.js";
import { readJson, tempDir, useGateway } from "./workflow-harness.js";

const gateway = useGateway();

async function cli(argv: string[], cwd: string) {
  const { code, stdout, stderr } = await runCli(argv, {
    env: { ...gatewayEnv(gateway.current.baseURL, "sk-local-demo"), SVC_FLOW_USER: "ana" },
    cwd,
  });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

async function folderWith(flow: string): Promise<string> {
  const folder = await tempDir("svc-flow-approval-");
  await writeFile(path.join(folder, "flow.yaml"), flow);
  return folder;
}

const MAP_FLOW = `version: 1
steps:
  - id: posters
    map: [red, blue]
    as: colour
    steps:
      - id: check
        uses: approval
        with: { prompt: "Print the \${{ colour }} poster?" }
    output: \${{ steps.check.output.approved }}
`;

const IF_FLOW = `version: 1
steps:
  - id: sign-off
    uses: approval
    with: { prompt: "Publish?" }
  - id: publish
    if: \${{ steps.sign-off.output.approved }}
    uses: tool
    with: { tool: calculator, input: { expression: "1 + 1" } }
outputs:
  approved: \${{ steps.sign-off.output.approved }}
  published: \${{ steps.publish.output }}
`;

describe("approval steps", () => {
  it("waits once per map item, each answered on its own with --item, and goes on once every item is answered", async () => {
    const folder = await folderWith(MAP_FLOW);
    const first = await cli(["run", "flow.yaml", "--out", "run"], folder);
    expect(first.code).toBe(3);
    expect(first.stdout).toContain("svc-flow approve run check --item 0");
    expect(first.stdout).toContain("svc-flow approve run check --item 1");

    const ambiguous = await cli(["approve", "run", "check"], folder);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain("--item N");

    expect((await cli(["approve", "run", "check", "--item", "1", "--reject", "--no-resume"], folder)).code).toBe(0);
    const last = await cli(["approve", "run", "check", "--item", "0"], folder);
    // The item rejected fails the map: the map's output does not read the decision through an if:.
    expect(last.code).toBe(1);
    expect(last.stderr).toContain("approval_rejected");
  });

  it("points a run failed by a rejected map item to rerun with the note, not to resume (which replays the rejection)", async () => {
    const folder = await folderWith(MAP_FLOW);
    expect((await cli(["run", "flow.yaml", "--out", "run"], folder)).code).toBe(3);
    const rejected = await cli(["approve", "run", "check", "--item", "0", "--reject", "--note", "too dark"], folder);
    expect(rejected.code).toBe(1);
    expect(rejected.stderr).toContain("rejected by ana: too dark.");
    expect(rejected.stderr).toContain(`svc-flow rerun ${path.join(folder, "run")}`);
    expect(rejected.stderr).not.toContain("svc-flow resume");
    const report = await readFile(path.join(folder, "run", "report.html"), "utf8");
    expect(report).toContain(`<code class="command">svc-flow rerun ${path.join(folder, "run")}</code>`);
  });

  it("lets a rejection through as approved: false when a later if: reads the step", async () => {
    const folder = await folderWith(IF_FLOW);
    expect((await cli(["run", "flow.yaml", "--out", "run"], folder)).code).toBe(3);
    const answered = await cli(["approve", "run", "sign-off", "--reject"], folder);
    expect(answered.code).toBe(0);
    expect(await readJson(path.join(folder, "run"), "outputs.json")).toEqual({ approved: false });
  });

  it("decides by onTimeout when the run is resumed after the timeout", async () => {
    const folder = await folderWith(
      IF_FLOW.replace(
        'with: { prompt: "Publish?" }',
        'with: { prompt: "Publish?", timeout: "1ms", onTimeout: approve }',
      ),
    );
    expect((await cli(["run", "flow.yaml", "--out", "run"], folder)).code).toBe(3);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const resumed = await cli(["resume", "run"], folder);
    expect(resumed.code).toBe(0);
    expect(await readJson(path.join(folder, "run"), "outputs.json")).toEqual({ approved: true, published: "2" });
  });

  it("lists a waiting run with what it waits for, and the report shows the question and what it shows", async () => {
    const folder = await folderWith(
      IF_FLOW.replace(
        'with: { prompt: "Publish?" }',
        'with: { prompt: "Publish?", show: { headline: "Lanterns for all" } }',
      ),
    );
    expect((await cli(["run", "flow.yaml", "--out", "runs/one"], folder)).code).toBe(3);
    const listed = await cli(["runs"], folder);
    expect(listed.stdout).toContain("waiting for sign-off");
    const report = await readFile(path.join(folder, "runs", "one", "report.html"), "utf8");
    expect(report).toContain("Publish?");
    expect(report).toContain("Lanterns for all");
    expect(report).toContain("svc-flow approve");
  });

  it("refuses an approval step without a prompt and an onTimeout it does not know, at load", () => {
    expect(() =>
      parseWorkflow(`version: 1\nsteps:\n  - id: a\n    uses: approval\n    with: { onTimeout: maybe }\n`),
    ).toThrow(/prompt[\s\S]*onTimeout|onTimeout[\s\S]*prompt/);
  });
});
