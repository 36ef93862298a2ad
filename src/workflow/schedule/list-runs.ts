import { existsSync } from "node:fs";
import { open, readdir, readFile, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { roundYuan } from "../../catalog/prices.js";
import { DISTRIBUTED_FILE } from "../distributed/distributed-file.js";
import { readBatchFile, type BatchFile } from "../batch/run-batch.js";
import { isAlive, LOCK_FILE, readLockState } from "../run/run-dir-lock.js";
import { forEachJournalLine } from "../run/run-journal.js";

/**
 * A run's state as seen from its directory. `running`: a live process holds its lock;
 * `interrupted`: its process is gone; `svc-flow resume` finishes it; `waiting`: for a person;
 * `answered`: what it waited on is answered (`approve --no-resume`); `svc-flow resume` goes on.
 */
export type RunState = "running" | "done" | "failed" | "stopped" | "interrupted" | "waiting" | "answered";

/** One run directory, summarized. */
export interface RunListing {
  readonly dir: string;
  readonly name: string;
  /** ISO 8601, from the journal's first line. */
  readonly startedAt?: string;
  readonly state: RunState;
  /** Batch runs: items done, failed and in all. */
  readonly items?: { readonly done: number; readonly failed: number; readonly total: number };
  /** Priced spend in yuan so far. */
  readonly costYuan: number;
  /** True when some usage has no price, so `costYuan` is not the whole cost. */
  readonly unpriced: boolean;
  /** Yuan a gateway ignoring Idempotency-Key may have billed twice (cost.json's possibleDoubleBills), when any. */
  readonly possibleDoubleBillYuan?: number;
  /** A waiting run's unanswered approval steps (their keys, e.g. `sign-off`, `posters[2].check`). */
  readonly waitingFor?: readonly string[];
}

/** Lists the run directories under `runsDir`, newest first, at most `limit`. */
export async function listRuns(runsDir: string, options: { limit?: number } = {}): Promise<RunListing[]> {
  let entries;
  try {
    entries = await readdir(runsDir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const listings = await Promise.all(
    entries
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith("."))
      .map((entry) => describeRun(resolve(runsDir, entry.name))),
  );
  return listings
    .filter((listing): listing is RunListing => listing !== undefined)
    .sort((a, b) => (b.startedAt ?? "").localeCompare(a.startedAt ?? "") || b.dir.localeCompare(a.dir))
    .slice(0, options.limit ?? 20);
}

interface JournalLine {
  type?: string;
  name?: string;
  startedAt?: string;
  status?: RunState;
  pid?: number;
  entry?: { yuan?: number };
}

/** Summarizes one run directory; undefined when it holds no run. */
export async function describeRun(dir: string): Promise<RunListing | undefined> {
  const journal = join(dir, "journal.jsonl");
  const batch = await readBatchFile(dir).catch(() => undefined);
  const [first, last] = await Promise.all([readFirstLine(journal), readLastLine(journal)]);
  if (first === undefined && batch === undefined) return undefined;
  const started = first as JournalLine | undefined;
  const cost =
    (await readJson<{ totalYuan?: number; complete?: boolean; possibleDoubleBills?: { totalYuan?: number } }>(
      join(dir, "cost.json"),
    )) ?? (await sumJournalCost(journal));
  return {
    dir,
    name: started?.name ?? dir.split(/[\\/]/).pop()!,
    startedAt: started?.startedAt,
    ...(await runState(dir, journal, last as JournalLine | undefined, started, batch)),
    items:
      batch?.total === undefined ? undefined : { done: batch.done ?? 0, failed: batch.failed ?? 0, total: batch.total },
    costYuan: cost.totalYuan ?? 0,
    unpriced: cost.complete === false,
    ...doubleBilled("possibleDoubleBills" in cost ? cost.possibleDoubleBills?.totalYuan : undefined),
  };
}

async function runState(
  dir: string,
  journal: string,
  last: JournalLine | undefined,
  started: JournalLine | undefined,
  batch: Partial<BatchFile> | undefined,
): Promise<Pick<RunListing, "state" | "waitingFor">> {
  if (last?.type === "run-finished" && last.status !== undefined)
    return last.status === "waiting"
      ? { state: "waiting", waitingFor: await openApprovals(journal) }
      : { state: last.status };
  // `approve --no-resume` appends its answer after the waiting run's run-finished line. Unless a resume now
  // holds the run, it waits for the questions still open or, with none, for `svc-flow resume`.
  if (last?.type === "approval-decided" && (await readLockState(join(dir, LOCK_FILE))).state !== "held") {
    const open = await openApprovals(journal);
    return open.length > 0 ? { state: "waiting", waitingFor: open } : { state: "answered" };
  }
  return { state: await unfinishedState(dir, batch, () => lastAttemptPid(journal, started)) };
}

function doubleBilled(yuan: number | undefined): { possibleDoubleBillYuan?: number } {
  return yuan === undefined || yuan <= 0 ? {} : { possibleDoubleBillYuan: yuan };
}

// Approval questions asked and not answered, in the order asked.
async function openApprovals(file: string): Promise<string[]> {
  const asked: string[] = [];
  const answered = new Set<string>();
  await forEachLenientLine(file, '"type":"approval-', (record: { type?: string; key?: string }) => {
    if (typeof record.key !== "string") return;
    if (record.type === "approval-requested") asked.push(record.key);
    else if (record.type === "approval-decided") answered.add(record.key);
  });
  return asked.filter((key) => !answered.has(key));
}

// Without a run-finished line the run is going while its owner holds the lock. Directories from
// before the lock (or a distributed run's, owned by no process) fall back to the pid that wrote them.
async function unfinishedState(
  dir: string,
  batch: Partial<BatchFile> | undefined,
  journalPid: () => Promise<number | undefined>,
): Promise<RunState> {
  if (batch?.state === "done" || batch?.state === "failed" || batch?.state === "stopped" || batch?.state === "waiting")
    return batch.state;
  const lock = await readLockState(join(dir, LOCK_FILE));
  if (lock.state === "held") return "running";
  if (lock.state === "dead") return "interrupted";
  const pid = batch?.pid ?? (await journalPid());
  if (pid !== undefined && !isAlive(pid)) return "interrupted";
  return existsSync(join(dir, DISTRIBUTED_FILE)) || pid === undefined ? "running" : "interrupted";
}

// The process of the run's latest attempt: the last run-resumed record's, else run-started's.
async function lastAttemptPid(journal: string, started: JournalLine | undefined): Promise<number | undefined> {
  let resumed: JournalLine | undefined;
  await forEachLenientLine(journal, '{"type":"run-resumed"', (record: JournalLine) => {
    resumed = record;
  });
  return resumed === undefined ? started?.pid : resumed.pid;
}

// Hands on the records of the journal's lines that contain `marker` (only those are parsed), a chunk at a time: a
// big batch's journal passes 100 MB. `runs` shows what it can read: a damaged line, a torn tail or a missing
// journal leave out what they would have said.
async function forEachLenientLine<T>(file: string, marker: string, visit: (record: T) => void): Promise<void> {
  await forEachJournalLine(file, (text) => {
    if (!text.includes(marker)) return;
    const record = parseLine(text);
    if (typeof record === "object" && record !== null) visit(record as T);
  }).catch(() => undefined);
}

async function readJson<T>(file: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(file, "utf8")) as T;
  } catch {
    return undefined;
  }
}

