import { readFile } from "node:fs/promises";
import path from "node:path";
import type { PriceOverrides } from "../catalog/prices.js";
import { isUnpricedRefusal, RAISE_BUDGET_HINT } from "../cost/budget-errors.js";
import { formatYuan } from "../cost/format-summary-table.js";
import { assembleRun, awaitRun, type DistributedRunResult } from "../workflow/distributed/await-run.js";
import type { ApprovalAnswer } from "../workflow/approval/record-approval.js";
import { DISTRIBUTED_FILE } from "../workflow/distributed/distributed-file.js";
import { enqueueRun, reenqueueRun } from "../workflow/distributed/enqueue-run.js";
import { ItemApprovals } from "../workflow/distributed/item-approvals.js";
import { enqueueAnsweredItem, itemQueue, queueConnection } from "../workflow/distributed/item-queue.js";
import { RunStore } from "../workflow/distributed/run-store.js";
import type { Workflow } from "../workflow/load/load-workflow.js";
import { checkRedis } from "./check-redis.js";
import type { CommandContext } from "./command.js";
import { describeDecision, describeWaiting } from "./report-run-result.js";

/** `svc-flow run FILE --redis URL`: enqueues the run's items for the workers; waits unless detached. */
export async function runOnWorkers(
  context: CommandContext,
  workflow: Workflow,
  options: {
    redisURL: string;
    inputs: Record<string, string>;
    items?: string;
    outDir: string;
    detach: boolean;
    budgetYuan?: number;
    prices?: PriceOverrides;
    allowUnpriced?: boolean;
  },
): Promise<number> {
  await checkRedis(options.redisURL);
  const store = RunStore.connect(options.redisURL);
  try {
    const run = await enqueueRun(store, workflow, {
      redisURL: options.redisURL,
      inputs: options.inputs,
      ...(options.items === undefined ? {} : { items: options.items }),
      outDir: options.outDir,
      budgetYuan: options.budgetYuan,
      prices: options.prices,
      allowUnpriced: options.allowUnpriced,
      signal: context.signal,
    });
    context.stdout.write(`Run ${run.runId}: ${run.total} item(s) enqueued for the workers.\n`);
    if (options.detach) {
      context.stdout.write(`Follow or finish it from any machine with: svc-flow resume ${run.runId} --redis URL\n`);
      return 0;
    }
    return report(await wait(store, run.runId, context, run.runDir), context);
  } finally {
    await store.close();
  }
}

/**
 * `svc-flow resume RUN_ID --redis URL [--budget YUAN] [--prices FILE] [--allow-unpriced]`: sets what
 * was given (the run keeps its stored cap and prices otherwise), puts unfinished and failed items
 * back on the queue, waits, assembles the run directory.
 */
export async function resumeOnWorkers(
  context: CommandContext,
  runId: string,
  options: { redisURL: string; outDir?: string; budgetYuan?: number; prices?: PriceOverrides; allowUnpriced?: boolean },
): Promise<number> {
  await checkRedis(options.redisURL);
  const store = RunStore.connect(options.redisURL);
  try {
    const count = await reenqueueRun(store, runId, options.redisURL, {
      budgetYuan: options.budgetYuan,
      prices: options.prices,
      allowUnpriced: options.allowUnpriced,
    });
    context.stdout.write(`Run ${runId}: ${count} item(s) back on the queue.\n`);
    return report(await wait(store, runId, context, options.outDir), context);
  } finally {
    await store.close();
  }
}

/**
 * `svc-flow approve RUN_DIR STEP_ID --item N` on a distributed run: journals the answer in the item's
 * journal in Redis, puts the item back on the queue and (unless `resume` is false) waits for the run
 * as `resume` does. Workers replay the item's paid steps and go on from the answer.
 */
export async function approveOnWorkers(
  context: CommandContext,
  runDir: string,
  answer: ApprovalAnswer,
  options: { redisURL: string; resume: boolean },
): Promise<number> {
  const { runId } = await readDistributedRun(runDir);
  await checkRedis(options.redisURL);
  const store = RunStore.connect(options.redisURL);
  try {
    const decision = await new ItemApprovals(store).answer(runId, answer);
    context.stderr.write(`${describeDecision(decision)}.\n`);
    if (!options.resume) {
      // The run directory shows the answer at once (`svc-flow runs` no longer lists the item as waiting).
      await assembleRun(store, runId, path.resolve(runDir));
      context.stdout.write(`Recorded. Continue the run with: svc-flow resume ${runId} --redis URL\n`);
      return 0;
    }
    const connection = queueConnection(options.redisURL);
    const queue = itemQueue(connection);
    try {
      await enqueueAnsweredItem(queue, runId, decision.index, String(Date.parse(decision.at)));
    } finally {
      await queue.close();
      connection.disconnect();
    }
    return report(await wait(store, runId, context, runDir), context);
  } finally {
    await store.close();
  }
}

