// Bad input of the workflow commands (a missing or taken run directory, a changed workflow, a bad
// file) exits 2; only a failure of the work itself exits 1.
import { access, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gatewayEnv, runCli, startCli } from "./cli-harness.js";
import { tempDir, useGateway } from "./workflow-harness.js";

const gateway = useGateway();

async function cli(argv: string[], cwd: string) {
  const { code, stderr } = await runCli(argv, { env: gatewayEnv(gateway.current.baseURL, "sk-local-demo"), cwd });
  return { code, stderr: stderr.text };
}

const FLOW = `version: 1
steps:
  - id: sum
    uses: tool
    with: { tool: calculator, input: { expression: "1 + 2" } }
`;

describe("CLI exit codes", () => {
  it("exits 2 for a run directory that is not one, one already taken, a changed workflow and an unknown tool", async () => {
    const folder = await tempDir();
    await writeFile(path.join(folder, "flow.yaml"), FLOW);
    await mkdir(path.join(folder, "empty"));

    const notARun = await cli(["resume", "empty"], folder);
    expect(notARun.stderr).toContain("[invalid_run_dir]");
    expect(notARun.code).toBe(2);

    expect((await cli(["run", "flow.yaml", "--out", "done"], folder)).code).toBe(0);
    const taken = await cli(["run", "flow.yaml", "--out", "done"], folder);
    expect(taken.stderr).toContain("[run_dir_taken]");
    // The run there finished: resume has nothing to do, rerun is how to run it again.
    expect(taken.stderr).toContain("svc-flow rerun");
    expect(taken.code).toBe(2);

    // The folder of runs rather than one run.
    const runsFolder = await cli(["resume", "."], folder);
    expect(runsFolder.stderr).toMatch(/holds run directories: pass one of them \(`svc-flow runs --dir /);
    expect(runsFolder.code).toBe(2);

    await writeFile(path.join(folder, "done", "workflow.yaml"), FLOW.replace("1 + 2", "2 + 2"));
    const changed = await cli(["resume", "done"], folder);
    expect(changed.stderr).toContain("[workflow_changed]");
    expect(changed.code).toBe(2);

    await writeFile(path.join(folder, "bad.yaml"), FLOW.replace("calculator", "calculater"));
    const unknown = await cli(["run", "bad.yaml", "--out", "bad"], folder);
    expect(unknown.stderr).toContain("calculator");
    expect(unknown.code).toBe(2);
  });

  it("reports Ctrl-C while the workflow loads as an interruption, with no run directory", async () => {
    const folder = await tempDir();
    await writeFile(path.join(folder, "flow.yaml"), FLOW);
    const running = startCli(["run", "flow.yaml", "--out", "run"], {
      env: gatewayEnv(gateway.current.baseURL, "sk-local-demo"),
      cwd: folder,
    });
    running.stop();
    expect(await running.exit).toBe(1);
    expect(running.stderr.text).toContain("[aborted]");
    expect(running.stderr.text).not.toContain("invalid_workflow");
    await expect(access(path.join(folder, "run"))).rejects.toThrow();
  });
});
