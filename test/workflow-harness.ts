// Shared set-up of the workflow suites: a real local gateway on port 0, temp run directories, and
// readers for what a run leaves behind.
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { startLocalGateway, type LocalGateway, type LocalGatewayOptions } from "../src/server/index.js";
import {
  parseWorkflow,
  readJournal,
  runWorkflow,
  type JournalRecord,
  type RunResult,
  type RunWorkflowOptions,
  type WorkflowEvent,
} from "../src/workflow/index.js";

/** Starts a local gateway for the suite and closes it after. */
/** A map of two items, each waiting on a person's approval: a run that stops to wait. */
export const POSTER_CHECKS = `version: 1
name: poster-checks
steps:
  - id: posters
    map: [red, blue]
    steps:
      - id: check
        uses: approval
        with: { prompt: "Print the \${{ item }} poster?" }
`;

export function useGateway(config: LocalGatewayOptions["config"] = {}): { readonly current: LocalGateway } {
  const holder: { current: LocalGateway } = { current: undefined as unknown as LocalGateway };
  beforeAll(async () => {
    holder.current = await startLocalGateway({ config: { music: { completeAfterMs: 30 }, ...config } });
  });
  afterAll(async () => holder.current?.close());
  return holder;
}

/** A fresh folder under the system temp folder. */
export function tempDir(prefix = "svc-flow-run-"): Promise<string> {
  return mkdtemp(path.join(tmpdir(), prefix));
}

/** What a test run produced. */
export interface TestRun {
  readonly result: RunResult;
  readonly events: WorkflowEvent[];
  readonly journal: JournalRecord[];
}

/** Options that point a run at the suite's gateway with fast music polling. */
export function gatewayOptions(gateway: LocalGateway, extra: RunWorkflowOptions = {}): RunWorkflowOptions {
  return {
    gateway: { baseURL: gateway.baseURL, apiKey: "sk-local-demo" },
    music: { pollIntervalMs: 10 },
    notice: () => undefined,
    ...extra,
  };
}

/** Loads workflow text and runs it against the gateway in a new temp run directory. */
export async function runText(
  gateway: LocalGateway,
  text: string,
  extra: RunWorkflowOptions & { baseDir?: string; agentNames?: string[] } = {},
): Promise<TestRun> {
  const workflow = parseWorkflow(text, {
    fileName: "test.yaml",
    ...(extra.baseDir === undefined ? {} : { baseDir: extra.baseDir }),
    ...(extra.agentNames === undefined ? {} : { agentNames: extra.agentNames }),
    // The run's money settings, as `svc-flow run` passes its flags to the loader.
    budgetYuan: extra.budgetYuan,
    prices: extra.prices,
    allowUnpriced: extra.allowUnpriced,
  });
  const events: WorkflowEvent[] = [];
  const outDir = extra.outDir ?? path.join(await tempDir(), "run");
  const onEvent = (event: WorkflowEvent) => {
    events.push(event);
    extra.onEvent?.(event);
  };
  const result = await runWorkflow(workflow, gatewayOptions(gateway, { ...extra, outDir, onEvent }));
  return { result, events, journal: [...(await readJournal(path.join(outDir, "journal.jsonl"))).records] };
}

/** The records of one type in a journal. */
export function recordsOf<T extends JournalRecord["type"]>(
  journal: readonly JournalRecord[],
  type: T,
): Array<Extract<JournalRecord, { type: T }>> {
  return journal.filter((record): record is Extract<JournalRecord, { type: T }> => record.type === type);
}

/** Billed requests of the demo key so far. */
export function billed(gateway: LocalGateway) {
  return gateway.stats().keys[0]?.billed ?? [];
}

/** Reads a run directory's JSON file. */
export async function readJson(runDir: string, name: string): Promise<unknown> {
  return JSON.parse(await readFile(path.join(runDir, name), "utf8")) as unknown;
}
