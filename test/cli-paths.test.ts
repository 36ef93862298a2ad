// Paths as shell users have them: spaces, non-ASCII letters, quotes, and a working folder elsewhere.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startLocalGateway, type LocalGateway } from "../src/server/index.js";
import { BIN, spawnCli } from "./cli-process.js";
import { tempDir } from "./workflow-harness.js";

vi.setConfig({ testTimeout: 90_000 });

const LOOK = `version: 1
name: look
inputs:
  photo: { type: string }
steps:
  - id: look
    uses: chat
    with: { model: beta-4o, prompt: "Describe this photo.", images: ["\${{ inputs.photo }}"], maxTokens: 40 }
`;

const SIGN_OFF = `version: 1
name: sign-off
steps:
  - id: sign-off
    uses: approval
    with: { prompt: "Publish?" }
`;

let gateway: LocalGateway;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  gateway = await startLocalGateway({});
  env = { SVC_BASE_URL: gateway.baseURL, SVC_API_KEY: "sk-local-demo" };
});
afterAll(async () => gateway?.close());

async function cli(argv: string[], cwd: string) {
  const running = spawnCli(argv, { cwd, env });
  const { code } = await running.exit;
  return { code, stdout: running.stdout(), stderr: running.stderr() };
}

describe("paths with spaces and non-ASCII letters", () => {
  it("runs a workflow, a media input relative to it and --out from another working folder", async () => {
    const root = await tempDir("svc-flow-paths-");
    const project = path.join(root, "dir ü space");
    await mkdir(path.join(project, "media ☀"), { recursive: true });
    await copyFile(
      path.join(import.meta.dirname, "..", "workflows", "media", "lantern.png"),
      path.join(project, "media ☀", "lámpara 1.png"),
    );
    await writeFile(path.join(project, "flów 1.yaml"), LOOK);

    const result = await cli(
      ["run", "dir ü space/flów 1.yaml", "--input", "photo=media ☀/lámpara 1.png", "--out", "out dir/rün 1"],
      root,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("Outputs: out dir/rün 1/outputs.json");
    expect(existsSync(path.join(root, "out dir", "rün 1", "outputs.json"))).toBe(true);
  });

  it("prints approve and resume commands a shell runs as they are, quotes and all", async () => {
    const root = await tempDir("svc-flow-paths-");
    await writeFile(path.join(root, "flow.yaml"), SIGN_OFF);
    const out = "it's my rüns/one";
    const waiting = await cli(["run", "flow.yaml", "--out", out], root);
    expect(waiting.code).toBe(3);
    const approve = /Approve: (svc-flow approve .*) \[--note TEXT\]/.exec(waiting.stdout)?.[1];
    expect(approve).toBe(`svc-flow approve 'it'\\''s my rüns/one' sign-off`);

    // Pasted into a shell, with --no-resume so the resume line comes next.
    const shell = (command: string) =>
      promisify(execFile)("sh", ["-c", command.replace(/^svc-flow /, `"${process.execPath}" "${BIN}" `)], {
        cwd: root,
        env: { PATH: process.env.PATH, ...env },
      });
    const recorded = await shell(`${approve} --no-resume`);
    const resume = /Continue the run with: (svc-flow resume .*)/.exec(recorded.stdout)?.[1];
    expect(resume).toBe(`svc-flow resume 'it'\\''s my rüns/one'`);
    const resumed = await shell(resume!);
    expect(resumed.stdout).toContain("Done.");
  });
});

describe("a workflow given as -", () => {
  it.each([["run"], ["validate"], ["estimate"], ["schedule"]])(
    "%s refuses it with exit 2, saying to save the workflow to a file",
    async (command) => {
      const root = await tempDir("svc-flow-paths-");
      const running = spawnCli([command, "-"], { cwd: root, env, stdin: SIGN_OFF });
      const { code } = await running.exit;
      expect(running.stderr()).toContain("not from stdin (-). Save it first (e.g. cat > flow.yaml)");
      expect(code).toBe(2);
    },
  );

  it("prints the resume command of a stopped run's error, which the engine words, as a shell runs it", async () => {
    const root = await tempDir("svc-flow-paths-");
    await writeFile(
      path.join(root, "flow.yaml"),
      `version: 1
name: tight
steps:
  - id: line
    uses: chat
    with: { model: alpha-sonnet-4-6, prompt: "One line on kites", maxTokens: 40 }
`,
    );
    const stopped = await cli(["run", "flow.yaml", "--out", "out dir/rün", "--budget", "0.00001"], root);
    expect(stopped.code).toBe(1);
    const resume = /resume with a raised budget: (svc-flow resume .*) --budget YUAN/.exec(stopped.stderr)?.[1];
    expect(resume).toBe(`svc-flow resume '${path.join(root, "out dir", "rün")}'`);
    const resumed = await promisify(execFile)(
      "sh",
      ["-c", `${resume!.replace(/^svc-flow /, `"${process.execPath}" "${BIN}" `)} --budget 1`],
      { cwd: root, env: { PATH: process.env.PATH, ...env } },
    );
    expect(resumed.stdout).toContain("Done.");
  });
});

describe("a shipped workflow's name where the project has no such file", () => {
  const shipped = path.join(import.meta.dirname, "..", "workflows");

  it("run says where svc-flow's example of that name is, with exit 2 and no run directory", async () => {
    const root = await tempDir("svc-flow-paths-");
    const result = await cli(["run", "workflows/launch-kit.yaml"], root);
    expect(result.stderr).toContain(
      `Cannot read the workflow workflows/launch-kit.yaml: there is no such file. svc-flow's example of that name is ${path.join(shipped, "launch-kit.yaml")}. [invalid_workflow]`,
    );
    expect(result.code).toBe(2);
    expect(existsSync(path.join(root, "runs"))).toBe(false);
  });

  it("validate of an unexpanded workflows/*.yaml says where the examples are", async () => {
    const root = await tempDir("svc-flow-paths-");
    const result = await cli(["validate", "workflows/*.yaml"], root);
    expect(result.stderr).toContain(`svc-flow's example workflows are in ${shipped}${path.sep}.`);
    expect(result.code).toBe(2);
  });

  it("a missing file of another name gets no such hint", async () => {
    const root = await tempDir("svc-flow-paths-");
    const result = await cli(["estimate", "mine.yaml"], root);
    expect(result.stderr).toContain("Cannot read the workflow mine.yaml: there is no such file. [invalid_workflow]");
    expect(result.code).toBe(2);
  });
});
