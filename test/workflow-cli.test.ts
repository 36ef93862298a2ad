import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { describeEvent } from "../src/cli/describe-event.js";
import { terminalStyle } from "../src/cli/terminal-style.js";
import { gatewayEnv, runCli } from "./cli-harness.js";
import { readJson, tempDir, useGateway } from "./workflow-harness.js";

const gateway = useGateway();

async function cli(argv: string[], cwd: string) {
  const { code, stdout, stderr } = await runCli(argv, {
    env: gatewayEnv(gateway.current.baseURL, "sk-local-demo"),
    cwd,
  });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

const POSTERS = `version: 1
inputs:
  subject: { type: string }
  count: { type: integer, default: 2 }
steps:
  - id: sizes
    uses: tool
    with: { tool: calculator, input: { expression: "\${{ inputs.count }} * 256" } }
  - id: posters
    map: ["dawn", "noon", "dusk"]
    concurrency: 1
    steps:
      - id: poster
        uses: image
        with: { prompt: "\${{ inputs.subject }} at \${{ item }}, \${{ steps.sizes.output }}px" }
`;

describe("svc-flow run, resume and validate", () => {
  it("validates files: 0 when good, 2 with file:line errors when not", async () => {
    const folder = await tempDir();
    await writeFile(path.join(folder, "good.yaml"), POSTERS);
    await writeFile(path.join(folder, "bad.yaml"), POSTERS.replace("uses: image", "uses: imagez"));
    expect(await cli(["validate", "good.yaml"], folder)).toMatchObject({
      code: 0,
      stdout: "good.yaml: ok (good, 3 steps)\n",
    });
    const bad = await cli(["validate", "good.yaml", "bad.yaml"], folder);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /^bad\.yaml:14:15 steps\[1\]\.steps\[0\]\.uses: Unknown step kind "imagez"\. Did you mean "image"\?/,
    );
  });

  it("runs with --input and --budget, stops at the budget with exit 1 and the resume command, then resumes with a raised budget", async () => {
    const folder = await tempDir();
    await writeFile(path.join(folder, "posters.yaml"), POSTERS);
    const stopped = await cli(
      ["run", "posters.yaml", "--input", "subject=a lantern", "--input", "count=3", "--budget", "0.9", "--out", "out"],
      folder,
    );
    expect(stopped.code).toBe(1);
    expect(stopped.stderr).toMatch(/Stopped by the budget \(.*\[budget_exceeded\]\n/);
    expect(stopped.stderr).toContain(`svc-flow resume ${path.join(folder, "out")} --budget YUAN`);
    expect(stopped.stderr).toMatch(/✓ posters\[1\]\.poster/);
    const resumed = await cli(["resume", "out", "--budget", "2"], folder);
    expect(resumed).toMatchObject({
      code: 0,
      stdout: "Done. Outputs: out/outputs.json. Report: out/report.html. Cost: ¥1.2600.\n",
    });
    expect(resumed.stderr).toMatch(/✓ sizes \(from the journal\)/);
    const outputs = (await readJson(path.join(folder, "out"), "outputs.json")) as { sizes: string; posters: unknown[] };
    expect(outputs.sizes).toBe("768");
    expect(outputs.posters).toHaveLength(3);
  });

  it("says which input is missing and exits 2", async () => {
    const folder = await tempDir();
    await writeFile(path.join(folder, "posters.yaml"), POSTERS);
    const result = await cli(["run", "posters.yaml", "--out", "out"], folder);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Input "subject" is required\. Pass it with --input subject=VALUE\./);
  });

  it("describes each event on one line", () => {
    const plain = terminalStyle({ isTTY: false }, {});
    expect(
      describeEvent(
        {
          type: "step-failed",
          key: "posters[2].poster",
          id: "poster",
          error: { code: "timeout", message: "Too slow." },
        },
        plain,
      ),
    ).toBe("✗ posters[2].poster: Too slow. [timeout]");
    expect(
      describeEvent({ type: "map-progress", key: "posters", id: "posters", done: 2, failed: 1, total: 3 }, plain),
    ).toBe("  posters: 2/3 done, 1 failed");
    expect(
      describeEvent(
        {
          type: "step-retry",
          key: "ideas",
          id: "ideas",
          attempt: 1,
          errorCode: "rate_limited",
          delayMs: 800,
          model: "beta-4o",
        },
        plain,
      ),
    ).toBe("↻ ideas: beta-4o attempt 1 failed (rate_limited); retrying in 0.8s");
  });
});
