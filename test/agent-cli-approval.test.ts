// `svc-flow agent NAME "TASK" --approve TOOLS` on a terminal asks y/n before each such call, under a
// real pseudo-terminal (script(1)); without a terminal it refuses to start rather than run unasked.
import { spawn } from "node:child_process";
import { access, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gatewayEnv, runCli } from "./cli-harness.js";
import { tempDir, useGateway } from "./workflow-harness.js";

const BIN = path.join(import.meta.dirname, "..", "bin", "svc-flow.js");
const gateway = useGateway();
// research-assistant calls the calculator and write_file for this task in its first turn.
const TASK = "Compute 17 * 23 and save the result to result.md.";

/** Runs the CLI under a pseudo-terminal and types `reply` once the question shows. */
function underTerminal(argv: string[], cwd: string, reply: string) {
  const quoted = [process.execPath, BIN, ...argv].map((part) => `'${part.replace(/'/g, "'\\''")}'`).join(" ");
  const child = spawn("script", ["-qefc", `exec ${quoted}`, "/dev/null"], {
    cwd,
    env: {
      ...process.env,
      ...gatewayEnv(gateway.current.baseURL, "sk-local-demo"),
      SVC_FLOW_USER: "ana",
      SHELL: "/bin/sh",
      TERM: "xterm-256color",
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let output = "";
  let typed = false;
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
    if (!typed && /\? \[y\/N\] /.test(output)) {
      typed = true;
      child.stdin.write(`${reply}\r`);
    }
  });
  const exit = new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { exit, output: () => output };
}

const argv = (workspace: string) => [
  "agent",
  "research-assistant",
  TASK,
  "--approve",
  "write_file",
  "--workspace",
  workspace,
  "--out",
  "run",
];

describe.skipIf(process.platform !== "linux")("svc-flow agent --approve on a terminal", () => {
  it("asks before the call, shows its arguments, and runs it on y", { timeout: 60_000 }, async () => {
    const folder = await tempDir("svc-flow-agent-tty-");
    const run = underTerminal(argv("ws"), folder, "y");

    expect(await run.exit).toBe(0);
    expect(run.output()).toMatch(/Allow write_file \{"path":"result\.md","content":"[^"]*"\}\? \[y\/N\]/);
    expect(await readFile(path.join(folder, "ws", "result.md"), "utf8")).not.toBe("");
  });

  it("on n, does not run the call and gives the words after it to the model", { timeout: 60_000 }, async () => {
    const folder = await tempDir("svc-flow-agent-tty-");
    const run = underTerminal(argv("ws"), folder, "n keep it in memory");

    expect(await run.exit).toBe(0);
    await expect(access(path.join(folder, "ws", "result.md"))).rejects.toThrow();
    const transcript = await readFile(path.join(folder, "run", "transcript.md"), "utf8");
    expect(transcript).toContain("rejected by ana: keep it in memory");
    expect(run.output()).toContain("rejected this call; it was not run: keep it in memory.");
  });
});

describe("svc-flow agent --approve without a terminal", () => {
  it("refuses to start (exit 2), naming the way that works without one", async () => {
    const folder = await tempDir("svc-flow-agent-tty-");
    const result = await runCli(argv("ws"), { env: gatewayEnv(gateway.current.baseURL, "sk-local-demo"), cwd: folder });

    expect(result.code).toBe(2);
    expect(result.stderr.text).toContain("--approve asks y/n on a terminal, and stdin is not one.");
  });
});
