// Facts the user docs state that come from the package manifest, checked against it.
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { COMMANDS } from "../src/cli/commands/index.js";
import { parseWorkflow, runWorkflow } from "../src/index.js";
import { tempDir } from "./workflow-harness.js";

const read = (file: string) => readFile(new URL(`../${file}`, import.meta.url), "utf8");

describe("what the docs say about the package", () => {
  it.each(["README.md", "docs/install.md"])(
    "%s names the Node version package.json's engines require",
    async (file) => {
      const manifest = JSON.parse(await read("package.json")) as { engines: { node: string } };
      const least = /^>=(\d+\.\d+\.\d+)$/.exec(manifest.engines.node)?.[1];
      expect(least).toBeDefined();
      const named = [...(await read(file)).matchAll(/Node (\d+\.\d+(?:\.\d+)?) or newer/g)].map((match) => match[1]);
      expect(named.length).toBeGreaterThan(0);
      for (const version of named) expect(version).toBe(least);
    },
  );
});

describe("what docs/workflows.md says a run directory holds", () => {
  it("names every file an offline run leaves in its run directory", { timeout: 60_000 }, async () => {
    const doc = await read("docs/workflows.md");
    const listing = /## The run directory\n\n```text\n([\s\S]*?)```/.exec(doc)?.[1] ?? "";
    const named = new Set(listing.split("\n").map((line) => /^ {2}(\S+?)\/?\s/.exec(line)?.[1]));
    const workflow = parseWorkflow(
      [
        "version: 1",
        "name: listing",
        "steps:",
        "  - id: line",
        "    uses: chat",
        '    with: { model: alpha-sonnet-4-6, prompt: "One line about lanterns.", maxTokens: 20 }',
        "  - id: poster",
        "    uses: image",
        '    with: { prompt: "A lantern poster" }',
        "",
      ].join("\n"),
    );
    const outDir = path.join(await tempDir("svc-flow-listing-"), "run");
    const result = await runWorkflow(workflow, { outDir, env: {}, notice: () => {} });
    expect(result.status).toBe("done");
    const files = await readdir(outDir);
    expect(files).toContain("gateway-state.jsonl");
    for (const file of files) expect(named, `${file} is not in the listing`).toContain(file);
  });
});

describe("what docs/cli.md says about the commands", () => {
  it("docs/cost-and-budgets.md names every command that takes --prices", async () => {
    const doc = await read("docs/cost-and-budgets.md");
    const sentence = /`run`, [^:]* take it as `--prices FILE`/.exec(doc)?.[0] ?? "";
    for (const entry of COMMANDS)
      if ("prices" in (await entry.load()).flags) expect(sentence, entry.name).toContain(`\`${entry.name}\``);
  });

  it("lists every command, and its page (cli.md or the page the table links) names each of its flags", async () => {
    const cli = await read("docs/cli.md");
    const pages = new Map(
      [...cli.matchAll(/^\| \[`([a-z]+)[^`]*`\]\(([^)#]*)[^)]*\) \|/gm)].map((match) => [match[1]!, match[2]!]),
    );
    for (const entry of COMMANDS) {
      expect(pages.has(entry.name), `docs/cli.md's table lacks ${entry.name}`).toBe(true);
      const page = pages.get(entry.name);
      const text = cli + (page === "" || page === undefined ? "" : await read(`docs/${page}`));
      const command = await entry.load();
      for (const flag of Object.keys(command.flags))
        expect(text.includes(`--${flag}`), `svc-flow ${entry.name} --${flag} is not in its docs`).toBe(true);
    }
  });

  it("gives each command's synopsis in docs/cli.md exactly the flags the command takes", async () => {
    const cli = await read("docs/cli.md");
    const synopses = new Map<string, Set<string>>();
    const add = (name: string, text: string) => {
      const flags = synopses.get(name) ?? new Set<string>();
      for (const flag of text.matchAll(/--([a-z][a-z-]*)/g)) flags.add(flag[1]!);
      synopses.set(name, flags);
    };
    // Synopsis blocks: a line starting `svc-flow NAME` and its indented continuation lines.
    for (const block of cli.matchAll(/```text\n([\s\S]*?)```/g))
      for (const line of block[1]!.matchAll(/^svc-flow ([a-z]+) .*\[--.*(?:\n[ \t]+\[.*)*/gm)) add(line[1]!, line[0]);
    // Synopses inline in prose: `svc-flow gateway [--port N] ...`.
    for (const span of cli.matchAll(/`(svc-flow ([a-z]+) [^`]*\[--[^`]*)`/g)) add(span[2]!, span[1]!);
    expect(synopses.size).toBeGreaterThanOrEqual(12);
    for (const entry of COMMANDS) {
      const documented = synopses.get(entry.name);
      if (documented === undefined) continue;
      const flags = Object.keys((await entry.load()).flags);
      expect([...documented].sort(), `svc-flow ${entry.name}'s synopsis in docs/cli.md`).toEqual(flags.sort());
    }
  });
});