const PROBE_BYTES = 64 * 1024;

async function readFirstLine(file: string): Promise<unknown> {
  const handle = await open(file, "r").catch(() => undefined);
  if (handle === undefined) return undefined;
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(PROBE_BYTES), 0, PROBE_BYTES, 0);
    const text = buffer.subarray(0, bytesRead).toString("utf8");
    return parseLine(text.slice(0, text.indexOf("\n")));
  } finally {
    await handle.close();
  }
}

async function readLastLine(file: string): Promise<unknown> {
  const size = await stat(file).then(
    (info) => info.size,
    () => 0,
  );
  if (size === 0) return undefined;
  const handle = await open(file, "r");
  try {
    const start = Math.max(0, size - PROBE_BYTES);
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(size - start), 0, size - start, start);
    const lines = buffer.subarray(0, bytesRead).toString("utf8").split("\n");
    // The text after the last newline is a torn write (or nothing); the line before it is the last record.
    lines.pop();
    return parseLine(lines.at(-1) ?? "");
  } finally {
    await handle.close();
  }
}

// A run still going has no cost.json yet: add up the cost lines of its journal.
async function sumJournalCost(file: string): Promise<{ totalYuan: number; complete: boolean }> {
  let totalYuan = 0;
  let complete = true;
  await forEachLenientLine(file, '"type":"cost"', (record: JournalLine) => {
    if (typeof record.entry !== "object" || record.entry === null) return;
    if (typeof record.entry.yuan === "number") totalYuan += record.entry.yuan;
    else complete = false;
  });
  return { totalYuan: roundYuan(totalYuan), complete };
}

function parseLine(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
