import { formatYuan } from "../../cost/format-summary-table.js";
import type { RunDiff, RunSide, StepDiff, StepDiffStatus, StepSide } from "../run-diff/diff-runs.js";
import { hunkHeader, type ValueChange } from "../run-diff/diff-values.js";
import { htmlText } from "./escape-html.js";
import { formatTime } from "./format-report-values.js";
import type { MediaRef } from "./media-index.js";
import { reportPage } from "./render-report.js";
import { stepAnchor } from "./render-steps.js";

/** The key of an artifact of one run in the media map renderRunDiff takes. */
export function diffMediaKey(runDir: string, artifact: string): string {
  return `${runDir}\n${artifact}`;
}

const DIFF_STYLES = `
pre.diff { white-space: pre-wrap; }
pre.diff span { display: block; }
pre.diff .add { background: #dafbe1; }
pre.diff .del { background: #ffebe9; }
pre.diff .hunk { color: var(--muted); }
.side-by-side { display: grid; grid-template-columns: 1fr 1fr; gap: 14px; margin: 8px 0; }
.side-by-side figure { margin: 0; padding: 8px; border: 1px solid var(--line); border-radius: 8px; background: var(--soft); }
.side-by-side img { display: block; width: 100%; object-fit: contain; background: #fff; border-radius: 4px; }
.side-by-side audio { display: block; width: 100%; }
.badge.changed { color: var(--warn); border-color: #d4a72c; background: #fff8c5; }
.badge.added { color: var(--accent); border-color: #54aeff; background: #ddf4ff; }
.badge.removed { color: var(--bad); border-color: #ff8182; background: #ffebe9; }
h4.path { font-size: 14px; margin: 14px 0 4px; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
`;

const STATUS_CLASS: Readonly<Record<StepDiffStatus, string>> = {
  added: "added",
  removed: "removed",
  changed: "changed",
  same: "muted",
};

/**
 * Two runs compared as one self-contained page (the report's styles and escaping, no scripts):
 * the step table with both sides' cost, then each changed step's line diffs, and its images and
 * clips side by side. `media` holds the data URIs of the artifacts shown (see diffMediaKey), since
 * the page belongs to neither run directory; an artifact without one is named, not shown.
 */
export function renderRunDiff(diff: RunDiff, media: ReadonlyMap<string, string>): string {
  const { counts } = diff;
  const rows = diff.steps
    .map((step) => {
      const name =
        step.status === "same" ? htmlText(step.key) : `<a href="#${stepAnchor(step.key)}">${htmlText(step.key)}</a>`;
      return `<tr><th scope="row">${name}</th><td>${htmlText(step.kind)}</td><td>${badge(step.status)}</td><td>${htmlText(step.changes.join(", "))}</td><td class="num">${costText(step.a)}</td><td class="num">${costText(step.b)}</td></tr>`;
    })
    .join("\n");
  const runChanges = [...diff.inputs, ...diff.defaults];
  const body = `<h1>Compare runs: ${htmlText(diff.b.name)}</h1>
<p class="subtitle">${counts.changed} changed, ${counts.added} added, ${counts.removed} removed, ${counts.same} same${diff.workflowChanged ? " · the workflow file differs" : ""}</p>
<div class="facts">${runFact("A", diff.a)}${runFact("B", diff.b)}</div>
${runChanges.length === 0 ? "" : `<h2>Run</h2>\n${runChanges.map((change) => renderChange(change, diff, media)).join("\n")}`}
<h2>Steps</h2>
<table class="grid"><thead><tr><th>Step</th><th>Kind</th><th>Diff</th><th>What differs</th><th class="num">Cost A</th><th class="num">Cost B</th></tr></thead>
<tbody>
${rows}
</tbody></table>
${diff.steps
  .filter((step) => step.status !== "same")
  .map((step) => renderStep(step, diff, media))
  .join("\n")}
<footer>Written by svc-flow diff. Prices in yuan (CNY); "unpriced" means tokens were used by a model without a known price, not that they were free.</footer>`;
  return reportPage(`Compare runs: ${diff.b.name}`, body, { styles: DIFF_STYLES, inlineMedia: true });
}

