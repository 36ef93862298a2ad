import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  buildStepGraph,
  hashValue,
  loadWorkflow,
  parseWorkflow,
  WorkflowError,
  type WorkflowIssue,
} from "../src/workflow/index.js";

function issuesOf(text: string, options: Parameters<typeof parseWorkflow>[1] = {}): WorkflowIssue[] {
  try {
    parseWorkflow(text, { fileName: "flow.yaml", ...options });
  } catch (error) {
    if (error instanceof WorkflowError) return [...error.issues];
    throw error;
  }
  throw new Error("the workflow loaded without errors");
}

const HEAD = "version: 1\ninputs: { song: { type: string } }\ndefaults:\n  model: alpha-sonnet-4-6\nsteps:\n";

describe("loading a workflow", () => {
  it("accepts the format sketched in the design and builds the step graph from references", () => {
    const workflow = parseWorkflow(
      `${HEAD}  - id: ideas
    uses: chat
    with: { prompt: "Three taglines", schema: { type: array, items: { type: string } } }
  - id: other
    uses: tool
    with: { tool: calculator, input: { expression: "1 + 1" } }
  - id: posters
    map: \${{ steps.ideas.output }}
    as: tagline
    onItemError: collect
    steps:
      - id: poster
        uses: image
        with: { prompt: "Poster: \${{ tagline }}" }
      - id: caption
        uses: chat
        with: { prompt: "Caption for \${{ steps.poster.output.artifact }} and \${{ steps.other.output }}" }
outputs:
  posters: \${{ steps.posters.output }}
`,
      { fileName: "flow.yaml" },
    );
    const after = Object.fromEntries(workflow.graph.map((node) => [node.step.id, node.after]));
    expect(after).toEqual({ ideas: [], other: [], posters: ["ideas", "other"] });
    expect(workflow.graph[2]!.children.map((node) => [node.step.id, node.after])).toEqual([
      ["poster", []],
      ["caption", ["poster"]],
    ]);
  });

  it("builds the same step graph from the references its check parsed as from the steps alone", () => {
    const workflow = parseWorkflow(
      `${HEAD}  - id: first
    uses: chat
    with: { prompt: "\${{ inputs.song }}" }
  - id: both
    parallel:
      - { id: left, uses: chat, with: { prompt: "L \${{ steps.first.output.text }}" } }
      - { id: right, uses: chat, if: "\${{ steps.first.output.text != '' }}", with: { prompt: R } }
  - id: items
    map: \${{ [steps.left.output.text, steps.right.output.text] }}
    steps:
      - { id: each, uses: chat, needs: [], with: { prompt: "\${{ item }}" } }
    output: \${{ steps.each.output.text }}
  - id: last
    uses: chat
    needs: [first]
    with: { prompt: "\${{ steps.items.output }}" }
`,
    );
    expect(workflow.graph.map((node) => [node.step.id, node.after])).toEqual([
      ["first", []],
      ["both", ["first"]],
      ["items", ["both"]],
      ["last", ["items", "first"]],
    ]);
    expect(workflow.graph).toEqual(buildStepGraph(workflow.definition.steps));
  });

  it("builds the step graph when it is first read and gives the same graph after", () => {
    const workflow = parseWorkflow(
      `${HEAD}  - id: first\n    uses: chat\n    with: { prompt: hi }\n  - id: second\n    uses: chat\n    with: { prompt: "\${{ steps.first.output.text }}" }\n`,
    );
    const graph = workflow.graph;
    expect(graph.map((node) => [node.step.id, node.after])).toEqual([
      ["first", []],
      ["second", ["first"]],
    ]);
    expect(workflow.graph).toBe(graph);
  });

  it.each([
    [
      "an unknown step kind",
      `${HEAD}  - id: a\n    uses: chatt\n    with: { prompt: hi }\n`,
      7,
      11,
      "steps[0].uses",
      /Unknown step kind "chatt"\. Did you mean "chat"\?/,
    ],
    [
      "an unknown field",
      `${HEAD}  - id: a\n    uses: chat\n    with: { prompt: hi, modle: beta-4o }\n`,
      8,
      25,
      "steps[0].with.modle",
      /Unknown field "modle"\. Did you mean "model"\?/,
    ],
    [
      "an unknown model",
      `${HEAD}  - id: a\n    uses: chat\n    with: { prompt: hi, model: beta-4oo }\n`,
      8,
      32,
      "steps[0].with.model",
      /Unknown model "beta-4oo"\. Did you mean "beta-4o"/,
    ],
    [
      "an unknown tool",
      `${HEAD}  - id: a\n    uses: tool\n    with: { tool: calculater }\n`,
      8,
      19,
      "steps[0].with.tool",
      /Unknown tool "calculater"\. Did you mean "calculator"\?/,
    ],
    [
      "a reference to a step that does not exist",
      `${HEAD}  - id: a\n    uses: chat\n    with: { prompt: "x \${{ steps.nope.output }}" }\n`,
      8,
      28,
      "steps[0].with.prompt",
      /There is no step "nope"/,
    ],
    [
      "a reference to a step that comes later",
      `${HEAD}  - id: a\n    uses: chat\n    with:\n      prompt: "\${{ steps.b.output.text }}"\n  - id: b\n    uses: chat\n    with: { prompt: hi }\n`,
      9,
      20,
      "steps[0].with.prompt",
      /Step "b" has not run yet at this point.*Move this step after "b"/,
    ],
    [
      "a needs: naming a step that comes later",
      `${HEAD}  - id: a\n    uses: chat\n    needs: [b]\n    with: { prompt: hi }\n  - id: b\n    uses: chat\n    with: { prompt: hi }\n`,
      8,
      13,
      "steps[0].needs[0]",
      /Step "b" does not run before this one\. Move this step after "b"/,
    ],
    [
      "a needs: naming no step",
      `${HEAD}  - id: a\n    uses: chat\n    with: { prompt: hi }\n  - id: b\n    uses: chat\n    needs: [zz]\n    with: { prompt: hi }\n`,
      11,
      13,
      "steps[1].needs[0]",
      /There is no step "zz" \(steps before this one: a\)/,
    ],
    [
      "audio sent to a model without audio input",
      `${HEAD}  - id: a\n    uses: chat\n    with:\n      model: beta-4o\n      prompt: listen\n      audio: ["\${{ inputs.song }}"]\n`,
      11,
      14,
      "steps[0].with.audio",
      /sends audio, but it may go to "beta-4o"\. Model "beta-4o" has no audio input; models with it: gamma-2\.5-pro/,
    ],
    [
      "a YAML 1.1 'on:' key (it stays a string key, and is unknown)",
      `on: push\n${HEAD}  - id: a\n    uses: chat\n    with: { prompt: hi }\n`,
      1,
      1,
      "on",
      /Unknown field "on"/,
    ],
  ])("reports %s with file, line, column and path", (_, text, line, column, shownPath, message) => {
    const [issue, ...rest] = issuesOf(text);
    expect(rest).toEqual([]);
    expect(issue).toMatchObject({ file: "flow.yaml", line, column });
    expect(issue!.message).toMatch(message);
    const error = (() => {
      try {
        parseWorkflow(text, { fileName: "flow.yaml" });
      } catch (caught) {
        return caught as WorkflowError;
      }
      return undefined;
    })();
    expect(error?.code).toBe("invalid_workflow");
    expect(error?.message).toContain(`flow.yaml:${line}:${column} ${shownPath}: `);
  });

  it("rejects duplicate keys instead of keeping the last one", () => {
    const [issue] = issuesOf(`${HEAD}  - id: a\n    uses: chat\n    with: { prompt: one, prompt: two }\n`);
    expect(issue).toMatchObject({ line: 8 });
    expect(issue!.message).toMatch(/unique/);
  });

  it("reports every problem of a file at once, in file order", () => {
    const issues = issuesOf(
      `${HEAD}  - id: a\n    uses: tool\n    with: { tool: nope }\n  - id: a\n    uses: chat\n    with: { prompt: "\${{ inputs.missing }}", model: gamma-9 }\n`,
    );
    expect(issues.map((issue) => issue.line)).toEqual([8, 9, 11, 11]);
    expect(issues.map((issue) => issue.message).join("\n")).toMatch(
      /already used[\s\S]*no input "missing"[\s\S]*Unknown model "gamma-9"/,
    );
  });

  it("reports the problems behind a shape error with it, each at its line", () => {
    const issues = issuesOf(
      [
        "version: 1",
        "concurrency: zero",
        "steps:",
        "  - id: a",
        "    uses: chat",
        '    with: { model: alpha-sonnet-4-6, prompt: "hi", bogus: 1 }',
        "  - id: b",
        "    parallel: [{ id: b1, uses: tool, with: { tool: calculater, input: {} } }]",
        "    extra: 1",
        "  - id: c",
        "    uses: chat",
        '    with: { model: gamma-9, prompt: "${{ steps.a.output.text }} ${{ steps.b1.output }} ${{ steps.zzz.output }}" }',
        'schedule: { cron: "99 * * * *" }',
        "",
      ].join("\n"),
    );
    expect(issues.map((issue) => [issue.line, issue.path.join(".")])).toEqual([
      [2, "concurrency"],
      [6, "steps.0.with.bogus"],
      [8, "steps.1.parallel.0.with.tool"],
      [9, "steps.1.extra"],
      [12, "steps.2.with.model"],
      [12, "steps.2.with.prompt"],
      [13, "schedule.cron"],
    ]);
    // Steps with a shape error still exist for the steps that read them: only "zzz" is unknown.
    expect(issues.filter((issue) => issue.message.includes("There is no step"))).toHaveLength(1);
    expect(issues.map((issue) => issue.message).join("\n")).toContain('There is no step "zzz"');
  });

  it("holds back the problems behind a shape error of a field the other checks read", () => {
    const issues = issuesOf(
      `version: 1\ninputs: { song: { type: strin } }\nsteps:\n  - id: a\n    uses: chat\n    with: { model: gamma-9, prompt: "\${{ inputs.song }}" }\n`,
    );
    expect(issues.map((issue) => issue.path.join("."))).toEqual(["inputs.song.type"]);
  });

  it("keeps defaults.fallbacks that cannot take a step's audio out of that step instead of failing", () => {
    const workflow = parseWorkflow(
      'version: 1\ndefaults: { model: gamma-2.5-flash, fallbacks: [beta-5, gamma-2.5-pro] }\nsteps:\n  - id: a\n    uses: chat\n    with: { prompt: hi, audio: ["data:audio/wav;base64,UklGRiQAAABXQVZFZm10IA=="] }\n',
    );
    expect(workflow.graph).toHaveLength(1);
  });

  it("refuses literal audio in a format the gateway does not take, naming the conversion", () => {
    const [issue] = issuesOf(
      `${HEAD}  - id: a\n    uses: chat\n    with: { model: gamma-2.5-flash, prompt: hi, audio: ["data:audio/ogg;base64,T2dnUw=="] }\n`,
    );
    expect(issue!.message).toMatch(/not mp3 or wav.*ffmpeg -i/);
  });

  it("needs a model for chat steps when defaults name none", () => {
    const [issue] = issuesOf("version: 1\nsteps:\n  - id: a\n    uses: chat\n    with: { prompt: hi }\n");
    expect(issue).toMatchObject({ line: 5, path: ["steps", 0, "with"] });
    expect(issue!.message).toMatch(/No model for this step/);
  });

  it("refuses an image model in a chat step and a chat model in an image step", () => {
    const issues = issuesOf(
      `${HEAD}  - id: a\n    uses: chat\n    with: { prompt: hi, model: gamma-2.5-flash-image }\n  - id: b\n    uses: image\n    with: { prompt: hi, model: beta-4o }\n`,
    );
    expect(issues.map((issue) => issue.message)).toEqual([
      expect.stringMatching(/only generates images; use it in a step with uses: image/),
      expect.stringMatching(/generates an image, but it may go to "beta-4o"/),
    ]);
  });

  it("lets a map's nested steps read the map variable but not steps outside read them", () => {
    const issues = issuesOf(
      `${HEAD}  - id: m\n    map: [1, 2]\n    steps:\n      - id: inner\n        uses: chat\n        with: { prompt: "\${{ item }}" }\n  - id: after\n    uses: chat\n    with: { prompt: "\${{ steps.inner.output.text }} \${{ item }}" }\n`,
    );
    expect(issues.map((issue) => issue.message)).toEqual([
      expect.stringMatching(/Step "inner" has not run yet/),
      expect.stringMatching(/Unknown name "item"/),
    ]);
  });

  it("keeps children of a parallel from reading each other", () => {
    const [issue] = issuesOf(
      `${HEAD}  - id: p\n    parallel:\n      - id: one\n        uses: chat\n        with: { prompt: hi }\n      - id: two\n        uses: chat\n        with: { prompt: "\${{ steps.one.output.text }}" }\n`,
    );
    expect(issue).toMatchObject({ path: ["steps", 0, "parallel", 1, "with", "prompt"] });
  });

  it("names the file that cannot be read", async () => {
    await expect(loadWorkflow("/nonexistent/flow.yaml")).rejects.toThrow(
      /Cannot read the workflow \/nonexistent\/flow\.yaml: there is no such file/,
    );
  });

  it("reads a file and names it relative to the current directory in errors", async () => {
    const folder = await mkdtemp(path.join(tmpdir(), "svc-flow-load-"));
    const file = path.join(folder, "broken.yaml");
    await writeFile(file, `${HEAD}  - id: a\n    uses: nope\n`);
    const error = (await loadWorkflow(file).then(
      () => undefined,
      (caught: unknown) => caught,
    )) as WorkflowError;
    expect(error.issues[0]!.file).toBe(path.relative(process.cwd(), file));
    expect(error.message).toContain("broken.yaml:7:11 steps[0].uses");
  });

  it("hashes content, not layout or key order", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (value) => {
        const reversed = Object.fromEntries(Object.entries(value).reverse());
        expect(hashValue(reversed)).toBe(hashValue(value));
      }),
    );
    const a = parseWorkflow(`${HEAD}  - id: a\n    uses: chat\n    with: { prompt: hi }\n`);
    const b = parseWorkflow(`# a comment\n${HEAD}  - id: a\n    uses: chat\n    with:\n      prompt: hi\n`);
    expect(b.hash).toBe(a.hash);
  });
});