/** The run id a distributed run's directory holds (its distributed.json); undefined for a one-machine run. */
export async function distributedRunId(runDir: string): Promise<string | undefined> {
  return (await readDistributedRun(runDir).catch(() => undefined))?.runId;
}

async function readDistributedRun(runDir: string): Promise<{ runId: string }> {
  return JSON.parse(await readFile(path.join(runDir, DISTRIBUTED_FILE), "utf8")) as { runId: string };
}

function wait(
  store: RunStore,
  runId: string,
  context: CommandContext,
  runDir: string | undefined,
): Promise<DistributedRunResult> {
  const started = Date.now();
  return awaitRun(store, runId, {
    ...(runDir === undefined ? {} : { runDir }),
    signal: context.signal,
    onProgress: ({ done, failed, waiting, total }) => {
      const finished = done + failed;
      const seconds = (Date.now() - started) / 1000;
      const eta =
        finished === 0 || seconds === 0 ? "" : `, ETA ${Math.round(((total - finished) * seconds) / finished)} s`;
      const waits = waiting === 0 ? "" : `, ${waiting} waiting`;
      context.stderr.write(`items: ${done} done, ${failed} failed${waits}, ${total} total${eta}\n`);
    },
  });
}

function report(result: DistributedRunResult, context: CommandContext): number {
  const where = path.relative(context.cwd, result.runDir) || ".";
  if (result.status === "done") {
    context.stdout.write(
      `Done. ${result.done} item(s). Outputs: ${path.join(where, "outputs.jsonl")}. Cost: ${formatYuan(result.costYuan)}.\n`,
    );
    return 0;
  }
  const resume = `svc-flow resume ${result.runId} --redis URL`;
  if (result.status === "waiting") {
    // As a one-machine run words it; approve finds the run's items in Redis, so it takes --redis too.
    const questions = (result.waiting ?? []).map((waiting) => describeWaiting(waiting, where, " --redis URL"));
    context.stdout.write(
      `Waiting for a decision. Everything that did not need one is done and journaled.\n${questions.join("\n")}\n${result.done} done of ${result.total}. Cost so far: ${formatYuan(result.costYuan)}.\n`,
    );
    return 3;
  }
  if (result.reason === "budget") {
    // A cap cannot bound a call it cannot price: the fix is a price, not a higher cap.
    const fix =
      result.error !== undefined && isUnpricedRefusal(result.error.message)
        ? `resume with its price or with --allow-unpriced: ${resume} --prices FILE`
        : `resume with a raised budget: ${resume} --budget YUAN`;
    context.stderr.write(
      `Stopped by the budget (${formatYuan(result.costYuan)} spent): ${result.done} done of ${result.total}. ${result.error?.message.replace(RAISE_BUDGET_HINT, "") ?? ""} Finished items are kept; ${fix}\n`,
    );
    return 1;
  }
  if (result.error !== undefined) {
    const next =
      result.error.code === "approval_rejected" ? ASK_AGAIN : `After fixing the cause, continue with: ${resume}`;
    context.stderr.write(
      `Failed: item ${result.error.index}: ${result.error.message} No other item was started (onItemError: fail); ${result.done} done of ${result.total}. ${next}\n`,
    );
    return 1;
  }
  if (result.status === "stopped") {
    context.stderr.write(
      `Stopped waiting (the workers go on): ${result.done} done of ${result.total}. Continue with: ${resume}\n`,
    );
    return 1;
  }
  const rejected = result.rejected?.count ?? 0;
  // Resume replays a person's rejection from the item's journal: it helps only the items that failed otherwise.
  const others = result.failed - rejected;
  const next =
    rejected === 0
      ? `Continue with: ${resume}`
      : `${describeRejections(result.rejected!)}${others === 0 ? "" : ` The other ${others} failed item(s) run again with: ${resume}`}`;
  context.stderr.write(
    `Finished with ${result.failed} failed item(s): ${result.done} done of ${result.total}. ${next}\n`,
  );
  return 1;
}

const ASK_AGAIN =
  "A person's rejection is final in this run: resume would replay it. To ask again, start a new run (svc-flow run FILE --redis URL).";

function describeRejections(rejected: NonNullable<DistributedRunResult["rejected"]>): string {
  const shown = rejected.first.map((item) => `  item ${item.index}: ${item.message}`);
  const more = rejected.count > shown.length ? [`  ... and ${rejected.count - shown.length} more (outputs.jsonl)`] : [];
  return `${rejected.count} of them rejected by a person (approval_rejected):\n${[...shown, ...more].join("\n")}\n${ASK_AGAIN}`;
}
