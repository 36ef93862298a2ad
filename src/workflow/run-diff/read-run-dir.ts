import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { summarizeEntries, type CostTotals } from "../../cost/summarize-entries.js";
import { ConfigError } from "../../errors.js";
import { parseWorkflow, type Workflow } from "../load/load-workflow.js";
import { stepKind } from "../report/collect-step-rows.js";
import type { ErrorSummary, JournalRecord, RecordOf, ResolvedCall, RunStarted } from "../run/journal-records.js";
import { Replay } from "../run/replay.js";

import { JOURNAL_FILE, WORKFLOW_COPY } from "../run/start-run-directory.js";
import { childSteps, type Step } from "../schema/step-schemas.js";

/** How a step instance ended in one run. */
export type InstanceStatus = "done" | "failed" | "skipped";

/** One leaf step instance of a run (`pitch`, `posters[1].poster`) as its journal tells it. */
export interface StepInstance {
  readonly key: string;
  readonly id: string;
  readonly kind: string;
  readonly status: InstanceStatus;
  readonly output?: unknown;
  readonly error?: ErrorSummary;
  /** The model that answered, when the output names one. */
  readonly model?: string;
  /** The step's calls in the run's ledger, every attempt counted; undefined when it made no billed call. */
  readonly cost?: CostTotals;
  /** What its result depends on (step-key.ts); runs journaled before step keys have none. */
  readonly stepKey?: string;
  /** The earlier run it was taken from (`--reuse`), at no cost. */
  readonly reusedFrom?: string;
  /** Its call as keyed: rendered `with:` and models (journals since step keys). */
  readonly call?: ResolvedCall;
}

/** A run directory as read for comparing: its start, its leaf step instances, its workflow copy. */
export interface RunDirContents {
  readonly dir: string;
  readonly start: RunStarted;
  /** How the last attempt ended; undefined while it runs or when its process died. */
  readonly finished?: RecordOf<"run-finished">["status"];
  /** Leaf step instances by key; the last record of a key wins (a resume finishing what failed). */
  readonly steps: ReadonlyMap<string, StepInstance>;
  /** The step key of every finished step instance, containers included, by journal key. */
  readonly stepKeys: ReadonlyMap<string, string>;
  readonly cost: { readonly totalYuan: number; readonly complete: boolean };
  /** The run's own copy of its workflow; undefined when it is missing or no longer loads. */
  readonly workflow?: Workflow;
}

const CONTAINERS: ReadonlySet<string> = new Set(["map", "parallel"]);

/**
 * Reads a run directory without taking its lock or touching a file, so a live run can be read: a
 * torn last journal line (a write under way) is left out, not cut.
 */
export async function readRunDir(dir: string): Promise<RunDirContents> {
  const directory = path.resolve(dir);
  const isDirectory = await stat(directory).then(
    (info) => info.isDirectory(),
    () => false,
  );
  if (!isDirectory)
    throw new ConfigError(`There is no run directory at ${directory}. Pass a directory \`svc-flow run\` wrote.`, {
      code: "invalid_run_dir",
    });
  const records: JournalRecord[] = [];
  const replay = await Replay.read(path.join(directory, JOURNAL_FILE), {
    each: (record) => {
      if (record.type === "step-finished" || record.type === "step-failed" || record.type === "step-skipped")
        records.push(record);
    },
  });
  const byStep = summarizeEntries(replay.costs).byTag.step ?? {};
  const steps = new Map<string, StepInstance>();
  const stepKeys = new Map<string, string>();
  for (const record of records) {
    if (record.type === "step-finished" && record.stepKey !== undefined) stepKeys.set(record.key, record.stepKey);
    if (record.type !== "step-finished" && record.type !== "step-failed" && record.type !== "step-skipped") continue;
    if (record.type === "step-finished" && CONTAINERS.has(record.kind)) {
      steps.delete(record.key);
      continue;
    }
    const previous = steps.get(record.key);
    const cost = byStep[record.key];
    const base = { key: record.key, id: record.id, ...(cost === undefined ? {} : { cost }) };
    if (record.type === "step-finished")
      steps.set(record.key, {
        ...base,
        kind: record.kind,
        status: "done",
        output: record.output,
        ...(record.model === undefined ? {} : { model: record.model }),
        ...(record.stepKey === undefined ? {} : { stepKey: record.stepKey }),
        ...(record.reused === undefined ? {} : { reusedFrom: record.reused.runDir }),
        ...(record.call === undefined ? {} : { call: record.call }),
      });
    // Failed and skipped records do not name the kind: it comes from an earlier record or the file.
    else if (record.type === "step-failed")
      steps.set(record.key, { ...base, kind: previous?.kind ?? "", status: "failed", error: record.error });
    else steps.set(record.key, { ...base, kind: previous?.kind ?? "", status: "skipped" });
  }
  const workflow = await readWorkflowCopy(directory, replay.start);
  const summary = summarizeEntries(replay.costs);
  return {
    dir: directory,
    start: replay.start,
    ...(replay.finished === undefined ? {} : { finished: replay.finished.status }),
    steps: withKinds(steps, workflow),
    stepKeys,
    cost: { totalYuan: summary.totalYuan, complete: summary.complete },
    ...(workflow === undefined ? {} : { workflow }),
  };
}

async function readWorkflowCopy(directory: string, start: RunStarted): Promise<Workflow | undefined> {
  const copy = path.join(directory, WORKFLOW_COPY);
  const text = await readFile(copy, "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    // Read to compare, never run: the run's budget against its prices is not this reader's concern.
    return parseWorkflow(text, { fileName: copy, baseDir: start.baseDir, allowUnpriced: true });
  } catch {
    // A copy that no longer loads (a model since removed, a media file moved) still has a journal to compare.
    return undefined;
  }
}

/** Fills in the kind of failed and skipped instances, and drops containers, from the file's steps. */
function withKinds(steps: Map<string, StepInstance>, workflow: Workflow | undefined): Map<string, StepInstance> {
  const kinds = new Map<string, string>();
  const visit = (list: readonly Step[]) => {
    for (const step of list) {
      kinds.set(step.id, stepKind(step));
      visit(childSteps(step));
    }
  };
  visit(workflow?.definition.steps ?? []);
  const result = new Map<string, StepInstance>();
  for (const [key, instance] of steps) {
    const kind = instance.kind === "" ? (kinds.get(instance.id) ?? "step") : instance.kind;
    if (!CONTAINERS.has(kind)) result.set(key, { ...instance, kind });
  }
  return result;
}
