import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { CostEntry } from "../src/cost/cost-entry.js";
import { summarizeEntries } from "../src/cost/summarize-entries.js";
import { parseWorkflow, type JournalRecord, type RunSummary } from "../src/workflow/index.js";
import { escapeHtml, renderReport } from "../src/workflow/report/index.js";

describe("escapeHtml", () => {
  it.each([
    ["<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"],
    [`"quoted" & 'single'`, "&quot;quoted&quot; &amp; &#39;single&#39;"],
    ["&lt; already escaped", "&amp;lt; already escaped"],
    ["plain text, ¥0.42 — ok", "plain text, ¥0.42 — ok"],
    ["", ""],
  ])("escapes %j", (text, expected) => {
    expect(escapeHtml(text)).toBe(expected);
  });

  it("leaves no markup character and decodes back to the original text", () => {
    const decode = (html: string) =>
      html.replace(
        /&(lt|gt|quot|#39|amp);/g,
        (_, name: string) => ({ lt: "<", gt: ">", quot: '"', "#39": "'", amp: "&" })[name]!,
      );
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        const escaped = escapeHtml(text);
        return !/[<>"']/.test(escaped) && decode(escaped) === text;
      }),
    );
  });
});

const WORKFLOW = parseWorkflow(
  `version: 1
name: review
inputs:
  topic: { type: string }
steps:
  - id: ideas
    uses: chat
    with: { model: beta-4o-mini, prompt: "Ideas about \${{ inputs.topic }}" }
  - id: checks
    map: ["1 + 1", "1 /"]
    onItemError: collect
    steps:
      - id: sum
        uses: tool
        with: { tool: calculator, input: { expression: "\${{ item }}" } }
  - id: summary
    uses: chat
    with: { model: alpha-sonnet-4-6, prompt: "Summarise \${{ steps.ideas.output.text }}" }
`,
  { fileName: "review.yaml" },
);

const TIME = "2026-01-02T03:04:05.000Z";

function entry(fields: Partial<CostEntry>): CostEntry {
  return {
    time: TIME,
    kind: "chat",
    promptTokens: 10,
    completionTokens: 5,
    reasoningTokens: 0,
    images: 0,
    priceSource: "published",
    status: "ok",
    tags: {},
    ...fields,
  };
}

/** A failed run: `ideas` done (unpriced), a map with one failed item, `summary` failing on a bad key. */
function failedRun(replyText: string): RunSummary {
  const entries = [
    entry({
      modelRequested: "beta-4o-mini",
      modelServed: "beta-4o-mini-2024-07-18",
      priceSource: "unpriced",
      tags: { step: "ideas" },
    }),
    entry({
      modelRequested: "alpha-sonnet-4-6",
      status: "failed",
      errorCode: "auth",
      yuan: 0,
      tags: { step: "summary" },
    }),
  ];
  const finished = {
    startedAt: TIME,
    finishedAt: TIME,
    durationMs: 1500,
    attempts: 1,
    fallbacks: [],
    costYuan: 0,
    unpriced: true,
  };
  const error = { code: "auth", message: "Key sk-live-abcdef123456 was refused. Check SVC_API_KEY." };
  const journal: JournalRecord[] = [
    {
      type: "step-finished",
      key: "ideas",
      id: "ideas",
      kind: "chat",
      output: { text: replyText, model: "beta-4o-mini-2024-07-18" },
      ...finished,
    },
    { type: "item-finished", key: "checks", index: 0, at: TIME, output: "2" },
    {
      type: "item-finished",
      key: "checks",
      index: 1,
      at: TIME,
      error: { code: "invalid_expression", message: "Cannot read <1 />" },
    },
    {
      type: "step-finished",
      key: "checks",
      id: "checks",
      kind: "map",
      output: ["2", { error: {} }],
      ...finished,
      unpriced: false,
    },
    { type: "step-failed", key: "summary", id: "summary", at: TIME, error },
  ];
  return {
    runDir: "/tmp/runs/review",
    runId: "run-1",
    workflow: WORKFLOW,
    status: "failed",
    error: {
      ...error,
      message: `${error.message} Finished steps are kept; after fixing the cause, continue with: svc-flow resume /tmp/runs/review`,
    },
    inputs: { topic: `<img src=x onerror="alert(1)">` },
    cost: summarizeEntries(entries),
    entries,
    journal,
    startedAt: TIME,
    finishedAt: "2026-01-02T03:04:09.500Z",
  };
}

