// The live view of `svc-flow run` as a person sees it: under a real pseudo-terminal (script(1)), with
// Ctrl-C typed into it, and as plain lines when stderr is not a terminal.
import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { progressPrinter } from "../src/cli/workflow-progress.js";
import { startLocalGateway, type LocalGateway } from "../src/server/index.js";
import { gatewayEnv, runCli } from "./cli-harness.js";
import { tempDir } from "./workflow-harness.js";

// How the live view writes a time: 0.4s, 12s, 2m05s (a loaded machine may take longer than 10 s).
const SECONDS = "(?:\\d+\\.\\ds|\\d+s|\\d+m\\d\\ds)";
const BIN = path.join(import.meta.dirname, "..", "bin", "svc-flow.js");
const FLOW = `version: 1
name: live
defaults: { model: alpha-sonnet-4-6, maxTokens: 40 }
steps:
  - id: lines
    map: [1, 2, 3, 4, 5, 6]
    as: n
    concurrency: 1
    steps:
      - id: line
        uses: chat
        with: { prompt: "One line about lantern \${{ n }}." }
  - id: jingle
    uses: music
    with: { prompt: "A lantern jingle", instrumental: true }
`;

/** The screen a terminal shows after `output`, for the few controls the live view writes. */
function screen(output: string): string[] {
  const lines: string[] = [""];
  let row = 0;
  // Colours and other SGR codes change no text.
  const text = output.replace(/\x1b\[[0-9;]*m/g, "");
  for (let index = 0; index < text.length; index++) {
    const control = /^\x1b\[(\d*)([AK])/.exec(text.slice(index, index + 8));
    if (control !== null) {
      if (control[2] === "A") row = Math.max(0, row - Number(control[1] || 1));
      else lines[row] = "";
      index += control[0].length - 1;
      continue;
    }
    const character = text[index]!;
    if (character === "\r") lines[row] = lines[row] ?? "";
    else if (character === "\n") {
      row++;
      lines[row] ??= "";
    } else lines[row] = (lines[row] ?? "") + character;
  }
  return lines.slice(0, row + 1).filter((line, at) => line !== "" || at < row);
}

/** Runs the CLI under a pseudo-terminal; `type` writes keystrokes (Ctrl-C is "\x03") once `when` shows. */
function underTerminal(argv: string[], env: NodeJS.ProcessEnv, cwd: string, keys?: { when: RegExp; type: string }) {
  const quoted = [process.execPath, BIN, ...argv].map((part) => `'${part.replace(/'/g, "'\\''")}'`).join(" ");
  // script(1) runs the command through $SHELL; `exec` makes the CLI the terminal's only process, or a shell that
  // stays (dash, when SHELL is unset) dies of the Ctrl-C itself and script reports 130 whatever the CLI did.
  const command = `exec ${quoted}`;
  const child = spawn("script", ["-qefc", command, "/dev/null"], {
    cwd,
    env: { ...process.env, ...env, SHELL: "/bin/sh", TERM: "xterm-256color", COLUMNS: "120" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let output = "";
  let typed = false;
  const frames: string[] = [];
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
    frames.push(output);
    if (keys !== undefined && !typed && keys.when.test(output)) {
      typed = true;
      child.stdin.write(keys.type);
    }
  });
  const exit = new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { exit, output: () => output, frames };
}

let gateway: LocalGateway;
let folder: string;
beforeAll(async () => {
  gateway = await startLocalGateway({
    config: { faults: { seed: 1, latencyMs: 150, models: {} }, music: { completeAfterMs: 1500 } },
  });
  folder = await tempDir("svc-flow-live-");
  await writeFile(path.join(folder, "live.yaml"), FLOW);
});
afterAll(async () => gateway?.close());

describe.skipIf(process.platform !== "linux")("the live view on a terminal", () => {
  it("shows the steps running with their time and the map's progress with an ETA, then clears them", {
    timeout: 120_000,
  }, async () => {
    const run = underTerminal(
      ["run", "live.yaml", "--out", "run-1"],
      gatewayEnv(gateway.baseURL, "sk-local-demo"),
      folder,
    );
    expect(await run.exit).toBe(0);
    const seen = run.frames.map((frame) => screen(frame).join("\n"));
    expect(seen.some((text) => new RegExp(`^▶ .*lines\\[\\d\\]\\.line ${SECONDS}`, "m").test(text))).toBe(true);
    expect(seen.some((text) => /^ {2}lines [1-5]\/6 done · ETA \d/m.test(text))).toBe(true);
    expect(seen.some((text) => new RegExp(`^▶ .*jingle ${SECONDS}`, "m").test(text))).toBe(true);
    const last = screen(run.output());
    // Finished: the map's line and the running line are gone; the steps' own lines stay.
    expect(last.some((line) => line.startsWith("▶") || /^ {2}lines \d\/6/.test(line))).toBe(false);
    expect(last.some((line) => new RegExp(`^✓ lines ${SECONDS}$`).test(line))).toBe(true);
    expect(last.at(-1)).toMatch(/^Done\. Outputs: run-1\/outputs\.json/);
    expect(run.output()).toContain("\x1b[32m✓\x1b[39m");
  });

  it("stops cleanly on Ctrl-C: says how to resume, logs no retry after it, and is not an error", {
    timeout: 120_000,
  }, async () => {
    const run = underTerminal(
      ["run", "live.yaml", "--out", "run-2"],
      gatewayEnv(gateway.baseURL, "sk-local-demo"),
      folder,
      { when: /lines 2\/6 done/, type: "\x03" },
    );
    const code = await run.exit;
    const text = screen(run.output()).join("\n");
    expect(text).toContain("■ Interrupted: the steps in flight stop");
    expect(text).toMatch(/Interrupted; resume with `svc-flow resume run-2`\./);
    expect(text.slice(text.indexOf("■ Interrupted"))).not.toMatch(/↻|✗|Stopped \(|\[error\]/);
    expect(code).toBe(1);
  });
});

describe("the live view's colour and plain lines", () => {
  function printed(isTTY: boolean, env: NodeJS.ProcessEnv): string {
    const stream = Object.assign(new PassThrough(), { isTTY, columns: 100 });
    let output = "";
    stream.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const print = progressPrinter(stream, { env, refreshMs: 60_000 });
    print({ type: "step-started", key: "ideas", id: "ideas", kind: "chat" });
    print({
      type: "step-finished",
      key: "ideas",
      id: "ideas",
      kind: "chat",
      durationMs: 1200,
      costYuan: 0,
      replayed: false,
    });
    print({ type: "run-finished", status: "done", runDir: "/tmp/run" });
    return output;
  }

  it("colours a terminal's lines", () => {
    expect(printed(true, {})).toContain("\x1b[32m✓\x1b[39m ideas");
  });

  it("leaves colour out when NO_COLOR is set, keeping the status lines", () => {
    const output = printed(true, { NO_COLOR: "1" });
    expect(output).not.toMatch(/\x1b\[\d+m/);
    expect(output).toContain("✓ ideas 1.2s");
    expect(output).toContain("\x1b[2K");
  });

  it("writes plain lines, no colour or cursor movement, when stderr is not a terminal", () => {
    expect(printed(false, {})).toBe("… ideas (chat)\n✓ ideas 1.2s\n");
  });

  it("writes plain lines on a TERM=dumb terminal, which cannot move the cursor", () => {
    expect(printed(true, { TERM: "dumb" })).toBe("… ideas (chat)\n✓ ideas 1.2s\n");
  });

  it("says a retry is waiting and for how long", { timeout: 60_000 }, async () => {
    const limited = await startLocalGateway({
      config: { faults: { seed: 1, latencyMs: 0, models: { "beta-4o-mini": { rateLimitRate: 1, retryAfterS: 0.3 } } } },
    });
    try {
      const flow = path.join(folder, "retry.yaml");
      await writeFile(
        flow,
        `version: 1\nsteps:\n  - id: ask\n    uses: chat\n    retry: { attempts: 2, minDelayMs: 1, maxDelayMs: 1 }\n    with: { model: beta-4o-mini, prompt: "Hi", maxTokens: 10 }\n`,
      );
      const result = await runCli(["run", flow, "--out", path.join(folder, "run-3")], {
        env: gatewayEnv(limited.baseURL, "sk-local-demo"),
        cwd: folder,
      });
      expect(result.stderr.text).toMatch(/^↻ ask: beta-4o-mini attempt 1 failed \(\w+\); retrying in 0\.3s$/m);
    } finally {
      await limited.close();
    }
  });
});