function badge(status: StepDiffStatus): string {
  return `<span class="badge ${STATUS_CLASS[status]}">${htmlText(status)}</span>`;
}

function runFact(label: string, run: RunSide): string {
  const cost = `${formatYuan(run.costYuan)}${run.costComplete ? "" : " + unpriced"}`;
  return `<div class="fact"><span class="label">Run ${label} · ${htmlText(run.status)} · ${htmlText(formatTime(run.startedAt))}</span><span class="value">${htmlText(cost)}</span><code>${htmlText(run.dir)}</code></div>`;
}

function costText(side: StepSide | undefined): string {
  if (side === undefined) return `<span class="muted">—</span>`;
  if (side.reusedFrom !== undefined) return `<span class="muted">reused</span> ${htmlText(formatYuan(0))}`;
  if (side.unpricedCalls === 0) return htmlText(formatYuan(side.costYuan));
  return `${side.costYuan > 0 ? `${htmlText(formatYuan(side.costYuan))} + ` : ""}<span class="unpriced">unpriced</span>`;
}

function renderStep(step: StepDiff, diff: RunDiff, media: ReadonlyMap<string, string>): string {
  const head = `<h3>${htmlText(step.key)} ${badge(step.status)} <span class="meta">${htmlText(step.kind)}</span></h3>`;
  const only =
    step.status === "added"
      ? `<p class="muted">Only in run B (${htmlText(step.b?.status ?? "")}).</p>`
      : step.status === "removed"
        ? `<p class="muted">Only in run A (${htmlText(step.a?.status ?? "")}).</p>`
        : "";
  const status = step.changes.includes("status")
    ? `<p>Status: ${htmlText(step.a?.status ?? "")} → ${htmlText(step.b?.status ?? "")}</p>`
    : "";
  const reads =
    step.reads === undefined
      ? ""
      : `<p>${step.reads.length === 0 ? "Its step key differs: its map's list, tools, settings or rendered input changed." : `It reads ${step.reads.map((id) => `<code>${htmlText(id)}</code>`).join(", ")}, which changed.`}</p>`;
  const changes = [...step.input, ...step.output].map((change) => renderChange(change, diff, media)).join("\n");
  return `<section class="step" id="${stepAnchor(step.key)}">${head}${only}${status}${reads}${changes}</section>`;
}

function renderChange(change: ValueChange, diff: RunDiff, media: ReadonlyMap<string, string>): string {
  const title = `<h4 class="path">${htmlText(change.path)}</h4>`;
  if (change.type === "media")
    return `${title}<div class="side-by-side">${renderMedia("A", diff.a.dir, change.a, media)}${renderMedia("B", diff.b.dir, change.b, media)}</div>`;
  const lines = change.hunks.flatMap((hunk) => [
    `<span class="hunk">${htmlText(hunkHeader(hunk))}</span>`,
    ...hunk.lines.map((line) => {
      const kind = line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : "ctx";
      return `<span class="${kind}">${htmlText(line)}</span>`;
    }),
  ]);
  return `${title}<pre class="diff">${lines.join("")}</pre>`;
}

function renderMedia(
  label: string,
  runDir: string,
  ref: MediaRef | undefined,
  media: ReadonlyMap<string, string>,
): string {
  if (ref === undefined) return `<figure><figcaption>${label}: nothing</figcaption></figure>`;
  const source = media.get(diffMediaKey(runDir, ref.artifact));
  const caption = `<figcaption><strong>${label}</strong> <code>${htmlText(ref.artifact)}</code></figcaption>`;
  if (source === undefined)
    return `<figure><p class="muted">Not readable from the run directory.</p>${caption}</figure>`;
  const element = ref.mime.startsWith("image/")
    ? `<img src="${htmlText(source)}" alt="${htmlText(`${label}: ${ref.artifact}`)}">`
    : `<audio controls preload="metadata" src="${htmlText(source)}"></audio>`;
  return `<figure>${element}${caption}</figure>`;
}
