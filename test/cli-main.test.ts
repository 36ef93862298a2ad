import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { COMMANDS } from "../src/cli/commands/index.js";
import { runCli } from "./cli-harness.js";

const options = { env: {}, cwd: tmpdir() };

describe("svc-flow's command table", () => {
  it("lists every command with its summary, and runs with no command only to show them (exit 2)", async () => {
    const help = await runCli(["--help"], options);
    expect(help.code).toBe(0);
    for (const entry of COMMANDS)
      expect(help.stdout.text).toMatch(
        new RegExp(`^  ${entry.name} +${entry.summary.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`, "m"),
      );
    const bare = await runCli([], options);
    expect(bare.code).toBe(2);
    expect(bare.stdout.text).toBe(help.stdout.text);
    expect((await runCli(["--version"], options)).stdout.text).toMatch(/^svc-flow \d+\.\d+\.\d+\n$/);
  });

  it("loads each command's module on demand, whose --help gives its usage, its summary and one line per flag", async () => {
    expect(new Set(COMMANDS.map((entry) => entry.name)).size).toBe(COMMANDS.length);
    for (const entry of COMMANDS) {
      const command = await entry.load();
      expect(command.usage).toMatch(new RegExp(`^svc-flow ${entry.name}\\b`));
      const help = await runCli([entry.name, "--help"], options);
      expect(help.code).toBe(0);
      expect(help.stdout.text.startsWith(`Usage: ${command.usage.split("\n")[0]}\n`)).toBe(true);
      expect(help.stdout.text).toContain(`\n${entry.summary}\n`);
      const lines = help.stdout.text.split("\n");
      for (const [name, flag] of Object.entries(command.flags)) {
        const line = lines.find((text) => new RegExp(`^  --${name}\\b`).test(text));
        expect(line, `svc-flow ${entry.name} --help has no line for --${name}`).toBeDefined();
        expect(line).toContain(flag.help.split(" ").slice(0, 3).join(" "));
      }
      expect(lines.find((text) => text.startsWith("  -h, --help"))).toBeDefined();
    }
  });

  it("prints a command's help for svc-flow help COMMAND, as for COMMAND --help", async () => {
    const help = await runCli(["help", "resume"], options);
    expect(help.code).toBe(0);
    expect(help.stdout.text).toBe((await runCli(["resume", "--help"], options)).stdout.text);
  });

  it("names an unknown command in svc-flow help COMMAND with exit 2, not the general help with 0", async () => {
    const help = await runCli(["help", "mdoels"], options);
    expect(help.code).toBe(2);
    expect(help.stderr.text).toMatch(/^Unknown command "mdoels"\. Did you mean "models"\?\n/);
    expect(help.stdout.text).toBe("");
  });

  it.each([
    { argv: ["run", "x.yaml", "--detach"], says: "--detach goes with --redis URL" },
    { argv: ["resume", "runs/x", "--out", "elsewhere"], says: "--out goes with --redis" },
  ])(
    "refuses $argv.0's distributed-only flag without --redis instead of ignoring it (exit 2)",
    async ({ argv, says }) => {
      const result = await runCli(argv, options);
      expect(result.code).toBe(2);
      expect(result.stderr.text).toContain(says);
    },
  );

  it("prints package.json's version with --version", async () => {
    const manifest = JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8")) as {
      version: string;
    };
    const result = await runCli(["--version"], options);
    expect(result.code).toBe(0);
    expect(result.stdout.text).toBe(`svc-flow ${manifest.version}\n`);
  });

  it("keeps every help line of every command under 100 characters", async () => {
    const texts = [(await runCli(["--help"], options)).stdout.text];
    for (const entry of COMMANDS) texts.push((await runCli([entry.name, "--help"], options)).stdout.text);
    const long = texts.flatMap((text) => text.split("\n")).filter((line) => line.length > 100);
    expect(long).toEqual([]);
  });

  it("writes every flag's default the same way, as 'default: X'", async () => {
    for (const entry of COMMANDS) {
      const command = await entry.load();
      for (const [name, flag] of Object.entries(command.flags))
        expect(flag.help, `svc-flow ${entry.name} --${name}`).not.toMatch(/default [^:]/);
    }
  });

  it("describes svc-flow run's flags one per line", async () => {
    const help = (await runCli(["run", "--help"], options)).stdout.text;
    expect(help).toMatch(/^ {2}--budget YUAN +Stop \(resumably\) before spending more; default: the file's budget:$/m);
    expect(help).toMatch(
      /^ {2}--input NAME=VALUE \.\.\. +Set an input \(repeat for more; lists and objects as JSON\)$/m,
    );
    expect(help).toMatch(/^ {2}--items FILE +Run the steps once per row of a \.jsonl or \.csv file \(a batch\)$/m);
  });

  it("describes validate's money flags as checks, since validate spends nothing", async () => {
    const help = (await runCli(["validate", "--help"], options)).stdout.text;
    expect(help).toMatch(/^ {2}--budget YUAN +Check as for svc-flow run --budget/m);
    expect(help).not.toContain("Stop (resumably)");
  });

  it("says in run's help that media paths in --input are relative to the workflow file", async () => {
    const help = (await runCli(["run", "--help"], options)).stdout.text;
    expect(help).toContain("Media and item paths in --input values are relative to the workflow file");
  });

  it.each([
    {
      argv: ["run", "x.yaml", "--budjet", "3"],
      says: "svc-flow run: Unknown option --budjet. Did you mean --budget?\n",
    },
    { argv: ["runs", "--bogus"], says: "svc-flow runs: Unknown option --bogus.\n" },
    { argv: ["run", "x.yaml", "--budget"], says: "svc-flow run: --budget needs a value: --budget YUAN.\n" },
    {
      argv: ["run", "x.yaml", "--budget", "-1"],
      says: "svc-flow run: --budget needs a value (--budget YUAN); pass one that starts with a dash as --budget=VALUE.\n",
    },
    { argv: ["runs", "--json=yes"], says: "svc-flow runs: --json takes no value.\n" },
  ])("answers a flag mistake in $argv with one line naming the flag (exit 2)", async ({ argv, says }) => {
    const result = await runCli(argv, options);
    expect(result.code).toBe(2);
    expect(result.stderr.text.startsWith(says)).toBe(true);
    expect(result.stderr.text).not.toContain("positional");
  });

  it.each([["-v"], ["-V"], ["version"]])("prints the version for %s, as for --version", async (flag) => {
    const result = await runCli([flag], options);
    expect(result.code).toBe(0);
    expect(result.stdout.text).toBe((await runCli(["--version"], options)).stdout.text);
  });

  it("prints a command's help for svc-flow --help COMMAND, as for COMMAND --help", async () => {
    const help = await runCli(["--help", "run"], options);
    expect(help.code).toBe(0);
    expect(help.stdout.text).toBe((await runCli(["run", "--help"], options)).stdout.text);
  });

  it("says an option before any command goes after the command, with exit 2", async () => {
    const result = await runCli(["--budget", "3", "run", "x.yaml"], options);
    expect(result.code).toBe(2);
    expect(result.stderr.text).toMatch(
      /^Unknown option --budget: a command comes first, its options after it \(svc-flow <command> --help lists them\)\.\n\nUsage: svc-flow <command>/,
    );
  });

  it("names an unknown command and a bad flag with exit 2", async () => {
    const unknown = await runCli(["rn"], options);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.text).toMatch(/^Unknown command "rn"\. Did you mean "run"\?\n\nUsage: svc-flow <command>/);
    const badFlag = await runCli(["runs", "--limit", "many"], options);
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr.text).toMatch(
      /^svc-flow runs: .*\nUsage: svc-flow runs .*\nRun svc-flow runs --help for its options\.\n$/,
    );
  });
});
