// Reading a workflow file's YAML: the value comes from js-yaml (fast, no positions), errors and
// files it does not take as they are go to the yaml package (positions, alias limits). Both must give
// the same value for what a workflow file holds, and every error must still name its place.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseDocument } from "yaml";
import { describe, expect, it } from "vitest";
import { parseWorkflowYaml } from "../src/workflow/load/parse-workflow-yaml.js";
import { WorkflowError } from "../src/workflow/workflow-error.js";

const WORKFLOWS = path.join(import.meta.dirname, "..", "workflows");

function yamlPackageValue(text: string): unknown {
  return parseDocument(text, { version: "1.2", schema: "core", uniqueKeys: true, merge: false }).toJS();
}

function issuesOf(text: string): WorkflowError["issues"] {
  try {
    parseWorkflowYaml(text, "flow.yaml");
  } catch (error) {
    if (error instanceof WorkflowError) return error.issues;
    throw error;
  }
  throw new Error("Expected the text to be refused.");
}

describe("reading a workflow file's YAML", () => {
  it("reads every example workflow to the value the yaml package reads", () => {
    const files = readdirSync(WORKFLOWS).filter((name) => name.endsWith(".yaml"));
    expect(files.length).toBeGreaterThan(3);
    for (const name of files) {
      const text = readFileSync(path.join(WORKFLOWS, name), "utf8");
      expect(parseWorkflowYaml(text, name).value, name).toEqual(yamlPackageValue(text));
    }
  });

  it("keeps YAML 1.2 core scalars: yes, on and 0755 as written, no << merges, quoted and block text", () => {
    const text = [
      "on: yes",
      "off: No",
      "mode: 0755",
      "octal: 0o17",
      "hex: 0x1F",
      "big: 1_000",
      "float: 1e3",
      "none: ~",
      "empty:",
      "'<<': { a: 1 }",
      'quoted: "tab\\there \\u00e9"',
      "block: |",
      "  line one",
      "  line two",
      "folded: >-",
      "  one",
      "  two",
      "",
    ].join("\n");
    const { value } = parseWorkflowYaml(text, "flow.yaml");
    expect(value).toEqual(yamlPackageValue(text));
    expect(value).toMatchObject({ on: "yes", off: "No", mode: 755, big: "1_000", "<<": { a: 1 } });
  });

  it("reads anchors and aliases through the yaml package, which still refuses an alias bomb", () => {
    expect(parseWorkflowYaml("base: &b { model: beta-4o }\nother: *b\n", "flow.yaml").value).toEqual({
      base: { model: "beta-4o" },
      other: { model: "beta-4o" },
    });
    const bomb = [
      "a: &a [x, x, x, x, x, x, x, x, x, x]",
      "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]",
      "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]",
      "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]",
      "",
    ].join("\n");
    expect(issuesOf(bomb)[0]?.message).toMatch(/aliases \(\*name\) expand too far/);
  });

  it("places a key written twice, a syntax error and a second document at their line and column", () => {
    expect(issuesOf("name: a\nsteps: []\nname: b\n")[0]).toMatchObject({ line: 3, column: 1 });
    expect(issuesOf("steps:\n  - id: a\n    with: { prompt: [unclosed }\n")[0]?.line).toBe(3);
    expect(issuesOf("name: a\n---\nname: b\n")[0]).toMatchObject({ line: 2 });
  });

  it("places a value found wrong after reading (no document kept) at its line and column", () => {
    const { locate } = parseWorkflowYaml("version: 1\nsteps:\n  - id: a\n    uses: chat\n", "flow.yaml");
    expect(locate(["steps", 0, "uses"])).toEqual({ line: 4, column: 11 });
    expect(locate(["steps", 0], { key: "uses" })).toEqual({ line: 4, column: 5 });
  });

  it("reads an empty file as null, as before", () => {
    expect(parseWorkflowYaml("", "flow.yaml").value).toBeNull();
    expect(parseWorkflowYaml("# nothing yet\n", "flow.yaml").value).toBeNull();
  });
});
