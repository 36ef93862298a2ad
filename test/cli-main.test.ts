import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { COMMANDS } from "../src/cli/commands/index.js";
import { runCli } from "./cli-harness.js";

const options = { env: {}, cwd: tmpdir() };

describe("svc-flow's command table", () => {
  it("lists every command with its summary, and runs with no command only to show them (exit 2)", async () => {
    const help = await runCli(["--help"], options);
    expect(help.code).toBe(0);
    for (const entry of COMMANDS) expect(help.stdout.text).toMatch(new RegExp(`^  ${entry.name} +${entry.summary.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`, "m"));
    const bare = await runCli([], options);
    expect(bare.code).toBe(2);
    expect(bare.stdout.text).toBe(help.stdout.text);
    expect((await runCli(["--version"], options)).stdout.text).toMatch(/^svc-flow \d+\.\d+\.\d+\n$/);
  });

  it("loads each command's module on demand, whose usage --help prints with the summary", async () => {
    expect(new Set(COMMANDS.map((entry) => entry.name)).size).toBe(COMMANDS.length);
    for (const entry of COMMANDS) {
      const command = await entry.load();
      expect(command.usage).toMatch(new RegExp(`^svc-flow ${entry.name}\\b`));
      const help = await runCli([entry.name, "--help"], options);
      expect(help.code).toBe(0);
      expect(help.stdout.text).toBe(`Usage: ${command.usage}\n\n${entry.summary}\n`);
    }
  });

  it("names an unknown command and a bad flag with exit 2", async () => {
    const unknown = await runCli(["rn"], options);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.text).toMatch(/^Unknown command "rn"\.\n\nUsage: svc-flow <command>/);
    const badFlag = await runCli(["runs", "--limit", "many"], options);
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr.text).toMatch(/^svc-flow runs: .*\nUsage: svc-flow runs /);
  });
});