describe("renderReport", () => {
  it("shows a failed run with its resume command, its failed step and the map's failed item", () => {
    const html = renderReport(failedRun("Three ideas."));
    expect(html).toContain(`<div class="banner failed">`);
    expect(html).toContain(`<code class="command">svc-flow resume /tmp/runs/review</code>`);
    expect(html).toContain('Items: <strong>1</strong> done, <strong class="bad-text">1</strong> failed of 2.');
    expect(html).toContain("<code>[1]</code> <code>invalid_expression</code> Cannot read &lt;1 /&gt;");
    expect(html).toContain("beta-4o-mini → beta-4o-mini-2024-07-18");
    expect(html).toContain("4.5 s");
  });

  it("redacts API keys and escapes inputs and error messages", () => {
    const html = renderReport(failedRun("Three ideas."));
    expect(html).not.toContain("sk-live-abcdef123456");
    expect(html).toContain("sk-[redacted]");
    expect(html).not.toContain("<img src=x");
    expect(html).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
  });

  it("shows unpriced usage as unpriced, never as ¥0", () => {
    const html = renderReport(failedRun("Three ideas."));
    expect(html).toMatch(
      /<th scope="row">beta-4o-mini<\/th>(<td class="num">[\d,]+<\/td>){5}<td class="num unpriced">unpriced<\/td>/,
    );
    expect(html).toContain(`<td class="num" id="cost-total">¥0.0000 + unpriced: 1 call, 15 tokens</td>`);
  });

  it("keeps the page's markup outside a model's reply the same whatever the reply", () => {
    // The reply is rendered as Markdown inside its own <div class="markdown">; cut that out, the rest is fixed.
    const outside = (html: string) => html.replace(/<div class="markdown">[\s\S]*?<\/div>(?=<\/div><\/section>)/, "");
    const baseline = outside(renderReport(failedRun("")));
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (reply) => outside(renderReport(failedRun(reply))) === baseline),
      { numRuns: 60 },
    );
  });

  it("lets no model reply add a script, an element with a handler, an image or a javascript: link", () => {
    const reply = fc.array(
      fc.oneof(
        fc.constantFrom(
          "<script>x()</script>",
          "<img src=x onerror=y()>",
          "[a](javascript:y())",
          "![i](data:image/png;base64,AA)",
          "<a href='javascript:y()'>",
          "**b**",
          "\n\n- ",
          "`c`",
          "# h\n",
          "<iframe src=x>",
        ),
        fc.string(),
      ),
      { maxLength: 12 },
    );
    fc.assert(
      fc.property(reply, (parts) => {
        const html = renderReport(failedRun(parts.join(""))).replace(/<meta http-equiv[^>]*>/, "");
        return !/<script|<img|<iframe|<[a-z][^>]*\son\w+\s*=|href="\s*javascript:/i.test(html);
      }),
      { numRuns: 200 },
    );
  });

  it("renders a reply's Markdown as elements", () => {
    const html = renderReport(failedRun("## Ideas\n\n- **one**\n- two"));
    expect(html).toContain(
      `<div class="markdown"><h2>Ideas</h2>\n<ul>\n<li><strong>one</strong></li>\n<li>two</li>\n</ul>\n</div>`,
    );
  });

  it("says the failure's cause once and its resume command once in the banner", () => {
    const html = renderReport(failedRun("Three ideas."));
    const banner = /<div class="banner failed">[\s\S]*?<\/div>/.exec(html)![0];
    expect(banner.match(/svc-flow resume/g)).toHaveLength(1);
    expect(banner.match(/Finished steps are kept/g)).toHaveLength(1);
    expect(banner).toContain("<code>auth</code> Key sk-[redacted] was refused. Check SVC_API_KEY.</p>");
  });

  it("says a budget stop once, with what was spent, and the resume command with --budget once", () => {
    const run = failedRun("Three ideas.");
    const message =
      "Stopped by the budget (¥7.9000 spent of ¥8.0000): Reserving ¥0.4200 for gamma-2.5-flash-image would pass the cap. Finished steps are kept; resume with a raised budget: svc-flow resume /tmp/runs/review --budget YUAN";
    const html = renderReport({
      ...run,
      status: "stopped",
      reason: "budget",
      error: { code: "budget_exceeded", message },
    });
    const banner = /<div class="banner stopped">[\s\S]*?<\/div>/.exec(html)![0];
    expect(banner).toContain("<strong>Stopped by the budget (¥7.9000 spent of ¥8.0000).</strong>");
    expect(banner).toContain(
      "<code>budget_exceeded</code> Reserving ¥0.4200 for gamma-2.5-flash-image would pass the cap.</p>",
    );
    expect(banner).toContain(
      `resume with a raised budget: <code class="command">svc-flow resume /tmp/runs/review --budget YUAN</code>`,
    );
    expect(banner.match(/Stopped by the budget/g)).toHaveLength(1);
    expect(banner.match(/svc-flow resume/g)).toHaveLength(1);
  });

  it("lists the steps in the file's order, whatever order they finished in", () => {
    const run = failedRun("Three ideas.");
    const html = renderReport({ ...run, journal: [...run.journal].reverse() });
    const order = [...html.matchAll(/<section class="step" id="([^"]+)"/g)].map((match) => match[1]);
    expect(order).toEqual(["step-ideas", "step-checks", "step-summary"]);
  });

  it("shows the first 100 elements of a long output list and says how many more the run's files hold", () => {
    const run = failedRun("Three ideas.");
    const lines = Array.from({ length: 250 }, (_, index) => ({ text: `Line number ${index}.`, model: "beta-4o-mini" }));
    const html = renderReport({ ...run, status: "done", outputs: { lines } });
    const outputs = html.slice(html.indexOf('<div id="outputs">'), html.indexOf("<h2>Steps</h2>"));
    expect(outputs).toContain("Line number 99.");
    expect(outputs).not.toContain("Line number 100.");
    expect(outputs).toContain("150 more not shown; outputs.json and journal.jsonl have every one.");
  });

  it("names an agent's calls as turns", () => {
    const run = failedRun("Three ideas.");
    const entries = [1, 2, 3].map(() => entry({ modelRequested: "alpha-sonnet-4-6", tags: { step: "ideas" } }));
    const journal = run.journal.map((record) =>
      record.type === "step-finished" && record.key === "ideas" ? { ...record, kind: "agent", attempts: 3 } : record,
    );
    const html = renderReport({ ...run, entries, journal });
    expect(html).toMatch(
      /<a href="#step-ideas">ideas<\/a><\/span><\/th><td>agent<\/td>.*?<td class="num">3 turns<\/td>/,
    );
    expect(html).not.toMatch(/retr(y|ies)/);
  });
});
